#!/bin/sh
# where: guest
# timeout: 2400
# boot: own
# append: brd.rd_size=262144
# What one swap-in costs, per path and per device, against the floor
# (issue 19, items 1 to 3; seed 002's experiment done again):
#  - the floor, measured in the same boot (swapin-floor): one 4 KiB
#    memcpy() and one minor fault on a present page; every row is also
#    printed as a multiple of their sum; and a 4 KiB read() from the page
#    cache, the kernel's own copy (under ICOUNT=1 not the user one);
#  - SWAPCOST_SIZE (64M) of anon at order 0, paged out with MADV_PAGEOUT
#    and read back in order (swapstress --mode swapin-timer), timed twice:
#    the read-back (swapin) and the munmap() after it (unmap: what the
#    read-back left to free, the swap cache path's slots and folios);
#  - per device: tierblk synchronous=1 (no swap cache; its
#    swap_slot_free_notify frees its page at fault time), tierblk
#    synchronous=0 with the copy inline in the faulting task (the swap
#    cache, with readahead, page-cluster 3, and without, 0: the same
#    device with and without the flag, upstream 0bcac06f27d7's
#    comparison), brd (synchronous, no slot-free notification) and zram
#    (synchronous, notification);
#  - two fills of the swap area: roomy (SWAPCOST_SIZE in 4x its size)
#    and full (in 1.25x: over half full, vm_swap_full(), where the swap
#    cache path also frees each slot at fault time);
#  - shmem (a shared anonymous mapping) read back the same way from
#    tierblk synchronous=1 at order 0, 64K and 2M (shmem mTHP), the swap
#    area roomy, page-cluster 3: mm-patches 0001's path (no swap cache,
#    the large folio kept whole) against base's swap cache with its
#    readahead; a run whose folios did not go out whole fails the bench;
#  - with an image built with DRIVER_BEFORE=REV (make bench
#    DRIVER_BEFORE=REV B=swapin-cost), tierblk-sync-before too: the same
#    as tierblk-sync with the driver as of REV, loaded in its turn, so a
#    change to tierblk is measured against what it changed in one boot;
#  - per variant one more run, roomy, with the read-back timed per folio
#    (swapstress --fault-times --fault-group: a page at order 0, 16 or 512
#    pages for shmem's large folios, so each time is one fault and its
#    touches when the folio comes back whole): its distribution, printed
#    as quantiles and drawn by make bench, a curve per variant and kernel
#    (BENCH-CDF lines), and the folio sizes the pages came back at.
# Variants interleaved run by run (a change in the host's speed hits all
# of them), SWAPCOST_RUNS (5) runs, medians. A boot of its own: brd is
# built in and sized on the command line (the append line above: 256 MiB,
# room for a SWAPCOST_SIZE of 64M); each device is made once at the
# roomy size and the swap area sized per case (mkswap DEV KBYTES).
# SWAPCOST_PROFILE=1 (item 1; a kernel with ftrace's function profiler,
# FLAVOUR=profile: make bench boots one per kernel for this bench, the
# "# profile:" line below, one vCPU as vswap-vs-direct says why) adds one
# profiled run per variant, the swap area roomy: from the end of the
# pageout to the exit (read-back, untimed verification, unmap), the self
# time of the swap-in path's functions (FPROF list below), per page and
# per phase (BENCH-PHASES lines: make bench stacks them). SWAPCOST_PROFILE
# =only runs the profile alone. The profiler's cost is in those times:
# compare the rows with each other, not with the release kernel's.
# profile: SWAPCOST_PROFILE=only
. /usr/lib/tierswap/lib.sh

SIZE=${SWAPCOST_SIZE:-64M}
RUNS=${SWAPCOST_RUNS:-5}
MB=${SIZE%M}
ROOMY_KB=$((MB * 4 * 1024))
FULL_KB=$((MB * 5 * 1024 / 4))
PROFILE=${SWAPCOST_PROFILE:-0}
# anon at order 0 in both fills; shmem (tierblk synchronous=1) roomy only
ANON="tierblk-sync tierblk-cache-ra tierblk-cache brd-sync zram-sync"
SHMEM="shmem-0 shmem-64k shmem-2m"
if [ -f "$TIERBLK_KO_BEFORE" ]; then
	ANON="$ANON tierblk-sync-before"
