#!/bin/sh
# timeout: 900
# suite: quick
# tierblk's backing pages under races (the page lifetime: a copy holds a
# reference, a drop frees at once). blkrace (workloads/) runs readers of
# /dev/tierblk0 (O_DIRECT) against writers that discard a page and write
# it again, whole or one sector, so reads race the free of the page they
# copy from and the insert of the next one; every word read must be zero
# or name its own place, and at the end every page must hold exactly what
# its writer left. The debug kernel's KASAN reports a copy from a freed
# page (the harness fails the test on the splat).
#   1. synchronous=1, and synchronous=0 (workqueue completion, latency):
#      no bad word, pages as left, the device's page count equal to the
#      pages that hold data;
#   2. --shared: three writers on the same 8 pages (whole, one-sector,
#      discard), so two writes insert a new page for one place at once
#      (insert_races counts the one that goes back);
#   3. faults during the race: 1% of reads fail (counted, nothing else
#      changes); new pages and xarray nodes fail to allocate on the write
#      path (fail_page_alloc and failslab on tierblk's write functions):
#      the writes fail with ENOMEM, alloc_failures counts them, nothing
#      read is wrong and the page count still matches;
#   4. swap on tierblk0 (synchronous=1: slots freed at fault time through
#      swap_slot_free_notify) while read-only readers cover the device:
#      swapstress verifies every page, the readers read;
#   5. the checks can fail: a page holding another place's words is found
#      by the readers, a page not as its writer left it by the last pass;
#   6. blkdiscard leaves no page; the module unloads.
. /usr/lib/tierswap/lib.sh

SECS=$(by_suite 4 20)
PAGES=$(by_suite 512 4096)
FPA=/sys/kernel/debug/fail_page_alloc
FSL=/sys/kernel/debug/failslab

fail_alloc_off() {
	local f
	for f in "$FPA" "$FSL"; do
		[ -w "$f/probability" ] && echo 0 > "$f/probability"
	done
	return 0
}

