# Guest helpers for swapin tests: folio orders, finding a page on the swap
# device, draining the swap cache, waiting for swap usage to drop.
#
#   order_setup ORDER            ORDER = 0 | 64K | 2M: mTHP knobs for anon and
#                                anon shmem (MAP_SHARED|MAP_ANONYMOUS); prints
#                                the swapstress --thp value to use. 64K also
#                                sets the global THP knob to never, which
#                                stops khugepaged (thp_reset restarts it)
#   order_pages ORDER            pages per folio: 1, 16, 512
#   mthp_swpout_fallback ORDER   ORDER folios split since boot because they
#                                could not be swapped out whole (the per-size
#                                counter; "-" for order 0)
#   swap_slot_of_page DEV P [N]  the first slot of DEV (among its first N)
#                                that holds swapstress page P (ss-locate:
#                                word 0 of each page names it); discard the
#                                device before swapon so no stale copy is
#                                found
#   ss_paged_out CG OUT ARGS...  swapstress ARGS in memcg CG in the background,
#                                stopped once its pages went out, CG's swap
#                                cache drained; pid in sspid (1: no stop)
#   swap_page_on DEV P...        "P SLOT" for the first page P of the list that
#                                DEV holds (ss-locate); 1 when none is there
#   memcg_drain_swapcache CG [S] reclaim memcg CG until none of it is in the
#                                swap cache (S seconds at most, default 10)
#   swap_used_on DEV             KiB of swap in use on DEV
#   wait_swap_released DEV       until DEV holds no more swap than the per-CPU
#                                swap slots caches may keep (64 allocated and
#                                64 freed-but-not-returned slots a CPU)
#                                plus what the swap cache still holds (freed
#                                lazily, e.g. a folio whose read failed), 10 s
#                                at most; swapoff is the exact leak check
#   large_fail_on START END PCT  fail PCT% of the allocations of order >= 4
#                                (a 64K folio or larger) made with a return
#                                address in [START, END) on the stack
#                                (sym_range), user pages (highmem, may
#                                sleep) included; large_fail_count counts
#                                them from here
#   large_fail_count             failures injected since large_fail_on
#   large_fail_off               no more; the filters back to the defaults

order_setup() {
	thp_reset
	case "$1" in
	0) echo never ;;
	64K)
		# Global THP knob at never: khugepaged stops (the write returns
		# once the thread has exited) and registers no mm. 6.12's
		# __thp_vma_allowable_orders() returns shmem's order mask
		# unfiltered, so with 64K shmem mTHP on khugepaged takes anon
		# shmem for PMD-collapsible, copies filled 64K folios into 2M
		# ones and unmaps them before MADV_PAGEOUT (upstream fix: "mm:
		# huge_memory: fix the check for allowed huge orders in shmem",
		# 2025). Shmem and anon 64K do not depend on the global knob.
		thp_set 64kB always && shmem_thp_set 64kB always &&
			thp_set pmd never && echo default ;;
	2M)
		thp_set 2048kB always && shmem_thp_set 2048kB always && echo always ;;
	*) echo "order_setup: unknown order '$1'" >&2; return 1 ;;
	esac
}

order_pages() {
	case "$1" in
	0) echo 1 ;;
	64K) echo 16 ;;
	2M) echo 512 ;;
	esac
}

mthp_swpout_fallback() {
	local size
	case "$1" in
	64K) size=64kB ;;
	2M) size=2048kB ;;
	*) echo -; return ;;
	esac
	cat "/sys/kernel/mm/transparent_hugepage/hugepages-$size/stats/swpout_fallback" 2>/dev/null || echo -
}

swap_slot_of_page() {
	ss-locate "$@"
}

# ss_paged_out CG OUT ARGS...: swapstress ARGS (with --memcg-name CG) in
# the background until its pages went out (--stop-after-pageout), then
# memcg CG's swap cache drained; its pid in sspid, its output in OUT; 1
# if it did not stop within 300 s
ss_paged_out() {
	local cg=$1 out=$2
	shift 2
	swapstress "$@" --memcg-name "$cg" --stop-after-pageout > "$out" 2>&1 &
	sspid=$!
	wait_stopped "$sspid" 300 || return 1
	memcg_drain_swapcache "$CGROOT/$cg" >/dev/null || diag "pages left in the swap cache"
}

swap_page_on() {
	local dev=$1 p s
	shift
	for p in "$@"; do
		s=$(ss-locate "$dev" "$p" 2>/dev/null) && { echo "$p $s"; return 0; }
	done
	return 1
}

# swapped_pages PM: the swapped pages of a swapstress --pagemap file, by
# address
swapped_pages() {
	awk '$2 != "-" { print $1 }' "$1"
}

memcg_drain_swapcache() {
	local i=0 sc n=$(( ${2:-10} * 10 ))
	while [ $i -lt $n ]; do
		sc=$(awk '$1 == "swapcached" { print $2 }' "$1/memory.stat")
		[ "$sc" = 0 ] && return 0
		echo 16M > "$1/memory.reclaim" 2>/dev/null
		sleep 0.1
		i=$((i + 1))
	done
	echo "memcg swapcached: $sc bytes"
	return 1
}

swap_used_on() {
	awk -v d="$1" '$1 == d { print $4 }' /proc/swaps
}

wait_swap_released() {
	local i=0 slack
	while [ $i -lt 100 ]; do
		slack=$((128 * 4 * $(nproc) + $(awk '$1 == "SwapCached:" { print $2 }' /proc/meminfo)))
		[ "$(swap_used_on "$1")" -le "$slack" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "swap used on $1: $(swap_used_on "$1") KiB, more than $slack KiB"
	return 1
}

LARGE_FAIL=/sys/kernel/debug/fail_page_alloc
LARGE_FAIL_TIMES=1000000

large_fail_on() {
	local f=$LARGE_FAIL
	echo N > "$f/ignore-gfp-highmem" && echo N > "$f/ignore-gfp-wait" &&
		echo 4 > "$f/min-order" &&
		echo "0x$1" > "$f/require-start" && echo "0x$2" > "$f/require-end" &&
		echo 32 > "$f/stacktrace-depth" && echo 0 > "$f/space" &&
		echo 1 > "$f/interval" && echo 0 > "$f/verbose" &&
		echo "$LARGE_FAIL_TIMES" > "$f/times" && echo "$3" > "$f/probability"
}

large_fail_count() {
	echo $((LARGE_FAIL_TIMES - $(cat "$LARGE_FAIL/times")))
}

large_fail_off() {
	[ -w "$LARGE_FAIL/probability" ] || return 0
	echo 0 > "$LARGE_FAIL/probability"
	echo 0 > "$LARGE_FAIL/min-order"
	echo Y > "$LARGE_FAIL/ignore-gfp-highmem"
	echo Y > "$LARGE_FAIL/ignore-gfp-wait"
}
