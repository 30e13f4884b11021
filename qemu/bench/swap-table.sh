#!/bin/sh
# where: guest
# timeout: 1500
# The swap table (docs/swap-table.md) measured A/B by make bench: what the
# swap cache's own metadata costs in memory, and what swapping costs in time.
# docs/swap-table-bench.md explains every number.
#
# 1. memory: swap cache metadata per swap slot on a 256 MiB zram swap device.
#    Counted: the objects of the slab caches radix_tree_node (6.12's swap
#    cache XArrays: 64-slot nodes) and swap_table (the per-cluster tables:
#    512 slots of 8 bytes; absent on kernels without them, counted 0), as
#    active_objs x objsize of /proc/slabinfo, each cache shrunk first (so
#    per-CPU slabs are flushed and active_objs is exact); tables that are
#    whole pages (mm-patches 0007: no swap_table cache) by the kernel's
#    own count, /proc/vmstat swap_table_alloc - swap_table_free (0009), x
#    the page size. All as deltas against
#    a baseline taken right before swapon. Three points: (a) right after
#    swapon (empty; per slot of the device's capacity), (b) with ~90% of the
#    slots used by anon pages that MADV_PAGEOUT pushed out of a process that
#    then stays stopped (every slot holds a workingset shadow; per slot in
#    use), (c) after that process was killed and its slots freed (leaks).
#    Not counted, the same on both kernels: swap_map (1 byte per slot),
#    cluster_info (one small struct per 512 slots), the swap cgroup map
#    (2 bytes per slot), zswap's trees, zram's own table and data; nor the
#    per-64 MiB struct address_space array that the swap table drops
#    (~0.01 byte per slot). zram, not tierblk or brd, because those keep
#    their data pages in an XArray too: its nodes come from radix_tree_node
#    and would be counted as swap cache. Noise: radix_tree_node is shared
#    with the page cache (tmpfs /tmp included), IDRs (pids) and kernfs, so
#    nothing writes files while measuring; the drift of both caches over
#    2 s of idle before each baseline is printed.
# 2. speed, on tierblk (latency 0), RUNS runs, medians, every variant run
#    once per run (interleaved, so slow phases of the host hit all alike):
#    (a) usemem: PROCS processes of SIZE each in one memcg whose memory.max
#        is well below their total; each writes its memory, verifies and
#        rewrites it, then verifies it again (usemem -r 2 -Z); synchronous=1
#        (no swap cache on swapin) and synchronous=0 (workqueue completion:
#        swap cache and readahead); MiB/s = bytes touched / wall time, sys =
#        the memcg's cpu.stat system_usec (reclaim and faults of the tasks;
#        not tierblk's workqueue, which runs outside the memcg);
#    (b) sequential anon swapin (swapstress --mode swapin-timer) on
#        synchronous=0 with completion=inline: the swap cache path with the
#        copy in the faulting task; with readahead (page-cluster 3: a fault
#        reads 8 pages into the swap cache, the next 7 faults find them
#        there) and without (page-cluster 0: every page its own swap cache
#        insert, lookup and delete). The swap cache is drained before the
#        timed read-back. ms of the read-back, and the system time of the
#        read-back (and the fault-free verification after it) in a memcg of
#        its own. completion=workqueue (a real asynchronous disk) is left
#        out by default: under TCG its read-back is dominated by cross-vCPU
#        wakeups (64M: 5.4-7.3 s against 0.8-1.0 s inline); add it with
#        ST_BENCH_SI_VARIANTS=inline:3,inline:0,workqueue:3.
#    (c) calibration, once per run: the wall time of a fixed workload that
#        does not swap; its base/patched ratio shows whether the host ran
#        both boots at the same speed (TCG: guest time is host time).
# Knobs (GUEST_ENV="ST_BENCH_RUNS=3 ..."): ST_BENCH_PARTS (memory,usemem,
# swapin), ST_BENCH_RUNS (5), ST_BENCH_MEM_RUNS (3), ST_BENCH_MEM_DEV_SIZE
# (256M), ST_BENCH_MEM_FILL_PCT (90), ST_BENCH_UM_PROCS (4), ST_BENCH_UM_SIZE
# (16M each), ST_BENCH_UM_MAX (16M), ST_BENCH_SI_SIZE (128M),
# ST_BENCH_SI_VARIANTS (inline:3,inline:0; COMPLETION:PAGE_CLUSTER,...).
. /usr/lib/tierswap/lib.sh

