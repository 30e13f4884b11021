#!/bin/sh
# where: guest
# timeout: 2400
# Emptying a swap device that holds a stopped workload's pages, two ways,
# alternating in one boot, ROUNDS times (issue 16's drain bench):
#  - swapoff: tierblk0 swapped on directly, then swapoff(2): 6.12's
#    try_to_unuse() walks the page tables of every process and reads each
#    page back into memory;
#  - drain: tierblk0 as the first tier of /sys/kernel/mm/vswap, tierblk1
#    the second; writing tierblk0 to remove (mm-patches 0015) moves every
#    slot's data to tierblk1 by rewriting forward entries: no page table
#    is walked, nothing comes into memory.
# The workload: swapstress, SIZE of anon at order 0 paged out through a
# memcg of MEMCG, stopped; its memcg's limit is lifted before the device
# is emptied (so swapoff never has to reclaim). Reported per mode, medians:
# the time to empty the device, pages read into memory (pswpin), the
# memcg's swap after (KiB), and the memory per slot in use while full
# (memory_part below). Then the workload runs on and verifies every page:
# a corrupt page fails the bench. Both devices are tierblk synchronous=1;
# the whole comparison runs once for each read latency of tierblk0 in
# VSWAP_DRAIN_READ_US (microseconds a read request waits, default "0 50":
# a RAM tier, where only CPU counts, and a tier with an SSD's latency),
# one table each. A kernel without virtual swap prints the swapoff column
# only.
# Memory per slot in use (bytes): for the virtual device, the kernel's
# count (/sys/kernel/debug/vswap/memory, mm-patches 0017: "per virtual
# slot in use": the virtual device, its tiers, all); for direct swap on
# the same device, the same count's fixed part of tierblk0 as a tier
# (swap_map, cluster array: the same sizes for a device of the same
# size) plus the zero page bitmap and the swap cgroup map a direct device
# has (a bit a slot, a power of two of bytes; an
# unsigned short a slot, in whole pages, and the array of those pages),
# plus its swap tables counted by /proc/vmstat (swap_table_alloc -
# swap_table_free, mm-patches 0009), over the slots in use. For
# comparison, upstream's virtual swap series gives every virtual slot a
# 24-byte descriptor (in front of the backing device's own map).
. /usr/lib/tierswap/lib.sh

SIZE=${VSWAP_DRAIN_SIZE:-64M}
MEMCG=${VSWAP_DRAIN_MEMCG:-8M}
ROUNDS=${VSWAP_DRAIN_ROUNDS:-3}
READ_US=${VSWAP_DRAIN_READ_US:-0 50}
V=/sys/kernel/mm/vswap
DBG=/sys/kernel/debug/vswap/memory
CG=vswap-drain-bench
OUT=/tmp/vswap-drain-bench.out
sspid=

die() {
	echo "vswap-drain: $*" >&2
	exit 1
}

cleanup() {
	kill_bg "$sspid"
	memcg_destroy "$CG" 2>/dev/null
	if [ -d "$V" ]; then
		echo 0 > "$V/size" 2>/dev/null
		echo /dev/tierblk0 > "$V/remove" 2>/dev/null
		echo /dev/tierblk1 > "$V/remove" 2>/dev/null
	fi
	tierblk_unload 2>/dev/null
}
trap cleanup EXIT

cg_kb() { awk '{ printf "%d\n", $1 / 1024 }' "$CGROOT/$CG/$1"; }
vmstat_or0() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat; }

case $SIZE in *M) mb=${SIZE%M} ;; *) die "VSWAP_DRAIN_SIZE '$SIZE': give MiB (e.g. 64M)" ;; esac
case $mb in '' | *[!0-9]*) die "VSWAP_DRAIN_SIZE '$SIZE': give MiB (e.g. 64M)" ;; esac
# each device 1/8 larger than the workload: all of it fits on tierblk0
dev_mb=$((mb + mb / 8 + 1))
# the virtual device: no more slots than tierblk1 alone (the header page
# off), or tierblk0 could not leave while it is on
vsize_kb=$((dev_mb * 1024 - 4))

