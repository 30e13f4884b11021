#!/bin/sh
# timeout: 900
# suite: quick
# Two swap tiers at once through qemu/guest/lib/tiers.sh: a small fast
# tier (tierblk0, priority 20) in front of a slow one (tiernbd over nbd,
# priority 10). Pages fill the fast tier first and spill to the slow one;
# a read fault injected on one slot of each tier hits exactly the page in
# that slot; a read delay on the slow tier and write errors on the fast
# one, both switched on mid-run, lose nothing; the fast tier is drained
# (swapoff) while a workload runs and its pages end up on the slow tier.
# Every page verified by swapstress.
. /usr/lib/tierswap/lib.sh

# quick: half the sizes (a fast tier of 8M, 16M runs); full: 16M and 32M
FAST_KB=$(by_suite 8192 16384)
SIZE=$(by_suite 16M 32M)
CG=tiers-mix
plan 17
pc=
ss=
cleanup() {
	if [ -n "$ss" ]; then
		kill -CONT "$ss" 2>/dev/null
		kill -9 "$ss" 2>/dev/null
		wait "$ss" 2>/dev/null
	fi
	[ -n "$pc" ] && echo "$pc" > /proc/sys/vm/page-cluster
	memcg_destroy "$CG"
	tiers_down
}
trap cleanup EXIT

# swapstress_bg OUT ARGS...: start swapstress in the background (pid in ss)
swapstress_bg() {
	local out=$1
	shift
	swapstress --mem anon --pageout memcg --memcg-name "$CG" "$@" > "$out" 2>&1 &
	ss=$!
}

