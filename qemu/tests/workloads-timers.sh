#!/bin/sh
# timeout: 600
# suite: quick
# Swap-in timers of the seed experiments on zram: fill S bytes, MADV_PAGEOUT
# all of it, time the sequential read-back (swapstress --mode swapin-timer).
# shmem (memfd, mapped and pread) is the 1dd44c0af4fa experiment, anon the
# 0bcac06f27d7 one; a no-pageout run is the in-memory baseline.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/timer.out
SIZE=${WORKLOADS_TIMERS_SIZE:-$(by_suite 8M 32M)}
cleanup() { zram_swap_down; }

# timer DESC ARGS...: run the timer; pass on exit 0, swapin_ms present and
# every page verified afterwards; print the numbers as a diagnostic.
timer() {
	local desc=$1 pages
	shift
	swapstress --mode swapin-timer --size "$SIZE" "$@" >"$OUT" 2>&1
	rc=$?
	pages=$(kv_get $OUT pages)
	if [ $rc -eq 0 ] && [ -n "$(kv_get $OUT swapin_ms)" ] && [ "$(kv_get $OUT pages_verified)" = "$pages" ]; then
		pass "$desc: swapin_ms=$(kv_get $OUT swapin_ms) ($(kv_get $OUT swapin_us_per_page) us/page, swapin_pswpin=$(kv_get $OUT swapin_pswpin))"
	else
		fail "$desc" "rc=$rc" "$(cat $OUT)"
	fi
}

plan 7
trap cleanup EXIT
zram_swap_down 2>/dev/null
ZRAM=$(zram_swap_up 128M) || bail "zram swap failed"
pass "zram swap on $ZRAM"

timer "anon $SIZE in-memory baseline" --mem anon --pageout none
timer "anon $SIZE from zram (0bcac06f27d7)" --mem anon
check "anon: the read-back swapped in nearly every page" \
	test "$(kv_get $OUT swapin_pswpin)" -ge $(( $(kv_get $OUT pages) * 9 / 10 ))
timer "shmem $SIZE mmap from zram (1dd44c0af4fa)" --mem shmem --access mmap
check "shmem: the read-back swapped in nearly every page" \
	test "$(kv_get $OUT swapin_pswpin)" -ge $(( $(kv_get $OUT pages) * 9 / 10 ))
timer "shmem $SIZE pread from zram" --mem shmem --access read
tap_status
