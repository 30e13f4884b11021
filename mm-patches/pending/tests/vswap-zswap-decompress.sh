#!/bin/sh
# timeout: 900
# suite: quick
# boot: own
# A zswap entry that does not decompress costs its page, not the machine
# (mm-patches/pending 0035; issue 17: "a decompression failure keeps
# SIGBUS on that page, nothing else lost"). Its own boot (zswap). One
# synchronous 16M tierblk0 behind a 60M virtual device with lazy_bind;
# --fill sparse pages go to zswap unbound. debugfs zswap/fail_decompress
# (a fault attribute) makes a decompression report failure:
#  1. in writeback: 3 failures; those entries stay in zswap (skipped,
#     counted as reject_reclaim_fail), the others are written back;
#  2. in a load: 1 failure; the task gets SIGBUS on exactly that page
#     (do_swap_page() on a folio not uptodate), every other page verified,
#     the 3 entries writeback skipped among them (nothing else lost);
#  3. decompress_fail counts 4, the kernel said which entries, and the
#     virtual device goes off (swapoff).
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-zswap-decompress
OUT=/tmp/vswap-zswap-decompress.out
ZD=/sys/kernel/debug/zswap
FD=$ZD/fail_decompress
SHRINKER=$ZSWAP_PARAMS/shrinker_enabled
shrinker0=$(cat "$SHRINKER" 2>/dev/null)
sspid=

vswap_required || exit 0
[ -w "$V/lazy_bind" ] || { plan 1; skip "no $V/lazy_bind (mm-patches 0024)"; exit 0; }
[ -d "$ZSWAP_PARAMS" ] || { plan 1; skip "no $ZSWAP_PARAMS (CONFIG_ZSWAP)"; exit 0; }

# fail_decompress N: the next N decompressions report failure
fail_decompress() {
	echo 0 > "$FD/verbose" && echo 1 > "$FD/interval" && echo "$1" > "$FD/times" &&
		echo 100 > "$FD/probability"
}
fail_decompress_off() { [ ! -w "$FD/probability" ] || echo 0 > "$FD/probability"; }

cleanup() {
	kill_bg "$sspid"
	fail_decompress_off
	[ -z "$shrinker0" ] || echo "$shrinker0" > "$SHRINKER"
	memcg_destroy "$CG"
	tiers_down
}
zstat() { cat "$ZD/$1"; }

plan 6
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

tiers_up zswap vswap:60M:lazy=1 tierblk0:16M:sync=1 || bail "tiers_up"
[ -w "$FD/probability" ] || bail "no $FD (mm-patches 0035, CONFIG_FAULT_INJECTION_DEBUG_FS)"
ss_paged_out "$CG" "$OUT" --size 8M --mem anon --thp never --pageout memcg --memcg-max 2M \
	--fill sparse --seed 23 --expect-sigbus ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
zp0=$(zstat stored_pages)
check "the sparse pages are in zswap ($zp0)" [ "$zp0" -ge 1000 ]

# 1. writeback: three entries fail to decompress
df0=$(zstat decompress_fail)
rf0=$(zstat reject_reclaim_fail)
wb0=$(zstat written_back_pages)
fail_decompress 3 || bail "fail_decompress"
echo Y > "$SHRINKER" || bail "zswap shrinker_enabled"
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
left=$(cat "$FD/times")
fail_decompress_off
df=$(($(zstat decompress_fail) - df0))
rf=$(($(zstat reject_reclaim_fail) - rf0))
wb=$(($(zstat written_back_pages) - wb0))
diag "writeback with 3 failures armed: decompress_fail +$df (left $left), reject_reclaim_fail +$rf, written back +$wb"
check "writeback: the 3 entries that failed to decompress were skipped (reject_reclaim_fail +$rf), the rest written back (+$wb)" \
	sh -c "[ $df = 3 ] && [ $rf -ge 3 ] && [ $wb -gt 0 ]"

# 2. a load fails once: SIGBUS on that page, the others (those 3 too) verified
echo 0 > "$SHRINKER"
fail_decompress 1 || bail "fail_decompress"
cont_wait sspid
rc=$CONT_RC
fail_decompress_off
sb=$(kv_get "$OUT" sigbus_pages)
diag "read back with 1 failure armed: rc $rc, sigbus pages '$sb', decompress_fail $(($(zstat decompress_fail) - df0))"
check_eq "a load that fails to decompress: SIGBUS on that one page, nothing corrupt" "1 0" \
	"$(kv_get "$OUT" sigbus) $(kv_get "$OUT" corrupt)"
check_eq "every other page verified, the 3 writeback skipped among them" 2047 "$(kv_get "$OUT" pages_verified)"

# 3. counted, said, and the device goes off
check "decompress_fail counts the 4 failures, the kernel named the entries" \
	sh -c "[ $(($(zstat decompress_fail) - df0)) = 4 ] && dmesg | grep -q 'zswap: decompression of swap entry .* failed'"
check "the virtual device goes off (swapoff) after the failures" tiers_down
tap_end