# empty MODE SEED: swap on, page the workload out, count the memory per
# slot in use, empty tierblk0 (timed), let the workload verify, swap off.
# Sets E_MS, E_IN (pswpin), E_BPS, E_SWAP0/E_SWAP1 (the memcg's swap KiB
# before and after), E_MEM (the drain: virtual tiers all).
empty() {
	local t0 t1 p0 p1 tb0 tb1 used fixed slots sc_pages bps
	if [ "$1" = swapoff ]; then
		mkswap /dev/tierblk0 >/dev/null && swapon /dev/tierblk0 || die "swapon tierblk0"
	else
		mkswap /dev/tierblk0 >/dev/null && mkswap /dev/tierblk1 >/dev/null &&
			echo "/dev/tierblk0 prio=20" > "$V/add" && echo "/dev/tierblk1 prio=10" > "$V/add" &&
			echo "${vsize_kb}K" > "$V/size" || die "virtual device with tierblk0, tierblk1"
	fi
	tb0=$(vmstat_or0 swap_table_alloc)
	tb1=$(vmstat_or0 swap_table_free)
	ss_paged_out "$CG" "$OUT" --size "$SIZE" --mem anon --thp never --pageout memcg \
		--memcg-max "$MEMCG" --passes 1 --seed "$2" || die "swapstress did not stop: $(cat "$OUT")"
	tb0=$(( $(vmstat_or0 swap_table_alloc) - tb0 - ($(vmstat_or0 swap_table_free) - tb1) ))
	if [ "$1" = drain ]; then
		bps=$(awk '$1 == "per" { print $11 }' "$DBG")
		E_MEM=$(awk '$1 == "per" { print $7, $9, $11 }' "$DBG")
		# tierblk0's fixed bytes, kept for the direct estimate
		tb0_fixed=$(awk '$1 == "/dev/tierblk0" { print $6 }' "$DBG")
	else
		used=$(awk '$1 == "/dev/tierblk0" { print $4 }' /proc/swaps)
		slots=$(awk '$1 == "/dev/tierblk0" { print $3 }' /proc/swaps)
		used=$((used / 4)) slots=$((slots / 4))
		# the swap cgroup map: 2048 records a page, and the page array
		sc_pages=$(( (slots + 2047) / 2048 ))
		fixed=${tb0_fixed:-}
		bps=-
		# the zero page bitmap a direct device has and a tier has not
		# (mm-patches 0020): a bit a slot, kvmalloc()ed (a power of two)
		[ -n "$fixed" ] && [ "$used" -gt 0 ] && bps=$(awk -v f="$fixed" -v p="$sc_pages" -v t="$tb0" -v u="$used" -v s="$slots" \
			'BEGIN { z = int((s + 63) / 64) * 8; for (k = 8; k < z; k *= 2); z = k
				printf "%.2f", (f + z + p * 4096 + int((p * 8 + 4095) / 4096) * 4096 + t * 4096) / u }')
	fi
	echo max > "$CGROOT/$CG/memory.max" || die "lifting $CG's memory.max"
	E_SWAP0=$(cg_kb memory.swap.current)
	p0=$(vmstat_get pswpin)
	t0=$(uptime_ms)
	if [ "$1" = swapoff ]; then
		swapoff /dev/tierblk0 || die "swapoff tierblk0"
	else
		echo /dev/tierblk0 > "$V/remove" || die "remove tierblk0"
	fi
	t1=$(uptime_ms)
	p1=$(vmstat_get pswpin)
	E_SWAP1=$(cg_kb memory.swap.current)
	kill -CONT "$sspid"
	wait "$sspid"
	sspid=
	[ "$(kv_get "$OUT" corrupt)" = 0 ] || die "$1: corrupt pages: $(cat "$OUT")"
	memcg_destroy "$CG"
	if [ "$1" = drain ]; then
		echo 0 > "$V/size" && echo /dev/tierblk1 > "$V/remove" || die "virtual device off"
	fi
	E_MS=$((t1 - t0)) E_IN=$((p1 - p0)) E_BPS=$bps
}

[ -d "$CGROOT" ] || die "no cgroup v2 at CGROOT"
tierblk_load nr_devices=2 size=${dev_mb}M || die "insmod tierblk"
tierblk_set 0 synchronous 1 && tierblk_set 1 synchronous 1 || die "synchronous=1"
for us in $READ_US; do
	case $us in '' | *[!0-9]*) die "VSWAP_DRAIN_READ_US '$READ_US': give microseconds (e.g. \"0 50\")" ;; esac
