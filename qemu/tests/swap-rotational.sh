#!/bin/sh
# timeout: 900
# suite: quick
# Swap on a rotational device: zram with queue/rotational=1 stands in for an
# HDD (or an NBD export with NBD_FLAG_ROTATIONAL). Such a device takes 6.12's
# old allocator path: swap_map scanned under si->lock, no cluster allocator,
# no large swap entries (THP and mTHP are split at swap-out), cluster
# readahead instead of VMA readahead. Since mm-patches 0003 it has
# cluster_info too, which must change none of that. Every page read back
# must verify (corrupt=0); swapoff with pages in swap must bring them all back.
# Regions of 8M in the quick suite, 16M in the full one.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/swap-rotational.out
# the summary keys ss (lib/mem.sh) shows after each run
SS_KEYS='pswpin|pswpout|swapped_after_pageout|thp_swpout|thp_swpout_fallback'
cleanup() {
	memcg_cleanup
	thp_reset
	zram_swap_down
}

S=$(by_suite 8M 16M)
PAGES=$(( ${S%M} * 256 ))
plan 11
trap cleanup EXIT
cleanup 2>/dev/null
ROT=$(zram_rot_swap_up 96M) || bail "rotational zram swap failed"
check_eq "zram marked rotational" 1 "$(cat /sys/block/${ROT#/dev/}/queue/rotational)"
check "swapon took the rotational path (no SS flag)" swapon_not_ssd "$ROT"

ss "anon, seq, MADV_PAGEOUT, $S" --size $S --mem anon --pattern seq --pageout madvise
check "anon: swapped out and read back (pswpout, pswpin >= $((PAGES * 7 / 8)))" \
	sh -c "[ $(kv_get $OUT pswpout) -ge $((PAGES * 7 / 8)) ] && [ $(kv_get $OUT pswpin) -ge $((PAGES * 7 / 8)) ]"
ss "anon, random, 2 passes, 2 procs x 2 threads, $S" --size $S --pattern random --passes 2 \
	--procs 2 --threads 2 --pageout madvise
ss "shmem mmap, zipf, 2 passes, $S" --size $S --mem shmem --access mmap --pattern zipf --passes 2
# the memcg run: 32M in 12M (full), 16M in 8M (quick: 6M risks the OOM killer)
ss "anon in a $(by_suite 8M 12M) memcg, $(by_suite 16M 32M), 2 procs, random" --size $(by_suite 16M 32M) \
	--pageout memcg --memcg-max $(by_suite 8M 12M) --procs 2 --pattern random --passes 2

thp_set pmd madvise
ss "anon, PMD THP (MADV_HUGEPAGE), $S" --size $S --thp always
# No large swap entries on a rotational device: every THP is split first.
check "PMD THP: split at swap-out, never swapped out whole" \
	sh -c "[ $(kv_get $OUT thp_swpout) -eq 0 ] && [ $(kv_get $OUT thp_swpout_fallback) -ge 1 ]"
thp_reset

# swapoff (try_to_unuse) while a stopped process has its pages in swap
swapstress --size 8M --stop-after-pageout >"$OUT" 2>&1 &
pid=$!
if wait_stopped $pid 120; then
	used=$(swap_used_kb "$ROT")
	swapoff "$ROT"
	off_rc=$?
	kill -CONT $pid
	wait $pid
	rc=$?
	check "swapoff with $used KiB in swap, then every page verifies" \
		sh -c "[ $used -ge 7000 ] && [ $off_rc -eq 0 ] && [ $rc -eq 0 ] && [ \"$(kv_get $OUT corrupt)\" = 0 ]"
else
	kill -9 $pid 2>/dev/null
	fail "swapoff with pages in swap: process did not stop" "$(cat $OUT)"
fi
check "swap released" sh -c "! grep -q '^$ROT ' /proc/swaps"
tap_status
