#!/bin/sh
# timeout: 900
# suite: quick
# Draining a tier of the virtual swap device (mm-patches 0015,
# docs/vswap.md): removing a tier while the virtual device is on moves the
# data of every slot it holds to the other tiers by rewriting forward
# entries; page tables keep the same virtual slots. tiers.sh's vswap spec:
# tierblk0 (4M, synchronous, priority 20) in front of tiernbd over nbd
# (64M, priority 10), a 48M virtual device (no bigger than nbd alone, or
# tierblk0 could not leave while it is on). Sizes for the quick suite;
# the full one doubles tierblk0 and the memcg.
#  1. stopped workload: 12M of anon through a 6M memcg, tierblk0 full;
#     two read errors on the tierblk0 slot of one page; remove
#     tierblk0: it leaves, nbd holds its pages, the workload's swap
#     entries in its page tables (VmSwap), its major faults and its
#     memcg's usage do not change (nothing came into memory), one slot
#     lost (drain_lost_pages, the read tried twice), the rest moved
#     (drained_pages); the workload goes on: SIGBUS on exactly that page,
#     every other page verified;
#  2. live: tierblk0 added back, a workload reading and writing its pages
#     at random through the memcg while tierblk0 is removed under it:
#     every page verified (faults race with moves: a fault waits on the
#     folio the drain holds);
#  3. a write error on the drain's target under a running workload: nbd
#     fails every write, remove tierblk0 gives EIO and lists it again;
#     the fault gone, remove drains to nbd although nbd rests after its
#     failure (mm-patches 0016); every page verified;
#  4. tiers_down: nothing leaked, every swap table freed.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-drain
# quick: a 4M fast tier and 12M through a 6M memcg; full: 8M, 16M, 8M
FAST=$(by_suite 4M 8M)
SIZE=$(by_suite 12M 16M)
MEMCG=$(by_suite 6M 8M)
OUT=/tmp/vswap-drain.out
cluster=$(cat /proc/sys/vm/page-cluster)
sspid=

vswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

# KiB of freed slots the per-CPU slots caches may hold: 64 a CPU
SLACK_KB=$((64 * 4 * $(nproc)))
# workers_kb KEY: KEY (VmSwap, VmRSS) of swapstress' workers, added up
workers_kb() {
	local c t=0 v
	for c in $(cat /proc/"$sspid"/task/*/children 2>/dev/null); do
		v=$(awk -v k="$1:" '$1 == k { print $2 }' "/proc/$c/status" 2>/dev/null)
		t=$((t + ${v:-0}))
	done
	echo "$t"
}
# workers_majflt: major faults of swapstress' workers (/proc/PID/stat 12)
workers_majflt() {
	local c t=0 v
	for c in $(cat /proc/"$sspid"/task/*/children 2>/dev/null); do
		v=$(awk '{ print $12 }' "/proc/$c/stat" 2>/dev/null)
		t=$((t + ${v:-0}))
	done
	echo "$t"
}