done
modes=swapoff
[ -d "$V" ] && modes="drain swapoff"
[ "$modes" = swapoff ] || [ -r "$DBG" ] || die "no $DBG (debugfs mounted? mm-patches 0017)"

# compare US: the rounds at tierblk0's read latency US, and their table;
# BENCH names get the suffix _read<US>us unless US is 0
compare() {
	local us=$1 sfx= r m sm dm si di ss ds sb db speed
	[ "$us" = 0 ] || sfx=_read${us}us
	tierblk_set 0 read_latency $((us * 1000)) || die "read latency $us us on tierblk0"
	echo "drain vs swapoff: $SIZE of anon (order 0) paged out through a $MEMCG memcg, then tierblk0 (synchronous, read latency ${us} us) emptied; median of $ROUNDS (${TIERSWAP_TREE:-?} kernel)"
	s_ms= s_in= s_sw= s_b= d_ms= d_in= d_sw= d_b= mem=
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		# the drain first in odd rounds: its count of tierblk0's fixed bytes
		# is what the direct estimate needs, so the first round starts there
		for m in $([ $((r % 2)) = 1 ] && echo $modes || echo $modes | tr ' ' '\n' | sort -r); do
			E_MEM=
			empty "$m" "$r"
			echo "# round $r $m: $E_MS ms, pswpin +$E_IN, memcg swap $E_SWAP0 -> $E_SWAP1 KiB, $E_BPS B per slot in use${E_MEM:+ (virtual tiers all: $E_MEM)}"
			if [ "$m" = swapoff ]; then
				s_ms="$s_ms $E_MS" s_in="$s_in $E_IN" s_sw="$s_sw $E_SWAP1" s_b="$s_b $E_BPS"
			else
				d_ms="$d_ms $E_MS" d_in="$d_in $E_IN" d_sw="$d_sw $E_SWAP1" d_b="$d_b $E_BPS"
				mem="$mem|$E_MEM"
			fi
		done
	done

	sm=$(echo "$s_ms" | median) dm=$(echo "$d_ms" | median)
	si=$(echo "$s_in" | median) di=$(echo "$d_in" | median)
	ss=$(echo "$s_sw" | median) ds=$(echo "$d_sw" | median)
	sb=$(echo "$s_b" | tr " " "\n" | grep -v -- "^-$" | median) db=$(echo "$d_b" | median)
	speed=$(awk -v s="$sm" -v d="${dm:-0}" 'BEGIN { if (s > 0 && d > 0) printf "%.2f", s / d; else print "-" }')
	echo "BENCH-TABLE vswap-drain: empty a tier of $SIZE, read latency $us us"
	printf '%-30s %10s %10s %8s\n' metric swapoff drain ratio
	printf '%-30s %10s %10s %8s\n' "time_ms" "$sm" "${dm:--}" "$speed"
	printf '%-30s %10s %10s %8s\n' "pages_read_into_memory" "$si" "${di:--}" -
	printf '%-30s %10s %10s %8s\n' "memcg_swap_after_kb" "$ss" "${ds:--}" -
	printf '%-30s %10s %10s %8s\n' "bytes_per_slot_in_use" "${sb:--}" "${db:--}" -
	echo "# ratio: swapoff time / drain time (> 1: the drain is faster; goal >= 2)"
	echo "# memory per virtual slot in use, virtual tiers all, per drain round:${mem:-none}"
	echo "# upstream's virtual swap series: a 24-byte descriptor per virtual slot; goal here <= 26 B"
	echo "BENCH vswap-drain.swapoff_ms$sfx $sm ms"
	echo "BENCH vswap-drain.swapoff_pswpin$sfx $si pages"
	[ -n "$sb" ] && [ "$sb" != - ] && echo "BENCH vswap-drain.direct_bytes_per_slot$sfx $sb B/slot"
	if [ -n "$dm" ]; then
		echo "BENCH vswap-drain.drain_ms$sfx $dm ms"
		echo "BENCH vswap-drain.drain_pswpin$sfx $di pages"
		echo "BENCH vswap-drain.vswap_bytes_per_slot$sfx $db B/slot"
	fi
}

for us in $READ_US; do
	compare "$us"
done
echo "reproduce: make bench B=vswap-drain   (VSWAP_DRAIN_SIZE, VSWAP_DRAIN_MEMCG, VSWAP_DRAIN_ROUNDS, VSWAP_DRAIN_READ_US='0 50' through GUEST_ENV)"
