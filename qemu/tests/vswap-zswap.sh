#!/bin/sh
# timeout: 1500
# suite: full
# boot: own
# zswap in front of the virtual swap device (mm-patches 0024-0028,
# docs/vswap.md "Lazy binding"), every page verified. Its own boot: once
# zswap has been on, 6.12 swaps in from synchronous devices at order 0 for
# the rest of the boot (docs/kselftests.md). One synchronous 16M tierblk0
# (4095 slots) behind the virtual device; --fill sparse pages, which zswap
# stores in about 100 bytes each.
#  1. eager binding (lazy_bind 0), as 6.12 and a direct device do it:
#     every page zswap holds also holds a tier slot; the device can be no
#     larger than the tier;
#  2. lazy binding, the device near 4x the tier: 40M of pages go out,
#     more than the tier has slots, all held by zswap; the tier holds none;
#  3. zswap's writeback (the memcg's memory.zswap.max made small) binds
#     each page it writes to the tier then (bound_pages), and the pages
#     zswap then rejects go to the tier at their write;
#  4. the tier full (a workload whose memcg may not use zswap fills it):
#     zswap's writeback passes the entries by, none decompressed for
#     nothing (reject_reclaim_fail unchanged); once the filler is gone the
#     same reclaim writes entries back (the walk did reach them).
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-zswap
FILL=vswap-zswap-fill
OUT=/tmp/vswap-zswap.out
FOUT=/tmp/vswap-zswap-fill.out
ZD=/sys/kernel/debug/zswap
sspid=
fpid=

vswap_zswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	kill_bg "$fpid"
	zswap_shrinker_restore
	memcg_destroy "$CG"
	memcg_destroy "$FILL"
	tiers_down
}

vswap_used_pages() { awk '$1 == "[vswap]" { print int($4 / 4); f = 1 } END { if (!f) print 0 }' /proc/swaps; }
tier_pages() { echo $(($(tier_used_kb tierblk0) / 4)); }
# zswap_stat NAME: a zswap debugfs counter (the directory is there: checked in step 1)

# out SIZE MAX ARGS...: swapstress --fill sparse of SIZE through a MAX
# memcg it creates, stopped once its pages went out
out() {
	local size=$1 max=$2
	shift 2
	ss_paged_out "$CG" "$OUT" --size "$size" --mem anon --thp never --pageout memcg \
		--memcg-max "$max" --fill sparse --seed 11 "$@" ||
		bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
}

# finish: let the stopped workload run to its end; FIN="rc corrupt verified"
finish() {
	kill -CONT "$sspid"
	wait "$sspid"
	FIN="$? $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
	sspid=
}

plan 12
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

# 1. eager
tiers_up zswap vswap tierblk0:16M:sync=1 || bail "tiers_up (eager)"
# zswap makes its debugfs directory when it is first enabled
[ -r "$ZD/stored_pages" ] || bail "no $ZD/stored_pages (debugfs)"
out 12M 4M
vp=$(vswap_used_pages)
tp=$(tier_pages)
zp=$(zswap_stat stored_pages)
diag "eager: virtual $vp pages, tierblk0 $tp, zswap stored $zp"
check "eager: zswap holds the pages ($zp of $vp) and each holds a tier slot too ($tp)" \
	sh -c "[ $vp -ge 1800 ] && [ $zp -ge $((vp * 9 / 10)) ] && [ $tp -ge $((vp - 64 * $(nproc))) ]"
finish
check_eq "eager: every page verified" "0 0 3072" "$FIN"
# 32M: within 4x the tier (lazy would take it), over 1x
check_eq "eager: a device larger than the tier (32M) refused (EINVAL)" EINVAL \
	"$(echo 0 > "$V/size"; vs_try size 32M)"
tiers_down || bail "tiers_down"

