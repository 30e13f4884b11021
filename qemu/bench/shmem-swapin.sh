#!/bin/sh
# where: guest
# timeout: 3000
# The experiments behind mm-patches 0001, run on each kernel by make bench:
#  1. sequential shmem swapin (upstream 1dd44c0af4fa's experiment): a shmem
#     region of SIZE at order 0, 64K and 2M (anon shmem with the per-size
#     shmem mTHP knobs), paged out to tierblk synchronous=1 latency 0,
#     then read back in order; RUNS runs, median swapin_ms;
#  2. sequential anon swapin (upstream 0bcac06f27d7's): the same SIZE of
#     anon memory at order 0 from tierblk synchronous=1 and synchronous=0.
# Prints a table per kernel, and BENCH lines that make bench pairs into a
# base-vs-patched table.
. /usr/lib/tierswap/lib.sh

SIZE=${SHMEM_BENCH_SIZE:-256M}
RUNS=${SHMEM_BENCH_RUNS:-5}

cleanup() {
	thp_reset
	tierblk_unload 2>/dev/null
}
trap cleanup EXIT

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# timed MEM THP: RUNS runs of the swapin timer, median swapin_ms.
timed() {
	local i=0 all=
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		swapstress --mode swapin-timer --mem "$1" --thp "$2" --size "$SIZE" \
			--seed "$i" > /tmp/bench.out 2>&1
		if [ "$(kv_get /tmp/bench.out corrupt)" != 0 ]; then
			echo "corrupt pages in run $i" >&2
			cat /tmp/bench.out >&2
			return 1
		fi
		all="$all $(kv_get /tmp/bench.out swapin_ms)"
	done
	echo "$all" | median
}

tierblk_load size=$(( $(echo "$SIZE" | sed 's/M$//') * 2 ))M || { echo "insmod tierblk failed"; exit 1; }
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

echo "anon sequential swapin of $SIZE at order 0, median of $RUNS (${TIERSWAP_TREE:-?} kernel)"
printf '%-14s %12s\n' device swapin_ms
for s in 1 0; do
	tierblk_set 0 synchronous "$s" || exit 1
	tierblk_swapon 0 || exit 1
	ms=$(timed anon never) || exit 1
	tierblk_swapoff 0
	eval "anon_$s=$ms"
	printf '%-14s %12s\n' "synchronous=$s" "$ms"
	echo "BENCH anon_swapin_${SIZE}_sync$s $ms ms"
done
echo "anon: synchronous=0 / synchronous=1 = $(echo "$anon_0 $anon_1" | awk '{ printf "%.2f", $1 / $2 }')x (target >= 1.3)"