# lists are comma-separated (GUEST_ENV splits on blanks)
PARTS=$(echo "${ST_BENCH_PARTS:-memory,usemem,swapin}" | tr , ' ')
RUNS=${ST_BENCH_RUNS:-5}
MEM_RUNS=${ST_BENCH_MEM_RUNS:-3}
MEM_DEV_SIZE=${ST_BENCH_MEM_DEV_SIZE:-256M}
MEM_FILL_PCT=${ST_BENCH_MEM_FILL_PCT:-90}
UM_PROCS=${ST_BENCH_UM_PROCS:-4}
UM_SIZE=${ST_BENCH_UM_SIZE:-16M}
UM_MAX=${ST_BENCH_UM_MAX:-16M}
SI_SIZE=${ST_BENCH_SI_SIZE:-128M}
SI_VARIANTS=$(echo "${ST_BENCH_SI_VARIANTS:-inline:3,inline:0}" | tr , ' ')
UM_CG=stbench-usemem
SI_CG=stbench-swapin
OUT=/tmp/stbench.out

fill_pid= zdev= pc_saved=
cleanup() {
	[ -n "$fill_pid" ] && kill -9 "$fill_pid" 2>/dev/null
	memcg_destroy $UM_CG 2>/dev/null
	memcg_destroy $SI_CG 2>/dev/null
	[ -n "$zdev" ] && zram_dev_down "$zdev"
	[ -n "$pc_saved" ] && echo "$pc_saved" > /proc/sys/vm/page-cluster
	tierblk_unload 2>/dev/null
}
trap cleanup EXIT

die() { echo "swap-table bench: $*"; exit 1; }

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

# mib SIZE: SIZE (e.g. 64M, 1G) in MiB
mib() {
	case $1 in
	*G) echo $((${1%G} * 1024)) ;;
	*M) echo "${1%M}" ;;
	*) die "size '$1': give it in M or G" ;;
	esac
}

# ---------------------------------------------------------------- memory

# The cache that holds the swap tables: swap_table, or, if SLUB merged it
# into another cache (then /proc/slabinfo lists only that one, and
# /sys/kernel/slab/swap_table is a link to it), that cache, with a warning:
# its delta then counts the other users of that cache too.
# Page-sized tables (mm-patches 0007) are not slab objects: they are
# counted by the kernel's own counter, /proc/vmstat swap_table_alloc -
# swap_table_free (x the page size, 4096 here; a page each, so their
# slab-page bytes are the same number).
ST_CACHE= ST_NOTE="absent (counted 0)" ST_VMSTAT=
find_table_cache() {
	local name rest t
	if grep -q '^swap_table_alloc ' /proc/vmstat && [ ! -e /sys/kernel/slab/swap_table ]; then
		ST_VMSTAT=1
		ST_NOTE="pages of 4096 bytes, counted by /proc/vmstat swap_table_alloc - swap_table_free"
		return 0
	fi
	while read -r name rest; do
		[ "$name" = swap_table ] || continue
		ST_CACHE=swap_table ST_NOTE="own cache"
		read -r t rest < /sys/kernel/slab/swap_table/aliases 2>/dev/null
		[ "${t:-0}" = 0 ] ||
			ST_NOTE="SHARED: $t other cache(s) merged into swap_table, its delta counts them too (create swap_table with SLAB_NO_MERGE, or boot with slab_nomerge)"
		return 0
	done < /proc/slabinfo
	[ -e /sys/kernel/slab/swap_table ] || return 0
	t=$(readlink -f /sys/kernel/slab/swap_table)
	while read -r name rest; do
		case $name in slabinfo|\#*) continue ;; esac
		if [ "$(readlink -f "/sys/kernel/slab/$name")" = "$t" ]; then
			ST_CACHE=$name
			ST_NOTE="MERGED into $name: its delta counts every user of $name (create swap_table with SLAB_NO_MERGE, or boot with slab_nomerge)"
			return 0
		fi
	done < /proc/slabinfo
	ST_NOTE="in /sys/kernel/slab but not found in /proc/slabinfo (counted 0)"
}

