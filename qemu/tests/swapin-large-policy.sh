#!/bin/sh
# timeout: 900
# suite: quick
# The large-folio swapin policy (mm-patches 0034, memory.swap.large_swapin,
# docs/vswap-plan.md "the large-folio swap-in policy"): in "auto" a large
# swapin's neighbours are mapped old and reclaim's first look counts the
# pages used since; a memcg whose large swapins go mostly unused swaps in
# single pages, and back to large once they are used again. 64K mTHP anon
# on a synchronous tierblk0 (no zswap: 6.12 swaps in at order 0 once it
# was on), one memcg of SIZE/4 throughout, every page verified. The
# region is MADV_HUGEPAGE (swapstress --thp always; PMD THP off): without
# it a large swapin's charge may not reclaim (vma_thp_gfp_mask() under
# the default defrag "madvise") and fails in a memcg at its limit: seen,
# 61 of 256 folios a pass swapped in large, the rest at order 0.
#  1. the knob: "always" by default, "never" and "auto" read back, a bad
#     value EINVAL and nothing changed;
#  2. always: large swapins as 6.12 makes them, none sampled;
#  3. never: no large swapin;
#  4. auto, one page of each 64K used (--pattern stride): the sampled
#     large swapins mostly unused (used < half of sampled), auto turns
#     large swapin off (swpin_large_off), the large swapins then fall to
#     the probes (a 64K range in 32);
#  5. auto, then a sequential reader in the same memcg: the probes' pages
#     all used, auto turns it on again (swpin_large_on). (Not back at
#     the full rate: a range swapped in at order 0 went out again as
#     single slots, which 6.12 swaps in at order 0 whatever the mode.)
. /usr/lib/tierswap/lib.sh

CG=swapin-large-policy
K=$CGROOT/$CG/memory.swap.large_swapin
OUT=/tmp/swapin-large-policy.out
SIZE=$(by_suite 16M 32M)
MAX=$((${SIZE%M} / 4))M
# passes: enough sampled folios to flip twice (one window of 32 folios
# while on, two of 16 while off: the least the checks below ask for): a stride pass samples every folio it
# brings in, a sequential pass while off only the probes (one 64K range
# in 32: about 8 folios a pass of 16M)
PASSES=8
SEQ_PASSES=8

cleanup() {
	memcg_destroy "$CG"
	thp_reset
	tierblk_swapoff 0 2>/dev/null
	tierblk_unload 2>/dev/null
}

# st KEY: the memcg's memory.stat counter
st() { memcg_stat "$CG" "$1"; }
# snap: the counters before a phase; delta KEY: since the snap
snap() { for k in swpin_large swpin_large_refault swpin_large_sampled swpin_large_used swpin_large_off swpin_large_on; do eval "s0_$k=$(st $k)"; done; }
delta() { eval "echo \$(( \$(st $1) - \${s0_$1:-0} ))"; }
# mthp: the 64K mTHP swap counters of the boot
mthp() {
	local d=/sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats f out=
	for f in "$d"/*; do
		[ "$(cat "$f")" = 0 ] || out="$out ${f##*/}=$(cat "$f")"
	done
	echo "64K mTHP:${out:- no stats}"
}
# run PASSES PATTERN ARGS...: swapstress in the memcg, filled with no
# limit (its 64K folios allocated whole), then the limit set: the folios
# go out whole, and the passes swap them in under it
run() {
	local passes=$1
	shift
	echo max > "$CGROOT/$CG/memory.max" || bail "memory.max max"
	in_memcg_bg "$CGROOT/$CG" swapstress --size "$SIZE" --mem anon --thp always --pageout none \
		--stop-after-pageout --passes "$passes" --write-pct 0 --seed 7 --pattern "$@" > "$OUT" 2>&1
	wait_stopped "$BGPID" 300 || bail "swapstress did not stop after its fill: $(cat "$OUT")"
	echo "$MAX" > "$CGROOT/$CG/memory.max" || bail "memory.max $MAX"
	kill -CONT "$BGPID"
	wait "$BGPID"
	RC=$?
}
verified() { echo "$RC $(kv_get "$OUT" corrupt)"; }
# workload LABEL PASSES PATTERN ARGS...: one phase, its pages verified; S
# and U: the pages of large swapins it sampled, and of those used
workload() {
	local label=$1
	shift
	snap
	run "$@"
	phase "$label"
	check_eq "$label: every page verified" "0 0" "$(verified)"
	S=$(delta swpin_large_sampled)
	U=$(delta swpin_large_used)
}
phase() { diag "$(mthp)"; diag "$1: swpin_large +$(delta swpin_large) (refault +$(delta swpin_large_refault)) sampled +$(delta swpin_large_sampled) used +$(delta swpin_large_used) off +$(delta swpin_large_off) on +$(delta swpin_large_on); $(grep -E '^(pswpin|pswpout|elapsed_ms)=' "$OUT" | tr '\n' ' ')"; }