# live_workload SEED: swapstress reading and writing at random through the
# memcg in the background (sspid), until tierblk0 holds 2048 KiB (or a
# minute passed); fast: what it holds then
live_workload() {
	local i=0
	swapstress --size $SIZE --mem anon --pageout memcg --memcg-name "$CG" --memcg-max $MEMCG \
		--passes 1 --pattern random --seed "$1" > "$OUT" 2>&1 &
	sspid=$!
	while [ "$(tier_used_kb tierblk0)" -lt 2048 ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	fast=$(tier_used_kb tierblk0)
}

plan 18
trap cleanup EXIT
t0=$(swt_tables)
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
tiers_up vswap:48M tierblk0:$FAST:prio=20:sync=1 nbd:64M:prio=10 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"

# 1. a stopped workload, a drain, one lost slot. No readahead: a fault
# reads only its own slot.
echo 0 > /proc/sys/vm/page-cluster
ss_paged_out "$CG" "$OUT" --size $SIZE --mem anon --thp never --pageout memcg --memcg-max $MEMCG \
	--pagemap /tmp/vswap-drain.pm --expect-sigbus --seed 51 ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
fast=$(tier_used_kb tierblk0)
slow=$(tier_used_kb nbd)
# one of the first pages out (low addresses), on tierblk0
set -- $(swap_page_on /dev/tierblk0 $(swapped_pages /tmp/vswap-drain.pm | awk 'NR % 50 == 0' | head -10))
pf=${1:-} of=${2:-}
# two reads of its slot fail: the drain's and the one retry it makes
[ -n "$of" ] && tierblk_set 0 badblocks "+$((of * 8))-$((of * 8 + 7)) read 2" ||
	bail "none of the pages tried is on tierblk0"
e0=$(tier_stat tierblk0 read_errors)
swap0=$(workers_kb VmSwap)
maj0=$(workers_majflt)
mem0=$(cat "$CGROOT/$CG/memory.current")
d0=$(vswap_stat drained_pages)
l0=$(vswap_stat drain_lost_pages)
s0=$(uptime_s)
rc=$(vs_try remove /dev/tierblk0)
s1=$(uptime_s)
d1=$(vswap_stat drained_pages)
l1=$(vswap_stat drain_lost_pages)
diag "drain: $((s1 - s0)) s for $((fast / 4)) slots; tierblk0 $fast KiB, nbd $slow -> $(tier_used_kb nbd) KiB; drained +$((d1 - d0)), lost +$((l1 - l0))"
check_eq "remove tierblk0 (${fast} KiB in use) while the virtual device is on" ok "$rc"
check "tierblk0 is no tier and no swap any more: nbd alone" \
	sh -c "[ \"\$(awk '{ print \$1 }' $V/tiers)\" = $NBD_DEV ] && ! grep -q '^/dev/tierblk0 ' /proc/swaps"
# Slots freed but still in the per-CPU slots caches (64 a CPU) are freed
# by the drain, not moved.
check "nbd took tierblk0's pages: $slow -> $(tier_used_kb nbd) KiB (+$fast but the lost slot and the slots caches' $SLACK_KB)" \
	[ "$(tier_used_kb nbd)" -ge $((slow + fast - 4 - SLACK_KB)) ]
check "one slot lost to the read error (+$((l1 - l0))), the others moved (+$((d1 - d0)) of $((fast / 4 - 1)))" \
	[ $((l1 - l0)) = 1 -a $((d1 - d0)) -ge $((fast / 4 - 1 - SLACK_KB / 4)) -a $((d1 - d0)) -le $((fast / 4 - 1)) ]
check_eq "page tables untouched: the workload's swap entries (VmSwap) and major faults" \
	"$swap0 $maj0" "$(workers_kb VmSwap) $(workers_majflt)"
mem1=$(cat "$CGROOT/$CG/memory.current")
check "the pages did not come into memory: the memcg's usage $((mem0 >> 10)) -> $((mem1 >> 10)) KiB (less than +1024)" \
	[ $((mem1 - mem0)) -lt $((1 << 20)) ]
check_eq "tierblk0 failed the two reads (the drain's and its retry)" 2 "$(($(tier_stat tierblk0 read_errors) - e0))"
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
check_eq "swapstress --expect-sigbus: exit 0, no page corrupt" "0 0" "$rc $(kv_get "$OUT" corrupt)"
check_eq "SIGBUS on exactly page $pf (its slot was lost)" "$pf" "$(kv_get "$OUT" sigbus_pages)"
echo "$cluster" > /proc/sys/vm/page-cluster
memcg_destroy "$CG"

# 2. a live drain: tierblk0 back as a tier, a workload running through it
# while it goes
check_eq "add tierblk0 back while on" ok "$(vs_try add "/dev/tierblk0 prio=20")"
d0=$(vswap_stat drained_pages)
live_workload 52
rc=$(vs_try remove /dev/tierblk0)
alive=no
[ -r "/proc/$sspid/stat" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$sspid/status" && alive=yes
check_eq "remove tierblk0 (${fast} KiB in use, at least 2048) under the running workload (running after: $alive)" \
	"ok yes yes" "$rc $alive $([ "$fast" -ge 2048 ] && echo yes)"
wait "$sspid"
rc=$?
sspid=
[ $rc = 0 ] || diag "$(grep -v '^#' "$OUT" | tr '\n' ' ')"
d1=$(vswap_stat drained_pages)
check_eq "the workload raced the drain: exit 0, every page verified, pages moved (drained +$((d1 - d0)))" \
	"0 0 yes" "$rc $(kv_get "$OUT" corrupt) $([ $((d1 - d0)) -gt 0 ] && echo yes)"
memcg_destroy "$CG"

# 3. a write error on the drain's target, under a running workload
# (mm-patches 0016): nbd fails every write while tierblk0 is removed. The
# drain stops at its first failed copy (EIO), tierblk0 is listed again and
# the workload's own failed writes wait dirty in memory (they go to
# tierblk0, the one tier left to them, before their next write). With the
# fault gone, the next remove drains to nbd although nbd still rests
# after its failure: a resting tier is the last choice, not no choice.
check_eq "add tierblk0 back while on" ok "$(vs_try add "/dev/tierblk0 prio=20")"
live_workload 53
nwe() { awk -v d="$NBD_DEV" '$1 == d { print $6 }' "$V/tiers"; }
w0=$(nwe) we0=$(tier_stat nbd write_errors)
tier_error_rate nbd write 1000000 || bail "tier_error_rate nbd failed"
rc=$(vs_try remove /dev/tierblk0)
tier_faults_off nbd || bail "tier_faults_off nbd failed"
listed=no
grep -q '^/dev/tierblk0 ' "$V/tiers" && listed=yes
check_eq "remove tierblk0 (${fast} KiB in use) while nbd fails every write: EIO, tierblk0 listed again ($listed), nbd's write errors $(($(tier_stat nbd write_errors) - we0)), in tiers +$(($(nwe) - w0))" \
	"EIO yes yes" "$rc $listed $([ $(($(nwe) - w0)) -ge 1 ] && [ $(($(tier_stat nbd write_errors) - we0)) -ge 1 ] && echo yes)"
d0=$(vswap_stat drained_pages)
rc=$(vs_try remove /dev/tierblk0)
d1=$(vswap_stat drained_pages)
check_eq "the fault gone: remove tierblk0 again drains to nbd at once (drained +$((d1 - d0))), nbd resting or not" \
	"ok yes" "$rc $([ $((d1 - d0)) -gt 0 ] && echo yes)"
wait "$sspid"
rc=$?
sspid=
[ $rc = 0 ] || diag "$(grep -v '^#' "$OUT" | tr '\n' ' ')"
check_eq "the workload ran throughout: exit 0, every page verified" "0 0" "$rc $(kv_get "$OUT" corrupt)"
memcg_destroy "$CG"

check "tiers_down: the virtual device off, nbd removed (nothing leaked)" tiers_down
check "no swap left, no tier listed, every swap table freed (tables back to $t0)" \
	sh -c "[ \$(tail -n +2 /proc/swaps | wc -l) = 0 ] && [ -z \"\$(cat $V/tiers)\" ] && . /usr/lib/tierswap/lib.sh && swt_tables_become $t0"
tap_status