# slab_snap: shrink both caches (flushes per-CPU slabs: active_objs becomes
# the objects really allocated), then RT_N/RT_SZ and ST_N/ST_SZ (active_objs,
# objsize) of radix_tree_node and the table cache, and RT_PB/ST_PB, the bytes
# of their slab pages (num_slabs x pagesperslab x 4096: objects, the free
# pointer and each slab's unused tail). Shell builtins only: no fork, no
# file written.
slab_snap() {
	local name a n sz ops pps c1 t1 t2 t3 t4 c2 sd as ns rest
	echo 1 > /sys/kernel/slab/radix_tree_node/shrink
	[ -n "$ST_CACHE" ] && echo 1 > "/sys/kernel/slab/$ST_CACHE/shrink"
	RT_N=0 RT_SZ=0 ST_N=0 ST_SZ=0 RT_PB=0 ST_PB=0
	while read -r name a n sz ops pps c1 t1 t2 t3 t4 c2 sd as ns rest; do
		[ "$name" = radix_tree_node ] && RT_N=$a RT_SZ=$sz RT_PB=$((ns * pps * 4096))
		[ -n "$ST_CACHE" ] && [ "$name" = "$ST_CACHE" ] && ST_N=$a ST_SZ=$sz ST_PB=$((ns * pps * 4096))
	done < /proc/slabinfo
	if [ -n "$ST_VMSTAT" ]; then
		local k v alloc=0 free=0
		while read -r k v; do
			case $k in
			swap_table_alloc) alloc=$v ;;
			swap_table_free) free=$v ;;
			esac
		done < /proc/vmstat
		ST_N=$((alloc - free)) ST_SZ=4096
		ST_PB=$((ST_N * ST_SZ))
	fi
}

# swaps_of DEV: SW_SIZE and SW_USED (KiB) of DEV in /proc/swaps (builtins)
swaps_of() {
	local f t s u p
	SW_SIZE=0 SW_USED=0
	while read -r f t s u p; do
		[ "$f" = "$1" ] && SW_SIZE=$s SW_USED=$u
	done < /proc/swaps
}

