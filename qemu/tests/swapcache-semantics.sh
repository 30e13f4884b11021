#!/bin/sh
# timeout: 600
# suite: quick
# also-vswap: yes
# Swap cache semantics that must survive a change of the swap cache's
# implementation (docs/swap-cache-tests.md). On tierblk, synchronous=1 (the
# swap-cache-bypassing path) and synchronous=0 (the swap cache path), each:
#  - refault: anon and anon shmem (MAP_SHARED|MAP_ANONYMOUS) at order 0, 64K
#    and 2M paged out (MADV_PAGEOUT), the swap cache drained, read back with
#    swap readahead on; on synchronous=0 readahead must fill the swap cache
#    and faults must find those folios there (swap_ra, swap_ra_hit);
#  - fork: the child's PTEs hold the parent's swap entries (swap count 2),
#    both fault them at once, the child rewrites every page (COW) and sends
#    its copies through swap, the parent's pages stay unchanged (order 0 and
#    2M on synchronous=1, 2M on synchronous=0);
#  - split: anon large folios faulted back (on synchronous=0 they come back
#    from the swap cache whole) are split with debugfs split_huge_pages and
#    partly unmapped with MADV_DONTNEED, then rewritten in part and sent
#    through the device again;
#  - migrate: swap cache folios moved to the other NUMA node (move_pages),
#    2M folios whole and, with THP allocation failing, split first;
#  - mincore: anon and memfd pages after pageout (swap cache folios count as
#    resident), after the swap cache is drained, after a re-read;
#  - swapoff while swaprace (threads faulting and verifying, a reclaimer
#    paging out) runs: swapoff succeeds, the workload sees no corruption.
# Regions: SWAPCACHE_SEM_SIZE (2M) per case, SWAPCACHE_SEM_SIZE_SPLIT (4M)
# for split and migrate.
# Every page is verified everywhere (corrupt=0), and each case checks from
# pswpout/pswpin (or the programs' own counters) that pages really went to
# the device and came back.
. /usr/lib/tierswap/lib.sh

# region per case: refault, fork, mincore, swapoff; split and migrate (two
# 2M folios: split takes one apart, unmaps half of the other)
SMALL=${SWAPCACHE_SEM_SIZE:-2M}
LARGE=${SWAPCACHE_SEM_SIZE_SPLIT:-4M}
CGNAME=swapcache-sem
CG=$CGROOT/$CGNAME
OUT=/tmp/swapcache-sem.out
sspid=
bgpid=

cleanup() {
	large_fail_off
	[ -n "$sspid" ] && { kill -CONT "$sspid"; kill -9 "$sspid"; } 2>/dev/null
	[ -n "$bgpid" ] && kill -9 "$bgpid" 2>/dev/null
	wait 2>/dev/null
	swapcache_teardown "$CGNAME"
}

# use_size SIZE: the region of the next case; PAGES and 90% / 10% of them
use_size() {
	SIZE=$1
	PAGES=$(( ${SIZE%M} * 256 ))
	P90=$(( PAGES * 9 / 10 ))
	P10=$(( PAGES / 10 ))
}

# fail_n N DESC DETAIL / skip_n N DESC REASON: a case that could not run
fail_n() {
	local i=0
	while [ $i -lt "$1" ]; do
		fail "$2" "$3"
		i=$((i + 1))
	done
}
skip_n() {
	local i=0
	while [ $i -lt "$1" ]; do
		skip "$2" "$3"
		i=$((i + 1))
	done
}
dump() { grep -v '^# round' "$OUT" | head -n 70; }
# expect DESC COND...: pass when the shell condition holds, else fail with the output
expect() {
	local desc=$1
	shift
	if eval "$*"; then
		pass "$desc"
	else
		fail "$desc" "$(dump)"
	fi
}

