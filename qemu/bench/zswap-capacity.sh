#!/bin/sh
# where: guest
# timeout: 1800
# boot: own
# How much zswap holds per MiB of physical swap (issue 17). A boot of its
# own: zswap, once on, changes swapin for the rest of the boot.
# One synchronous tierblk0 of ZCAP_TIER (16M: 4095 slots) behind zswap:
# base 6.12 swaps on tierblk0 directly, where every page zswap stores
# holds a slot of it; a kernel with virtual swap puts it behind a lazily
# bound virtual device four times its size, where a page in zswap holds
# none. swapstress --fill sparse (pages zswap stores in about 100 bytes)
# of ZCAP_SIZE (96M) with MADV_PAGEOUT: what cannot get a slot stays in
# memory. Per kernel: the pages zswap then holds, per MiB of tierblk0,
# the tier's slots used, and that every page verified.
. /usr/lib/tierswap/lib.sh

TIER=${ZCAP_TIER:-16M}
SIZE=${ZCAP_SIZE:-96M}
V=/sys/kernel/mm/vswap
OUT=/tmp/zswap-capacity.out
mb=${TIER%M}

cleanup() { tiers_down; }
trap cleanup EXIT

if [ -w "$V/lazy_bind" ]; then
	mode=virtual
	tiers_up zswap vswap:$((mb * 4 - 1))M:lazy=1 tierblk0:$TIER:sync=1 ||
		{ echo "zswap-capacity: tiers_up failed"; exit 1; }
else
	mode=direct
	tiers_up zswap tierblk0:$TIER:sync=1 || { echo "zswap-capacity: tiers_up failed"; exit 1; }
fi
swapstress --size "$SIZE" --mem anon --thp never --pageout madvise --fill sparse --seed 5 \
	--stop-after-pageout > "$OUT" 2>&1 &
pid=$!
wait_stopped "$pid" 900 || { echo "zswap-capacity: swapstress did not stop: $(cat "$OUT")"; exit 1; }
held=$(cat /sys/kernel/debug/zswap/stored_pages)
slots=$(($(tier_used_kb tierblk0) / 4))
kill -CONT "$pid"
wait "$pid"
rc=$?
# printed at the end: what could go neither to zswap nor to a slot
res=$(kv_get "$OUT" resident_after_pageout)
echo "zswap-capacity ($mode): zswap holds $held pages, tierblk0 ($TIER) $slots slots used," \
	"${res:-?} pages stayed resident; exit $rc, corrupt $(kv_get "$OUT" corrupt)," \
	"verified $(kv_get "$OUT" pages_verified) of $(kv_get "$OUT" pages)"
[ "$rc" = 0 ] || { echo "zswap-capacity: the workload failed: no numbers"; exit 1; }
echo "BENCH-TABLE zswap-capacity"
echo "BENCH zswap-capacity.held_per_tier_MiB $(echo "$held $mb" | awk '{ printf "%.1f", $1 / $2 }') pages/MiB"
echo "BENCH zswap-capacity.held $held pages"
echo "BENCH zswap-capacity.resident ${res:-0} pages"
echo "reproduce: make bench B=zswap-capacity   (ZCAP_TIER, ZCAP_SIZE through GUEST_ENV)"