plan 16
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
if [ "$(cat /sys/module/zswap/parameters/enabled 2>/dev/null)" = Y ]; then
	bail "zswap is on: 6.12 swaps in at order 0 for the rest of the boot"
fi
tierblk_load size=$((${SIZE%M} * 2))M || bail "tierblk"
tierblk_swapon 0 || bail "swapon tierblk0"
thp_set pmd never && thp_set 64kB always || bail "64K mTHP"
memcg_create "$CG" "$MAX" || bail "memcg $CG"
if [ ! -e "$K" ]; then
	for i in $(seq 16); do skip "no memory.swap.large_swapin (mm-patches 0034)"; done
	exit 0
fi

# 1. the knob
try() { tierblk_try_file "$K" "$1"; }
check_eq "always by default; never, auto read back; 'sometimes' EINVAL, still auto; always again" \
	"always ok never ok auto EINVAL auto ok always" \
	"$(cat "$K") $(try never) $(cat "$K") $(try auto) $(cat "$K") $(try sometimes) $(cat "$K") $(try always) $(cat "$K")"

# 2. always
workload "always" $PASSES stride
check "always: large swapins ($(delta swpin_large) pages), none sampled ($(delta swpin_large_sampled))" \
	sh -c "[ $(delta swpin_large) -ge $(( ${SIZE%M} * 256 )) ] && [ $(delta swpin_large_sampled) = 0 ]"
L_ALWAYS=$(delta swpin_large)

# 3. never
echo never > "$K" || bail "never"
workload "never" $PASSES stride
check_eq "never: no large swapin, nothing sampled" "0 0" "$(delta swpin_large) $(delta swpin_large_sampled)"

# 4. auto, sparse use
echo auto > "$K" || bail "auto"
workload "auto, stride" $PASSES stride
check "auto, stride: large swapins sampled ($S pages), fewer than half used ($U)" \
	sh -c "[ $S -ge $((32 * 16)) ] && [ $((2 * U)) -lt $S ]"
check "auto, stride: large swapin turned off (swpin_large_off +$(delta swpin_large_off)), not on again" \
	sh -c "[ $(delta swpin_large_off) -ge 1 ] && [ $(delta swpin_large_on) = 0 ]"
check_eq "auto, stride: the memcg still in auto" auto "$(cat "$K")"
L_STRIDE=$(delta swpin_large)

# 5. auto, sequential, same memcg
workload "auto, seq" $SEQ_PASSES seq
check "auto, seq: sampled swapins ($S pages) at least three quarters used ($U)" \
	sh -c "[ $S -ge $((2 * 16 * 16)) ] && [ $((4 * U)) -ge $((3 * S)) ]"
check "auto, seq: large swapin on again (swpin_large_on +$(delta swpin_large_on))" \
	sh -c "[ $(delta swpin_large_on) -ge 1 ]"
# (a range swapped in at order 0 goes out as single slots: with large
# swapin on again, only the probes' ranges and new memory come in large)
check "auto, seq: the probes kept swapping in large while off ($(delta swpin_large) pages, 16 folios at least)" \
	sh -c "[ $(delta swpin_large) -ge 256 ]"
check "the off phase swapped in fewer large pages ($L_STRIDE) than always did with the same stride ($L_ALWAYS)" \
	sh -c "[ $L_STRIDE -lt $L_ALWAYS ]"
vs=$(vmstat_get swpin_large_off)
check "the flips in /proc/vmstat too (swpin_large_off $vs, swpin_large_on $(vmstat_get swpin_large_on))" \
	sh -c "[ $vs -ge 1 ] && [ $(vmstat_get swpin_large_on) -ge 1 ]"
memcg_destroy "$CG"
check "nothing left: tierblk0 swaps off" tierblk_swapoff 0
