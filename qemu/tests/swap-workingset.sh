#!/bin/sh
# timeout: 300
# suite: quick
# Workingset refault detection for anon swap (docs/swap-cache-tests.md).
# When reclaim swaps an anon folio out and removes it from the swap cache it
# leaves a shadow entry in the swap cache's slot (workingset_eviction());
# the swapin of that slot reads the shadow back (the swap cache path in
# __read_swap_cache_async(), the direct path in do_swap_page()) and
# workingset_refault() counts the refault and activates the folio when its
# refault distance fits the workingset (or restores it when it was in the
# workingset when evicted). A swap cache that loses or misplaces shadows
# leaves workingset_refault_anon flat.
# swapstress runs a working set of SIZE (default 12M) in a memcg of LIMIT
# (default 9M; 8M in 6M was OOM-killed once in eight runs), on tierblk
# synchronous=1 and synchronous=0, twice:
#  - seq: PASSES (3; 2 in the quick suite) sequential passes, a quarter
#    of the accesses rewrite the page: a loop larger than memory misses on
#    every page of every pass, so the refaults must be counted, in
#    /proc/vmstat and in the memcg;
#  - random: 4 passes of uniformly random accesses: a page stays resident
#    long enough to be referenced twice and activated, an evicted page comes
#    back after some 800 evictions, within the active list: the refaults
#    must be activated (workingset_activate_anon), and those evicted after a
#    spell on the active list restored (workingset_restore_anon: the
#    workingset bit travels in the shadow entry).
# Every page is verified in both.
. /usr/lib/tierswap/lib.sh

SIZE=${SWAP_WS_SIZE:-12M}
LIMIT=${SWAP_WS_LIMIT:-9M}
PASSES=${SWAP_WS_PASSES:-$(by_suite 2 3)}
PAGES=$(( ${SIZE%M} * 256 ))
OUT=/tmp/swap-workingset.out

cleanup() {
	memcg_cleanup swap-workingset
	tierblk_unload 2>/dev/null
}

# ws S PATTERN PASSES: runs swapstress; sets refault, act, rest, rc, kv_*
ws_run() {
	local s=$1 pat=$2 passes=$3 r0 a0 w0 t0
	t0=$(uptime_s)
	r0=$(vmstat_get workingset_refault_anon)
	a0=$(vmstat_get workingset_activate_anon)
	w0=$(vmstat_get workingset_restore_anon)
	swapstress --size "$SIZE" --pageout memcg --memcg-max "$LIMIT" --memcg-name "swap-workingset-$s" \
		--pattern "$pat" --passes "$passes" --write-pct 25 --thp never --seed $((31 + s)) > "$OUT" 2>&1
	rc=$?
	refault=$(( $(vmstat_get workingset_refault_anon) - r0 ))
	act=$(( $(vmstat_get workingset_activate_anon) - a0 ))
	rest=$(( $(vmstat_get workingset_restore_anon) - w0 ))
	kv_load "$OUT"
	diag "sync=$s $pat: workingset_refault_anon +$refault activate_anon +$act restore_anon +$rest; $(kv_line pswpout pswpin memcg_workingset_refault_anon memcg_peak_bytes accesses pages_verified corrupt elapsed_ms), $(( $(uptime_s) - t0 )) s"
}

# verified WHAT: a check that the last run verified every page, none corrupt
verified() {
	if [ $rc = 0 ] && [ "$kv_corrupt" = 0 ] && ge "$kv_pages_verified" $PAGES; then
		pass "$1: every page verified ($kv_pages_verified verifications)"
	else
		fail "$1: every page verified" "rc=$rc" "$(head -n 60 "$OUT")"
	fi
}

# ws S: 5 checks
ws() {
	local s=$1 what
	what="sync=$s seq, $SIZE in a $LIMIT memcg"
	ws_run "$s" seq "$PASSES"
	verified "$what"
	# each pass misses on every page: a loop larger than memory under LRU
	if ge "$kv_pswpout" $PAGES && ge "$kv_pswpin" $PAGES; then
		pass "$what: pages swapped out and back in (pswpout $kv_pswpout, pswpin $kv_pswpin)"
	else
		fail "$what: pages swapped out and back in (pswpout, pswpin)" "pswpout ${kv_pswpout:-?} pswpin ${kv_pswpin:-?}, want >= $PAGES"
	fi
	if ge "$refault" $PAGES && ge "$kv_memcg_workingset_refault_anon" $PAGES; then
		pass "$what: swapins recognised as refaults (workingset_refault_anon +$refault, memcg $kv_memcg_workingset_refault_anon)"
	else
		fail "$what: swapins recognised as refaults (workingset_refault_anon)" \
			"vmstat +$refault, memcg ${kv_memcg_workingset_refault_anon:-?}, want >= $PAGES"
	fi
	what="sync=$s random, $SIZE in a $LIMIT memcg"
	ws_run "$s" random 4
	verified "$what"
	# Floors at about a fifth of what 6.12 shows (8M in 6M: refaults
	# 1.2x, activations 0.25x, restores 0.02-0.07x the region's pages), so
	# a swap cache that drops most shadows fails, and noise does not.
	if ge "$kv_pswpin" $((PAGES / 4)) && ge "$refault" $((PAGES / 4)) &&
	   ge "$act" $((PAGES / 20)) && ge "$rest" $((PAGES / 200)); then
		pass "$what: refaults activated and restored (pswpin $kv_pswpin, refault +$refault, activate_anon +$act, restore_anon +$rest)"
	else
		fail "$what: refaults activated and restored" \
			"pswpin ${kv_pswpin:-?} refault +$refault activate_anon +$act restore_anon +$rest;" \
			"want >= $((PAGES / 4)), $((PAGES / 4)), $((PAGES / 20)), $((PAGES / 200))"
	fi
}

plan 12
trap cleanup EXIT
trap 'exit 143' TERM INT
cleanup 2>/dev/null
tierblk_load size=256M >/dev/null || bail "insmod tierblk failed"
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}, $SIZE in $LIMIT, $PASSES seq passes"
for s in 1 0; do
	start=$(uptime_s)
	tierblk_swap_sync "$s" || bail "swapon tierblk0 synchronous=$s"
	ws "$s"
	check "sync=$s: swapoff succeeds" tierblk_swapoff 0
	diag "synchronous=$s: $(( $(uptime_s) - start )) s"
done
tap_status