fi
VARIANTS="$ANON $SHMEM"
zdev=

cleanup() {
	swapoff /dev/tierblk0 /dev/ram0 ${zdev:+"$zdev"} 2>/dev/null
	[ -n "$zdev" ] && zram_dev_down "$zdev"
	echo "$cluster" > /proc/sys/vm/page-cluster
	thp_reset
	tierblk_unload 2>/dev/null
}

case $SIZE in
*M) ;;
*) echo "swapin-cost: SWAPCOST_SIZE='$SIZE': give MiB (64M)"; exit 2 ;;
esac
case $PROFILE in
0 | 1 | only) ;;
*) echo "swapin-cost: SWAPCOST_PROFILE='$PROFILE': 0, 1 or only"; exit 2 ;;
esac
cluster=$(cat /proc/sys/vm/page-cluster)
trap cleanup EXIT
[ -b /dev/ram0 ] || { echo "swapin-cost: no /dev/ram0 (brd)"; exit 1; }
ram_kb=$(($(cat /sys/block/ram0/size) / 2))
[ "$ram_kb" -ge "$ROOMY_KB" ] ||
	{ echo "swapin-cost: /dev/ram0 has $ram_kb KiB, $ROOMY_KB needed (brd.rd_size on the command line)"; exit 1; }
# tierblk_use KO: that build of the driver loaded (one of the two), its
# device the roomy size; the one loaded is kept in /tmp/swapin-cost.ko, as
# variant_swapon runs in a subshell
tierblk_use() {
	[ "$(cat /tmp/swapin-cost.ko 2>/dev/null)" = "$1" ] && return 0
	tierblk_unload && TIERBLK_KO=$1 tierblk_load size=$((ROOMY_KB / 1024))M || return 1
	echo "$1" > /tmp/swapin-cost.ko
}
rm -f /tmp/swapin-cost.ko
tierblk_use "$TIERBLK_KO" || { echo "swapin-cost: tierblk"; exit 1; }
zdev=$(zram_dev_up "$((ROOMY_KB / 1024))M") || { echo "swapin-cost: zram"; exit 1; }

# variant_pages VARIANT: pages per folio (shmem's large folios; 1 for anon)
variant_pages() {
	case $1 in
	shmem-64k) echo 16 ;;
	shmem-2m) echo 512 ;;
	*) echo 1 ;;
	esac
}

# variant_swapon VARIANT KB: the variant's device set up (synchronous or
# not, page-cluster, shmem's folio size) with a swap area of KB on it,
# swapped on; "DEVICE SWAPSTRESS-ARGS" on stdout
variant_swapon() {
	local dev=/dev/tierblk0 pc=3 mem="--mem anon --thp never" thp ko=$TIERBLK_KO
	thp_reset
	[ "$1" = tierblk-sync-before ] && ko=$TIERBLK_KO_BEFORE
	tierblk_use "$ko" || return 1
	case $1 in
	tierblk-sync | tierblk-sync-before) tierblk_set 0 synchronous 1 || return 1 ;;
	shmem-*)
		tierblk_set 0 synchronous 1 || return 1
		case $1 in
		shmem-64k) thp=$(order_setup 64K) ;;
		shmem-2m) thp=$(order_setup 2M) ;;
		*) thp=$(order_setup 0) ;;
		esac || return 1
		mem="--mem shared --thp $thp" ;;
	tierblk-cache-ra | tierblk-cache)
		tierblk_set 0 synchronous 0 && tierblk_set 0 completion inline || return 1
		[ "$1" = tierblk-cache ] && pc=0 ;;
	brd-sync) dev=/dev/ram0 ;;
	zram-sync) dev=$zdev ;;
	esac
	echo "$pc" > /proc/sys/vm/page-cluster && mkswap "$dev" "$2" > /dev/null && swapon "$dev" || return 1
	echo "$dev $mem"
}

