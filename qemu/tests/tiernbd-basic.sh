#!/bin/sh
# timeout: 240
# suite: quick
# tiernbd inside the guest: swap-safe start, nbd-client with two
# connections (on /dev/nbd1), fio verify, injected errors reach the block
# layer, run-time control. The fio verify jobs write 4m each in the quick
# suite, 8m in the full one.
. /usr/lib/tierswap/lib.sh

plan 10
trap 'nbd_tier_down' EXIT
# two connections: not on the swap device (see qemu/guest/lib/nbd.sh)
NBD_DEV=/dev/nbd1
NBD_CONNS=2

if ! nbd_tier_up 64M; then
	fail "tiernbd + nbd-client up" "$(tail -5 "$NBD_LOG")"
	bail "no nbd tier"
fi
pass "tiernbd + nbd-client up ($(cat /sys/block/nbd1/size) sectors)"
st=$(nbd_ctl status)
if echo "$st" | grep -q 'swap_safe=yes'; then
	pass "server is swap-safe: mlocked, PR_SET_IO_FLUSHER"
else
	fail "server is swap-safe" "$st"
fi
n=$(nbd_ctl conns | grep -c '^id=')
check_eq "nbd-client -C $NBD_CONNS: that many connections" "$NBD_CONNS" "$n"

check "fio verify on $NBD_DEV (randwrite 4k, libaio, direct)" \
	fio --name=nbdv --filename="$NBD_DEV" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=16 --size=$(by_suite 4m 8m) --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--runtime=120 --output=/tmp/fio-nbd.txt
check "fio verify on $NBD_DEV (seq 64k, psync)" \
	fio --name=nbds --filename="$NBD_DEV" --ioengine=psync --direct=1 --rw=write \
	--bs=64k --size=$(by_suite 4m 8m) --offset=32m --verify=md5 --do_verify=1 --verify_fatal=1 \
	--output=/tmp/fio-nbd2.txt
r=$(nbd_stat read requests) w=$(nbd_stat write requests)
check "server saw the traffic (reads=$r writes=$w)" [ "${r:-0}" -gt 0 -a "${w:-0}" -gt 0 ]

# an injected read error reaches a reader of the block device as EIO
nbd_ctl error add read 40M+4K errno=EIO >/dev/null
out=$(dd if="$NBD_DEV" of=/dev/null bs=4k skip=10240 count=1 iflag=direct 2>&1)
check_eq "injected read error: dd gets EIO" EIO "$(errno_name "$out")"
nbd_ctl error clear
check "range cleared: the same read passes" \
	dd if="$NBD_DEV" of=/dev/null bs=4k skip=10240 count=1 iflag=direct

# latency is measurable from the guest
nbd_ctl latency read fixed:20ms
t0=$(nbd_ms)
dd if="$NBD_DEV" of=/dev/null bs=4k count=10 iflag=direct 2>/dev/null
t1=$(nbd_ms)
nbd_ctl latency all off
ms=$((t1 - t0))
check "20 ms read latency: 10 direct reads took ${ms} ms (>= 200)" [ "$ms" -ge 200 ]
d=$(nbd_stat read injected_delays)
check "injected delays counted ($d)" [ "${d:-0}" -ge 10 ]
tap_status
