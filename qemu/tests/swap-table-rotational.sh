#!/bin/sh
# timeout: 600
# suite: quick
# Swap tables on demand on a rotational device (mm-patches 0010). A
# rotational device allocates slots by scanning swap_map; its clusters get
# a table when a slot of theirs goes into use and lose it with their last
# slot, as on a solid state device. Before 0010 it got every table at
# swapon: 2 MiB of tables per GiB of swap, pinned while the device is empty.
#  1. swapon of a 2G rotational zram: only the header's cluster has a table
#     (swap_table_alloc - swap_table_free; before 0010, all 1024);
#  2. MB swapped out (16M in the quick suite, 32M in the full one): about
#     MB/2 tables (the scan fills clusters in order), every page
#     verified; after the process exits, the tables go, but for the
#     clusters of the slots 6.12's per-cpu slots cache holds (up to 64
#     allocated and 64 freed slots a CPU: at most 4 clusters);
#  3. every table allocation that cannot sleep made to fail (fault
#     injection with a stack filter, helpers in lib/swaptable.sh): the
#     allocator drops si->lock and allocates one that may sleep, so MB
#     still goes out whole (without that retry only the header's cluster,
#     511 slots, and the cached slots would take pages), every page
#     verified;
#  4. every table allocation made to fail, the sleeping one too (as for
#     reclaim under PF_MEMALLOC, which cannot sleep its way to memory):
#     with a tmpfs file in swap and every other MiB of it read back, its
#     clusters have tables and free slots, and 8M of anon goes out into
#     them, no table allocated; the file reads back intact;
#  5. swapoff frees every table.
# Kernels without swap tables or their /proc/vmstat counters: skipped.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/swap-table-rotational.out
SS_KEYS='pswpout_pageout|swapped_after_pageout|pages_verified|corrupt'
SIZE=2G
MB=$(by_suite 16 32)
PAGES=$((MB * 256))
# the slots cache's clusters, and the header's
LEFT=$((1 + 4 * $(grep -c "^processor" /proc/cpuinfo)))
ROT=

# tables_settled: the tables in memory once a freed page table's RCU grace period
# is over
tables_settled() { sleep 1; swt_tables; }

TMPFS=/tmp/swap-table-rotational.fs
CG=swap-table-rotational

cleanup() {
	swt_inject_off
	rm -f "$TMPFS/f" /tmp/swap-table-rotational.src
	grep -q " $TMPFS " /proc/mounts && umount "$TMPFS"
	memcg_destroy "$CG"
	[ -n "$ROT" ] && zram_swap_down "$ROT"
	return 0
}

if ! swt_fault_setup || ! swt_counted; then
	plan 1
	skip "no swap tables or no swap_table_alloc in /proc/vmstat: a kernel without mm-patches 0004-0009"
	exit 0
fi
plan 18
trap cleanup EXIT
trap 'exit 143' TERM INT
[ -w "$SWT_FS/require-start" ] ||
	bail "no $SWT_FS with a stack filter (qemu/debug.config)"
[ -z "$(awk 'NR > 1' /proc/swaps)" ] || bail "another swap device is on: $(awk 'NR > 1 { print $1 }' /proc/swaps)"
bytes=$(swt_table_bytes)
sleep 1
t0=$(swt_tables)
ROT=$(zram_rot_swap_up "$SIZE") || bail "rotational zram swap failed"
check "$ROT took the rotational path (no SS flag)" swapon_not_ssd "$ROT"
t1=$(swt_tables)
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}; swapon of $SIZE rotational: $((t1 - t0)) tables, $(((t1 - t0) * bytes)) bytes ($bytes a table; all of them: 1024 tables, $((1024 * bytes)) bytes)"
check "swapon gave only the header's cluster a table (tables $t0 -> $t1)" \
	swt_tables_become $((t0 + 1))

# 2. use, then free
swapstress --size ${MB}M --thp never --pageout madvise --stop-after-pageout > "$OUT" 2>&1 &
pid=$!
t2=
if wait_stopped $pid 120; then
	t2=$(swt_tables)
	kill -CONT $pid
else
	kill -9 $pid 2>/dev/null
fi
wait $pid
rc=$?
n=$((${t2:-0} - t0))
kv_load "$OUT"
diag "${MB}M in swap: $n tables; $(kv_line pswpout_pageout pages_verified corrupt)"
check "${MB}M in swap: tables for the clusters in use only ($((MB / 2)) <= $n <= $((MB * 2))), every page verified" \
	sh -c "[ $rc = 0 ] && [ '${kv_corrupt:-}' = 0 ] && [ $n -ge $((MB / 2)) ] && [ $n -le $((MB * 2)) ]"
