#!/bin/sh
# timeout: 300
# suite: quick
# tierblk error injection on the raw device (direct I/O through dd):
# bad sector ranges with operations and counts, every_nth, rates from the
# seeded generator (same seed -> same failing operations), one-shot read
# failure, the status delivered (errno seen by the reader), failed writes
# store nothing, discard and flush failures, bit-flip corruption; in
# synchronous and asynchronous mode. Then the knobs tierblk-attrs only reads
# back, under I/O: every_nth_write, error_rate_discard/_flush, discard and
# flush latency, completion=inline.
. /usr/lib/tierswap/lib.sh

cleanup() { rm -f /tmp/tb.*; tierblk_unload 2>/dev/null; }

# rd BLOCK / wr BLOCK [FILE]: one direct 4 KiB read / write of tierblk0.
rd() { dd_errno if=/dev/tierblk0 of=/tmp/tb.rd bs=4096 count=1 skip="$1" iflag=direct; }
wr() {
	dd_errno if="${2:-/dev/urandom}" of=/dev/tierblk0 bs=4096 count=1 seek="$1" \
		oflag=direct conv=notrunc
}

# reads BLOCK N: results of N reads of BLOCK, space separated.
reads() {
	local i=0 r=
	while [ $i -lt "$2" ]; do
		r="$r $(rd "$1")"
		i=$((i + 1))
	done
	echo $r
}

# failing_reads N: indexes of the failing reads among N direct one-block
# reads of blocks 0..N-1, in one dd: with conv=noerror,sync a failed block
# reads as zeros, and the device holds random data.
failing_reads() {
	dd if=/dev/tierblk0 bs=4096 count="$1" iflag=direct conv=noerror,sync 2>/dev/null |
		od -An -v -tx8 |
		awk -v n="$1" '
			$1 != "0000000000000000" || $2 != "0000000000000000" { nz[int((NR - 1) / 256)] = 1 }
			END { s = ""; for (i = 0; i < n; i++) if (!(i in nz)) s = s (s == "" ? "" : " ") i; print s }'
}

clear_all() {
	local o
	tierblk_set 0 badblocks clear
	tierblk_set 0 one_shot_read_sector none
	tierblk_set 0 corrupt none
	tierblk_set 0 error_status EIO
	for o in read write discard flush; do
		tierblk_set 0 "error_rate_$o" 0
		tierblk_set 0 "every_nth_$o" 0
	done
}

plan 35
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
dd if=/dev/urandom of=/dev/tierblk0 bs=1M count=4 oflag=direct 2>/dev/null

for s in 1 0; do
	tierblk_set 0 synchronous $s
	m="synchronous=$s"
	tierblk_set 0 badblocks "+80-87 read 2"
	check_eq "$m: bad range read 2: fails twice, then healed" "EIO EIO ok ok" "$(reads 10 4)"
	check_eq "$m: healed range removed from the list" "" "$(tierblk_get 0 badblocks)"
	tierblk_set 0 badblocks "+100-100 read"
	check_eq "$m: a read touching one bad sector of a 4k block fails" "EIO ok EIO" \
		"$(rd 12) $(rd 13) $(rd 12)"
	tierblk_set 0 badblocks clear

	tierblk_set 0 one_shot_read_sector 163
	check_eq "$m: one-shot: the next read of sector 163 fails, once" "ok EIO ok none" \
		"$(rd 21) $(rd 20) $(rd 20) $(tierblk_get 0 one_shot_read_sector)"

	tierblk_set 0 every_nth_read 3
	check_eq "$m: every_nth_read=3" "ok ok EIO ok ok EIO" "$(reads 1 6)"
	tierblk_set 0 every_nth_read 0

	wr 30 > /dev/null
	dd if=/dev/tierblk0 of=/tmp/tb.before bs=4096 count=1 skip=30 iflag=direct 2>/dev/null
	tierblk_set 0 badblocks "+240-247 write 1"
	r=$(wr 30)
	dd if=/dev/tierblk0 of=/tmp/tb.after bs=4096 count=1 skip=30 iflag=direct 2>/dev/null
	check "$m: failed write returns EIO and stores nothing" \
		eval "[ '$r' = EIO ] && cmp -s /tmp/tb.before /tmp/tb.after"
	check_eq "$m: write range healed after its count, next write ok" "ok" "$(wr 30)"
	clear_all
done

# The status delivered.
status_of() {
	tierblk_set 0 error_status "$1"
	tierblk_set 0 one_shot_read_sector 0
	rd 0
}
# the errno names of the shared vocabulary: what the reader gets
check_eq "error_status reaches the reader: EIO ENOSPC ETIMEDOUT ENOMEM ENODATA" \
	"EIO ENOSPC ETIMEDOUT ENOMEM ENODATA" \
	"$(status_of EIO) $(status_of ENOSPC) $(status_of ETIMEDOUT) $(status_of ENOMEM) $(status_of ENODATA)"
clear_all

