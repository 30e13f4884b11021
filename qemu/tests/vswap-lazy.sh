#!/bin/sh
# timeout: 900
# suite: full
# Lazy binding on the virtual swap device (mm-patches 0024-0026,
# docs/vswap.md "Lazy binding"): with lazy_bind a slot gets its tier slot
# at its first write to a tier, and gives it back when its page goes to
# the zero map instead. Two synchronous tierblk tiers (8M, 2M).
#  1. bad input refused, nothing changed: lazy_bind takes 0 or 1 (EINVAL),
#     not while the device is on (EBUSY); size: up to 4x the tiers with
#     lazy_bind, 1x without (EINVAL above);
#  2. zero pages hold no tier slot: 12M of anon, half of it zero pages,
#     through a 4M memcg (the device twice the tiers): the tiers hold
#     exactly the data pages written (bound_pages counts them, at the
#     write), the zero pages only virtual slots; removing the full tier is
#     refused, the empty one leaves though the device is 2.5x the tier
#     left (eager binding would refuse); every page verified, nothing left
#     bound;
#  3. no tier room at the write (debugfs vswap/fail_bind at 100%):
#     MADV_PAGEOUT keeps the data pages in memory (bind_failures), sends
#     the zero pages to the zero map, nothing to a tier; every page
#     verified; nothing leaked (the device turns off);
#  4. rewritten in the swap cache (an asynchronous tier): pages read back
#     keep their tier slots; rewritten in place with zeroes they give them
#     back (unbound_pages), with data they keep them; every page reads its
#     new data, never the tier's stale copy;
#  5. a drain of a lazily bound tier whose pages sit in the swap cache
#     (0028): they give their tier slots back instead of taking new ones
#     on the other tier, and their next write binds them there.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-lazy
OUT=/tmp/vswap-lazy.out
cluster=$(cat /proc/sys/vm/page-cluster)
sspid=

vswap_required || exit 0
[ -w "$V/lazy_bind" ] || { plan 1; skip "no $V/lazy_bind (mm-patches 0024)"; exit 0; }

