#!/bin/sh
# where: guest
# timeout: 2400
# boot: own
# append: brd.rd_size=262144
# What one anonymous swap-in costs, per path and per device, against the
# floor (issue 19, items 2 and 3; seed 002's experiment done again):
#  - the floor, measured in the same boot (swapin-floor): one 4 KiB
#    memcpy() and one minor fault on a present page; every row is also
#    printed as a multiple of their sum;
#  - SWAPCOST_SIZE (64M) of anon at order 0, paged out with MADV_PAGEOUT
#    and read back in order (swapstress --mode swapin-timer), timed twice:
#    the read-back (swapin) and the munmap() after it (unmap: what the
#    read-back left to free, the swap cache path's slots and folios);
#  - per device: tierblk synchronous=1 (no swap cache; its
#    swap_slot_free_notify frees its page at fault time), tierblk
#    synchronous=0 with the copy inline in the faulting task (the swap
#    cache, with readahead, page-cluster 3, and without, 0: the same
#    device with and without the flag, upstream 0bcac06f27d7's
#    comparison), brd (synchronous, no slot-free notification) and zram
#    (synchronous, notification);
#  - two fills of the swap area: roomy (SWAPCOST_SIZE in 4x its size)
#    and full (in 1.25x: over half full, vm_swap_full(), where the swap
#    cache path also frees each slot at fault time).
# Variants interleaved run by run (a change in the host's speed hits all
# of them), SWAPCOST_RUNS (5) runs, medians. A boot of its own: brd is
# built in and sized on the command line (the append line above: 256 MiB,
# room for a SWAPCOST_SIZE of 64M); each device is made once at the
# roomy size and the swap area sized per case (mkswap DEV KBYTES).
. /usr/lib/tierswap/lib.sh

SIZE=${SWAPCOST_SIZE:-64M}
RUNS=${SWAPCOST_RUNS:-5}
MB=${SIZE%M}
ROOMY_KB=$((MB * 4 * 1024))
FULL_KB=$((MB * 5 * 1024 / 4))
VARIANTS="tierblk-sync tierblk-cache-ra tierblk-cache brd-sync zram-sync"
zdev=

cleanup() {
	swapoff /dev/tierblk0 /dev/ram0 ${zdev:+"$zdev"} 2>/dev/null
	[ -n "$zdev" ] && zram_dev_down "$zdev"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tierblk_unload 2>/dev/null
}

case $SIZE in
*M) ;;
*) echo "swapin-cost: SWAPCOST_SIZE='$SIZE': give MiB (64M)"; exit 2 ;;
esac
cluster=$(cat /proc/sys/vm/page-cluster)
trap cleanup EXIT
[ -b /dev/ram0 ] || { echo "swapin-cost: no /dev/ram0 (brd)"; exit 1; }
ram_kb=$(($(cat /sys/block/ram0/size) / 2))
[ "$ram_kb" -ge "$ROOMY_KB" ] ||
	{ echo "swapin-cost: /dev/ram0 has $ram_kb KiB, $ROOMY_KB needed (brd.rd_size on the command line)"; exit 1; }
tierblk_load size=$((ROOMY_KB / 1024))M || { echo "swapin-cost: tierblk"; exit 1; }
zdev=$(zram_dev_up "$((ROOMY_KB / 1024))M") || { echo "swapin-cost: zram"; exit 1; }

# setup VARIANT: the device to swap on, its settings made
setup() {
	case $1 in
	tierblk-sync) tierblk_set 0 synchronous 1 && echo 3 > /proc/sys/vm/page-cluster && echo /dev/tierblk0 ;;
	tierblk-cache-ra)
		tierblk_set 0 synchronous 0 && tierblk_set 0 completion inline &&
			echo 3 > /proc/sys/vm/page-cluster && echo /dev/tierblk0 ;;
	tierblk-cache)
		tierblk_set 0 synchronous 0 && tierblk_set 0 completion inline &&
			echo 0 > /proc/sys/vm/page-cluster && echo /dev/tierblk0 ;;
	brd-sync) echo 3 > /proc/sys/vm/page-cluster && echo /dev/ram0 ;;
	zram-sync) echo 3 > /proc/sys/vm/page-cluster && echo "$zdev" ;;
	esac
}

