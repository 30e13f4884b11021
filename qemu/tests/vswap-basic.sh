#!/bin/sh
# timeout: 600
# suite: full
# Virtual swap over one tier (mm-patches 0012, docs/vswap-design.md,
# docs/vswap.md): /sys/kernel/mm/vswap puts a virtual swap device over
# tierblk0 (synchronous=1). Page tables hold the virtual device's slots;
# each is bound to a tierblk0 slot when it is allocated.
#  1. bad input refused, nothing changed: size with no tier, a missing
#     path, a file that is not a block device, the same tier twice, sizes that
#     are not whole pages, larger than the tier or overflowing, a second
#     size, removing the tier or swapoff(2) of it while the virtual device
#     is on; SwapTotal counts the virtual device only, /proc/swaps shows
#     it and the tier (type "tier");
#  2. a one-shot read error on the tierblk0 slot of one page (found on the
#     device by its stamp, page-cluster 0): SIGBUS on exactly that page;
#  3. 32M of anon in an 8M memcg: every page verified, the pages went to
#     tierblk0 (its writes, the bound pages), usage released after exit;
#  4. 64K mTHP anon and shmem: large folios swapped out whole
#     (hugepages-64kB swpout) and back in whole (90% of the pages in large
#     folios after the read back: the synchronous bypass reads one tier
#     run), every page verified;
#  5. size 0 (swapoff of the virtual device) leaves no slot used on the
#     tier, the tier is removed, every swap table is freed.
# The runner fails the test on any splat (lockdep is on: the virtual
# device's locks nest around the tier's on the free path).
. /usr/lib/tierswap/lib.sh

V=/sys/kernel/mm/vswap
OUT=/tmp/vswap-basic.out
CG=vswap-basic
PAGE=512
cluster=$(cat /proc/sys/vm/page-cluster)
sspid=

vswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	thp_reset
	echo 0 > "$V/size" 2>/dev/null
	echo /dev/tierblk0 > "$V/remove" 2>/dev/null
	tierblk_unload
}

swap_total_kb() { awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo; }
vswap_used_kb() { awk '$1 == "[vswap]" { print $4; f = 1 } END { if (!f) print 0 }' /proc/swaps; }
tier_used_kb() { set -- $(cat "$V/tiers"); echo "${4:-0}"; }
# slots the per-CPU slots caches may hold: 64 allocated, 64 freed a CPU
SLACK_KB=$((128 * 4 * $(nproc)))

