#!/bin/sh
# timeout: 600
# suite: quick
# Swap-out when a cluster's swap table cannot be allocated (mm-patches 0007).
# On a solid state device a free cluster gets its table when its first slot
# is allocated, under si->lock and ci->lock, without sleeping; that can
# fail. The allocator must then leave the free cluster alone and take slots
# from the clusters in use (they have tables), and when none has room the
# folio stays in memory; no BUG, no lost page. Fault injection (debug
# config) fails every allocation that cannot sleep (ignore-gfp-wait: the
# sleeping ones at swapon are left alone) made from the function that
# allocates tables (stack filter: require-start/end, from /proc/kallsyms):
# fail_page_alloc when a table is a page (4096 bytes, mm-patches 0007),
# failslab on the swap_table cache otherwise.
# On a fresh 64M zram swap only cluster 0 (the swap header's) is in use.
# Kernels without the swap table (no swap_table_alloc in /proc/vmstat and
# no swap_table slab cache): skipped.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/swap-table-alloc-fail.out
# the summary keys ss (lib/mem.sh) shows after each run
SS_KEYS='pswpout|pswpout_pageout|swapped_after_pageout|thp_swpout|thp_swpout_fallback'
PAGES_1M=256
PAGES_4M=1024
swt_fault_setup
FS=$SWT_FS KIND=$SWT_KIND

cleanup() {
	swt_inject_off
	thp_reset
	zram_swap_down
}

if [ -z "$FS" ]; then
	plan 1
	skip "no swap tables (no swap_table_alloc in /proc/vmstat, no swap_table slab cache): a kernel without the swap table"
	exit 0
fi
# 11 checks, 3 more with the table counter (mm-patches 0009)
if swt_counted; then plan 14; else plan 11; fi
trap cleanup EXIT
trap 'exit 143' TERM INT
cleanup 2>/dev/null
[ -w "$FS/require-start" ] ||
	bail "no $FS with a stack filter (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER: qemu/debug.config)"
[ -z "$(awk 'NR > 1' /proc/swaps)" ] || bail "another swap device is on: $(awk 'NR > 1 { print $1 }' /proc/swaps)"
t0=
if swt_counted; then
	sleep 1
	t0=$(swt_tables)
	diag "swap tables before swapon: $t0"
fi
DEV=$(zram_dev_up 64M) && mkswap "$DEV" >/dev/null && swapon "$DEV" || bail "zram swap failed"
thp_set pmd never
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}, swap $DEV 64M"
# 64M is 32 clusters; only cluster 0 (the header's) is in use
[ -n "$t0" ] && check "swapon gave one cluster a table (tables $(swt_tables) = $t0 + 1)" \
	swt_tables_become $((t0 + 1))

SYM=$(sym_range swap_cluster_alloc_table cluster_alloc_range \
	alloc_swap_scan_cluster cluster_alloc_swap_entry) ||
	bail "none of the table allocator's functions is in /proc/kallsyms"
set -- $SYM
diag "stack filter: $3, 0x$1..0x$2"
check "fault injection armed: $KIND, from the table allocator only" swt_inject_on "$1" "$2"
# 1M fits in cluster 0's 511 free slots: it must all go out, there.
ss "failing table allocation, 1M anon: every page verified" --size 1M --thp never --pageout madvise
n=$(swt_injected)
diag "table allocations failed: $n"
check "the table allocation was tried and failed (injected $n)" ge "$n" 1
check "1M swapped out all the same, into the cluster that has a table (pswpout_pageout $(kv_get "$OUT" pswpout_pageout))" \
	ge "$(kv_get "$OUT" pswpout_pageout)" $((PAGES_1M * 9 / 10))
# 4M does not fit: what cannot go out stays in memory.
ss "failing table allocation, 4M anon: every page verified" --size 4M --thp never --pageout madvise
# Some went out (cluster 0 has room), but no more than one cluster's worth.
n=$(kv_get "$OUT" pswpout_pageout)
check "4M: swapped into the cluster with a table only (1 <= pswpout_pageout $n <= 512)" \
	sh -c "[ ${n:-0} -ge 1 ] && [ ${n:-0} -le 512 ]"
# A PMD THP needs a free cluster: it is split, and its pages go out one by
# one as far as cluster 0 has room.
thp_set pmd madvise
ss "failing table allocation, 4M of PMD THP: every page verified" --size 4M --thp always --pageout madvise
check "PMD THP: not swapped out whole (thp_swpout 0, thp_swpout_fallback >= 1)" \
	sh -c "[ $(kv_get "$OUT" thp_swpout) -eq 0 ] && [ $(kv_get "$OUT" thp_swpout_fallback) -ge 1 ]"
thp_set pmd never
swt_inject_off
# every allocation failed, so only the table swapon gave cluster 0 exists
[ -n "$t0" ] && check "no table was allocated while allocations failed (tables $(swt_tables) = $t0 + 1)" \
	swt_tables_become $((t0 + 1))

ss "tables allocate again: 4M anon, every page verified" --size 4M --thp never --pageout madvise
check "4M swapped out (pswpout_pageout $(kv_get "$OUT" pswpout_pageout) >= 90%)" \
	ge "$(kv_get "$OUT" pswpout_pageout)" $((PAGES_4M * 9 / 10))
check "swapoff succeeds" swapoff "$DEV"
[ -n "$t0" ] && check "every table freed after swapoff (tables back to $t0)" swt_tables_become "$t0"
tap_status
