#!/bin/sh
# timeout: 600
# suite: full
# The slow tier dies under a running anon workload (issue 16: "kill the NBD
# server mid-run"). tierblk0 (8M, synchronous, priority 20) in front of
# tiernbd over nbd (64M, priority 10), a 48M virtual device; swapstress
# pages 24M of anon (6 processes of 4M) out through an 8M memcg, so the
# first pages out fill tierblk0 and the rest spill to nbd, and stops
# there. Its own memory (stacks, heap, code) is locked (--lock-self) and
# its output goes through a pipe to a reader outside the memcg: only the
# pages under test can be on nbd. Then tiernbd is killed (kill -9) and the
# workload goes on reading every page, its memcg's limit lifted (nothing
# is written to swap again):
#  1. both tiers hold pages before the kill, and a scan of each device
#     (ss-locate --all) finds as many of the workload's pages as the tier
#     has slots in use, less at most the slots the per-CPU slots caches
#     hold freed (a freed virtual slot keeps its tier slot until its
#     batch is freed: seen once, one slot on nbd with no workload page):
#     which pages are on nbd is known;
#  2. the workload ends within a bound (a fault on the dead tier fails at
#     once, or after the nbd timeout: none hangs), no page corrupt;
#  3. SIGBUS on exactly the pages found on nbd, every other page verified
#     (a worker records up to 1024 SIGBUS pages: 4M each, all recorded);
#  4. the workload's exit freed its slots on the dead tier: nbd holds no
#     more than the per-CPU slots caches may;
#  5. tierblk0 alone takes a new workload, every page verified;
#  6. tiers_down (the virtual device's swapoff, then the tiers removed):
#     nothing leaked.
. /usr/lib/tierswap/lib.sh

CG=vswap-tier-death
OUT=/tmp/vswap-tier-death.out
FIFO=/tmp/vswap-tier-death.fifo
SIZE=24M
PAGES=$((24 * 256))
cluster=$(cat /proc/sys/vm/page-cluster)
sspid= catpid=

vswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	kill_bg "$catpid"
	rm -f "$FIFO"
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

# KiB of slots the per-CPU slots caches may hold: 64 a CPU
SLACK_KB=$((64 * 4 * $(nproc)))

plan 6
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
# a short nbd timeout: a request the dead server never answers fails
# within it
NBD_TIMEOUT=5
tiers_up vswap:48M tierblk0:8M:prio=20:sync=1 nbd:64M:prio=10 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"
# no readahead: a fault reads its own slot only
echo 0 > /proc/sys/vm/page-cluster

# the workload, its output read outside the memcg
mkfifo "$FIFO" || bail "mkfifo"
cat "$FIFO" > "$OUT" &
catpid=$!
swapstress --size $SIZE --procs 6 --mem anon --thp never --pageout memcg --memcg-name "$CG" --memcg-max 8M \
	--lock-self --stop-after-pageout --expect-sigbus --passes 1 --seed 71 > "$FIFO" 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop after its pages went out"
memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || diag "pages left in the swap cache"
fast=$(tier_used_kb tierblk0)
slow=$(tier_used_kb nbd)
# which pages each tier holds, read from the devices while nbd answers
on_slow=$(ss-locate --all "$NBD_DEV" | awk '{ print $2 }' | sort -n | tr '\n' , )
on_fast=$(ss-locate --all /dev/tierblk0 | awk '{ print $2 }' | sort -n | tr '\n' , )
ns=$(echo "$on_slow" | tr , '\n' | grep -c .)
nf=$(echo "$on_fast" | tr , '\n' | grep -c .)
# found FOUND KIB: 4M or more in use, and the FOUND pages account for
# it but for the slots caches' freed slots
found() { [ "$2" -ge 4096 ] && [ "$1" -le $(($2 / 4)) ] && [ $(($1 + SLACK_KB / 4)) -ge $(($2 / 4)) ]; }
both_found() { found "$nf" "$fast" && found "$ns" "$slow"; }
check "1. both tiers hold the workload's pages: tierblk0 $fast KiB ($nf pages found on it), nbd $slow KiB ($ns found; the slots caches may hold $((SLACK_KB / 4)) more)" \
	both_found

# the server dies; the workload goes on with room in memory
echo max > "$CGROOT/$CG/memory.max" || bail "lifting $CG's memory.max"
kill -9 "$(nbd_server_pid)" || bail "no tiernbd to kill"
t0=$(uptime_s)
kill -CONT "$sspid"
LIMIT=$((2 * NBD_TIMEOUT + 120))
wait_exit "$sspid" "$LIMIT"
rc=$WAIT_RC
sspid=
t1=$(uptime_s)
wait "$catpid"
catpid=
diag "after the kill: $(grep -E '^(pages_verified|sigbus|corrupt|pswpin|elapsed_ms|workers_failed|error)=' "$OUT" | tr '\n' ' ')"
check_eq "2. the workload ends within $LIMIT s of the kill (took $((t1 - t0)) s), exit 0, no page corrupt" \
	"0 0" "$rc $(kv_get "$OUT" corrupt)"
sbl=$(kv_get "$OUT" sigbus_pages)
only_sb=$(set_minus "$sbl" "$on_slow")
only_slow=$(set_minus "$on_slow" "$sbl")
check "3. SIGBUS on exactly the $ns pages found on nbd (SIGBUS, not on nbd: $only_sb; on nbd, no SIGBUS: $only_slow), the other $((PAGES - ns)) verified ($(kv_get "$OUT" pages_verified))" \
	[ "$only_sb" = "0:" -a "$only_slow" = "0:" -a "$(kv_get "$OUT" pages_verified)" = $((PAGES - ns)) ]

# the exit freed the workload's slots, those on the dead tier too: what
# nbd still holds is slots the per-CPU slots caches took (64 a CPU, bound
# when they left the allocator: eager binding), which tiers_down's
# swapoff frees (a leak would make it fail)
left=$(tier_used_kb nbd)
check "4. nbd holds no more after the exit than the slots caches may ($left KiB, at most $SLACK_KB)" \
	[ "$left" -le "$SLACK_KB" ]

SS_KEYS='pswpin|pswpout|pages_verified|corrupt'
ss "5. tierblk0 alone takes a new workload through the virtual device: every page verified" \
	--size 12M --mem anon --thp never --pageout memcg --memcg-name "$CG" --memcg-max 6M --seed 72
memcg_destroy "$CG"
echo "$cluster" > /proc/sys/vm/page-cluster
check "6. tiers_down: the virtual device off, tierblk0 removed (nothing leaked)" tiers_down
tap_status