# refault S MEM ORDER: 2 checks, 3 on synchronous=0
refault() {
	local s=$1 mem=$2 order=$3 what thp rc n=2 t0 try
	what="sync=$s refault $mem $order"
	use_size "$SMALL"
	t0=$(uptime_s)
	[ "$s" = 0 ] && n=3
	thp=$(order_setup "$order") || { fail_n $n "$what" "mTHP setup failed"; return; }
	for try in 1 2; do
		in_memcg_bg "$CG" swapstress --size "$SIZE" --mem "$mem" --thp "$thp" --pageout madvise \
			--write-pct 0 --pattern seq --stop-after-pageout --seed 7 > "$OUT" 2>&1
		sspid=$BGPID
		if wait_stopped "$sspid" 300; then
			# the swap cache drained, so the reads come from the device
			scprobe drain --memcg "$CG" > /tmp/swapcache-sem.drain 2>&1 ||
				diag "$what: $(cat /tmp/swapcache-sem.drain)"
		else
			diag "$what: swapstress did not stop after pageout"
		fi
		kill -CONT "$sspid" 2>/dev/null
		wait "$sspid"
		rc=$?
		sspid=
		kv_load "$OUT"
		# MADV_PAGEOUT is best effort (a folio off the LRU at that moment is
		# skipped, e.g. isolated by compaction): one more run if it did not
		# page out, the checks judge the second
		ge "$kv_pswpout_pageout" $P90 && break
		[ $try = 1 ] && diag "$what: MADV_PAGEOUT wrote ${kv_pswpout_pageout:-?} of $PAGES pages ($(kv_line resident_after_pageout thp_swpout_fallback); 2048kB totals $(cd /sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats 2>/dev/null && grep . swpout_fallback split_failed 2>/dev/null | tr '\n' ' ')): once more"
	done
	diag "$what: $(kv_line pswpout_pageout pswpin swap_ra swap_ra_hit pages_verified corrupt thp_swpout elapsed_ms), $(( $(uptime_s) - t0 )) s"
	expect "$what: every page verified" \
		'[ $rc = 0 ] && [ "$kv_corrupt" = 0 ] && ge "$kv_pages_verified" $PAGES'
	expect "$what: paged out to the device and read back (pswpout, pswpin)" \
		'ge "$kv_pswpout_pageout" $P90 && ge "$kv_pswpin" $P90'
	[ "$s" = 0 ] || return 0
	expect "$what: readahead filled the swap cache, faults found it there (swap_ra, swap_ra_hit)" \
		'ge "$kv_swap_ra" 1 && ge "$kv_swap_ra_hit" 1'
}

# probe CASE ARGS...: run scprobe in the memcg, output in $OUT and kv_*; rc in $rc
probe() {
	local t0
	t0=$(uptime_s)
	in_memcg "$CG" scprobe "$@" --size "$SIZE" --memcg "$CG" > "$OUT" 2>&1
	rc=$?
	kv_load "$OUT"
	took=$(( $(uptime_s) - t0 ))
}

# fork_case S ORDER: 4 checks
fork_case() {
	local s=$1 order=$2 what thp
	what="sync=$s fork $order"
	use_size "$SMALL"
	thp=$(order_setup "$order") || { fail_n 4 "$what" "mTHP setup failed"; return; }
	probe fork --thp "$thp" --seed 11
	diag "$what: $(kv_line swapped_after_pageout child_shared_swap_entries child_pswpin child_swapped_cow parent_swapped_again pswpin pswpout pages_verified corrupt elapsed_ms), $took s"
	expect "$what: the child's PTEs hold the parent's swap entries (swap count 2)" \
		'ge "$kv_swapped_after_pageout" $P90 && ge "$kv_child_shared_swap_entries" $P90'
	expect "$what: parent and child faulted the shared entries at once, every page verified" \
		'[ "$kv_child_corrupt" = 0 ] && [ "$kv_child_verified" = $PAGES ] && [ "$kv_parent_corrupt" = 0 ] && ge "$kv_child_pswpin" $P90'
	expect "$what: the child's COW copies went through swap and verify" \
		'[ "$kv_child_corrupt_written" = 0 ] && ge "$kv_child_swapped_cow" $P90 &&
		 [ "$kv_child_corrupt_roundtrip" = 0 ] && [ "$kv_child_verified_roundtrip" = $PAGES ]'
	expect "$what: the parent's pages are unchanged by the child's writes, also after another round trip" \
		'[ $rc = 0 ] && [ "$kv_parent_corrupt_after_child" = 0 ] && ge "$kv_parent_swapped_again" $P90 &&
		 [ "$kv_parent_corrupt_roundtrip" = 0 ] && [ "$kv_corrupt" = 0 ]'
}