left=$(tables_settled)
check "process gone: its clusters' tables freed ($((left - t0)) left <= $LEFT)" \
	[ "$left" -le $((t0 + LEFT)) ]

# 3. no table without sleeping: the sleeping retry
# (the first that is not inlined: scan_swap_map_slots() may be, into
# get_swap_pages(), the caller on the swap-out path)
SYM=$(sym_range swap_cluster_alloc_table swap_rot_slot_get scan_swap_map_slots get_swap_pages) ||
	bail "none of the table allocator's functions is in /proc/kallsyms"
set -- $SYM
diag "stack filter: $3, 0x$1..0x$2"
check "fault injection armed: $SWT_KIND that cannot sleep, from $3" swt_inject_on "$1" "$2"
ss "every atomic table allocation failing: ${MB}M anon, every page verified" \
	--size ${MB}M --thp never --pageout madvise
n=$(swt_injected)
swt_inject_off
check "atomic table allocations were tried and failed ($n injected)" ge "$n" 1
check "${MB}M swapped out all the same, through the sleeping allocation (pswpout_pageout $(kv_get "$OUT" pswpout_pageout) >= 90%)" \
	ge "$(kv_get "$OUT" pswpout_pageout)" $((PAGES * 9 / 10))
left=$(tables_settled)
check "tables freed again ($((left - t0)) left <= $LEFT)" [ "$left" -le $((t0 + LEFT)) ]

# 4. no table at all, not even by sleeping: clusters that have one take
# the pages. A 32M tmpfs file written in an 8M memcg goes mostly to swap;
# reading every other MiB back frees those slots (shmem frees a slot at
# swap-in), leaving clusters with a table and free slots.
dd if=/dev/urandom of=/tmp/swap-table-rotational.src bs=1M count=32 2>/dev/null
sum0=$(md5sum < /tmp/swap-table-rotational.src)
mkdir -p "$TMPFS" && mount -t tmpfs -o size=64M swt "$TMPFS" || bail "tmpfs mount failed"
memcg_create "$CG" 8M || bail "memcg $CG failed"
in_memcg "$CGROOT/$CG" cp /tmp/swap-table-rotational.src "$TMPFS/f" || bail "tmpfs write failed"
rm -f /tmp/swap-table-rotational.src
echo max > "$CGROOT/$CG/memory.max"
i=1
while [ $i -lt 32 ]; do
	dd if="$TMPFS/f" of=/dev/null bs=1M skip=$i count=1 2>/dev/null
	i=$((i + 2))
done
t4=$(tables_settled)
used=$(awk '$1 == "SwapTotal:" { t = $2 } $1 == "SwapFree:" { f = $2 } END { print (t - f) / 4 }' /proc/meminfo)
room=$(((t4 - t0) * 512 - used))
diag "tmpfs file in swap, every other MiB read back: $used slots in use, $((t4 - t0)) tables, room for $room slots in their clusters"
check "clusters with a table have room for 8M ($room free slots >= 2048)" ge "$room" 2048
# the scan itself allocates the sleeping one: filter on it (or its caller)
SYM=$(sym_range scan_swap_map_slots get_swap_pages) ||
	bail "neither scan_swap_map_slots nor get_swap_pages is in /proc/kallsyms"
set -- $SYM
check "fault injection armed: every $SWT_KIND from $3, sleeping or not" swt_inject_on "$1" "$2" all
ss "no table can be allocated: 8M anon, every page verified" \
	--size 8M --thp never --pageout madvise
n=$(swt_injected)
t5=$(swt_tables)
swt_inject_off
check "table allocations were tried and failed ($n injected)" ge "$n" 1
check "8M swapped out all the same, into clusters that had a table (pswpout_pageout $(kv_get "$OUT" pswpout_pageout) >= 90%)" \
	ge "$(kv_get "$OUT" pswpout_pageout)" $((8 * 256 * 9 / 10))
check "no table was allocated meanwhile (tables $t4 -> $t5)" [ "$t5" -le "$t4" ]
check "the tmpfs file read back from swap is intact" [ "$(md5sum < "$TMPFS/f")" = "$sum0" ]
rm -f "$TMPFS/f"
umount "$TMPFS"
memcg_destroy "$CG"

# 5.
check "swapoff succeeds" swapoff "$ROT"
check "every table freed after swapoff (tables back to $t0)" swt_tables_become "$t0"
tap_status
