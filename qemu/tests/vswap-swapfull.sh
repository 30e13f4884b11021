#!/bin/sh
# timeout: 900
# suite: quick
# vm_swap_full() counts the tiers of a virtual swap device (mm-patches
# 0033): with lazy_bind the device is four times its tiers, so its
# own count says "a fifth used" while the tier is three quarters full.
# One asynchronous tierblk0 (a swapin keeps the page in the swap cache
# with its slot unless swap is "full"), no readahead; scprobe rewrite
# pages 6M out, drains them, reads them back, stops.
#  1. tierblk0 8M (2047 slots) under a 31M device (4x is the most): 1536
#     pages out, the tier 75% full, the device under 20%: the read back
#     frees slots while the tier is more than half full, as vm_swap_full()
#     does for a device of its own (the tier ends at about half, a quarter
#     or more of the pages have left the swap cache);
#  2. tierblk0 32M (8191 slots) under a 120M device: the same pages fill
#     the tier to under 20%: the read back keeps them (the slots and the
#     swap cache pages stay);
#  3. every page verified both times.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-swapfull
OUT=/tmp/vswap-swapfull.out
cluster=$(cat /proc/sys/vm/page-cluster)
scpid=

vswap_required || exit 0
[ -w "$V/lazy_bind" ] || { plan 1; skip "no $V/lazy_bind (mm-patches 0024)"; exit 0; }

cleanup() {
	kill_bg "$scpid"
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}
pages() { echo $(($(tier_used_kb tierblk0) / 4)); }

# readback TIER DEVICE: scprobe stopped after its read back; sets a (tier
# pages before the read back, from the pageout), b (after), sc (pages the
# read back left in the swap cache)
readback() {
	tiers_up vswap:$2:lazy=1 tierblk0:$1:sync=0 || bail "tiers_up tierblk0:$1 vswap:$2"
	memcg_create "$CG" max || bail "memcg $CG"
	in_memcg_bg "$CGROOT/$CG" scprobe rewrite --size 6M --thp never --memcg "$CGROOT/$CG" \
		--stop-reread > "$OUT" 2>&1
	scpid=$BGPID
	wait_stopped "$scpid" 300 || bail "scprobe did not stop after its read back: $(cat "$OUT")"
	a=$(kv_get "$OUT" swapped_after_pageout)
	b=$(pages)
	sc=$(kv_get "$OUT" reread_swapcache)
	diag "tierblk0 $1 under a $2 device: $a pages swapped out, $b tier slots after the read back, ${sc:-?} pages left in the swap cache; $(tr '\n' ' ' < "$V/tiers")"
}
finish() {
	cont_wait scpid
	FIN="$CONT_RC $(kv_get "$OUT" corrupt_reread) $(kv_get "$OUT" corrupt_final)"
	memcg_destroy "$CG"
	tiers_down || bail "tiers_down"
}

plan 5
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
echo 0 > /proc/sys/vm/page-cluster || bail "page-cluster 0"

# 1. the tier three quarters full, the device under a fifth
readback 8M 31M
# (half the tier, and what the slots caches may hold: up to 64 a CPU)
half=$(($(tier_size_kb tierblk0) / 8 + 64 * $(nproc)))
check "tier 75% full: the read back freed slots down to half the tier (${a:-?} out, $b tier slots left, ${sc:-?} in the swap cache, half+slack $half)" \
	sh -c "[ ${a:-0} -ge 1380 ] && [ $b -le $half ] && [ ${sc:-9999} -le $half ] && [ $b -le $((${a:-0} * 3 / 4)) ]"
finish
check_eq "tier 75% full: every page verified" "0 0 0" "$FIN"

# 2. the tier under a fifth full
readback 32M 120M
check "tier under 20% full: the read back kept the slots (${a:-?} out, $b tier slots, ${sc:-?} in the swap cache)" \
	sh -c "[ ${a:-0} -ge 1380 ] && [ $b -ge $((a * 9 / 10)) ] && [ ${sc:-0} -ge $((a * 9 / 10)) ]"
finish
check_eq "tier under 20% full: every page verified" "0 0 0" "$FIN"
check "nothing left: no virtual device, no tier" sh -c "[ \$(cat $V/size) = 0 ] && [ -z \"\$(cat $V/tiers)\" ]"
