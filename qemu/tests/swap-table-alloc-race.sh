#!/bin/sh
# timeout: 900
# suite: full
# Swap table allocations failing at random while large folios swap out and
# in from several processes at once, then swapoff (mm-patches 0007,
# 0010; issue 15, item 4c). One device at a time, 128M zram: solid state
# (the cluster allocator; 64K mTHP and 2M THP folios) and rotational (the
# scan; order 0). Fault injection fails SWT_PERCENT (30) percent of the
# table allocations that cannot sleep, from the table allocator (stack
# filter, lib/swaptable.sh). Three processes of two threads each push 48M
# through a 16M memcg for three passes, rewriting half the pages they
# touch. Must hold: every page verifies, failures were injected, pages
# still went out and came back, swapoff succeeds and frees every table;
# the runner fails the test on any kernel splat.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/swap-table-alloc-race.out
SS_KEYS='pswpin|pswpout|thp_swpout|pages_verified|corrupt'
SWT_PERCENT=${SWT_PERCENT:-30}
DEV=

cleanup() {
	swt_inject_off
	thp_reset
	[ -n "$DEV" ] && zram_swap_down "$DEV"
	memcg_cleanup swt-race
	return 0
}

if ! swt_fault_setup || ! swt_counted; then
	plan 1
	skip "no swap tables or no swap_table_alloc in /proc/vmstat: a kernel without mm-patches 0004-0009"
	exit 0
fi
plan 12
trap cleanup EXIT
trap 'exit 143' TERM INT
[ -w "$SWT_FS/require-start" ] ||
	bail "no $SWT_FS with a stack filter (qemu/debug.config)"
[ -z "$(awk 'NR > 1' /proc/swaps)" ] || bail "another swap device is on: $(awk 'NR > 1 { print $1 }' /proc/swaps)"
sleep 1
t0=$(swt_tables)
thp_set pmd madvise
thp_set 64kB always

# one_device ssd|rot: six checks
one_device() {
	local kind=$1 sym n out in
	case "$kind" in
	ssd) DEV=$(zram_swap_up 128M) &&
		sym=$(sym_range swap_cluster_alloc_table cluster_alloc_range \
			alloc_swap_scan_cluster cluster_alloc_swap_entry) ;;
	rot) DEV=$(zram_rot_swap_up 128M) &&
		sym=$(sym_range swap_cluster_alloc_table swap_rot_slot_get \
			scan_swap_map_slots get_swap_pages) ;;
	esac || bail "$kind: zram swap or the table allocator's symbol failed"
	set -- $sym
	diag "$kind: $DEV, stack filter $3 (0x$1..0x$2)"
	check "$kind: fault injection armed: $SWT_PERCENT% of the $SWT_KIND that cannot sleep, from $3" \
		swt_inject_on "$1" "$2"
	ss "$kind: 3 processes x 2 threads, 48M through a 16M memcg, 3 passes, tables failing at random: every page verified" \
		--size 48M --procs 3 --threads 2 --thp always --passes 3 --write-pct 50 \
		--pageout memcg --memcg-max 16M --memcg-name swt-race
	n=$(swt_injected)
	swt_inject_off
	out=$(kv_get "$OUT" pswpout) in=$(kv_get "$OUT" pswpin)
	check "$kind: table allocations failed at random meanwhile ($n injected)" ge "$n" 1
	check "$kind: pages went out and came back all the same (pswpout ${out:-?}, pswpin ${in:-?}, each >= 12M)" \
		sh -c "[ '${out:-0}' -ge 3072 ] && [ '${in:-0}' -ge 3072 ]"
	check "$kind: swapoff succeeds" swapoff "$DEV"
	check "$kind: every table freed after swapoff (tables back to $t0)" swt_tables_become "$t0"
	zram_swap_down "$DEV"
	DEV=
}

one_device ssd
one_device rot
tap_status
