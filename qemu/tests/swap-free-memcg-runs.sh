#!/bin/sh
# timeout: 300
# suite: full
# also-vswap: yes
# Freeing the slots cache's batch a run at a time (mm-patches 0022) must
# cut a run where the memcg the slots are charged to changes: one run is
# uncharged from one memcg (swap_cgroup_record() checks that a range has
# one owner; a run spanning two would uncharge one memcg for the other's
# pages). Two memcgs, A and B, each own a tmpfs file; from one CPU their
# pages are reclaimed in turns (memory.reclaim, 128K each), so their swap
# slots interleave in that CPU's slots cache, and read back in the same
# turns, so each freed batch holds adjacent slots of both. Checks: both
# files read back intact, both memcgs' swap charge returns to 0 once
# swap is off (swapoff drains the slots caches), and swapoff succeeds.
# On tierblk0 (synchronous=1: shmem's swapin skips the swap cache, 0001),
# with tierblk1 swapped on at a lower priority and left unused: with more
# than one swap device the batch is sorted (swapcache_free_entries()), so
# adjacent slots of A and B meet in it whatever order they were freed in.
. /usr/lib/tierswap/lib.sh

MNT=/tmp/swap-free-runs
SZ_MB=8
CHUNK_KB=128
TURNS=$((SZ_MB * 1024 / CHUNK_KB))

cleanup() {
	rm -f "$MNT/a" "$MNT/b" 2>/dev/null
	umount "$MNT" 2>/dev/null
	memcg_destroy runs-a
	memcg_destroy runs-b
	tierblk_swapoff 0 60 2>/dev/null
	tierblk_swapoff 1 60 2>/dev/null
	tierblk_unload 2>/dev/null
}

# in_memcg NAME CMD...: CMD in a child shell that joined memcg NAME
in_memcg() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$cg" "$@"
}

swap_charge() { cat "$CGROOT/$1/memory.swap.current"; }
swap_both_off() { tierblk_swapoff 0 60 && tierblk_swapoff 1 60; }

plan 7
trap cleanup EXIT
cleanup 2>/dev/null
# one CPU: the slots cache is per CPU; reclaim and faults both run here
taskset -p 1 $$ >/dev/null || bail "taskset failed"
tierblk_load size=64M nr_devices=2 >/dev/null || bail "insmod tierblk failed"
tierblk_set 0 synchronous 1 || bail "tierblk0 synchronous=1"
tierblk_swapon 0 10 && tierblk_swapon 1 5 || bail "swapon tierblk0, tierblk1 failed"
mkdir -p "$MNT" && mount -t tmpfs -o size=$((2 * SZ_MB + 4))M none "$MNT" ||
	bail "tmpfs mount failed"
memcg_create runs-a max && memcg_create runs-b max || bail "memcgs"

in_memcg runs-a dd if=/dev/urandom of="$MNT/a" bs=1M count=$SZ_MB 2>/dev/null &&
	in_memcg runs-b dd if=/dev/urandom of="$MNT/b" bs=1M count=$SZ_MB 2>/dev/null ||
	bail "writing the files failed"
sum_a=$(sha256sum < "$MNT/a")
sum_b=$(sha256sum < "$MNT/b")

i=0
while [ $i -lt "$TURNS" ]; do
	# -EAGAIN when less than asked was reclaimed: counted below
	echo ${CHUNK_KB}K > "$CGROOT/runs-a/memory.reclaim" 2>/dev/null
	echo ${CHUNK_KB}K > "$CGROOT/runs-b/memory.reclaim" 2>/dev/null
	i=$((i + 1))
done
sw_a=$(swap_charge runs-a)
sw_b=$(swap_charge runs-b)
diag "swap charged after the reclaim turns: A $((sw_a / 1024))K, B $((sw_b / 1024))K"
# a quarter of each at least: the turns interleave their slots
check "both memcgs' files went to swap in turns (A ${sw_a} B ${sw_b} bytes)" \
	[ "$sw_a" -ge $((SZ_MB * 1024 * 1024 / 4)) -a "$sw_b" -ge $((SZ_MB * 1024 * 1024 / 4)) ]

in0=$(vmstat_get pswpin)
i=0
while [ $i -lt "$TURNS" ]; do
	dd if="$MNT/a" of=/dev/null bs=${CHUNK_KB}K skip=$i count=1 2>/dev/null
	dd if="$MNT/b" of=/dev/null bs=${CHUNK_KB}K skip=$i count=1 2>/dev/null
	i=$((i + 1))
done
in1=$(vmstat_get pswpin)
check "the turns read pages back from swap (pswpin +$((in1 - in0)))" \
	[ $((in1 - in0)) -ge $(( (sw_a + sw_b) / 4096 / 2 )) ]
check_eq "file A read back intact" "$sum_a" "$(sha256sum < "$MNT/a")"
check_eq "file B read back intact" "$sum_b" "$(sha256sum < "$MNT/b")"
rm -f "$MNT/a" "$MNT/b"

check "swapoff succeeds (no slot leaked)" swap_both_off
check_eq "memcg A: no swap charged once swap is off" 0 "$(swap_charge runs-a)"
check_eq "memcg B: no swap charged once swap is off" 0 "$(swap_charge runs-b)"
