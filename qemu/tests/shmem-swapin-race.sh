#!/bin/sh
# timeout: 900
# suite: full
# also-vswap: yes
# Concurrent shmem swapin: several tasks fault the same swapped-out tmpfs
# range at once, repeatedly. A 32M tmpfs file of random bytes (huge=never:
# order 0; huge=always: 2M folios) is written from a memcg, pushed to swap
# with memory.reclaim, then read back at the same time by three read()
# readers (md5sum: the path without a VMA) and two mmap readers (fio's mmap
# engine: the fault path):
# every reader must see the original bytes. Four rounds (SHMEM_SWAPIN_RACE_ROUNDS) per order, on
# tierblk synchronous=1 (the swap-cache-bypassing path, where the races
# between two swapins of one entry are resolved by the slot reservation).
. /usr/lib/tierswap/lib.sh

ROUNDS=${SHMEM_SWAPIN_RACE_ROUNDS:-4}
CG=/sys/fs/cgroup/shmem-swapin-race
MNT=/tmp/race

cleanup() {
	wait 2>/dev/null
	umount "$MNT" 2>/dev/null
	rmdir "$CG" 2>/dev/null
	tierblk_unload 2>/dev/null
}

# one_order HUGE: two checks.
one_order() {
	local huge=$1 sum bad=0 r i out pin0 pin1
	mkdir -p "$MNT"
	mount -t tmpfs -o "size=64M,huge=$huge" tmpfs "$MNT" || { fail "huge=$huge: mount"; fail "huge=$huge: rounds"; return; }
	sh -c "echo \$\$ > $CG/cgroup.procs && exec dd if=/dev/urandom of=$MNT/f bs=1M count=32 2>/dev/null"
	sum=$(md5sum "$MNT/f" | cut -d' ' -f1)
	pin0=$(vmstat_get pswpin)
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		echo 64M > "$CG/memory.reclaim" 2>/dev/null
		rm -f /tmp/race.*
		for i in 1 2 3; do
			md5sum "$MNT/f" > "/tmp/race.md5.$i" &
		done
		for i in 1 2; do
			fio --name=mmap$i --filename="$MNT/f" --ioengine=mmap --rw=randread \
				--bs=4k --size=32M --io_size=8M --randseed=$((r * 10 + i)) \
				--output=/tmp/race.fio.$i > /dev/null 2>&1 &
		done
		wait
		for i in 1 2 3; do
			[ "$(cut -d' ' -f1 "/tmp/race.md5.$i")" = "$sum" ] || bad=$((bad + 1))
		done
	done
	pin1=$(vmstat_get pswpin)
	# the rounds must really have swapped in: at least one file's worth
	if [ $((pin1 - pin0)) -ge 8192 ]; then
		pass "huge=$huge: $ROUNDS rounds swapped in $((pin1 - pin0)) pages concurrently"
	else
		fail "huge=$huge: rounds swapped in" "pswpin delta $((pin1 - pin0))"
	fi
	check_eq "huge=$huge: every read() reader saw the original bytes" "0" "$bad"
	out=$(md5sum "$MNT/f" | cut -d' ' -f1)
	rm -f "$MNT/f"
	umount "$MNT"
	[ "$out" = "$sum" ] || diag "huge=$huge: final checksum differs"
}

plan 5
trap cleanup EXIT
tierblk_load size=128M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
tierblk_swapon 0 || bail "swapon"
one_order never
one_order always
check "swapoff succeeds after the races (no leaked reservation)" tierblk_swapoff 0
tap_status