meminfo_kb() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# mem_run I: one run of the memory experiment; appends to the per-metric lists.
mem_run() {
	local i=$1 b_rt b_st b_pb f_pb d0_rt d0_st rt st cap used fill_kb waited
	zdev=$(zram_dev_up "$MEM_DEV_SIZE") || die "zram device"
	mkswap "$zdev" > /dev/null || die "mkswap $zdev"
	# idle drift, then the baseline: right before swapon
	slab_snap; b_rt=$RT_N b_st=$ST_N
	sleep 2
	slab_snap
	d0_rt=$((RT_N - b_rt)) d0_st=$((ST_N - b_st))
	b_rt=$RT_N b_st=$ST_N b_pb=$((RT_PB + ST_PB))
	swapon "$zdev" || die "swapon $zdev"
	# (a) empty
	slab_snap
	swaps_of "$zdev"
	cap=$((SW_SIZE / 4))
	e_rt=$(((RT_N - b_rt) * RT_SZ)) e_st=$(((ST_N - b_st) * ST_SZ))
	# (b) ~90% full, stopped
	fill_kb=$((SW_SIZE * MEM_FILL_PCT / 100 / 4 * 4))
	swapstress --size "${fill_kb}K" --mem anon --thp never --pageout madvise \
		--write-pct 0 --stop-after-pageout --seed "$i" > "$OUT" 2>&1 &
	fill_pid=$!
	wait_stopped "$fill_pid" 300 || { cat "$OUT"; die "the filler did not stop"; }
	sleep 1
	slab_snap
	swaps_of "$zdev"
	used=$((SW_USED / 4))
	f_rt=$(((RT_N - b_rt) * RT_SZ)) f_st=$(((ST_N - b_st) * ST_SZ))
	f_pb=$((RT_PB + ST_PB - b_pb))
	echo "# run $i: slab pages of both caches grew by $f_pb bytes (objects: $((f_rt + f_st)))"
	echo "# run $i: $used slots in use for $((fill_kb / 4)) pages filled, SwapCached $(meminfo_kb SwapCached) kB, with the filler stopped"
	# (c) the filler killed: every slot freed
	kill -9 "$fill_pid"
	wait "$fill_pid" 2>/dev/null
	fill_pid=
	waited=0
	while swaps_of "$zdev"; [ "$SW_USED" -gt 1024 ] && [ $waited -lt 100 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	sleep 1
	slab_snap
	swaps_of "$zdev"
	r_rt=$(((RT_N - b_rt) * RT_SZ)) r_st=$(((ST_N - b_st) * ST_SZ))
	r_used=$((SW_USED / 4))
	swapoff "$zdev" || die "swapoff $zdev"
	zram_dev_down "$zdev"
	zdev=
	[ "$used" -gt 0 ] || die "no swap slot in use after the fill"

	printf '%-4s %9s %9s %11s %11s %11s %11s %11s %11s %14s\n' "$i" "$cap" "$used" \
		"$e_rt" "$e_st" "$f_rt" "$f_st" "$r_rt" "$r_st" "$d0_rt/$d0_st"
	[ "$r_used" -gt 0 ] && echo "# run $i: $r_used slots still in use after the kill (per-CPU slot caches, swap cache)"
	# per slot: the empty device per slot of its capacity, the full one per slot in use
	set -- $(awk -v e=$((e_rt + e_st)) -v f=$((f_rt + f_st)) -v r=$((r_rt + r_st)) \
		-v cap="$cap" -v used="$used" 'BEGIN {
			printf "%.3f %.3f %.3f %.1f %.1f %.1f\n", e / cap, f / used, f / cap, e / 1024, f / 1024, r / 1024 }')
	m_empty_pslot="$m_empty_pslot $1" m_full_pslot="$m_full_pslot $2" m_full_pcap="$m_full_pcap $3"
	m_empty_kib="$m_empty_kib $4" m_full_kib="$m_full_kib $5" m_freed_kib="$m_freed_kib $6"
	m_full_rt="$m_full_rt $f_rt" m_full_st="$m_full_st $f_st"
	m_full_slab_pslot="$m_full_slab_pslot $(awk -v b="$f_pb" -v used="$used" 'BEGIN { printf "%.3f", b / used }')"
}


memory_part() {
	local i=0
	[ -w /sys/kernel/slab/radix_tree_node/shrink ] || die "no /sys/kernel/slab/radix_tree_node (SLUB sysfs)"
	find_table_cache
	echo "swap cache metadata on a $MEM_DEV_SIZE zram swap device, filled to ${MEM_FILL_PCT}% by MADV_PAGEOUT of a stopped process, $MEM_RUNS runs (${TIERSWAP_TREE:-?} kernel)"
	echo "  radix_tree_node: objsize $(awk '$1 == "radix_tree_node" { print $4 }' /proc/slabinfo); swap_table: $ST_NOTE"
	echo "  bytes are slab deltas (active_objs x objsize) against a baseline right before swapon; rt = radix_tree_node, st = swap_table"
	printf '%-4s %9s %9s %11s %11s %11s %11s %11s %11s %14s\n' run cap_slots used_slots \
		empty_rt_B empty_st_B full_rt_B full_st_B freed_rt_B freed_st_B idle_drift_obj
	while [ $i -lt "$MEM_RUNS" ]; do
		i=$((i + 1))
		mem_run $i
	done
	v_es=$(echo "$m_empty_pslot" | median) v_fs=$(echo "$m_full_pslot" | median)
	v_fc=$(echo "$m_full_pcap" | median)
	v_ek=$(echo "$m_empty_kib" | median) v_fk=$(echo "$m_full_kib" | median)
	v_rk=$(echo "$m_freed_kib" | median)
	echo "medians: empty $v_es B/slot of capacity ($v_ek KiB); full $v_fs B/slot in use, $v_fc B/slot of capacity ($v_fk KiB: radix_tree_node $(echo "$m_full_rt" | median) B, swap_table $(echo "$m_full_st" | median) B); after the kill $v_rk KiB"
	# Below 1 byte per slot in use nothing of the swap cache was found: the
	# kernel keeps it somewhere this bench does not read (e.g. tables from
	# kmalloc or the page allocator): no number rather than a wrong one.
	if awk -v v="$v_fs" 'BEGIN { exit !(v < 1) }'; then
		echo "WARNING: $v_fs bytes per slot in use: no swap cache metadata in radix_tree_node or swap_table; no memory BENCH lines"
		return 0
	fi
	echo "BENCH-TABLE Memory: swap cache metadata, $MEM_DEV_SIZE zram swap, empty and ${MEM_FILL_PCT}% full (median of $MEM_RUNS)"
	echo "BENCH swap_meta_empty_bytes_per_slot $v_es B/slot"
	echo "BENCH swap_meta_full_bytes_per_slot $v_fs B/slot"
	echo "BENCH swap_meta_full_slab_pages_bytes_per_slot $(echo "$m_full_slab_pslot" | median) B/slot"
	echo "BENCH swap_meta_empty_KiB $v_ek KiB"
	echo "BENCH swap_meta_full_KiB $v_fk KiB"
	echo "BENCH swap_meta_freed_KiB $v_rk KiB"
}

# ---------------------------------------------------------------- speed

# cg_cpu CG: CG_USAGE CG_USER CG_SYS (us) from CG's cpu.stat (the cgroup
# core's, present without the cpu controller: sum_exec_runtime, split into
# user and system by the tick samples)
cg_cpu() {
	local k v
	CG_USAGE=0 CG_USER=0 CG_SYS=0
	[ -r "$CGROOT/$1/cpu.stat" ] || die "no $CGROOT/$1/cpu.stat (cgroup v2 core file)"
	while read -r k v; do
		case $k in
		usage_usec) CG_USAGE=$v ;;
		user_usec) CG_USER=$v ;;
		system_usec) CG_SYS=$v ;;
		esac
	done < "$CGROOT/$1/cpu.stat"
}