# split_case S ORDER: 4 checks
split_case() {
	local s=$1 order=$2 what thp large90 half live
	what="sync=$s split $order"
	use_size "$LARGE"
	if [ ! -w /sys/kernel/debug/split_huge_pages ]; then
		skip_n 4 "$what" "no /sys/kernel/debug/split_huge_pages"
		return
	fi
	thp=$(order_setup "$order") || { fail_n 4 "$what" "mTHP setup failed"; return; }
	probe split --thp "$thp" --seed 13
	diag "$what: $(kv_line folio_pages fill_large swapped_after_pageout refault_pswpin refault_large refault_swapcache refault_large_swapcache split_pages split_attempts split_large split_swapcache dontneed_pages partial_large written_pages swapped_again roundtrip_pswpin thp_split_page corrupt ms_census ms_pageout ms_refault ms_split ms_verify_write ms_pageout2 ms_drain drain_left_tries ms_roundtrip elapsed_ms), $took s"
	large90=$(( ${kv_fill_large:-0} * 9 / 10 ))
	if [ "$s" = 0 ]; then
		# The asynchronous device left the folios in the swap cache, whole.
		# Half of them at least: reclaim may have taken some out already
		# (those come back from the device, at order 0).
		expect "$what: large folios faulted back from the swap cache whole" \
			'ge "$kv_fill_large" $((PAGES / 2)) && ge "$kv_refault_large_swapcache" $(( ${kv_fill_large:-0} / 2 ))'
	else
		# the direct swapin brings large anon folios back whole, outside the
		# swap cache (swapped out first: folios never paged out pass the rest)
		expect "$what: large folios swapped back in whole, not in the swap cache" \
			'ge "$kv_swapped_after_pageout" $P90 && ge "$kv_fill_large" $((PAGES / 2)) &&
			 ge "$kv_refault_large" $large90 && ! ge "$kv_refault_swapcache" $((P10 + 1))'
	fi
	half=${kv_split_pages:-0}
	if [ "$s" = 0 ]; then
		expect "$what: split to order 0, still in the swap cache" \
			'ge "$half" 1 && [ "$kv_split_large" = 0 ] && [ "$kv_split_present" = $half ] && ge "$kv_split_swapcache" $((half * 9 / 10))'
	else
		expect "$what: split to order 0" \
			'ge "$half" 1 && [ "$kv_split_large" = 0 ] && [ "$kv_split_present" = $half ]'
	fi
	expect "$what: every page verified after the split, MADV_DONTNEED pages read zeros" \
		'[ "$kv_corrupt_refault" = 0 ] && [ "$kv_corrupt_split" = 0 ] && ge "$kv_dontneed_pages" 1'
	live=$(( (PAGES - ${kv_dontneed_pages:-0}) * 9 / 10 ))
	expect "$what: rewritten and split pages went through the device again and verify" \
		'[ $rc = 0 ] && [ "$kv_corrupt_roundtrip" = 0 ] && ge "$kv_swapped_again" $live &&
		 ge "$kv_roundtrip_pswpin" $live && [ "$kv_corrupt" = 0 ]'
}