# one VARIANT KB SEED: "swapin_ms unmap_ms" of one run
one() {
	local dev out=/tmp/swapin-cost.out
	dev=$(setup "$1") || return 1
	mkswap "$dev" "$2" > /dev/null || return 1
	swapon "$dev" || return 1
	swapstress --mode swapin-timer --mem anon --thp never --size "$SIZE" --seed "$3" > "$out" 2>&1
	swapoff "$dev" || return 1
	if [ "$(kv_get "$out" corrupt)" != 0 ] || [ -z "$(kv_get "$out" swapin_unmap_ms)" ]; then
		echo "swapin-cost: $1 run $3: corrupt pages or no result: $(tail -3 "$out")" >&2
		return 1
	fi
	echo "$(kv_get "$out" swapin_ms) $(kv_get "$out" swapin_unmap_ms)"
}

thp_set 64kB never 2>/dev/null
swapin-floor --size 16M > /tmp/floor.out 2>&1 || { echo "swapin-cost: swapin-floor failed"; cat /tmp/floor.out; exit 1; }
copy=$(kv_get /tmp/floor.out copy_4k_ns)
fault=$(kv_get /tmp/floor.out minor_fault_ns)
floor=$(echo "$copy $fault" | awk '{ printf "%.1f", $1 + $2 }')

rm -f /tmp/swapin-cost.*.*
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	for fill in roomy full; do
		kb=$ROOMY_KB
		[ $fill = full ] && kb=$FULL_KB
		for v in $VARIANTS; do
			res=$(one "$v" "$kb" "$i") || exit 1
			echo "$res" >> "/tmp/swapin-cost.$v.$fill"
		done
	done
done

pages=$((MB * 256))
# col FILE N: the median of column N, in us per page
col() { awk -v n="$2" '{ print $n }' "$1" | median | awk -v p="$pages" '{ printf "%.2f", $1 * 1000 / p }'; }
echo "BENCH-TABLE swapin-cost ($SIZE anon at order 0 read back in order; us per 4 KiB page, medians of $RUNS)"
echo "floor: a 4 KiB memcpy $copy ns + a minor fault $fault ns = $floor ns (swapin-floor, this boot)"
printf '%-18s %-6s %10s %10s %10s %9s\n' variant swap swapin_us unmap_us total_us x_floor
for fill in roomy full; do
	for v in $VARIANTS; do
		s=$(col "/tmp/swapin-cost.$v.$fill" 1)
		u=$(col "/tmp/swapin-cost.$v.$fill" 2)
		t=$(echo "$s $u" | awk '{ printf "%.2f", $1 + $2 }')
		x=$(echo "$t $floor" | awk '{ printf "%.1f", $1 * 1000 / $2 }')
		eval "t_${fill}_$(echo "$v" | tr - _)=$t s_${fill}_$(echo "$v" | tr - _)=$s"
		printf '%-18s %-6s %10s %10s %10s %9s\n' "$v" "$fill" "$s" "$u" "$t" "$x"
		echo "BENCH swapin-cost.$v.$fill.swapin $s us"
		echo "BENCH swapin-cost.$v.$fill.total $t us"
	done
done
echo "seed 002's ratio, the swap cache path over the synchronous one on the same tierblk (above 1: synchronous faster):"
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $2 ? $1 / $2 : 0 }'; }
for fill in roomy full; do
	eval "echo \"  $fill: read-back only: readahead \$(ratio \$s_${fill}_tierblk_cache_ra \$s_${fill}_tierblk_sync)x," \
		"page-cluster 0 \$(ratio \$s_${fill}_tierblk_cache \$s_${fill}_tierblk_sync)x;" \
		"with the unmap: readahead \$(ratio \$t_${fill}_tierblk_cache_ra \$t_${fill}_tierblk_sync)x," \
		"page-cluster 0 \$(ratio \$t_${fill}_tierblk_cache \$t_${fill}_tierblk_sync)x\""
done
echo "reproduce: make bench B=swapin-cost   (SWAPCOST_SIZE, SWAPCOST_RUNS through GUEST_ENV)"