# Rates: 20% of reads; the same seed fails the same reads.
tierblk_set 0 error_rate_read 200000
tierblk_set 0 seed 1234
a=$(failing_reads 200)
tierblk_set 0 seed 1234
b=$(failing_reads 200)
tierblk_set 0 seed 99
c=$(failing_reads 200)
na=$(echo $a | wc -w)
diag "seed 1234: $na of 200 reads failed: $a"
check "error_rate_read=200000 ppm: 20% +- 10% of 200 reads fail" test "$na" -ge 20 -a "$na" -le 60
check_eq "same seed, same rate: the same reads fail" "$a" "$b"
check "another seed: other reads fail" test "$a" != "$c"
check_eq "rate_errors counts them" $((na * 2 + $(echo $c | wc -w))) "$(tierblk_stat 0 rate_errors)"
clear_all
tierblk_set 0 error_rate_write 1000000
check_eq "error_rate_write=1000000: every write fails" "EIO EIO" "$(wr 40) $(wr 41)"
clear_all

# Discard and flush failures.
discard_refused() {
	local p0
	p0=$(tierblk_stat 0 pages)
	! blkdiscard /dev/tierblk0 2>/dev/null && [ "$(tierblk_stat 0 pages)" = "$p0" ] &&
		[ "$p0" -gt 0 ]
}
discard_frees() {
	local p0
	p0=$(tierblk_stat 0 pages)
	blkdiscard -o 0 -l 1048576 /dev/tierblk0 && [ "$(tierblk_stat 0 pages)" -lt "$p0" ]
}
tierblk_set 0 every_nth_discard 1
check "failed discard is refused and frees nothing" discard_refused
tierblk_set 0 every_nth_discard 0
check "discard frees the pages" discard_frees
f0=$(tierblk_stat 0 flushes)
tierblk_set 0 every_nth_flush 1
check_eq "failed flush: fsync gets EIO" EIO \
	"$(dd_errno if=/dev/zero of=/dev/tierblk0 bs=4096 count=1 seek=50 conv=fsync,notrunc)"
check "flushes and flush errors counted" \
	test "$(tierblk_stat 0 flushes)" -gt "$f0" -a "$(tierblk_stat 0 flush_errors)" -ge 1
clear_all

# every_nth_write and the discard and flush rates.
tierblk_set 0 every_nth_write 2
check_eq "every_nth_write=2: every second write fails" "ok EIO ok EIO" \
	"$(wr 60) $(wr 61) $(wr 62) $(wr 63)"
clear_all
tierblk_set 0 error_rate_discard 1000000
check "error_rate_discard=1000000: discard refused, frees nothing" discard_refused
tierblk_set 0 error_rate_flush 1000000
check_eq "error_rate_flush=1000000: fsync gets EIO" EIO \
	"$(dd_errno if=/dev/zero of=/dev/tierblk0 bs=4096 count=1 seek=50 conv=fsync,notrunc)"
clear_all

# Discard and flush latency: a 200 ms delay cannot end early (a lower bound
# only; uptime moves in 10 ms steps).
took_ms() {
	local t0
	t0=$(nbd_ms)
	"$@" > /dev/null 2>&1
	echo $(($(nbd_ms) - t0))
}
tierblk_set 0 flush_latency 200ms
t=$(took_ms dd if=/dev/zero of=/dev/tierblk0 bs=4096 count=1 seek=50 conv=fsync,notrunc)
check "flush_latency 200 ms: the fsync took >= 180 ms ($t ms)" test "$t" -ge 180
tierblk_set 0 flush_latency off
tierblk_set 0 discard_latency 200ms
t=$(took_ms blkdiscard -o 0 -l 65536 /dev/tierblk0)
check "discard_latency 200 ms: the discard took >= 180 ms ($t ms)" test "$t" -ge 180
tierblk_set 0 discard_latency off

# completion=inline (synchronous=0, bios end in the submitter's context):
# data round trip, and an injected error still reaches the reader.
tierblk_set 0 synchronous 0
tierblk_set 0 completion inline
dd if=/dev/urandom of=/tmp/tb.pat bs=4096 count=1 2>/dev/null
wr 70 /tmp/tb.pat > /dev/null
rd 70 > /dev/null
check "completion=inline: a written block reads back the same" cmp -s /tmp/tb.pat /tmp/tb.rd
tierblk_set 0 one_shot_read_sector 560
check_eq "completion=inline: an injected read error reaches the reader" EIO "$(rd 70)"
tierblk_set 0 completion workqueue
clear_all

# Corruption: one bit per sector of the range flips on read; the store is
# intact.
dd if=/dev/urandom of=/tmp/tb.pat bs=4096 count=1 2>/dev/null
wr 100 /tmp/tb.pat > /dev/null
tierblk_set 0 corrupt 800-803
rd 100 > /dev/null
check_eq "corrupt 800-803: 4 bytes differ on read" 4 "$(cmp -l /tmp/tb.pat /tmp/tb.rd | wc -l)"
check_eq "corrupted_sectors counted" 4 "$(tierblk_stat 0 corrupted_sectors)"
tierblk_set 0 corrupt none
rd 100 > /dev/null
check "corrupt none: the stored data was intact" cmp -s /tmp/tb.pat /tmp/tb.rd

by_op() {
	echo $(($(tierblk_stat 0 read_errors) + $(tierblk_stat 0 write_errors) + \
		$(tierblk_stat 0 discard_errors) + $(tierblk_stat 0 flush_errors)))
}
by_src() {
	echo $(($(tierblk_stat 0 badblock_errors) + $(tierblk_stat 0 rate_errors) + \
		$(tierblk_stat 0 every_nth_errors) + $(tierblk_stat 0 one_shot_errors)))
}
check_eq "errors by operation type and by source add up" "$(by_op)" "$(by_src)"
tap_status