# running: swapstress is alive (a zombie has finished)
running() {
	[ -r "/proc/$ss/stat" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$ss/status" 2>/dev/null
}

# wait_used NAME KB: until NAME holds KB of swap while swapstress runs (60 s)
wait_used() {
	local end=$(($(uptime_s) + 60))
	while [ "$(tier_used_kb "$1")" -lt "$2" ]; do
		running && [ "$(uptime_s)" -lt $end ] || return 1
		sleep 0.2
	done
	running
}

# finish OUT: wait for swapstress; its exit status
finish() {
	local rc
	wait "$ss"
	rc=$?
	ss=
	[ $rc = 0 ] || diag "$(grep -v '^#' "$1" | tr '\n' ' ')"
	return $rc
}

# Bad input is refused and changes nothing.
rc=0
tiers_up tierblk0:24M nvme:1G 2>/tmp/tiers.err || rc=$?
check_eq "tiers_up with an unknown tier: exit 2 ($(cat /tmp/tiers.err))" 2 "$rc"
rc=0
tiers_up tierblk0:24M nbd:5K 2>/tmp/tiers.err || rc=$?
check "a size not a multiple of 4K: exit 2, nothing set up ($(cat /tmp/tiers.err))" \
	sh -c "[ $rc = 2 ] && [ \$(tail -n +2 /proc/swaps | wc -l) = 0 ] && ! grep -q '^tierblk ' /proc/modules && [ ! -e $TIERS_LIST ]"

tiers_up tierblk0:$((FAST_KB / 1024))M:prio=20 nbd:64M:prio=10 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"
check "both tiers swapped on: tierblk0 priority 20, nbd priority 10" \
	sh -c "awk '\$1 == \"/dev/tierblk0\" && \$5 == 20 { a = 1 } \$1 == \"$NBD_DEV\" && \$5 == 10 { b = 1 } END { exit !(a && b) }' /proc/swaps"
# /proc/swaps lists devices in swap type order
tf=$(tier_swap_type tierblk0)
ts=$(tier_swap_type nbd)
check_eq "swap types: tierblk0 $tf, nbd $ts, as the kernel lists them" \
	"/dev/tierblk0 $NBD_DEV" \
	"$(awk -v a="$tf" -v b="$ts" 'NR > 1 { d[NR - 2] = $1 } END { print d[a], d[b] }' /proc/swaps)"

# 1. Spill, and one read fault per tier. No readahead: a fault reads only
# its own slot.
pc=$(cat /proc/sys/vm/page-cluster)
echo 0 > /proc/sys/vm/page-cluster
t0=$(uptime_s)
swapstress_bg /tmp/tm-spill.txt --size $SIZE --memcg-max 8M --pagemap /tmp/tm-pm.txt \
	--stop-after-pageout --expect-sigbus --seed 31
check "swapstress filled $SIZE in an 8M memcg and stopped" wait_stopped "$ss" 300
# swap cache folios (written, still in memory) would serve the faults
echo 64M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
fast=$(tier_used_kb tierblk0)
slow=$(tier_used_kb nbd)
check "the fast tier filled first (${fast} of $FAST_KB KiB), the slow one took the rest (${slow} KiB)" \
	[ "$fast" -ge $((FAST_KB * 9 / 10)) -a "$slow" -gt $((FAST_KB / 4)) ]
# the 50th swapped page of each tier
set -- $(awk -v t="$tf" '$2 == t' /tmp/tm-pm.txt | sed -n '50p')
pf=${1:-} of=${3:-}
set -- $(awk -v t="$ts" '$2 == t' /tmp/tm-pm.txt | sed -n '50p')
ps=${1:-} os=${3:-}
inj=no
[ -n "$of" ] && [ -n "$os" ] && tier_fail_slot tierblk0 "$of" && tier_fail_slot nbd "$os" && inj=yes
check_eq "a read fault on one slot of each tier: page $pf (tierblk0 slot $of), page $ps (nbd slot $os)" yes "$inj"
kill -CONT "$ss"
finish /tmp/tm-spill.txt
rc=$?
check_eq "swapstress --expect-sigbus: exit 0, no page corrupt" "0 0" "$rc $(kv_get /tmp/tm-spill.txt corrupt)"
sb=$(kv_get /tmp/tm-spill.txt sigbus_pages | tr ',' '\n' | sort -n | tr '\n' ' ')
want=$(printf '%s\n%s\n' "$pf" "$ps" | sort -n | tr '\n' ' ')
check_eq "SIGBUS on exactly those two pages" "$want" "$sb"
check_eq "each tier failed one read" "1 1" "$(tier_stat tierblk0 read_errors) $(tier_stat nbd read_errors)"
tier_faults_off tierblk0 && tier_faults_off nbd || bail "tier_faults_off failed"
echo "$pc" > /proc/sys/vm/page-cluster
pc=
diag "spill and read faults: $(($(uptime_s) - t0)) s"

# 2. Faults switched on mid-run: 1 ms on every slow-tier read, 20% of
# fast-tier writes failing. A failed swap write leaves the page dirty in
# memory; reclaim writes it again later.
t0=$(uptime_s)
d0=$(nbd_stat read injected_delays)
swapstress_bg /tmp/tm-mid.txt --size $SIZE --memcg-max 8M --passes 1 --pattern random --seed 32
wait_used tierblk0 $((FAST_KB / 4)) || bail "swapstress ended before $((FAST_KB / 4)) KiB were on tierblk0"
tier_latency nbd read 1000 && tier_error_rate tierblk0 write 200000 || bail "fault injection failed"
finish /tmp/tm-mid.txt
check_eq "faults on both tiers mid-run: swapstress exit 0, every page verified" 0 "$?"
we=$(tier_stat tierblk0 write_errors)
d1=$(nbd_stat read injected_delays)
check "the faults hit: tierblk0 failed $we writes, tiernbd delayed $((d1 - d0)) reads" \
	[ "$we" -gt 0 -a $((d1 - d0)) -gt 0 ]
tier_faults_off tierblk0 && tier_faults_off nbd || bail "tier_faults_off failed"
diag "faults mid-run: $(($(uptime_s) - t0)) s"

# 3. Live drain of the fast tier: swapoff brings its pages into memory
# (charged to the workload's memcg) and reclaim sends them on to the slow
# tier.
t0=$(uptime_s)
swapstress_bg /tmp/tm-drain.txt --size $SIZE --memcg-max 8M --passes 1 --pattern random --seed 33
wait_used tierblk0 $((FAST_KB / 2)) || bail "swapstress ended before $((FAST_KB / 2)) KiB were on tierblk0"
fast=$(tier_used_kb tierblk0)
slow=$(tier_used_kb nbd)
check "swapoff of tierblk0 (${fast} KiB in use) while the workload runs" \
	timeout 300 swapoff /dev/tierblk0
t1=$(uptime_s)
slow2=$(tier_used_kb nbd)
alive=no
running && alive=yes
# The drain is done: lift the limit so the rest of the pass reads each page
# back once instead of cycling it through the slow tier (a minute under
# TCG); every page is still verified.
echo max > "$CGROOT/$CG/memory.max"
finish /tmp/tm-drain.txt
rc=$?
diag "live drain: swapoff after $((t1 - t0)) s, workload done after $(($(uptime_s) - t0)) s"
check_eq "drained mid-run: swapstress exit 0, every page verified" 0 "$rc"
check "the slow tier took the pages: nbd ${slow} -> ${slow2} KiB (+>= half of ${fast}), workload still running then ($alive)" \
	[ $((slow2 - slow)) -ge $((fast / 2)) -a $alive = yes ]

check "tiers_down: every swapoff succeeds (nothing leaked)" tiers_down
check "no swap left, tierblk unloaded" \
	sh -c "[ \$(tail -n +2 /proc/swaps | wc -l) = 0 ] && ! grep -q '^tierblk ' /proc/modules"
tap_status