# whole VARIANT OUT: a shmem variant's folios all went out whole
# (mTHP swpout of their size); anon and shmem-0 pass
whole() {
	local n kb want
	n=$(variant_pages "$1")
	[ "$n" = 1 ] && return 0
	kb=$((n * 4)) want=$((MB * 256 / n))
	[ "$(kv_get "$2" "mthp_${kb}kB_swpout")" = "$want" ] && return 0
	echo "swapin-cost: $1: $(kv_get "$2" "mthp_${kb}kB_swpout") of $want ${kb}K folios went out whole" \
		"(fallback $(kv_get "$2" "mthp_${kb}kB_swpout_fallback")): not the path to measure" >&2
	return 1
}

# phase:function... of the profile; self time, so a function's time
# leaves out the listed ones it calls (memcpy and the rest unlisted stay
# in their caller's)
FPROF_PHASES="fault:handle_mm_fault,do_swap_page,shmem_fault,shmem_get_folio_gfp,shmem_swapin_folio
alloc:vma_alloc_folio_noprof,mem_cgroup_swapin_charge_folio,mem_cgroup_swapin_uncharge_swap,shmem_alloc_folio
cache:swapcache_prepare,swapcache_clear,swap_cache_get_folio,add_to_swap_cache,__read_swap_cache_async,swapin_readahead,swap_cluster_readahead,swap_vma_readahead,workingset_refault,folio_free_swap,__delete_from_swap_cache,delete_from_swap_cache,shmem_swapin_cluster,shmem_swapin_direct,shmem_add_to_page_cache
io:swap_read_folio,swap_read_folio_bdev_sync,submit_bio,submit_bio_wait,tierblk_submit_bio,brd_submit_bio,zram_submit_bio
map:folio_add_new_anon_rmap,folio_add_lru,folio_add_lru_vma,folio_batch_move_lru,set_pte_range,finish_fault
free:swap_free_nr,free_swap_slot,swapcache_free_entries,swap_entry_range_free,swap_range_free,__swap_entries_free,free_swap_and_cache_nr,tierblk_swap_slot_free_notify,zram_slot_free_notify
unmap:zap_pte_range,shmem_undo_range"
FPROF_FUNCS=$(echo "$FPROF_PHASES" | sed 's/^[a-z]*://' | tr ',\n' '  ')

