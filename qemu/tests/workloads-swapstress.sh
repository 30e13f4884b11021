#!/bin/sh
# timeout: 900
# suite: full
# swapstress against zram swap at small sizes: anon and shmem (mmap and
# pread), sequential/random/zipf, MADV_PAGEOUT and memcg pressure, several
# processes and threads, PMD THP and 64 KiB mTHP swap-out, the pagemap dump
# and --stop-after-pageout. Every page read back must verify (corrupt=0).
. /usr/lib/tierswap/lib.sh

OUT=/tmp/swapstress.out
# the summary keys ss (lib/mem.sh) shows after each run
SS_KEYS='pswpin|pswpout|swapped_after_pageout|throughput_mbps|p50_us|p99_us|max_us|access_ms'
cleanup() {
	memcg_cleanup
	thp_reset
	zram_swap_down
}

plan 17
trap cleanup EXIT
cleanup 2>/dev/null
ZRAM=$(zram_swap_up 96M) || bail "zram swap failed"
pass "zram swap on $ZRAM"

ss "anon, seq, MADV_PAGEOUT, 16M" --size 16M --mem anon --pattern seq --pageout madvise
check "anon: most pages swapped out (pswpout, pagemap)" \
	sh -c "[ $(kv_get $OUT pswpout) -ge 3500 ] && [ $(kv_get $OUT swapped_after_pageout) -ge 3500 ]"
check "anon: read back from swap (pswpin)" ge "$(kv_get $OUT pswpin)" 3500

swapstress --size 8M --pagemap /tmp/pm.txt --seed 3 >"$OUT" 2>&1
pm_ok() {
	local swapped=$(kv_get $OUT swapped_after_pageout)
	local type=$(awk 'NR > 1 && $1 == "'"$ZRAM"'" { print NR - 2 }' /proc/swaps)
	[ "$(wc -l < /tmp/pm.txt)" -eq 2048 ] || { echo "lines: $(wc -l < /tmp/pm.txt)"; return 1; }
	[ "$(awk '$2 != "-"' /tmp/pm.txt | wc -l)" -eq "$swapped" ] || { echo "swapped $swapped"; return 1; }
	ge "$swapped" 1800 || return 1
	# swap type of every swapped page is the zram device; offsets within 96M
	awk -v t="$type" '$2 != "-" && ($2 != t || $3 < 1 || $3 >= 96 * 256) { bad++ }
		END { exit bad > 0 }' /tmp/pm.txt
}
check "--pagemap: one line per page, swap type and offsets of $ZRAM" pm_ok

ss "anon, random, 2 passes, 2 procs x 2 threads" --size 16M --pattern random --passes 2 \
	--procs 2 --threads 2 --pageout madvise
ss "shmem mmap, zipf, 3 passes" --size 16M --mem shmem --access mmap --pattern zipf --passes 3
check "shmem mmap: swapped out and in" sh -c "[ $(kv_get $OUT pswpout) -gt 1000 ] && [ $(kv_get $OUT pswpin) -gt 0 ]"
ss "shmem pread/pwrite, seq, 2 procs" --size 16M --mem shmem --access read --procs 2
check "shmem read: swapped in via read()" ge "$(kv_get $OUT pswpin)" 3000

ss "anon in a 12M memcg, 32M, 2 procs, random" --size 32M --pageout memcg --memcg-max 12M \
	--procs 2 --pattern random --passes 2
check "memcg: reclaim swapped (pswpout) and the memcg went away" \
	sh -c "[ $(kv_get $OUT pswpout) -gt 1000 ] && ! ls -d $CGROOT/swapstress-* 2>/dev/null"
ss "shmem in an 8M memcg, 24M, zipf, 2 threads" --size 24M --mem shmem --pageout memcg \
	--memcg-max 8M --pattern zipf --threads 2 --passes 2

thp_set pmd madvise
ss "anon, PMD THP (MADV_HUGEPAGE), 16M" --size 16M --thp always
check "PMD THP swapped out as THP or split (thp_swpout, thp_swpout_fallback)" \
	ge $(( $(kv_get $OUT thp_swpout) + $(kv_get $OUT thp_swpout_fallback) )) 1
thp_set 64kB always
ss "anon, 64kB mTHP, 8M, random" --size 8M --thp default --pattern random
diag "mTHP counters: $(grep '^mthp_' $OUT | tr '\n' ' ')"
thp_reset

# --stop-after-pageout: stopped with its pages in swap; resumes on SIGCONT
swapstress --size 8M --stop-after-pageout --expect-sigbus >"$OUT" 2>&1 &
pid=$!
if wait_stopped $pid 120; then
	used=$(swap_used_kb "$ZRAM")
	kill -CONT $pid
	wait $pid
	rc=$?
	check "--stop-after-pageout: stopped with $used KiB in swap, then passes" \
		sh -c "[ $used -ge 7000 ] && [ $rc -eq 0 ] && grep -q '^sigbus=0$' $OUT && grep -q '^sigbus_pages=$' $OUT"
else
	kill -9 $pid 2>/dev/null
	fail "--stop-after-pageout: process did not stop" "$(cat $OUT)"
fi
tap_status
