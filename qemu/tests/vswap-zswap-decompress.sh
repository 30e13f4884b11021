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
#  1. in writeback: 3 failures; the shrinker skips those entries
#     (reject_reclaim_fail) and writes others back;
#  2. in a fault (the synchronous bypass: no swap cache): 1 failure; the
#     task gets SIGBUS on exactly that page, every other page verified,
#     those writeback skipped among them (nothing else lost);
#  3. in swapoff (the virtual device turned off while a second task is
#     stopped: unuse reads through the swap cache): 1 failure; the
#     device goes off, that PTE poisoned: the task gets SIGBUS on exactly
#     one page when it reads everything back, the rest verified;
#  4. decompress_fail counts the 5 failures and the kernel named the
#     entries (once, no prefix twice).
. /usr/lib/tierswap/lib.sh

CG=vswap-zswap-decompress
OUT=/tmp/vswap-zswap-decompress.out
OUT2=/tmp/vswap-zswap-decompress.2.out
ZD=/sys/kernel/debug/zswap
FD=$ZD/fail_decompress
sspid=

vswap_zswap_required || exit 0

# fail_decompress N: the next N decompressions report failure
fail_decompress() {
	echo 0 > "$FD/verbose" && echo 1 > "$FD/interval" && echo "$1" > "$FD/times" &&
		echo 100 > "$FD/probability"
}
fail_decompress_off() { [ ! -w "$FD/probability" ] || echo 0 > "$FD/probability"; }

cleanup() {
	kill_bg "$sspid"
	fail_decompress_off
	zswap_shrinker_restore
	memcg_destroy "$CG"
	memcg_destroy "$CG-2"
	tiers_down
}

plan 7
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

tiers_up zswap vswap:60M:lazy=1 tierblk0:16M:sync=1 || bail "tiers_up"
if [ ! -w "$FD/probability" ]; then
	for i in 1 2 3 4 5 6 7; do skip "no $FD (mm-patches 0035, CONFIG_FAULT_INJECTION_DEBUG_FS)"; done
	tap_end
	exit 0
fi
df0=$(zswap_stat decompress_fail)
dmesg -c > /dev/null
# --lock-self: only the test pages go out, so an armed failure meets a
# test page (its SIGBUS caught), not swapstress's own heap or stack
ss_paged_out "$CG" "$OUT" --size 8M --mem anon --thp never --pageout memcg --memcg-max 2M \
	--fill sparse --seed 23 --expect-sigbus --lock-self ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
zp0=$(zswap_stat stored_pages)
check "the sparse pages are in zswap ($zp0)" [ "$zp0" -ge 1000 ]

# 1. writeback: three entries fail to decompress
rf0=$(zswap_stat reject_reclaim_fail)
wb0=$(zswap_stat written_back_pages)
fail_decompress 3 || bail "fail_decompress"
zswap_shrinker Y || bail "zswap shrinker_enabled"
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
zswap_shrinker N
left=$(cat "$FD/times")
fail_decompress_off
df=$(($(zswap_stat decompress_fail) - df0))
rf=$(($(zswap_stat reject_reclaim_fail) - rf0))
wb=$(($(zswap_stat written_back_pages) - wb0))
diag "writeback with 3 failures armed: decompress_fail +$df (left $left), reject_reclaim_fail +$rf, written back +$wb"
check "writeback: 3 entries failed to decompress and were skipped (reject_reclaim_fail +$rf), others written back (+$wb)" \
	sh -c "[ $df = 3 ] && [ $rf -ge 3 ] && [ $wb -gt 0 ]"

# 2. a fault fails once: SIGBUS on that page, the others verified
fail_decompress 1 || bail "fail_decompress"
cont_wait sspid
fail_decompress_off
diag "read back with 1 failure armed: rc $CONT_RC, sigbus pages '$(kv_get "$OUT" sigbus_pages)'"
check_eq "a fault whose entry fails to decompress: SIGBUS on that one page, nothing corrupt, 2047 verified" \
	"1 0 2047" "$(kv_get "$OUT" sigbus) $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"

# 3. swapoff meets one that fails: the PTE poisoned, the device off
ss_paged_out "$CG-2" "$OUT2" --size 8M --mem anon --thp never --pageout memcg --memcg-max 2M \
	--fill sparse --seed 29 --expect-sigbus --lock-self ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT2")"
echo max > "$CGROOT/$CG-2/memory.max" || bail "memory.max max"
fail_decompress 1 || bail "fail_decompress"
r=$(vs_try size 0)
left=$(cat "$FD/times")
fail_decompress_off
check_eq "swapoff of the virtual device through an entry that fails to decompress: off, the failure used" "ok 0" "$r $left"
cont_wait sspid
check_eq "the task whose PTE swapoff poisoned: SIGBUS on that one page, nothing corrupt, 2047 verified" \
	"1 0 2047" "$(kv_get "$OUT2" sigbus) $(kv_get "$OUT2" corrupt) $(kv_get "$OUT2" pages_verified)"

# 4. counted and said
n=$(dmesg | grep -c 'zswap: decompression of swap entry [0-9]*:[0-9]* (.*, [0-9]* bytes) failed: ')
check "decompress_fail counts the 5 failures, the kernel named them ($n lines, rate-limited), no prefix twice" \
	sh -c "[ $(($(zswap_stat decompress_fail) - df0)) = 5 ] && [ $n -ge 1 ] && ! dmesg | grep -q 'zswap: zswap:'"
check "tiers down after the failures" tiers_down
tap_end
