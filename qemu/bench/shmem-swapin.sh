#!/bin/sh
# where: guest
# timeout: 3000
# The experiments behind mm-patches 0001, run on each kernel by make bench:
#  1. sequential shmem swapin (upstream 1dd44c0af4fa's experiment): a shmem
#     region of SIZE at order 0, 64K and 2M (anon shmem with the per-size
#     shmem mTHP knobs), paged out to tierblk synchronous=1 latency 0,
#     then read back in order; RUNS runs, median swapin_ms;
#  2. sequential anon swapin (upstream 0bcac06f27d7's): the same SIZE of
#     anon memory at order 0 from tierblk synchronous=1 and synchronous=0
#     (workqueue completion; inline completion with and without readahead).
# Prints a table per kernel, and BENCH lines that make bench pairs into a
# base-vs-patched table.
. /usr/lib/tierswap/lib.sh

SIZE=${SHMEM_BENCH_SIZE:-256M}
RUNS=${SHMEM_BENCH_RUNS:-5}
PARTS=${SHMEM_BENCH_PARTS:-shmem anon}	# run only some: GUEST_ENV="SHMEM_BENCH_PARTS=anon"

cleanup() {
	thp_reset
	tierblk_unload 2>/dev/null
}
trap cleanup EXIT

# one_run MEM THP SEED: one run of the swapin timer, its swapin_ms.
one_run() {
	swapstress --mode swapin-timer --mem "$1" --thp "$2" --size "$SIZE" \
		--seed "$3" > /tmp/bench.out 2>&1
	if [ "$(kv_get /tmp/bench.out corrupt)" != 0 ] || [ -z "$(kv_get /tmp/bench.out swapin_ms)" ]; then
		echo "corrupt pages or no result in run $3" >&2
		cat /tmp/bench.out >&2
		return 1
	fi
	kv_get /tmp/bench.out swapin_ms
}

# timed MEM THP: RUNS runs of the swapin timer, median swapin_ms.
timed() {
	local i=0 all= ms
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		ms=$(one_run "$1" "$2" "$i") || return 1
		all="$all $ms"
	done
	echo "$all" | median
}

tierblk_load size=$(( $(echo "$SIZE" | sed 's/M$//') * 2 ))M || { echo "insmod tierblk failed"; exit 1; }

shmem_part() {
	tierblk_swapon 0 || exit 1
	echo "shmem sequential swapin of $SIZE, tierblk synchronous=1 latency 0, median of $RUNS (${TIERSWAP_TREE:-?} kernel)"
	printf '%-8s %12s\n' order swapin_ms
	for order in 0 64K 2M; do
		thp=$(order_setup "$order") || exit 1
		ms=$(timed shared "$thp") || exit 1
		printf '%-8s %12s\n' "$order" "$ms"
		echo "BENCH shmem_swapin_${SIZE}_order_$order $ms ms"
	done
	thp_reset
	tierblk_swapoff 0
}

# The same anon readback four ways. synchronous=1: no swap cache, one page
# per read, the copy done by the faulting task. synchronous=0 with the
# workqueue (a real asynchronous disk): swap cache, readahead (page-cluster
# 3: up to 8 pages per window), and the copies run on the other vCPU. With
# completion=inline the copies stay on the faulting task (upstream's zram
# experiment: the same device with and without the flag), with readahead and
# without (page-cluster 0: one page per read, as synchronous=1 reads).
anon_part() {
	local i=0 v s c pc ms what cluster
	echo "anon sequential swapin of $SIZE at order 0, median of $RUNS, variants interleaved run by run (${TIERSWAP_TREE:-?} kernel)"
	cluster=$(cat /proc/sys/vm/page-cluster)
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		for v in 1:workqueue:3 0:workqueue:3 0:inline:3 0:inline:0; do
			s=${v%%:*} pc=${v##*:} c=${v#*:}
			c=${c%:*}
			echo "$pc" > /proc/sys/vm/page-cluster
			tierblk_set 0 synchronous "$s" || exit 1
			tierblk_set 0 completion "$c" || exit 1
			tierblk_swapon 0 || exit 1
			ms=$(one_run anon never "$i") || exit 1
			tierblk_swapoff 0
			eval "all_${s}_${c}_$pc=\"\$all_${s}_${c}_$pc $ms\""
		done
	done
	echo "$cluster" > /proc/sys/vm/page-cluster
	tierblk_set 0 completion workqueue
	printf '%-52s %12s\n' device swapin_ms
	for v in 1:workqueue:3 0:workqueue:3 0:inline:3 0:inline:0; do
		s=${v%%:*} pc=${v##*:} c=${v#*:}
		c=${c%:*}
		eval "ms=\$(echo \"\$all_${s}_${c}_$pc\" | median)"
		eval "anon_${s}_${c}_$pc=$ms"
		if [ "$s" = 1 ]; then what="synchronous=1"; else what="synchronous=0 completion=$c page-cluster=$pc"; fi
		printf '%-52s %12s\n' "$what" "$ms"
		if [ "$s" = 1 ]; then
			echo "BENCH anon_swapin_${SIZE}_sync1 $ms ms"
		else
			echo "BENCH anon_swapin_${SIZE}_sync0_${c}_cluster$pc $ms ms"
		fi
	done
}

ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
anon_report() {
	sync1=$anon_1_workqueue_3
	echo "anon, asynchronous / synchronous=1 (target >= 1.3):"
	echo "  workqueue, readahead:      $(ratio "$anon_0_workqueue_3" "$sync1")x"
	echo "  inline, readahead:         $(ratio "$anon_0_inline_3" "$sync1")x"
	echo "  inline, page-cluster 0:    $(ratio "$anon_0_inline_0" "$sync1")x"
}

for part in $PARTS; do
	case $part in
	shmem) shmem_part || exit 1 ;;
	anon) anon_part || exit 1; anon_report ;;
	*) echo "unknown part '$part' (shmem, anon)"; exit 1 ;;
	esac
done