# 2. lazy: the tier holds nothing zswap holds (4x the tier is 65520K)
tiers_up zswap vswap:60M:lazy=1 tierblk0:16M:sync=1 || bail "tiers_up (lazy)"
out 48M 8M
vp=$(vswap_used_pages)
tp=$(tier_pages)
zp=$(zswap_stat stored_pages)
diag "lazy: virtual $vp pages, tierblk0 $tp, zswap stored $zp"
check "lazy: $vp pages out, more than tierblk0's 4095 slots, zswap holds them ($zp)" \
	sh -c "[ $vp -ge 9000 ] && [ $zp -ge $((vp * 9 / 10)) ]"
check "lazy: tierblk0 holds none of them ($tp pages)" sh -c "[ $tp -le $((vp / 100)) ]"
finish
check_eq "lazy: every page verified" "0 0 12288" "$FIN"

# 3. writeback binds at the write: the memcg's memory.zswap.max small
# (64K: about 650 sparse pages), set before the workload fills it
b0=$(vswap_stat bound_pages)
wb0=$(zswap_stat written_back_pages)
memcg_create "$CG" 8M || bail "memcg $CG"
echo 64K > "$CGROOT/$CG/memory.zswap.max" || bail "memory.zswap.max"
in_memcg_bg "$CGROOT/$CG" swapstress --size 24M --mem anon --thp never --pageout none \
	--fill sparse --seed 12 --stop-after-pageout > "$OUT" 2>&1
sspid=$BGPID
wait_stopped "$sspid" 300 || bail "swapstress did not stop: $(cat "$OUT")"
memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || diag "pages left in the swap cache"
tp=$(tier_pages)
bd=$(($(vswap_stat bound_pages) - b0))
wb=$(($(zswap_stat written_back_pages) - wb0))
zwb=$(memcg_stat "$CG" zswpwb)
diag "writeback: tierblk0 $tp pages, bound +$bd, written back +$wb (memcg zswpwb $zwb), zswap stored $(zswap_stat stored_pages)"
check "zswap over its memcg limit: pages went to tierblk0 ($tp), written back ($wb) or rejected, each bound at its write (bound_pages +$bd)" \
	sh -c "[ $tp -ge 2500 ] && [ $wb -gt 0 ] && [ $bd -ge $tp ]"
finish
check_eq "writeback: every page verified" "0 0 6144" "$FIN"
memcg_destroy "$CG"

# 4. the tier full. The filler's memcg may not use zswap: MADV_PAGEOUT
# binds its pages to tierblk0 until it is full and keeps the rest in
# memory (no memcg limit, no OOM)
memcg_create "$FILL" max || bail "memcg $FILL"
echo 0 > "$CGROOT/$FILL/memory.zswap.max" || bail "memory.zswap.max 0"
in_memcg_bg "$CGROOT/$FILL" swapstress --size 20M --mem anon --thp never --pageout madvise \
	--fill pattern --seed 13 --stop-after-pageout > "$FOUT" 2>&1
fpid=$BGPID
wait_stopped "$fpid" 300 || bail "the filler did not stop: $(cat "$FOUT")"
check "tierblk0 full: $(tier_pages) of 4095 pages" [ "$(tier_pages)" -ge 4095 ]
# sparse pages in zswap, unbound
out 8M 2M
zswap_shrinker Y || bail "zswap shrinker_enabled"
rf0=$(zswap_stat reject_reclaim_fail)
wb0=$(zswap_stat written_back_pages)
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
rf=$(($(zswap_stat reject_reclaim_fail) - rf0))
wb=$(($(zswap_stat written_back_pages) - wb0))
check "the tier full: reclaim wrote nothing back (+$wb) and decompressed nothing for nothing (reject_reclaim_fail +$rf)" \
	[ "$wb $rf" = "0 0" ]
# the filler gone, its tier slots free: the same reclaim writes back
kill -CONT "$fpid"
wait "$fpid"
frc=$?
fpid=
wb0=$(zswap_stat written_back_pages)
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
wb=$(($(zswap_stat written_back_pages) - wb0))
check "with room again (the filler exited $frc), the same reclaim writes entries back (+$wb)" [ "$wb" -gt 0 ]
finish
check_eq "the sparse workload: every page verified" "0 0 2048" "$FIN"
tap_end
