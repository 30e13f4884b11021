#!/bin/sh
# timeout: 600
# suite: quick
# tierblk data integrity: fio verify=crc32c, random 4k..1M writes with
# interleaved verifying reads, then a full verify pass; synchronous=1 and 0,
# sync (psync) and queued (libaio, iodepth 16) submission, with and without
# random latency; discard frees the backing pages; bandwidth limit holds.
. /usr/lib/tierswap/lib.sh

cleanup() { tierblk_unload 2>/dev/null; }

# fio_verify NAME ENGINE DEPTH: two jobs on disjoint 64M halves of tierblk0.
fio_verify() {
	local out
	out=$(fio --name="$1" --filename=/dev/tierblk0 --direct=1 \
		--ioengine="$2" --iodepth="$3" --rw=randwrite --bsrange=4k-1M \
		--size=$(by_suite 4M 24M) --numjobs=2 --offset_increment=64M --group_reporting \
		--verify=crc32c --verify_fatal=1 --verify_backlog=8 --do_verify=1 \
		--randseed=$$ 2>&1)
	if [ $? -ne 0 ] || echo "$out" | grep -qi "verify.*fail\|bad magic\|crc32c.*wanted"; then
		echo "$out" | tail -n 30
		return 1
	fi
	# Both the verifying reads and the writes happened.
	echo "$out" | grep -q "READ:" && echo "$out" | grep -q "WRITE:"
}

plan 11
trap cleanup EXIT
tierblk_load size=128M || bail "insmod tierblk failed"

for s in 1 0; do
	tierblk_set 0 synchronous $s
	check "synchronous=$s: fio verify crc32c, psync, 4k..1M" fio_verify sync$s-psync psync 1
	check "synchronous=$s: fio verify crc32c, libaio depth 16" fio_verify sync$s-aio libaio 16
done

# Random latency reorders completions in asynchronous mode.
tierblk_set 0 read_latency uniform:10us,300us
tierblk_set 0 write_latency normal:100us,40us
check "synchronous=0, random latency: fio verify" fio_verify sync0-lat libaio 16
tierblk_set 0 synchronous 1
tierblk_set 0 read_latency lognormal:28us,25us
check "synchronous=1, random latency: fio verify" fio_verify sync1-lat psync 1
tierblk_set 0 read_latency 0
tierblk_set 0 write_latency 0

hist_ok() {
	local h
	h=$(tierblk_get 0 delay_histogram)
	# uniform 10..300 us and normal 100 +- 40 us land in 8k..512k buckets.
	echo "$h" | grep -q '^65536-131071 [1-9]' || { echo "$h"; return 1; }
	[ "$(tierblk_stat 0 delayed_ops)" -gt 0 ]
}
check "delays counted in the histogram" hist_ok

pages=$(tierblk_stat 0 pages)
check "pages allocated on write" test "$pages" -gt 1000
blkdiscard /dev/tierblk0
check_eq "blkdiscard frees every page" 0 "$(tierblk_stat 0 pages)"
check "discards counted" test "$(tierblk_stat 0 discards)" -gt 0

# Bandwidth: 16 MiB/s, a 32 MiB sequential write in 1 MiB writes takes about
# two seconds (62 ms per write: timer wake-up lateness stays small).
bw_ok() {
	local out kib
	tierblk_set 0 bandwidth 16M
	out=$(fio --name=bw --filename=/dev/tierblk0 --direct=1 --ioengine=psync \
		--rw=write --bs=1M --size=32M --minimal 2>&1) || { echo "$out"; return 1; }
	tierblk_set 0 bandwidth 0
	# terse v3: field 48 is the write bandwidth in KiB/s
	kib=$(echo "$out" | awk -F';' '{ print $48 }')
	diag "bandwidth limit 16384 KiB/s: fio wrote at $kib KiB/s"
	[ "$kib" -ge 10650 ] && [ "$kib" -le 17040 ]
}
check "bandwidth limit 16M: throughput within 65%..104%" bw_ok
tap_status