# migrate_case S ORDER [--hold | --split]: 4 checks. --hold: a child holds
# the swap entries (swap count 2); --split: every THP allocation under
# migrate_pages fails (fail_page_alloc), so migration splits the swap cache
# THPs and moves their pages one by one.
migrate_case() {
	local s=$1 order=$2 opt=${3:-} hold= split= injected= what thp sym
	case $opt in
	--hold) hold=$opt what="sync=$s migrate $order (swap count 2)" ;;
	--split) split=1 what="sync=$s migrate $order (THP allocation fails: split)" ;;
	*) what="sync=$s migrate $order" ;;
	esac
	use_size "$LARGE"
	if [ ! -d /sys/devices/system/node/node1 ]; then
		skip_n 4 "$what" "one NUMA node (numa=fake=2 missing)"
		return
	fi
	thp=$(order_setup "$order") || { fail_n 4 "$what" "mTHP setup failed"; return; }
	if [ -n "$split" ]; then
		sym=$(sym_range migrate_pages_batch migrate_pages) && set -- $sym &&
			large_fail_on "$1" "$2" 100 && echo 9 > "$LARGE_FAIL/min-order" ||
			{ large_fail_off; fail_n 4 "$what" "fail_page_alloc setup failed"; return; }
	fi
	probe migrate --thp "$thp" $hold --seed 17
	[ -n "$split" ] && { injected=$(large_fail_count); large_fail_off; }
	diag "$what: $(kv_line folio_pages swapped_after_pageout refault_pswpin before_swapcache node_from node_to move_attempts pages_on_to pgmigrate_success thp_migration_success after_swapcache after_large swapped_again roundtrip_pswpin corrupt elapsed_ms)${split:+ injected=$injected}, $took s"
	expect "$what: pages faulted back into the swap cache" \
		'[ "$kv_corrupt_refault" = 0 ] && ge "$kv_swapped_after_pageout" $P90 && ge "$kv_before_swapcache" $P90'
	if [ -n "$split" ]; then
		expect "$what: every page moved to node ${kv_node_to:-?} as order-0 pages (no THP migrated)" \
			'[ "$kv_pages_on_to" = $PAGES ] && ge "$kv_pgmigrate_success" $PAGES && ge "$injected" 1 &&
			 [ "$kv_thp_migration_success" = 0 ] && [ "$kv_after_large" = 0 ]'
	else
		expect "$what: every page moved to node ${kv_node_to:-?} (pgmigrate_success)" \
			'[ "$kv_pages_on_to" = $PAGES ] && ge "$kv_pgmigrate_success" $PAGES'
	fi
	expect "$what: migrated folios took their place in the swap cache, every page verified" \
		'ge "$kv_after_swapcache" $P90 && [ "$kv_corrupt_migrated" = 0 ]'
	expect "$what: after migration, a round trip through the device verifies" \
		'[ $rc = 0 ] && ge "$kv_swapped_again" $P90 && ge "$kv_roundtrip_pswpin" $P90 &&
		 [ "$kv_corrupt_roundtrip" = 0 ] && [ "$kv_corrupt" = 0 ]'
}

# mincore_case S MEM: 3 checks
mincore_case() {
	local s=$1 mem=$2 what
	what="sync=$s mincore $mem"
	use_size "$SMALL"
	thp_reset
	probe mincore --mem "$mem" --thp never --seed 19
	diag "$what: $(kv_line resident_filled resident_after_pageout swapped_after_pageout drain_left resident_after_drain reread_pswpin resident_after_reread pswpout corrupt elapsed_ms), $took s"
	if [ "$s" = 0 ]; then
		# Written back asynchronously: the folios stay in the swap cache and
		# mincore counts them, for anon although the PTEs hold swap entries.
		# Most of them: a write that completes before reclaim looks again
		# lets it free the folio at once (seen: 89-99% stay).
		expect "$what: after pageout the swap cache folios read as resident" \
			'ge "$kv_resident_after_pageout" $((PAGES / 2)) && ge "$kv_pswpout" $P90 &&
			 { [ "$mem" = shmem ] || ge "$kv_swapped_after_pageout" $P90; }'
	else
		expect "$what: not resident after pageout" \
			'! ge "$kv_resident_after_pageout" $((P10 + 1)) && ge "$kv_pswpout" $P90'
	fi
	# not resident, and the re-read had to go to the device: they were not in the swap cache
	expect "$what: not resident once reclaimed, and re-read from the device" \
		'[ "$kv_resident_after_drain" = 0 ] && ge "$kv_reread_pswpin" $P90'
	expect "$what: resident after the re-read, every page verified" \
		'[ $rc = 0 ] && [ "$kv_resident_after_reread" = $PAGES ] && [ "$kv_corrupt" = 0 ]'
}

