#!/bin/sh
# timeout: 600
# suite: full
# A drain meets read errors while the workload faults the same pages
# (mm-patches 0018: the drain reads a batch of 32 tier slots with one bio
# a run; a run whose read fails is read again page by page, and only the
# pages that fail that too are lost). tierblk0 (8M, priority 20) in front
# of tierblk1 (32M, priority 10), both synchronous, a 24M virtual device;
# swapstress pages 12M of anon (3 processes) out through a 4M memcg and
# stops, its own memory locked and its output read outside the memcg, so
# only the pages under test are on the tiers. Then, in every 128 slots
# of tierblk0 holding a page, two neighbours (one run) and one lone slot
# fail every read, other slots of the same batches good; the memcg's limit
# is lifted (nothing is written to swap again) and tierblk0 is removed
# while the workload reads every page back, racing the drain to them:
#  1. a scan of tierblk0 (ss-locate --all) finds as many of the workload's
#     pages as it has slots in use;
#  2. the remove succeeds under the running workload: tierblk0 is no tier;
#  3. the workload ends, exit 0, no page corrupt;
#  4. SIGBUS on exactly the pages of the failing slots, whichever of the
#     fault and the drain met the error first; every other page verified
#     (a good page in a failed batch was moved, not lost);
#  5. tiers_down: nothing leaked.
. /usr/lib/tierswap/lib.sh

CG=vswap-drain-errors
OUT=/tmp/vswap-drain-errors.out
FIFO=/tmp/vswap-drain-errors.fifo
PAGES=$((12 * 256))
cluster=$(cat /proc/sys/vm/page-cluster)
sspid= catpid= rmpid=

vswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	kill_bg "$catpid"
	[ -z "$rmpid" ] || wait "$rmpid"
	rm -f "$FIFO"
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

plan 5
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
tiers_up vswap:24M tierblk0:8M:prio=20:sync=1 tierblk1:32M:prio=10:sync=1 ||
	bail "tiers_up failed"
# no readahead: a fault reads its own slot only
echo 0 > /proc/sys/vm/page-cluster

mkfifo "$FIFO" || bail "mkfifo"
cat "$FIFO" > "$OUT" &
catpid=$!
swapstress --size 12M --procs 3 --mem anon --thp never --pageout memcg --memcg-name "$CG" --memcg-max 4M \
	--lock-self --stop-after-pageout --expect-sigbus --passes 1 --seed 81 > "$FIFO" 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop after its pages went out"
memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || diag "pages left in the swap cache"
fast=$(tier_used_kb tierblk0)
ss-locate --all /dev/tierblk0 | sort -n > /tmp/vswap-drain-errors.loc
nf=$(grep -c . /tmp/vswap-drain-errors.loc)
check "1. tierblk0 holds the workload's pages: $fast KiB, $nf pages found on it" \
	[ "$fast" -ge 4096 -a "$nf" = $((fast / 4)) ]

# the failing slots: in each 128 slots, slots 5 and 6 when both hold a
# page (one read run, one range), and slot 40: a batch of 32 with one bad
# run among good slots, and one with a lone bad slot
bad=$(awk '{ s[$1] = $2 } END {
	for (x in s) { r = x % 128
		if (r == 5 && ((x + 1) in s)) print x, x + 1, s[x] "," s[x + 1]
		else if (r == 40) print x, x, s[x] }
	}' /tmp/vswap-drain-errors.loc | sort -n)
[ -n "$bad" ] || bail "no slot of tierblk0 to fail"
echo "$bad" > /tmp/vswap-drain-errors.bad
while read -r first last pages; do
	tierblk_set 0 badblocks "+$((first * 8))-$((last * 8 + 7)) read" ||
		bail "badblocks +$first-$last on tierblk0"
done < /tmp/vswap-drain-errors.bad
bad_pages=$(echo "$bad" | awk '{ print $3 }' | tr , '\n' | sort -n | tr '\n' ,)
nb=$(echo "$bad_pages" | tr , '\n' | grep -c .)
diag "$nb pages on $(echo "$bad" | wc -l) failing ranges of tierblk0"

# the drain and the workload's faults at once
echo max > "$CGROOT/$CG/memory.max" || bail "lifting $CG's memory.max"
d0=$(vswap_stat drained_pages)
l0=$(vswap_stat drain_lost_pages)
e0=$(tier_stat tierblk0 read_errors)
vs_try remove /dev/tierblk0 > /tmp/vswap-drain-errors.rm &
rmpid=$!
kill -CONT "$sspid"
wait "$rmpid"
rmpid=
rc=$(cat /tmp/vswap-drain-errors.rm)
alive=no
kill -0 "$sspid" 2>/dev/null && alive=yes
diag "drain: moved +$(($(vswap_stat drained_pages) - d0)), lost +$(($(vswap_stat drain_lost_pages) - l0)), tierblk0 read errors +$(($(tier_stat tierblk0 read_errors) - e0)); workload still running at its end: $alive"
check "2. remove tierblk0 ($fast KiB in use, $nb pages unreadable) under the running workload: $rc, no tier any more" \
	sh -c "[ $rc = ok ] && ! grep -q '^/dev/tierblk0 ' $VSWAP_SYS/tiers"
wait_exit "$sspid" 300
rc=$WAIT_RC
sspid=
wait "$catpid"
catpid=
diag "workload: $(grep -E '^(pages_verified|sigbus|corrupt|workers_failed|error)=' "$OUT" | tr '\n' ' ')"
check_eq "3. the workload ends: exit 0, no page corrupt" "0 0" "$rc $(kv_get "$OUT" corrupt)"
sbl=$(kv_get "$OUT" sigbus_pages)
only_sb=$(set_minus "$sbl" "$bad_pages")
only_bad=$(set_minus "$bad_pages" "$sbl")
check "4. SIGBUS on exactly the $nb pages of the failing slots (SIGBUS, not failing: $only_sb; failing, no SIGBUS: $only_bad), the other $((PAGES - nb)) verified ($(kv_get "$OUT" pages_verified))" \
	[ "$only_sb" = "0:" -a "$only_bad" = "0:" -a "$(kv_get "$OUT" pages_verified)" = $((PAGES - nb)) ]
memcg_destroy "$CG"
echo "$cluster" > /proc/sys/vm/page-cluster
check "5. tiers_down: the virtual device off, tierblk1 removed (nothing leaked)" tiers_down
tap_status
