#!/bin/sh
# timeout: 240
# suite: quick
# The server goes away under the kernel nbd driver: killed, the reader
# gets EIO at once; stopped (hung), the reader gets EIO within
# nbd-client's timeout (-t) instead of hanging.  No kernel splat (the
# runner checks the log).  Injected disconnects are logged.
. /usr/lib/tierswap/lib.sh

plan 6
trap nbd_tier_down EXIT
NBD_TIMEOUT=4
# two connections: not on the swap device (see qemu/guest/lib/nbd.sh)
NBD_DEV=/dev/nbd1
NBD_CONNS=2

# 1. kill -9
nbd_tier_up 32M || bail "no nbd tier: $(tail -5 "$NBD_LOG")"
dd if=/dev/zero of="$NBD_DEV" bs=4k count=16 oflag=direct 2>/dev/null
kill -9 "$(nbd_server_pid)"
sleep 1
t0=$(nbd_ms)
out=$(dd if="$NBD_DEV" of=/dev/null bs=4k count=1 skip=100 iflag=direct 2>&1)
t1=$(nbd_ms)
check_eq "server killed: direct read gets EIO" EIO "$(errno_name "$out")"
check "... within the timeout (${NBD_TIMEOUT}s): $((t1 - t0)) ms" [ $((t1 - t0)) -lt $((NBD_TIMEOUT * 1000 + 2000)) ]
nbd_tier_down

# 2. SIGSTOP: requests time out
nbd_tier_up 32M || bail "no nbd tier: $(tail -5 "$NBD_LOG")"
pid=$(nbd_server_pid)
kill -STOP "$pid"
t0=$(nbd_ms)
out=$(dd if="$NBD_DEV" of=/dev/null bs=4k count=1 skip=200 iflag=direct 2>&1)
t1=$(nbd_ms)
kill -CONT "$pid"
check_eq "server stopped: direct read gets EIO" EIO "$(errno_name "$out")"
check "... after about the timeout: $((t1 - t0)) ms (timeout ${NBD_TIMEOUT}s)" \
	[ $((t1 - t0)) -lt $((NBD_TIMEOUT * 1000 * 2 + 3000)) ]
nbd_tier_down

# 3. injected disconnect of one of the two connections: the kernel
# requeues on the other one, the reader sees no error
nbd_tier_up 32M || bail "no nbd tier: $(tail -5 "$NBD_LOG")"
nbd_ctl disconnect after 3 >/dev/null
check "one connection dropped after 3 requests: reads go on over the other" \
	dd if="$NBD_DEV" of=/dev/null bs=4k count=64 iflag=direct
check "injected disconnect logged" grep -q "injected disconnect at request" "$NBD_LOG"
tap_status