cleanup() {
	kill_bg "$sspid"
	vswap_fail_bind_off
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

# the [vswap] line of /proc/swaps: KiB used
vswap_used_kb() { awk '$1 == "[vswap]" { print $4; f = 1 } END { if (!f) print 0 }' /proc/swaps; }
tiers_used_kb() { echo $(($(tier_used_kb tierblk0) + $(tier_used_kb tierblk1))); }

plan 27
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

# 1. the knob and the sizes
check_eq "lazy_bind is 0 by default" 0 "$(cat "$V/lazy_bind")"
check_eq "lazy_bind=2: EINVAL, still 0" "EINVAL 0" "$(vs_try lazy_bind 2) $(cat "$V/lazy_bind")"
tiers_up vswap:lazy=1 tierblk0:8M:prio=20:sync=1 tierblk1:2M:prio=10:sync=1 ||
	bail "tiers_up failed"
check_eq "on with lazy=1: lazy_bind=0 refused while on (EBUSY), still 1" "EBUSY 1" \
	"$(vs_try lazy_bind 0) $(cat "$V/lazy_bind")"
T=$(awk '{ s += $3 } END { print s }' "$V/tiers")
echo 0 > "$V/size" || bail "size 0"
check_eq "lazy: size 4x the tiers + 4K refused (EINVAL), 4x accepted" "EINVAL ok $((4 * T * 1024))" \
	"$(vs_try size $((4 * T + 4))K) $(vs_try size $((4 * T))K) $(cat "$V/size")"
echo 0 > "$V/size" && echo 0 > "$V/lazy_bind" || bail "off, lazy_bind 0"
check_eq "eager: size the tiers + 4K refused (EINVAL), the tiers' size accepted" "EINVAL ok" \
	"$(vs_try size $((T + 4))K) $(vs_try size ${T}K)"
echo 0 > "$V/size" && echo 1 > "$V/lazy_bind" || bail "off, lazy_bind 1"
echo $((2 * T))K > "$V/size" || bail "size $((2 * T))K"

# 2. zero pages hold no tier slot; a tier leaves when the others can take
# what it holds
b0=$(vswap_stat bound_pages)
z0=$(vmstat_get swpout_zero)
w0=$(vmstat_get pswpout)
ss_paged_out "$CG" "$OUT" --size 12M --mem anon --thp never --pageout memcg --memcg-max 4M \
	--zero-pct 50 --seed 7 || bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
tp=$(($(tiers_used_kb) / 4))
vp=$(($(vswap_used_kb) / 4))
bd=$(($(vswap_stat bound_pages) - b0))
zo=$(($(vmstat_get swpout_zero) - z0))
wo=$(($(vmstat_get pswpout) - w0))
diag "tiers $tp pages, virtual $vp, bound +$bd, pswpout +$wo, swpout_zero +$zo; $(tr '\n' ';' < "$V/tiers")"
check "8M of 12M out through 4M: $wo data pages written, $zo zero pages to the zero map" \
	sh -c "[ $wo -ge 800 ] && [ $zo -ge 800 ]"
check "the tiers hold the data pages written ($tp of $wo), bound at the write (bound_pages +$bd)" \
	sh -c "[ $tp -le $wo ] && [ $tp -ge $((wo * 9 / 10)) ] && [ $bd -ge $tp ] && [ $bd -le $wo ]"
# the slots caches keep virtual slots with no tier slot: up to 64 a CPU
check "the zero pages hold virtual slots only: virtual $vp = tiers $tp + zero $zo (+ slots caches)" \
	sh -c "[ $vp -ge $((tp + zo)) ] && [ $vp -le $((tp + zo + 64 * $(nproc))) ]"
free1=$(awk '$1 == "/dev/tierblk1" { print int(($3 - $4) / 4) }' "$V/tiers")
# (tierblk1 alone could take neither tierblk0's pages nor a quarter of
# the device: either refuses)
check_eq "remove tierblk0 ($tp pages in use, tierblk1 $free1 free): EBUSY" EBUSY "$(vs_try remove /dev/tierblk0)"
check_eq "tierblk1 holds nothing (tierblk0 took every data page)" 0 "$(tier_used_kb tierblk1)"
check_eq "remove the empty tierblk1 (the device 2.5x tierblk0 alone): ok" ok "$(vs_try remove /dev/tierblk1)"
check_eq "tierblk1 added back" ok "$(vs_try add "/dev/tierblk1 prio=10")"
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
zp=$(kv_get "$OUT" zero_pages)
check_eq "every page verified, ${zp:-?} of them zero pages" "0 0 3072" \
	"$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
# the slots caches keep freed slots (and their tier slots) until they
# flush: turning the device off and on frees them
echo 0 > "$V/size" && echo $((2 * T))K > "$V/size" || bail "off and on again"
check_eq "the workload gone, the device off and on: no tier slot in use" 0 "$(tiers_used_kb)"

# 3. no tier room at the write
if ! vswap_fail_bind 100; then
	# a kernel without CONFIG_FAULT_INJECTION_DEBUG_FS (release)
	for i in 1 2 3 4; do skip "no debugfs vswap/fail_bind: step 3"; done
else
tk0=$(tiers_used_kb)
f0=$(vswap_stat bind_failures)
z0=$(vmstat_get swpout_zero)
w0=$(vmstat_get pswpout)
swapstress --size 8M --mem anon --thp never --pageout madvise --zero-pct 50 --seed 8 \
	--stop-after-pageout > "$OUT" 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop: $(cat "$OUT")"
fd=$(($(vswap_stat bind_failures) - f0))
zo=$(($(vmstat_get swpout_zero) - z0))
wo=$(($(vmstat_get pswpout) - w0))
tk=$(tiers_used_kb)
vswap_fail_bind_off
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
zp=$(kv_get "$OUT" zero_pages)
res=$(kv_get "$OUT" resident_after_pageout)
diag "bind_failures +$fd, swpout_zero +$zo, pswpout +$wo, tiers $tk0 -> $tk KiB, resident after pageout $res, zero pages $zp"
check "every data page's bind failed (bind_failures +$fd of $((2048 - ${zp:-0}))), none written, no tier slot taken" \
	sh -c "[ $fd -ge $(((2048 - ${zp:-0}) * 9 / 10)) ] && [ $wo = 0 ] && [ $tk -le $tk0 ]"
check "the zero pages went to the zero map (+$zo of ${zp:-?}), the data pages stayed in memory ($res resident)" \
	sh -c "[ $zo -ge $((${zp:-9999} * 9 / 10)) ] && [ ${res:-0} -ge $(((2048 - ${zp:-0}) * 9 / 10)) ]"
check_eq "every page verified" "0 0 2048" "$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
check "nothing leaked: the virtual device turns off and on again" \
	sh -c "echo 0 > $V/size && echo $((2 * T))K > $V/size"
fi

# 4. rewritten in the swap cache: an asynchronous tier keeps the folios
# there after the read (no readahead: page-cluster 0)
tiers_down || bail "tiers_down"
tiers_up vswap:lazy=1 tierblk0:16M:prio=20:sync=0 || bail "tiers_up (asynchronous tierblk0)"
echo 0 > /proc/sys/vm/page-cluster || bail "page-cluster 0"
memcg_create "$CG" max || bail "memcg $CG"
u0=$(vswap_stat unbound_pages)
in_memcg_bg "$CGROOT/$CG" scprobe rewrite --size 4M --thp never --memcg "$CGROOT/$CG" --stop > "$OUT" 2>&1
sspid=$BGPID
wait_stopped "$sspid" 300 || bail "scprobe rewrite did not stop: $(cat "$OUT")"
ud=$(($(vswap_stat unbound_pages) - u0))
tp=$(($(tier_used_kb tierblk0) / 4))
zi0=$(vmstat_get swpin_zero)
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
zi=$(($(vmstat_get swpin_zero) - zi0))
kv_load "$OUT"
diag "unbound_pages +$ud, tierblk0 $tp pages, swpin_zero +$zi; $(kv_line swapped_after_pageout reread_pswpin reread_swapcache swpout_zero pswpout final_pswpin)"
reread_ok() { ge "$kv_reread_swapcache" 920 && ge "$kv_reread_pswpin" 920; }
check "read back through the swap cache: $kv_reread_swapcache of 1024 pages kept there, $kv_reread_pswpin read from tierblk0" \
	reread_ok
# (scprobe's own anonymous pages share the memcg: a few dozen of them go
# to tierblk0 too)
check "the 512 pages rewritten with zeroes gave their tier slots back (unbound_pages +$ud), the data ones kept theirs ($tp pages on tierblk0)" \
	sh -c "[ $ud -ge 460 ] && [ $ud -le 512 ] && [ $tp -ge 460 ] && [ $tp -le 576 ]"
check_eq "every page reads its new data (exit, corrupt after the read and at the end)" "0 0 0" \
	"$rc ${kv_corrupt_reread:-?} ${kv_corrupt_final:-?}"
final_ok() {
	ge "$kv_swpout_zero" 460 && ge "$zi" 460 && ge "$kv_final_pswpin" 460 && [ "$kv_final_pswpin" -le 512 ]
}
check "the zero pages went out to the zero map ($kv_swpout_zero) and came back from it (swpin_zero +$zi), the data pages from tierblk0 ($kv_final_pswpin)" \
	final_ok
down_ok() { tiers_down && [ "$(cat "$V/lazy_bind")" = 0 ] && [ -z "$(cat "$V/tiers")" ]; }
check "tiers_down: the virtual device off, the tier removed, lazy_bind back to 0" down_ok

# 5. a drain meets folios in the swap cache (asynchronous tiers: the
# read back keeps them there with their slots)
tiers_up vswap:lazy=1 tierblk0:8M:prio=20:sync=0 tierblk1:8M:prio=10:sync=0 ||
	bail "tiers_up (two asynchronous tiers)"
d0=$(vswap_stat drained_pages)
in_memcg_bg "$CGROOT/$CG" scprobe rewrite --size 4M --thp never --memcg "$CGROOT/$CG" \
	--stop-reread > "$OUT" 2>&1
sspid=$BGPID
wait_stopped "$sspid" 300 || bail "scprobe rewrite did not stop after its read back: $(cat "$OUT")"
sc=$(kv_get "$OUT" reread_swapcache)
a0=$(($(tier_used_kb tierblk0) / 4))
b0=$(($(tier_used_kb tierblk1) / 4))
check "read back into the swap cache: ${sc:-?} of 1024 pages there, $a0 bound on tierblk0, $b0 on tierblk1" \
	sh -c "[ ${sc:-0} -ge 920 ] && [ $a0 -ge 920 ] && [ $b0 -le 64 ]"
check_eq "remove tierblk0 while they are there: ok" ok "$(vs_try remove /dev/tierblk0)"
dd=$(($(vswap_stat drained_pages) - d0))
b1=$(($(tier_used_kb tierblk1) / 4))
check "the drain moved them ($dd drained_pages) and took them no tier slot: tierblk1 $b0 -> $b1 pages" \
	sh -c "[ $dd -ge 920 ] && [ $b1 -le $((b0 + 64)) ]"
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
kv_load "$OUT"
diag "$(kv_line reread_swapcache swpout_zero pswpout final_pswpin)"
check_eq "their next write bound them to tierblk1: every page reads its new data" "0 0 0" \
	"$rc ${kv_corrupt_reread:-?} ${kv_corrupt_final:-?}"
tap_end
