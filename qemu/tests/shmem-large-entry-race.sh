#!/bin/sh
# timeout: 600
# suite: quick
# also-vswap: yes
# boot: own
# A read of a large shmem swap entry fails while another task uses the same
# entry (issue 15). tierblk synchronous=1 with 300 ms sleeping read latency,
# page-cluster 0; a MAP_SHARED|MAP_ANONYMOUS region of one 64K or 2M folio
# is paged out (whole: the size's swpout counter moves) and
# large-entry-race stops; the test arms the latency and, in the error
# cases, a one-shot read error over the whole device, and lets it go on:
# thread A faults page 0, thread B 100 ms later (while A's read is in
# flight) faults page 5, read()s it, or truncates the file to 5 pages.
# One more pair of cases has A fault page 3, not the entry's first index:
# B's split must not make A's whole-folio read go to waste.
# Must hold in every case: nothing hangs, no page reads wrong data, the
# file's block count is exactly the pages that came back, every page is
# either back or lost as a whole folio (SIGBUS), swapoff succeeds (no
# slot freed while the mapping still held it, no leaked reservation), and
# without the error B's fault or read()s entry comes back in A's one read
# (pswpin moves by the entry's pages: B waits for A's folio, not reads).
# Own boot: on a kernel with the bug the guest stops responding; the boot's
# deadline then ends this test alone, not the suite.
. /usr/lib/tierswap/lib.sh

cluster=$(cat /proc/sys/vm/page-cluster)
DEV_SECTORS=131072 # 64M

cleanup() {
	[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
	wait 2>/dev/null
	echo "$cluster" > /proc/sys/vm/page-cluster
	thp_reset
	tierblk_unload 2>/dev/null
}

swpout_of() { # ORDER: large folios of that size written to swap whole
	case "$1" in
	64K) cat /sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/swpout ;;
	2M) cat /sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/swpout ;;
	esac
}

# one_case ORDER OP ERROR(0|1) [A_PAGE]: four checks, five without the
# error for B's fault or read.
one_case() {
	local order=$1 op=$2 error=$3 apage=${4:-0} what out rc s0 in0 pages a b sig ok
	# A case that cannot start still has its planned lines.
	case_failed() {
		fail "$what: $1"; fail "$what: -"; fail "$what: -"; fail "$what: -"
		if [ "$error" = 0 ] && [ "$op" != truncate ]; then fail "$what: -"; fi
	}
	what="$order$([ "$apage" != 0 ] && echo " a=page $apage") b=$op$([ "$error" = 1 ] && echo ', read error')"
	order_setup "$order" > /dev/null || { case_failed "mTHP setup"; return; }
	tierblk_set 0 read_latency 0
	tierblk_swapon 0 || { case_failed "swapon"; return; }
	s0=$(swpout_of "$order")
	in0=$(vmstat_get pswpin)
	timeout 120 large-entry-race --size "$order" --b-op "$op" --a-page "$apage" --b-page 5 --b-delay-ms 100 \
		--stop-after-pageout > /tmp/ler.out 2>&1 &
	pid=$!
	if wait_stopped "$pid" 60; then
		tierblk_set 0 read_latency 300ms
		[ "$error" = 1 ] && tierblk_set 0 badblocks "+0-$((DEV_SECTORS - 1)) read 1"
		kill -CONT "$pid"
		# B starts 100 ms in, A's large read ends (or fails) at 300 ms: the
		# race is over by 1 s. After a failed read the entry is read again
		# page by page (512 pages at 2M): at 300 ms each that would take
		# 154 s, past the 120 s bound, without testing anything more.
		sleep 1
		tierblk_set 0 read_latency 0
	fi
	wait "$pid"
	rc=$?
	pid=
	tierblk_set 0 read_latency 0
	tierblk_set 0 badblocks clear
	out=$(cat /tmp/ler.out)
	pages=$(kv_get /tmp/ler.out pages)
	a=$(kv_get /tmp/ler.out a) b=$(kv_get /tmp/ler.out b)
	sig=$(kv_get /tmp/ler.out pages_sigbus) ok=$(kv_get /tmp/ler.out pages_ok)
	diag "$what: a=$a b=$b a_ms=$(kv_get /tmp/ler.out a_ms) b_start_ms=$(kv_get /tmp/ler.out b_start_ms) pages ok=$ok sigbus=$sig past_eof=$(kv_get /tmp/ler.out pages_past_eof) file_pages=$(kv_get /tmp/ler.out file_pages)"
	# The case tests what it says only if the entry was large and B came
	# while A's read was in flight.
	if [ "$(swpout_of "$order")" -gt "$s0" ] && [ "$(kv_get /tmp/ler.out resident_after_pageout)" = 0 ] &&
		[ "$(kv_get /tmp/ler.out b_start_ms)" -lt "$(kv_get /tmp/ler.out a_ms)" ]; then
		pass "$what: paged out as one large entry; B started while A's read was in flight"
	else
		fail "$what: paged out as one large entry; B started while A's read was in flight" \
			"swpout $s0 -> $(swpout_of "$order")" "$out"
	fi
	check_eq "$what: returned (no hang), no page corrupt, file blocks = pages back" 0 "$rc"
	[ "$rc" = 0 ] || diag "$out"
	if [ "$error" = 0 ]; then
		if [ "$op" = truncate ]; then
			check_eq "$what: A and the kept pages read back, truncated pages gone" \
				"ok truncated 5 0" "$a $b $ok $sig"
		else
			check_eq "$what: A, B and every page read back" "ok ok $pages 0" "$a $b $ok $sig"
		fi
	elif [ "$sig" = 0 ] || [ "$sig" = "$pages" ] || { [ "$op" = truncate ] && [ "$sig" = 5 ]; }; then
		pass "$what: lost nothing or the whole folio ($sig pages SIGBUS, A=$a B=$b)"
	else
		fail "$what: lost nothing or the whole folio" "$sig of $pages pages SIGBUS" "$out"
	fi
	# Without the error, A's one read brings the whole entry back; a read
	# that went to waste (the folio dropped because B split the entry) shows
	# as the entry's pages read again, one by one.
	# (Not after an error or a truncation: then pages are read again.)
	if [ "$error" = 0 ] && [ "$op" != truncate ]; then
		check_eq "$what: the entry came back in A's one read (pswpin)" "$pages" "$(($(vmstat_get pswpin) - in0))"
	fi
	# A leaked slot makes swapoff retry until a signal: bounded, it fails.
	check "$what: swapoff (no slot leaked or freed under the mapping)" tierblk_swapoff 0 60
}

# LER_ORDERS, LER_OPS: a subset of the cases (e.g. to show the bug once).
# The quick suite runs 64K; the race is the same at 2M, with 32x the I/O.
ORDERS=${LER_ORDERS:-$(by_suite 64K "64K 2M")}
OPS=${LER_OPS:-fault read truncate}
# Per order: each op with and without the error, A on page 3 (fault) with and
# without; 4 checks a case, one more for each case without error whose B
# faults or reads.
reads=1
for op in $OPS; do [ "$op" = truncate ] || reads=$((reads + 1)); done
plan $(($(echo $ORDERS | wc -w) * (($(echo $OPS | wc -w) + 1) * 2 * 4 + reads)))
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
tierblk_set 0 synchronous 1
echo 0 > /proc/sys/vm/page-cluster
for order in $ORDERS; do
	for op in $OPS; do
		for error in 0 1; do
			one_case "$order" "$op" "$error"
		done
	done
	for error in 0 1; do
		one_case "$order" fault "$error" 3
	done
done
tap_status