# swapoff_case S: 2 checks; leaves tierblk0 swapped off
swapoff_case() {
	local s=$1 what used r1 off_rc alive=no pin0 pin1 i=0 t0
	what="sync=$s swapoff under swaprace"
	use_size "$SMALL"
	t0=$(uptime_s)
	thp_reset
	in_memcg_bg "$CG" swaprace --mode threads --size "$SIZE" --workers 3 --memcg "$CG" \
		--until-signal --seed 23 > "$OUT" 2>&1
	bgpid=$BGPID
	# a round done and pages in swap
	while [ $i -lt 1500 ] && kill -0 "$bgpid" 2>/dev/null; do
		[ "$(count_lines "$OUT" '^# round ')" -ge 1 ] && [ "$(tierblk_swap_used 0)" -ge 512 ] && break
		sleep 0.2
		i=$((i + 1))
	done
	used=$(tierblk_swap_used 0)
	pin0=$(vmstat_get pswpin)
	tierblk_swapoff 0
	off_rc=$?
	pin1=$(vmstat_get pswpin)
	kill -0 "$bgpid" 2>/dev/null && alive=yes
	r1=$(count_lines "$OUT" '^# round ')
	# two more rounds without swap, then stop
	i=0
	while [ $i -lt 1500 ] && kill -0 "$bgpid" 2>/dev/null &&
		[ "$(count_lines "$OUT" '^# round ')" -lt $((r1 + 2)) ]; do
		sleep 0.2
		i=$((i + 1))
	done
	kill -USR1 "$bgpid" 2>/dev/null
	wait "$bgpid"
	rc=$?
	bgpid=
	kv_load "$OUT"
	diag "$what: ${used:-?} KiB in swap, pswpin during swapoff $((pin1 - pin0)), $r1 rounds at swapoff end, $(kv_line rounds rounds_concurrent pages_verified pswpin pswpout corrupt elapsed_ms), $(( $(uptime_s) - t0 )) s"
	expect "$what: swapoff with ${used:-?} KiB in swap succeeded while the workload ran" \
		'ge "$used" 512 && [ $off_rc = 0 ] && [ $alive = yes ] && [ $((pin1 - pin0)) -gt 0 ] &&
		 ! grep -q "^/dev/tierblk0 " /proc/swaps'
	expect "$what: the workload verified every page before, during and after swapoff" \
		'[ $rc = 0 ] && [ "$kv_corrupt" = 0 ] && [ "$kv_aborted" = 0 ] && ge "$kv_rounds" $((r1 + 2))'
}

# synchronous=1: 12 + 8 + 4 + 4 + 6 + 2; synchronous=0: 18 + 4 + 8 + 8 + 6 + 2
plan 86
trap cleanup EXIT
trap 'exit 143' TERM INT
swapcache_setup "$CGNAME"
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}, $SMALL per case ($LARGE split, migrate), page-cluster $(cat /proc/sys/vm/page-cluster), vma_ra_enabled $(cat /sys/kernel/mm/swap/vma_ra_enabled)"
for s in 1 0; do
	start=$(uptime_s)
	tierblk_swap_sync "$s" || bail "swapon tierblk0 synchronous=$s"
	for mem in anon shared; do
		for order in 0 64K 2M; do
			refault "$s" "$mem" "$order"
		done
	done
	if [ "$s" = 0 ]; then
		fork_case 0 2M
		split_case 0 64K
		split_case 0 2M
		migrate_case 0 0
		migrate_case 0 2M
		migrate_case 0 2M --split
	else
		fork_case 1 0
		fork_case 1 2M
		split_case 1 64K
		migrate_case 1 0 --hold
	fi
	mincore_case "$s" anon
	mincore_case "$s" shmem
	swapoff_case "$s"
	diag "synchronous=$s: $(( $(uptime_s) - start )) s"
done
tap_status