cleanup() {
	fail_alloc_off
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

# raced NAME: the run passed, raced every kind of operation, left every page
# as its writer did, and the device counts as allocated exactly the pages
# that hold data
raced() {
	local f=/tmp/race.$1
	grep -q '^result=pass$' "$f" && [ "$(kv_get "$f" bad_words)" = 0 ] &&
		[ "$(kv_get "$f" final_bad_words)" = 0 ] && [ "$(kv_get "$f" reads)" -gt 0 ] &&
		[ "$(kv_get "$f" partial_writes)" -gt 0 ] && [ "$(kv_get "$f" discards)" -gt 0 ] &&
		[ "$(tierblk_stat 0 pages)" = "$(kv_get "$f" nonzero_pages)" ] || { cat "$f"; return 1; }
}

plan 11
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
dev_pages=$(($(cat /sys/block/tierblk0/size) / 8))

race sync1 --readers 2 --writers 2
check "synchronous=1: readers racing discards and rewrites read no bad word; pages as left, counted = pages with data" raced sync1

tierblk_set 0 synchronous 0 || bail "synchronous=0"
tierblk_set 0 read_latency uniform:1us,50us
tierblk_set 0 write_latency uniform:1us,50us
race sync0 --readers 2 --writers 2
check "synchronous=0, workqueue completion, latency: the same" raced sync0
tierblk_set 0 read_latency 0
tierblk_set 0 write_latency 0
tierblk_set 0 synchronous 1 || bail "synchronous=1"

# Writers on the same pages: two new pages for one place, one goes back.
shared_raced() {
	local i=0 r0
	# blkrace discards only its 8 pages first: the device's page count
	# must not hold the earlier runs' pages
	blkdiscard /dev/tierblk0 || return 1
	r0=$(tierblk_stat 0 insert_races)
	while [ $i -lt 5 ]; do
		i=$((i + 1))
		blkrace --dev /dev/tierblk0 --pages 8 --seconds "$SECS" --readers 1 --writers 3 --shared \
			> /tmp/race.shared 2>&1 || { cat /tmp/race.shared; return 1; }
		[ "$(kv_get /tmp/race.shared final_bad_words)" = 0 ] &&
			[ "$(tierblk_stat 0 pages)" = "$(kv_get /tmp/race.shared nonzero_pages)" ] ||
			{ cat /tmp/race.shared; return 1; }
		[ "$(tierblk_stat 0 insert_races)" -gt "$r0" ] && return 0
	done
	echo "# no insert race in $i runs"
	return 1
}
check "--shared: writes racing writes and discards of the same pages, a lost insert gone back (insert_races), no bad word" \
	shared_raced

# Faults during the race: read errors.
tierblk_set 0 error_rate_read 1%
race eio --readers 2 --writers 2 --eio-ok
eio_ok() {
	raced eio && [ "$(kv_get /tmp/race.eio read_errors)" -gt 0 ] &&
		[ "$(tierblk_stat 0 read_errors)" -ge "$(kv_get /tmp/race.eio read_errors)" ]
}
check "read errors injected during the race: counted by both sides, no bad word" eio_ok
tierblk_set 0 error_rate_read 0

# Faults during the race: allocations on the write path (a new page, an
# xarray node) fail 5% of the time.
range=$(sym_range tierblk_write_page tierblk_do_seg tierblk_transfer tierblk_submit_bio) ||
	bail "no tierblk write function in /proc/kallsyms"
set -- $range
for f in "$FPA" "$FSL"; do
	echo N > "$f/ignore-gfp-wait" && echo "0x$1" > "$f/require-start" && echo "0x$2" > "$f/require-end" &&
		echo 32 > "$f/stacktrace-depth" && echo 0 > "$f/space" && echo 1 > "$f/interval" &&
		echo 0 > "$f/verbose" && echo -1 > "$f/times" && echo 5 > "$f/probability" ||
		bail "fault injection setup ($f)"
done
echo N > "$FPA/ignore-gfp-highmem" && echo 0 > "$FPA/min-order" && echo N > "$FSL/cache-filter" ||
	bail "fault injection setup"
af0=$(tierblk_stat 0 alloc_failures)
race enomem --readers 2 --writers 2 --write-errors-ok
fail_alloc_off
enomem_ok() {
	local f=/tmp/race.enomem
	grep -q '^result=pass$' "$f" && [ "$(kv_get "$f" bad_words)" = 0 ] &&
		[ "$(kv_get "$f" final_bad_words)" = 0 ] && [ "$(kv_get "$f" write_errors)" -gt 0 ] &&
		[ "$(($(tierblk_stat 0 alloc_failures) - af0))" -ge "$(kv_get "$f" write_errors)" ] &&
		[ "$(tierblk_stat 0 pages)" = "$(kv_get "$f" nonzero_pages)" ] || { cat "$f"; return 1; }
}
check "allocations failing on the write path during the race ($1-$2 $3): writes fail with ENOMEM, counted, no bad word, pages counted right" \
	enomem_ok

# Swap frees its slots at fault time while raw readers copy from the whole
# device: the readers check nothing (it is swap's data), swapstress checks
# every page.
blkdiscard /dev/tierblk0
tierblk_swapon 0 || bail "swapon tierblk0"
blkrace --dev /dev/tierblk0 --pages "$dev_pages" --seconds 3600 --readers 2 --writers 0 \
	> /tmp/race.swap 2>&1 &
rpid=$!
swapstress --size "$(by_suite 16M 48M)" --passes 2 --pattern random > /tmp/ss.out 2>&1
ssrc=$?
kill -TERM "$rpid"
wait "$rpid"
brc=$?
rpid=
check_eq "swap on tierblk0 with readers racing its slot frees: every page verified" "0 0" \
	"$ssrc $(kv_get /tmp/ss.out corrupt)"
check "the readers read all along (SIGTERM: their results) and the slots were freed at fault time" \
	sh -c '[ $0 = 0 ] && [ "$(sed -n "s/^reads=//p" "$1")" -gt 0 ] && [ "$2" -gt 0 ] || { cat "$1"; exit 1; }' \
	"$brc" /tmp/race.swap "$(tierblk_stat 0 slot_free_notify)"
tierblk_swapoff 0
check "swapoff after the race" sh -c '! grep -q "^/dev/tierblk0 " /proc/swaps'

race foreign --readers 2 --writers 1 --inject-foreign
race stale --readers 1 --writers 1 --inject-stale
check "the checks can fail: another place's words (readers), a page not as its writer left it (last pass)" \
	sh -c 'grep -q "^result=fail$" "$0" && [ "$(sed -n "s/^bad_reads=//p" "$0")" -gt 0 ] &&
	       grep -q "^result=fail$" "$1" && [ "$(sed -n "s/^final_bad_words=//p" "$1")" = 512 ]' \
	/tmp/race.foreign /tmp/race.stale

blkdiscard /dev/tierblk0
check_eq "blkdiscard leaves no page" 0 "$(tierblk_stat 0 pages)"
check "tierblk unloads" tierblk_unload
