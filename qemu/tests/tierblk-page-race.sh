#!/bin/sh
# timeout: 600
# suite: quick
# tierblk's backing pages under races (the page lifetime: a copy holds a
# reference, a drop frees at once). blkrace (workloads/) runs readers of
# /dev/tierblk0 (O_DIRECT) against writers that discard a page and write
# it again, whole or one sector, so reads race the free of the page they
# copy from and the insert of the next one; every word read must be zero
# or name its own place. The debug kernel's KASAN reports a copy from a
# freed page (the harness fails the test on the splat).
#   1. synchronous=1 and synchronous=0 (workqueue completion, latency),
#      then a last pass: no bad word, and the device's page count equals
#      the pages that hold data;
#   2. the same with read errors injected (1%) during the race: counted,
#      nothing else changes;
#   3. swap on tierblk0 (synchronous=1: slots freed at fault time through
#      swap_slot_free_notify) while read-only readers hammer the device:
#      swapstress verifies every page;
#   4. the check can fail: a page holding another place's words is found;
#   5. blkdiscard leaves no page; the module unloads.
. /usr/lib/tierswap/lib.sh

SECS=$(by_suite 4 20)
PAGES=$(by_suite 512 4096)

cleanup() {
	[ -n "${rpid:-}" ] && kill_bg "$rpid"
	swapoff /dev/tierblk0 2>/dev/null
	tierblk_unload 2>/dev/null
}

# race NAME ARGS...: one blkrace run on tierblk0, its output in /tmp/race.NAME
race() {
	local n=$1
	shift
	blkrace --dev /dev/tierblk0 --pages "$PAGES" --seconds "$SECS" "$@" > "/tmp/race.$n" 2>&1
}

# raced NAME: the run passed, raced every kind of operation, and the device
# counts as allocated exactly the pages that hold data
raced() {
	local f=/tmp/race.$1
	grep -q '^result=pass$' "$f" && [ "$(kv_get "$f" bad_words)" = 0 ] &&
		[ "$(kv_get "$f" final_bad_words)" = 0 ] && [ "$(kv_get "$f" reads)" -gt 0 ] &&
		[ "$(kv_get "$f" partial_writes)" -gt 0 ] &&
		[ "$(kv_get "$f" discards)" -ge "$(kv_get "$f" writes)" ] &&
		[ "$(tierblk_stat 0 pages)" = "$(kv_get "$f" nonzero_pages)" ] || { cat "$f"; return 1; }
}

plan 9
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"

race sync1 --readers 2 --writers 2
check "synchronous=1: readers racing discards and rewrites read no bad word; pages counted = pages with data" raced sync1

tierblk_set 0 synchronous 0 || bail "synchronous=0"
tierblk_set 0 read_latency uniform:1us,50us
tierblk_set 0 write_latency uniform:1us,50us
race sync0 --readers 2 --writers 2
check "synchronous=0, workqueue completion, latency: the same" raced sync0
tierblk_set 0 read_latency 0
tierblk_set 0 write_latency 0
tierblk_set 0 synchronous 1 || bail "synchronous=1"

# Faults during the race: 1% of reads fail.
tierblk_set 0 error_rate_read 1%
race eio --readers 2 --writers 2 --eio-ok
eio_ok() {
	raced eio && [ "$(kv_get /tmp/race.eio read_errors)" -gt 0 ] &&
		[ "$(tierblk_stat 0 read_errors)" -ge "$(kv_get /tmp/race.eio read_errors)" ]
}
check "read errors injected during the race: counted by both sides, no bad word" eio_ok
tierblk_set 0 error_rate_read 0

# Swap frees its slots at fault time while raw readers copy from the same
# pages: no data of the swap is checked by the readers, swapstress checks
# every page.
blkdiscard /dev/tierblk0
tierblk_swapon 0 || bail "swapon tierblk0"
blkrace --dev /dev/tierblk0 --pages $((PAGES * 4)) --seconds 3600 --readers 2 --writers 0 \
	> /tmp/race.swap 2>&1 &
rpid=$!
swapstress --size "$(by_suite 16M 48M)" --passes 2 --pattern random > /tmp/ss.out 2>&1
ssrc=$?
kill_bg "$rpid"
rpid=
check_eq "swap on tierblk0 with readers racing its slot frees: every page verified" "0 0" \
	"$ssrc $(kv_get /tmp/ss.out corrupt)"
check "the slots were freed at fault time (slot_free_notify) while the readers ran" \
	test "$(tierblk_stat 0 slot_free_notify)" -gt 0
tierblk_swapoff 0
check "swapoff after the race" sh -c '! grep -q "^/dev/tierblk0 " /proc/swaps'

race foreign --readers 2 --writers 1 --inject-foreign
check "the check can fail: a page holding another place's words is reported" \
	sh -c 'grep -q "^result=fail$" "$0" && [ "$(sed -n "s/^bad_reads=//p" "$0")" -gt 0 ]' /tmp/race.foreign

blkdiscard /dev/tierblk0
check_eq "blkdiscard leaves no page" 0 "$(tierblk_stat 0 pages)"
check "tierblk unloads" tierblk_unload
