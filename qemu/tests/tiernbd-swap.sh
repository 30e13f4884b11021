#!/bin/sh
# timeout: 600
# suite: full
# Swap on the slow tier: mkswap + swapon /dev/nbd0 served by tiernbd in
# the guest; memory pressure pushes pages out and back in, every page
# checked by swapstress (anon and shmem).
. /usr/lib/tierswap/lib.sh

plan 8
trap nbd_tier_down EXIT

nbd_tier_up 128M || bail "no nbd tier: $(tail -5 "$NBD_LOG")"
check "mkswap + swapon $NBD_DEV" nbd_swapon
check "$NBD_DEV is the only active swap" sh -c "[ \$(tail -n +2 /proc/swaps | wc -l) = 1 ] && grep -q '^$NBD_DEV ' /proc/swaps"

in0=$(awk '$1 == "pswpin" { print $2 }' /proc/vmstat)
out0=$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)
w0=$(nbd_stat write requests)
swapstress --size 32M --mem anon --pageout memcg --memcg-max 12M --passes 2 --seed 11 \
	> /tmp/ss-anon.txt 2>&1
rc=$?
check_eq "anon, 32M under a 12M memcg: swapstress exit 0 (every page verified)" 0 "$rc"
[ $rc = 0 ] || diag "$(grep -v '^#' /tmp/ss-anon.txt | tr '\n' ' ')"
in1=$(awk '$1 == "pswpin" { print $2 }' /proc/vmstat)
out1=$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)
check "pages went out and came back (pswpout +$((out1 - out0)), pswpin +$((in1 - in0)))" \
	[ $((out1 - out0)) -gt 1000 -a $((in1 - in0)) -gt 1000 ]
w1=$(nbd_stat write requests)
check "the writes reached tiernbd (+$((w1 - w0)) write requests)" [ $((w1 - w0)) -gt 0 ]

swapstress --size 32M --mem shmem --pageout madvise --passes 1 --seed 12 \
	> /tmp/ss-shmem.txt 2>&1
rc=$?
check_eq "shmem, MADV_PAGEOUT: swapstress exit 0" 0 "$rc"
[ $rc = 0 ] || diag "$(grep -v '^#' /tmp/ss-shmem.txt | tr '\n' ' ')"

# the same with 5 ms of latency on every read: slow, but correct
nbd_ctl latency read normal:5ms,1ms >/dev/null
swapstress --size 16M --mem anon --pageout madvise --seed 13 > /tmp/ss-slow.txt 2>&1
rc=$?
nbd_ctl latency all off
check_eq "anon with 5 ms read latency: swapstress exit 0" 0 "$rc"
check "swapoff brings everything back" swapoff "$NBD_DEV"
tap_status
