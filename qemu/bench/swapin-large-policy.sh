#!/bin/sh
# where: guest
# timeout: 3000
# The large-folio swapin policy against its two fixed choices (issue 17's
# bench; mm-patches 0034, memory.swap.large_swapin): each workload
# runs in a memcg of a quarter of its size with the memcg's mode "never"
# (order 0), "always" (64K mTHP swapin where 6.12 can) and "auto", in turn,
# LPOL_ROUNDS (3) times, in one boot; the time of its access passes
# (swapstress access_ms) is the median of the rounds. Workloads, LPOL_SIZE
# (32M) of anon each, a synchronous tierblk0, no zswap:
#   seq     sequential passes: every page of a large swapin used;
#   stride  one page of each 64K used (--pattern stride): large swapin
#           brings 15 unused pages a fault;
#   random  random passes over the whole: a page's neighbours are used
#           later, if at all.
# Goal (issue 17): auto within 5% of the better of never and always on
# each. A kernel without the knob prints nothing to compare. The region
# is MADV_HUGEPAGE (swapstress --thp always): without it a large swapin's
# charge cannot reclaim under the default defrag and mostly falls back
# in a memcg at its limit (docs/swapin-large-policy.md).
. /usr/lib/tierswap/lib.sh

SIZE=${LPOL_SIZE:-32M}
ROUNDS=${LPOL_ROUNDS:-3}
PASSES=${LPOL_PASSES:-4}
MAX=$((${SIZE%M} / 4))M
CG=lpol
OUT=/tmp/lpol.out

cleanup() {
	memcg_destroy "$CG"
	thp_reset
	tierblk_swapoff 0 2>/dev/null
	tierblk_unload 2>/dev/null
}
trap cleanup EXIT

tierblk_load size=$((${SIZE%M} * 2))M && tierblk_swapon 0 || { echo "lpol: tierblk0"; exit 1; }
thp_set pmd never && thp_set 64kB always || { echo "lpol: 64K mTHP"; exit 1; }
memcg_create "$CG" "$MAX" || { echo "lpol: memcg"; exit 1; }
if [ ! -e "$CGROOT/$CG/memory.swap.large_swapin" ]; then
	echo "swapin-large-policy: no memory.swap.large_swapin in this kernel: nothing to measure"
	exit 0
fi
memcg_destroy "$CG"

# one WORKLOAD MODE: access_ms large_pages on stdout
one() {
	local args
	case $1 in
	seq) args="--pattern seq" ;;
	stride) args="--pattern stride --stride 16" ;;
	random) args="--pattern random" ;;
	esac
	memcg_create "$CG" "$MAX" || return 1
	echo "$2" > "$CGROOT/$CG/memory.swap.large_swapin" || return 1
	# shellcheck disable=SC2086
	in_memcg_bg "$CGROOT/$CG" swapstress --size "$SIZE" --mem anon --thp always --pageout none \
		--passes "$PASSES" --write-pct 0 --seed 3 $args > "$OUT" 2>&1
	wait "$BGPID" || { echo "lpol: $1 $2 failed: $(tail -3 "$OUT")" >&2; return 1; }
	[ "$(kv_get "$OUT" corrupt)" = 0 ] || { echo "lpol: $1 $2: corrupt pages" >&2; return 1; }
	echo "$(kv_get "$OUT" access_ms) $(memcg_stat "$CG" swpin_large) $(memcg_stat "$CG" swpin_large_off)"
	memcg_destroy "$CG"
}

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
WLS="seq stride random"
MODES="never always auto"
r=0
while [ $r -lt "$ROUNDS" ]; do
	for w in $WLS; do
		for m in $MODES; do
			res=$(one $w $m) || exit 1
			echo "round $r $w $m: access_ms swpin_large swpin_large_off = $res"
			echo "$res" >> "/tmp/lpol.$w.$m"
		done
	done
	r=$((r + 1))
done
echo "BENCH-TABLE swapin-large-policy ($SIZE through a $MAX memcg, 64K mTHP, tierblk0 synchronous)"
printf '%-8s %10s %10s %10s %12s\n' workload never_ms always_ms auto_ms auto/best
for w in $WLS; do
	for m in $MODES; do
		eval "t_$m=$(awk '{ print $1 }' "/tmp/lpol.$w.$m" | med)"
		echo "BENCH swapin-large-policy.$w.${m}_ms $(eval echo \$t_$m) ms"
	done
	printf '%-8s %10s %10s %10s %12s\n' "$w" "$t_never" "$t_always" "$t_auto" \
		"$(echo "$t_never $t_always $t_auto" | awk '{ b = $1 < $2 ? $1 : $2; printf "%.3f", b ? $3 / b : 0 }')"
done
echo "(auto/best: the auto time over the better of never and always; the goal is at most 1.05)"
echo "reproduce: make bench B=swapin-large-policy   (LPOL_SIZE, LPOL_ROUNDS, LPOL_PASSES through GUEST_ENV)"