# wait_released: the virtual device's and the tier's usage down to the
# slots caches' slack (10 s at most)
wait_released() {
	local i=0
	while [ $i -lt 100 ]; do
		[ "$(vswap_used_kb)" -le $SLACK_KB ] && [ "$(tier_used_kb)" -le $SLACK_KB ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "used: vswap $(vswap_used_kb) KiB, tier $(tier_used_kb) KiB (slack $SLACK_KB)"
	return 1
}

plan 34
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
tierblk_set 0 synchronous 1 && mkswap /dev/tierblk0 >/dev/null || bail "mkswap tierblk0"
mkdir -p /tmp/vswap-basic.d && mount -t tmpfs vb /tmp/vswap-basic.d &&
	dd if=/dev/zero of=/tmp/vswap-basic.d/f bs=1M count=4 2>/dev/null &&
	mkswap /tmp/vswap-basic.d/f >/dev/null || bail "tmpfs swap file"
t0=$(swt_tables)
total0=$(swap_total_kb)
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

# 1. bad input
check_eq "size with no tier: EINVAL" EINVAL "$(vs_try size 32M)"
check_eq "add a path that does not exist: ENOENT" ENOENT "$(vs_try add /dev/tierblk-none)"
check_eq "add a swap file on tmpfs (not a block device): EINVAL" EINVAL "$(vs_try add /tmp/vswap-basic.d/f)"
umount /tmp/vswap-basic.d
check_eq "add /dev/tierblk0" ok "$(vs_try add /dev/tierblk0)"
check_eq "adding tierblk0 twice: EBUSY" EBUSY "$(vs_try add /dev/tierblk0)"
check_eq "the tier is not swap space of its own (SwapTotal $total0 KiB)" "$total0" "$(swap_total_kb)"
check "tiers lists it: $(cat "$V/tiers")" \
	sh -c "set -- \$(cat $V/tiers); [ \"\$1\" = /dev/tierblk0 ] && [ \"\$3\" = 65532 ] && [ \"\$4\" = 0 ]"
check_eq "size 5K (not whole pages): EINVAL" EINVAL "$(vs_try size 5K)"
check_eq "size abc: EINVAL" EINVAL "$(vs_try size abc)"
check_eq "size 128M (more than the tier's 64M): EINVAL" EINVAL "$(vs_try size 128M)"
check_eq "size 18446744073709555712 (2^64 + 4K, overflows): EINVAL" EINVAL \
	"$(vs_try size 18446744073709555712)"
check_eq "size 17179869184G (overflows): EINVAL" EINVAL "$(vs_try size 17179869184G)"
check_eq "size still 0 after the refusals" 0 "$(cat "$V/size")"
check_eq "size 48M" ok "$(vs_try size 48M)"
check_eq "size reads back 48M" $((48 << 20)) "$(cat "$V/size")"
check_eq "SwapTotal grew by the virtual device's 48M" $((total0 + 48 * 1024)) "$(swap_total_kb)"
check "/proc/swaps: [vswap] virtual 49152 KiB, /dev/tierblk0 tier" \
	sh -c "awk '\$1 == \"[vswap]\" && \$2 == \"virtual\" && \$3 == 49152 { f++ }
		\$1 == \"/dev/tierblk0\" && \$2 == \"tier\" { f++ } END { exit f != 2 }' /proc/swaps"
check_eq "a second size: EBUSY" EBUSY "$(vs_try size 32M)"
check_eq "remove the tier while on: EBUSY" EBUSY "$(vs_try remove /dev/tierblk0)"
msg=$(swapoff /dev/tierblk0 2>&1)
check_eq "swapoff(2) of the tier: EBUSY" EBUSY "$(errno_name "$msg")"
mkdir -p "$CGROOT/$CG" || bail "memcg $CG"

# 2. a read error on one page's tier slot
echo 0 > /proc/sys/vm/page-cluster
sh -c "echo \$\$ > $CGROOT/$CG/cgroup.procs && exec swapstress --size 4M --mem anon \
	--thp never --pageout madvise --write-pct 0 --stop-after-pageout \
	--expect-sigbus --seed 11" > "$OUT" 2>&1 &
sspid=$!
slot=
if wait_stopped "$sspid" 120; then
	memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || diag "pages left in the swap cache"
	slot=$(swap_slot_of_page /dev/tierblk0 "$PAGE")
fi
[ -n "$slot" ] && tierblk_set 0 one_shot_read_sector $((slot * 8))
kill -CONT "$sspid" 2>/dev/null
wait "$sspid"
rc=$?
sspid=
check "page $PAGE's tier slot ${slot:-?} fails once: SIGBUS on page $PAGE alone, the rest verified" \
	sh -c "[ -n '$slot' ] && [ $rc = 0 ] && [ '$(kv_get "$OUT" sigbus_pages)' = $PAGE ] &&
		[ '$(kv_get "$OUT" corrupt)' = 0 ] && [ '$(tierblk_stat 0 one_shot_errors)' = 1 ]"
[ "$rc" = 0 ] || diag "$(cat "$OUT")"
echo "$cluster" > /proc/sys/vm/page-cluster

# 3. pressure
w0=$(tierblk_stat 0 writes)
b0=$(vswap_stat bound_pages)
SS_KEYS='pswpin|pswpout|pages_verified|corrupt'
ss "32M anon in an 8M memcg through the virtual device: every page verified" \
	--size 32M --mem anon --thp never --pageout memcg --memcg-name "$CG-ss" --memcg-max 8M --seed 12
w1=$(tierblk_stat 0 writes)
b1=$(vswap_stat bound_pages)
check "the pages went to tierblk0 (writes +$((w1 - w0)), bound pages +$((b1 - b0)))" \
	sh -c "[ $((w1 - w0)) -gt 1000 ] && [ $((b1 - b0)) -ge 2048 ]"
check "usage released after exit" wait_released

# 4. large folios
thp=$(order_setup 64K) || bail "64K mTHP setup"
SS_KEYS='pswpin|pswpout|pages_verified|corrupt|mthp_64kB_swpout|folio_pages_large'
# 6.12 has no per-size swpin counter: the folios' sizes after the read
# back (pagemap, --folio-stats) show the large swapins
for mem in anon shared; do
	ss "64K mTHP $mem through the virtual device: every page verified" \
		--size 8M --mem $mem --thp "$thp" --pageout madvise --folio-stats --seed 13
	o=$(kv_get "$OUT" mthp_64kB_swpout)
	l=$(kv_get "$OUT" folio_pages_large)
	check "$mem: 64K folios went out whole (swpout ${o:-0}) and came back whole (${l:-0} of 2048 pages in large folios)" \
		sh -c "[ ${o:-0} -ge 115 ] && [ ${l:-0} -ge 1843 ]"
done
thp_reset

# 5. off
check_eq "size 0: the virtual device off" ok "$(vs_try size 0)"
check "no [vswap] in /proc/swaps, SwapTotal back to $total0 KiB" \
	sh -c "! grep -q '^\[vswap\]' /proc/swaps && [ \$(awk '\$1 == \"SwapTotal:\" { print \$2 }' /proc/meminfo) = $total0 ]"
check_eq "no slot used on the tier" 0 "$(tier_used_kb)"
check_eq "remove the tier" ok "$(vs_try remove /dev/tierblk0)"
check "tierblk0 is no longer swap" sh -c "! grep -q '^/dev/tierblk0 ' /proc/swaps"
check "every swap table freed (tables back to $t0)" swt_tables_become "$t0"
tap_status
