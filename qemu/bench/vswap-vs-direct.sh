#!/bin/sh
# where: guest
# timeout: 2400
# What virtual swap's indirection costs on a fast tier (mm-patches 0013),
# the regression upstream's reviewers measured on PMEM and zram: the same
# swapstress swapin-timer run (page out SIZE to tierblk synchronous=1
# latency 0, read it back in order) with tierblk0 swapped on directly and
# with tierblk0 as the tier of /sys/kernel/mm/vswap, alternating in one
# boot, ROUNDS times. Workloads (VSWAP_BENCH_WORKLOADS): anon at order 0,
# anon 64K, shmem 64K. Medians; ratio = vswap / direct swapin time (1.00:
# no cost); paired = the median of each round's own vswap / direct, which
# a slow stretch of the host shifts less, with its quartiles: the spread
# to read a few percent against. A kernel without virtual swap prints the
# direct column only.
# VSWAP_BENCH_PROFILE=FUNC,FUNC... (or 1: the swap-in and free path's
# list below), on a kernel with ftrace's function profiler
# (FLAVOUR=profile: GUEST_CPUS=1 qemu/boot.sh bench patched-profile
# vswap-vs-direct; one vCPU: ftrace patching live code under TCG with two
# once died on a stray int3), adds a table per
# workload: calls and time per call of each function, direct and vswap.
# The profiler's cost is in the times then: compare them with each other,
# not with the release kernel's.
. /usr/lib/tierswap/lib.sh

SIZE=${VSWAP_BENCH_SIZE:-128M}
ROUNDS=${VSWAP_BENCH_ROUNDS:-3}
WORKLOADS=$(echo "${VSWAP_BENCH_WORKLOADS:-anon:0 anon:64K shared:64K}" | tr , ' ')
# GUEST_ENV values cannot hold spaces: FUNC,FUNC,... there
PROFILE=$(echo "${VSWAP_BENCH_PROFILE:-}" | tr , ' ')
[ "$PROFILE" = 1 ] && PROFILE="do_swap_page swap_read_folio vswap_entry_synchronous
	vswap_resolve swapcache_prepare swapcache_clear swap_free_nr free_swap_slot
	swapcache_free_entries swap_entry_range_free vswap_unbind
	vswap_backend_free swap_range_free dec_cluster_info_page
	mem_cgroup_uncharge_swap tierblk_swap_slot_free_notify tierblk_submit_bio
	folio_alloc_swap vswap_bind"
V=/sys/kernel/mm/vswap
mb=${SIZE%M}

cleanup() {
	thp_reset
	# a base kernel has no $V (the shell reports a failed redirection
	# before 2>/dev/null applies)
	if [ -d "$V" ]; then
		echo 0 > "$V/size" 2>/dev/null
		echo /dev/tierblk0 > "$V/remove" 2>/dev/null
	fi
	tierblk_unload 2>/dev/null
}
trap cleanup EXIT

# swap_on MODE / swap_off MODE: tierblk0 directly, or as the virtual
# device's tier (a virtual device of the tier's size: its pages minus the
# header)
swap_on() {
	if [ "$1" = direct ]; then
		swapon /dev/tierblk0
	else
		echo /dev/tierblk0 > "$V/add" && echo $((mb * 2 * 1024 - 4))K > "$V/size"
	fi
}
swap_off() {
	if [ "$1" = direct ]; then
		swapoff /dev/tierblk0
	else
		echo 0 > "$V/size" && echo /dev/tierblk0 > "$V/remove"
	fi
}

# fprof_stop appends: a second run in the same boot starts from nothing
rm -f /tmp/fprof.*

