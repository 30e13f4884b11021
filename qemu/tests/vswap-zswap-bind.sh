#!/bin/sh
# timeout: 900
# suite: quick
# boot: own
# zswap's writeback binds a lazily bound virtual slot before it
# decompresses (mm-patches 0032). Its own boot (zswap). One
# synchronous 16M tierblk0 behind a 60M virtual device with lazy_bind;
# --fill sparse pages go to zswap unbound. With every bind failing
# (debugfs vswap/fail_bind) but the tier not full (so 0025's rotation
# does not pass the entries by), reclaim's zswap writeback:
#  1. writes nothing back, the entries stay in zswap (stored_pages as
#     before), nothing is left in the swap cache (before 0032 each entry
#     was decompressed, freed from zswap and left dirty in memory), each
#     attempt a bind failure and a reject_reclaim_fail;
#  2. binds fail no more: the same reclaim writes entries back;
#  3. binds failing again, the virtual device turned off (swapoff reads
#     every page back) while reclaim keeps trying zswap's writeback: the
#     folios such a writeback gives up must not be taken for the pages
#     (swapoff's check in 0032): no SIGBUS, the device off;
#  4. every page verified.
. /usr/lib/tierswap/lib.sh

CG=vswap-zswap-bind
OUT=/tmp/vswap-zswap-bind.out
ZD=/sys/kernel/debug/zswap
sspid=
rpid=

vswap_zswap_required || exit 0

cleanup() {
	[ -z "$rpid" ] || kill "$rpid" 2>/dev/null
	kill_bg "$sspid"
	vswap_fail_bind_off
	zswap_shrinker_restore
	memcg_destroy "$CG"
	tiers_down
}
swapcached() { awk '$1 == "swapcached" { print $2 }' "$CGROOT/$CG/memory.stat"; }

plan 6
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

tiers_up zswap vswap:60M:lazy=1 tierblk0:16M:sync=1 || bail "tiers_up"
[ -r "$ZD/stored_pages" ] || bail "no $ZD/stored_pages (debugfs)"
ss_paged_out "$CG" "$OUT" --size 8M --mem anon --thp never --pageout memcg --memcg-max 2M \
	--fill sparse --seed 21 || bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
zp0=$(zswap_stat stored_pages)
check "the sparse pages are in zswap ($zp0), tierblk0 nearly empty ($(tier_used_kb tierblk0) KiB)" \
	sh -c "[ $zp0 -ge 1000 ] && [ $(tier_used_kb tierblk0) -le 1024 ]"

# 1. every bind fails, the tier has room
if ! vswap_fail_bind 100; then
	for i in 1 2 3 4 5; do skip "no debugfs vswap/fail_bind"; done
	tap_end
	exit 0
fi
zswap_shrinker Y || bail "zswap shrinker_enabled"
rf0=$(zswap_stat reject_reclaim_fail)
wb0=$(zswap_stat written_back_pages)
f0=$(vswap_stat bind_failures)
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
rf=$(($(zswap_stat reject_reclaim_fail) - rf0))
wb=$(($(zswap_stat written_back_pages) - wb0))
fd=$(($(vswap_stat bind_failures) - f0))
zp=$(zswap_stat stored_pages)
sc=$(swapcached)
diag "fail_bind 100%: reject_reclaim_fail +$rf, written back +$wb, bind_failures +$fd, stored $zp0 -> $zp, memcg swapcached $sc"
check "no bind: nothing written back (+$wb), each attempt failed to bind (reject_reclaim_fail +$rf, bind_failures +$fd)" \
	sh -c "[ $wb = 0 ] && [ $rf -ge 1 ] && [ $fd -ge $rf ]"
check "the entries stay in zswap ($zp0 -> $zp), nothing left in the swap cache ($sc bytes)" \
	sh -c "[ $zp -ge $((zp0 - 16)) ] && [ ${sc:-1} = 0 ]"

# 2. binds succeed again
vswap_fail_bind_off
wb0=$(zswap_stat written_back_pages)
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
wb=$(($(zswap_stat written_back_pages) - wb0))
check "binds succeed: the same reclaim writes entries back (+$wb), tierblk0 $(tier_used_kb tierblk0) KiB" \
	[ "$wb" -gt 0 ]

# 3. swapoff while failing writebacks give their folios up
vswap_fail_bind 100 || bail "fail_bind"
echo max > "$CGROOT/$CG/memory.max" || bail "memory.max max"
( while :; do echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null; done ) &
rpid=$!
f0=$(vswap_stat bind_failures)
r=$(vs_try size 0)
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
rpid=
vswap_fail_bind_off
diag "size 0 during reclaim: $r; bind_failures +$(($(vswap_stat bind_failures) - f0))"
check_eq "the virtual device off (every page read back) while zswap's writebacks failed to bind" ok "$r"

# 4. every page
cont_wait sspid
rc=$CONT_RC
check_eq "every page verified, no SIGBUS" "0 0 0 2048" \
	"$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" sigbus) $(kv_get "$OUT" pages_verified)"
tap_end