uptime_ms() {
	local up rest f
	read -r up rest < /proc/uptime
	f=${up#*.}
	f=${f#0}
	echo $((${up%.*} * 1000 + f * 10))
}

# cpu_begin / cpu_end CG: R_SYS_MS (CG's system time), R_WALL_MS, and
# R_CPU_DETAIL for a '#' line. Not /proc/stat: its tick samples miss time
# under TCG (a usemem run: 27 s busy there, 61.5 s in the memcg's cpu.stat,
# in 31.7 s on 2 vCPUs).
cpu_begin() {
	c_w0=$(uptime_ms)
}
cpu_end() {
	R_WALL_MS=$(($(uptime_ms) - c_w0))
	cg_cpu "$1"
	R_SYS_MS=$((CG_SYS / 1000))
	R_CPU_DETAIL="wall_ms=$R_WALL_MS memcg_usage_ms=$((CG_USAGE / 1000)) memcg_user_ms=$((CG_USER / 1000)) memcg_sys_ms=$R_SYS_MS"
}

# in_cg CG CMD...: run CMD inside memcg CG, output to $OUT
in_cg() {
	local cg=$1
	shift
	(echo 0 > "$CGROOT/$cg/cgroup.procs" && exec "$@") > "$OUT" 2>&1
}

swap_on_variant() { # SYNC COMPLETION PAGE_CLUSTER
	echo "$3" > /proc/sys/vm/page-cluster
	tierblk_set 0 synchronous "$1" || die "tierblk synchronous=$1"
	tierblk_set 0 completion "$2" || die "tierblk completion=$2"
	tierblk_swapon 0 || die "tierblk swapon"
}

# calib_run I: sets R_MS: the wall time of a fixed workload that does not
# swap (usemem -O -n 2 -r 2 64M, no memory limit, swap off). Under TCG every
# guest time is host time, so this tracks how fast the host ran the guest
# during this run; its base/patched ratio tells how comparable the two
# boots' conditions were.
calib_run() {
	local i=$1
	usemem -O -n 2 -y -r 2 -q --seed "$i" 64M > "$OUT" 2>&1 ||
		{ cat "$OUT"; die "calibration usemem failed in run $i"; }
	[ "$(kv_get "$OUT" pswpout)" = 0 ] || echo "# calibration run $i swapped out: $(kv_get "$OUT" pswpout) pages"
	R_MS=$(kv_get "$OUT" elapsed_ms)
	R_SYS_MS=-
	echo "# calibration run $i: elapsed_ms=$R_MS"
}

# usemem_run I SYNC: sets R_MIBPS R_SYS_MS
usemem_run() {
	local i=$1 s=$2 rc el
	swap_on_variant "$s" workqueue 3
	memcg_create $UM_CG "$UM_MAX" || die "memcg $UM_CG"
	cpu_begin
	in_cg $UM_CG usemem -O -n "$UM_PROCS" -y -r 2 -Z -q --seed "$i" "$UM_SIZE"
	rc=$?
	cpu_end $UM_CG
	memcg_destroy $UM_CG
	tierblk_swapoff 0
	if [ $rc != 0 ] || [ "$(kv_get "$OUT" corrupt)" != 0 ] ||
	   [ "$(kv_get "$OUT" usemem_done)" != "$UM_PROCS" ]; then
		grep -v 'bytes /\|usecs to free' "$OUT"
		die "usemem failed (exit $rc) in run $i, synchronous=$s"
	fi
	el=$(kv_get "$OUT" elapsed_ms)
	# bytes touched: every page written, verified + rewritten, verified again
	R_MIBPS=$(awk -v m="$UM_TOTAL_MIB" -v t="$el" 'BEGIN { printf "%.1f", m * 3 / (t / 1000) }')
	echo "# usemem run $i synchronous=$s: elapsed_ms=$el MiB/s=$R_MIBPS $R_CPU_DETAIL" \
		"pswpin=$(kv_get "$OUT" pswpin) pswpout=$(kv_get "$OUT" pswpout)" \
		"throughput_sum_kbps=$(kv_get "$OUT" throughput_sum_kbps) read_again_sum_kbps=$(kv_get "$OUT" read_again_sum_kbps)"
}

# swapin_run I COMPLETION PAGE_CLUSTER: sets R_MS R_SYS_MS. swapstress
# stops after MADV_PAGEOUT; the swap cache is drained (memory.reclaim: on
# synchronous=0 with the workqueue most folios are still in the swap cache,
# their writeback done after the single MADV_PAGEOUT pass, and the read-back
# would only find them there); then the read-back is timed. R_SYS_MS is the
# memcg's system time from the stop to the end: the read-back and the
# verification after it (which takes no faults).
swapin_run() {
	local i=$1 c=$2 pc=$3 rc pid sys0 sc
	swap_on_variant 0 "$c" "$pc"
	memcg_create $SI_CG max || die "memcg $SI_CG"
	cpu_begin
	(echo 0 > "$CGROOT/$SI_CG/cgroup.procs" && exec swapstress --mode swapin-timer --mem anon \
		--thp never --size "$SI_SIZE" --stop-after-pageout --seed "$i") > "$OUT" 2>&1 &
	pid=$!
	wait_stopped "$pid" 600 || { cat "$OUT"; die "swapstress did not stop after pageout"; }
	memcg_drain_swapcache "$CGROOT/$SI_CG" 60 > /dev/null ||
		echo "# swapin run $i: $(memcg_stat $SI_CG swapcached) bytes left in the swap cache"
	cg_cpu $SI_CG
	sys0=$CG_SYS
	kill -CONT "$pid"
	wait "$pid"
	rc=$?
	cpu_end $SI_CG
	R_SYS_MS=$(((CG_SYS - sys0) / 1000))
	memcg_destroy $SI_CG
	tierblk_swapoff 0
	R_MS=$(kv_get "$OUT" swapin_ms)
	if [ $rc != 0 ] || [ "$(kv_get "$OUT" corrupt)" != 0 ] || [ -z "$R_MS" ]; then
		cat "$OUT"
		die "swapstress failed (exit $rc) in run $i, completion=$c page-cluster=$pc"
	fi
	echo "# swapin run $i completion=$c page-cluster=$pc: swapin_ms=$R_MS readback_sys_ms=$R_SYS_MS $R_CPU_DETAIL" \
		"swapin_pswpin=$(kv_get "$OUT" swapin_pswpin) swap_ra=$(kv_get "$OUT" swap_ra) swap_ra_hit=$(kv_get "$OUT" swap_ra_hit)"
}

speed_part() {
	local i=0 v r s n u w c pc rm_ sm R
	UM_TOTAL_MIB=$(($(mib "$UM_SIZE") * UM_PROCS))
	pc_saved=$(cat /proc/sys/vm/page-cluster)
	tierblk_load size=$(( $(mib "$SI_SIZE") > UM_TOTAL_MIB ? $(mib "$SI_SIZE") * 2 : UM_TOTAL_MIB * 2 ))M ||
		die "insmod tierblk failed"
	echo "speed on tierblk latency 0, $RUNS runs, medians, variants interleaved run by run (${TIERSWAP_TREE:-?} kernel):"
	echo "  usemem -O -n $UM_PROCS -y -r 2 -Z $UM_SIZE in a memcg with memory.max=$UM_MAX; swapstress --mode swapin-timer --mem anon --size $SI_SIZE"
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		for v in $SPEED_VARIANTS; do
			case $v in
			cal)
				calib_run $i
				R=$R_MS ;;
			um1|um0)
				usemem_run $i "${v#um}"
				R=$R_MIBPS ;;
			si_*)
				v=${v#si_}
				swapin_run $i "${v%_*}" "${v#*_}"
				v=si_$v R=$R_MS ;;
			esac
			eval "${v}_r=\"\$${v}_r $R\" ${v}_s=\"\$${v}_s $R_SYS_MS\""
		done
	done
	echo "$pc_saved" > /proc/sys/vm/page-cluster
	tierblk_set 0 completion workqueue
	printf '%-50s %10s %-6s %10s\n' variant median unit sys_ms
	echo "BENCH-TABLE Speed: usemem and swapin on tierblk (median of $RUNS)"
	for v in $SPEED_VARIANTS; do
		eval "r=\$${v}_r s=\$${v}_s"
		case $v in
		cal)
			n=host_calib_no_swap_time u=ms w="calibration: usemem -n 2 -r 2 64M, no swap" ;;
		um1|um0)
			n=usemem_${UM_PROCS}x${UM_SIZE}_sync${v#um}_tput u=MiB/s w="usemem synchronous=${v#um}" ;;
		si_*)
			c=${v#si_} pc=${v##*_}
			c=${c%_*}
			n=swapin_anon_${SI_SIZE}_sync0_${c}_cluster${pc}_time u=ms
			w="swapin synchronous=0 $c page-cluster=$pc" ;;
		esac
		rm_=$(echo "$r" | median) sm=$(echo "$s" | median)
		printf '%-50s %10s %-6s %10s\n' "$w" "$rm_" "$u" "$sm"
		if [ "$v" = cal ]; then echo "#   runs:$r $u"; else echo "#   runs:$r $u; sys_ms:$s"; fi
		echo "BENCH $n $rm_ $u"
		[ "$v" = cal ] || echo "BENCH ${n%_*}_sys $sm ms"
	done
	tierblk_unload
}

SPEED_VARIANTS=
case " $PARTS " in *" usemem "*|*" swapin "*) SPEED_VARIANTS=cal ;; esac
for part in $PARTS; do
	case $part in
	memory) ;;
	usemem) SPEED_VARIANTS="$SPEED_VARIANTS um1 um0" ;;
	swapin)
		for v in $SI_VARIANTS; do
			case $v in
			workqueue:[0-9]|inline:[0-9]) SPEED_VARIANTS="$SPEED_VARIANTS si_${v%:*}_${v#*:}" ;;
			*) die "ST_BENCH_SI_VARIANTS: '$v' is not workqueue:N or inline:N" ;;
			esac
		done ;;
	*) die "unknown part '$part' (memory, usemem, swapin)" ;;
	esac
done
t0=$(cut -d' ' -f1 /proc/uptime)
case " $PARTS " in *" memory "*) memory_part ;; esac
t1=$(cut -d' ' -f1 /proc/uptime)
[ -n "$SPEED_VARIANTS" ] && speed_part
t2=$(cut -d' ' -f1 /proc/uptime)
echo "# time: memory $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s, speed $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.0f", b - a }') s"