# profiled VARIANT: one roomy run under the function profiler, from the
# end of the pageout to the exit; appends "FUNC HITS US" lines to
# /tmp/swapin-cost.prof.VARIANT
profiled() {
	local sw dev out=/tmp/swapin-cost.out pid
	sw=$(variant_swapon "$1" "$ROOMY_KB") || { echo "swapin-cost: $1: setup failed" >&2; return 1; }
	dev=${sw%% *}
	# shellcheck disable=SC2086
	swapstress --mode swapin-timer ${sw#* } --size "$SIZE" --seed 99 \
		--stop-after-pageout > "$out" 2>&1 &
	pid=$!
	wait_stopped "$pid" 300 || { kill_bg "$pid"; swapoff "$dev"; echo "swapin-cost: $1: no pageout" >&2; return 1; }
	if ! FPROF_SELF=1 fprof_start $FPROF_FUNCS; then
		kill_bg "$pid"
		swapoff "$dev"
		echo "swapin-cost: no function profile (FLAVOUR=profile has the profiler)" >&2
		return 1
	fi
	kill -CONT "$pid"
	wait "$pid"
	fprof_stop "/tmp/swapin-cost.prof.$1"
	swapoff "$dev"
	[ "$(kv_get "$out" corrupt)" = 0 ] || { echo "swapin-cost: $1: corrupt pages in the profiled run" >&2; return 1; }
	whole "$1" "$out"
}

# one VARIANT KB SEED [SWAPSTRESS-ARGS]: "swapin_ms unmap_ms" of one run
# (its output stays in /tmp/swapin-cost.out)
one() {
	local sw dev out=/tmp/swapin-cost.out
	sw=$(variant_swapon "$1" "$2") || { echo "swapin-cost: $1: setup failed" >&2; return 1; }
	dev=${sw%% *}
	# shellcheck disable=SC2086
	swapstress --mode swapin-timer ${sw#* } --size "$SIZE" --seed "$3" $4 > "$out" 2>&1
	swapoff "$dev" || return 1
	if [ "$(kv_get "$out" corrupt)" != 0 ] || [ -z "$(kv_get "$out" swapin_unmap_ms)" ]; then
		echo "swapin-cost: $1 run $3: corrupt pages or no result: $(tail -3 "$out")" >&2
		return 1
	fi
	whole "$1" "$out" || return 1
	echo "$(kv_get "$out" swapin_ms) $(kv_get "$out" swapin_unmap_ms)"
}

# fill_variants FILL: the variants run in that fill
fill_variants() { if [ "$1" = roomy ]; then echo "$VARIANTS"; else echo "$ANON"; fi; }

pages=$((MB * 256))
rm -f /tmp/swapin-cost.*.*
[ "$PROFILE" = only ] && RUNS=0
if [ "$RUNS" -gt 0 ]; then
	swapin-floor --size 16M > /tmp/floor.out 2>&1 ||
		{ echo "swapin-cost: swapin-floor failed"; cat /tmp/floor.out; exit 1; }
	copy=$(kv_get /tmp/floor.out copy_4k_ns)
	fault=$(kv_get /tmp/floor.out minor_fault_ns)
	floor=$(echo "$copy $fault" | awk '{ printf "%.1f", $1 + $2 }')
fi
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	for fill in roomy full; do
		kb=$ROOMY_KB
		[ $fill = full ] && kb=$FULL_KB
		for v in $(fill_variants $fill); do
			res=$(one "$v" "$kb" "$i") || exit 1
			echo "$res" >> "/tmp/swapin-cost.$v.$fill"
		done
	done
done

# col FILE N: the median of column N, in us per page
col() { awk -v n="$2" '{ print $n }' "$1" | median | awk -v p="$pages" '{ printf "%.2f", $1 * 1000 / p }'; }
if [ "$RUNS" -gt 0 ]; then
	echo "BENCH-TABLE swapin-cost ($SIZE read back in order; us per 4 KiB page, medians of $RUNS)"
	echo "floor: a 4 KiB memcpy $copy ns + a minor fault $fault ns = $floor ns (swapin-floor, this boot);" \
		"per 4 KiB page, a copy in 64K pieces $(kv_get /tmp/floor.out copy_64k_ns | awk '{ printf "%.1f", $1 / 16 }') ns," \
		"in 2M pieces $(kv_get /tmp/floor.out copy_2m_ns | awk '{ printf "%.1f", $1 / 512 }') ns;" \
		"a 4 KiB read() from the page cache (the kernel's copy) $(kv_get /tmp/floor.out read_4k_ns) ns"
	printf '%-20s %-6s %10s %10s %10s %9s\n' variant swap swapin_us unmap_us total_us x_floor
	for fill in roomy full; do
		for v in $(fill_variants $fill); do
			s=$(col "/tmp/swapin-cost.$v.$fill" 1)
			u=$(col "/tmp/swapin-cost.$v.$fill" 2)
			t=$(echo "$s $u" | awk '{ printf "%.2f", $1 + $2 }')
			x=$(echo "$t $floor" | awk '{ printf "%.1f", $1 * 1000 / $2 }')
			eval "t_${fill}_$(echo "$v" | tr - _)=$t s_${fill}_$(echo "$v" | tr - _)=$s"
			printf '%-20s %-6s %10s %10s %10s %9s\n' "$v" "$fill" "$s" "$u" "$t" "$x"
			echo "BENCH swapin-cost.$v.$fill.swapin $s us"
			echo "BENCH swapin-cost.$v.$fill.total $t us"
		done
	done
	if [ -f "$TIERBLK_KO_BEFORE" ]; then
		echo "tierblk as of DRIVER_BEFORE over this tree's, synchronous=1 (above 1: this tree's cheaper):"
		for fill in roomy full; do
			eval "echo \"  $fill: read-back \$(echo \$s_${fill}_tierblk_sync_before \$s_${fill}_tierblk_sync |" \
				"awk '{ printf \"%.3f\", \$1 / \$2 }')x, with the unmap" \
				"\$(echo \$t_${fill}_tierblk_sync_before \$t_${fill}_tierblk_sync | awk '{ printf \"%.3f\", \$1 / \$2 }')x\""
		done
	fi
	echo "seed 002's ratio, the swap cache path over the synchronous one on the same tierblk (above 1: synchronous faster):"
	ratio() { echo "$1 $2" | awk '{ printf "%.2f", $2 ? $1 / $2 : 0 }'; }
	for fill in roomy full; do
		eval "echo \"  $fill: read-back only: readahead \$(ratio \$s_${fill}_tierblk_cache_ra \$s_${fill}_tierblk_sync)x," \
			"page-cluster 0 \$(ratio \$s_${fill}_tierblk_cache \$s_${fill}_tierblk_sync)x;" \
			"with the unmap: readahead \$(ratio \$t_${fill}_tierblk_cache_ra \$t_${fill}_tierblk_sync)x," \
			"page-cluster 0 \$(ratio \$t_${fill}_tierblk_cache \$t_${fill}_tierblk_sync)x\""
	done

	# The distribution: one more run per variant, the read-back timed
	# per folio (two clock reads a folio more than the runs above), and
	# the folio sizes the pages came back at.
	echo "read-back time per folio (a page, or 16 and 512 pages for shmem-64k and -2m), the swap area roomy," \
		"one run each with --fault-times, ns; folio_pages: order:pages mapped after the read-back:"
	printf '%-20s %6s %9s %9s %9s %9s %9s  %s\n' variant pages p10 p50 p90 p99 max folio_pages
	for v in $VARIANTS; do
		one "$v" "$ROOMY_KB" $((RUNS + 1)) "--fault-times --fault-group $(variant_pages "$v") --folio-stats" \
			> /dev/null || exit 1
		cdf=$(kv_get /tmp/swapin-cost.out swapin_cdf_ns)
		echo "$cdf" | tr , '\n' | awk -F: -v v="$v" -v n="$(variant_pages "$v")" \
			-v f="$(kv_get /tmp/swapin-cost.out folio_pages)" '
			{ q[$1] = $2 }
			END { printf "%-20s %6s %9s %9s %9s %9s %9s  %s\n", v, n, q["0.1"], q["0.5"], q["0.9"], q["0.99"], q["1"], f }'
		echo "BENCH-CDF swapin-cost.$v ns $(echo "$cdf" | tr , ' ')"
	done
fi
if [ "$PROFILE" != 0 ]; then
	rm -f /tmp/swapin-cost.phases
	for v in $VARIANTS; do
		profiled "$v" || exit 1
	done
	echo "BENCH-TABLE swapin-cost profile (self time per 4 KiB page by phase, us, one run each, the swap area roomy)"
	echo "function profile, the swap area roomy, one run each: self time per page, us (not traceable here:$(fprof_missing $FPROF_FUNCS))"
	printf '%-20s' variant
	for ph in $(echo "$FPROF_PHASES" | cut -d: -f1); do printf ' %8s' "$ph"; done
	printf ' %8s\n' sum
	for v in $VARIANTS; do
		# the row, and a BENCH-PHASES line of the same numbers (kept
		# apart, printed after the table)
		echo "$FPROF_PHASES" | awk -v f="/tmp/swapin-cost.prof.$v" -v p="$pages" -v v="$v" -F'[:,]' '
			BEGIN { while ((getline l < f) > 0) { split(l, a, " "); us[a[1]] += a[3] } }
			{ t = 0; for (i = 2; i <= NF; i++) t += us[$i]; row = row sprintf(" %8.2f", t / p)
			  ph = ph sprintf(" %s=%.3f", $1, t / p); sum += t }
			END { printf "%-20s%s %8.2f\n", v, row, sum / p
			      print "BENCH-PHASES swapin-cost.profile." v " us" ph >> "/tmp/swapin-cost.phases"
			      printf "BENCH swapin-cost.profile.%s.sum %.3f us\n", v, sum / p >> "/tmp/swapin-cost.phases" }'
	done
	cat /tmp/swapin-cost.phases
	for v in $VARIANTS; do
		echo "top functions by self time, $v (calls, us per page):"
		sort -k3,3gr "/tmp/swapin-cost.prof.$v" | head -n 8 |
			awk -v p="$pages" '{ printf "  %-32s %9d %8.2f\n", $1, $2, $3 / p }'
	done
fi
echo "reproduce: make bench B=swapin-cost   (SWAPCOST_SIZE, SWAPCOST_RUNS, SWAPCOST_PROFILE through GUEST_ENV)"