# paired "D1 D2 .." "V1 V2 ..": the median of Vi / Di and its quartiles,
# "1.03 (1.01-1.05)"; "-" without vswap rounds
paired() {
	awk -v d="$1" -v v="$2" 'function q(f) { return r[int(f * (n - 1) + 1.5)] }
	BEGIN {
		n = split(d, dd); m = split(v, vv)
		if (!m || m != n) { print "-"; exit }
		for (i = 1; i <= n; i++) r[i] = vv[i] / dd[i]
		# insertion sort: a few dozen rounds
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
		printf "%.3f (%.3f-%.3f)\n", q(0.5), q(0.25), q(0.75)
	}'
}

# one_run MODE MEM ORDER SEED: one swapin-timer run, its swapin_ms
one_run() {
	local thp
	thp=$(order_setup "$3") || return 1
	swap_on "$1" || { echo "vswap-vs-direct: swap on ($1) failed" >&2; return 1; }
	[ -n "$PROFILE" ] && { fprof_start $PROFILE || { echo "vswap-vs-direct: no function profiler in this kernel" >&2; return 1; }; }
	swapstress --mode swapin-timer --mem "$2" --thp "$thp" --size "$SIZE" \
		--seed "$4" > /tmp/vbench.out 2>&1
	[ -n "$PROFILE" ] && fprof_stop "/tmp/fprof.$1.$2-$3"
	swap_off "$1" || { echo "vswap-vs-direct: swap off ($1) failed" >&2; return 1; }
	if [ "$(kv_get /tmp/vbench.out corrupt)" != 0 ] || [ -z "$(kv_get /tmp/vbench.out swapin_ms)" ]; then
		echo "vswap-vs-direct: corrupt pages or no result ($1 $2 $3)" >&2
		cat /tmp/vbench.out >&2
		return 1
	fi
	kv_get /tmp/vbench.out swapin_ms
}

tierblk_load size=$((mb * 2))M || { echo "vswap-vs-direct: insmod tierblk failed"; exit 1; }
tierblk_set 0 synchronous 1 && mkswap /dev/tierblk0 >/dev/null || exit 1
modes=direct
[ -d "$V" ] && modes="direct vswap"

echo "vswap vs direct: swapin-timer of $SIZE, tierblk synchronous=1 latency 0, median of $ROUNDS (${TIERSWAP_TREE:-?} kernel)"
echo "BENCH-TABLE vswap-vs-direct"
printf '%-12s %10s %10s %8s  %s\n' workload direct_ms vswap_ms ratio 'paired (quartiles)'
for w in $WORKLOADS; do
	mem=${w%%:*} order=${w#*:}
	d= v= r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		# alternate which mode goes first, so a drift falls on both
		for m in $([ $((r % 2)) = 1 ] && echo $modes || echo $modes | tr ' ' '\n' | sort -r); do
			ms=$(one_run "$m" "$mem" "$order" "$r") || exit 1
			if [ "$m" = direct ]; then d="$d $ms"; else v="$v $ms"; fi
		done
	done
	dm=$(echo "$d" | median)
	vm=$(echo "$v" | median)
	ratio=$(awk -v a="${vm:-0}" -v b="$dm" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
	printf '%-12s %10s %10s %8s  %s\n' "$mem-$order" "$dm" "${vm:--}" "$ratio" "$(paired "$d" "$v")"
	echo "# $mem-$order rounds: direct$d; vswap${v:- none}"
	echo "BENCH vswap-vs-direct.$mem-$order.direct $dm ms"
	[ -n "$vm" ] && echo "BENCH vswap-vs-direct.$mem-$order.vswap $vm ms"
	if [ -n "$PROFILE" ] && [ -n "$vm" ]; then
		echo "function profile, $mem-$order, per round (not traceable here:$(fprof_missing $PROFILE)):"
		fprof_table "$ROUNDS" direct "/tmp/fprof.direct.$mem-$order" vswap "/tmp/fprof.vswap.$mem-$order"
	fi
done
thp_reset
echo "reproduce: make bench B=vswap-vs-direct   (VSWAP_BENCH_SIZE, VSWAP_BENCH_ROUNDS, VSWAP_BENCH_WORKLOADS through GUEST_ENV)"
