#!/bin/sh
# timeout: 600
# suite: quick
# also-vswap: yes
# Swap cache race stress in the spirit of upstream's swap cache data-loss
# bugs (a swapin racing another swapin, reclaim or a write of the same
# entry; docs/swap-cache-tests.md). swaprace runs rounds in which three
# workers fault the same swapped-out pages at the same time, in the same
# order, while a reclaimer keeps pushing them back out, then rewrite half of
# the pages they own, again under reclaim; every page read is verified:
#  - fork:    a private anon region shared by fork (parent and two children;
#             swap count 3; reclaim: memory.reclaim of the memcg)
#  - threads: a private anon region, 64K mTHP, three threads (swap count 1:
#             on synchronous=1 the swap cache is skipped and the slot
#             reservation decides the race; reclaim: MADV_PAGEOUT and
#             memory.reclaim)
#  - shared:  MAP_SHARED|MAP_ANONYMOUS shmem with 64K mTHP, three processes
#  - shmem:   a memfd mapped by three processes
# on tierblk synchronous=1 and synchronous=0. Each case runs for
# SWAPCACHE_RACE_SECONDS (default 15, 5 in the quick suite) of rounds, at least 2 rounds;
# SWAPCACHE_RACE_SIZE (default 4M, 2M in the quick suite) per region.
# Checks: zero corrupt pages; the rounds swapped in from the device (pswpin
# at least one region's worth); the swapins were concurrent: in at least one
# round two or more workers took major faults; swapoff afterwards succeeds.
. /usr/lib/tierswap/lib.sh

SECS=${SWAPCACHE_RACE_SECONDS:-$(by_suite 5 15)}
SIZE=${SWAPCACHE_RACE_SIZE:-$(by_suite 2M 4M)}
PAGES=$(( ${SIZE%M} * 256 ))
WORKERS=3
CGNAME=swapcache-race
CG=$CGROOT/$CGNAME
OUT=/tmp/swapcache-race.out

cleanup() {
	wait 2>/dev/null
	swapcache_teardown "$CGNAME"
}

# race S MODE ORDER: 3 checks
race() {
	local s=$1 mode=$2 order=$3 what thp rc want t0
	what="sync=$s $mode${order:+ $order}"
	t0=$(uptime_s)
	thp=$(order_setup "${order:-0}") || { fail "$what: mTHP setup"; fail "$what"; fail "$what"; return; }
	in_memcg "$CG" swaprace --mode "$mode" --size "$SIZE" --workers $WORKERS --thp "$thp" \
		--memcg "$CG" --rounds 2 --seconds "$SECS" --seed "$(( s * 10 + ${#mode} ))" > "$OUT" 2>&1
	rc=$?
	kv_load "$OUT"
	# every worker verifies every page each round and once at the end
	want=$(( WORKERS * (${kv_rounds:-0} + 1) * PAGES ))
	diag "$what: $(kv_line rounds rounds_concurrent majflt_per_worker reclaim_calls writes pswpin pswpout swap_ra swap_ra_hit pgmajfault elapsed_ms), $(( $(uptime_s) - t0 )) s"
	if [ $rc = 0 ] && [ "$kv_corrupt" = 0 ] && ge "$kv_rounds" 2 && [ "$kv_pages_verified" = $want ]; then
		pass "$what: $kv_rounds rounds, every page read verified ($want), none corrupt"
	else
		fail "$what: every page read verified, none corrupt" "rc=$rc" "$(grep -v '^# round' "$OUT" | head -n 60)"
	fi
	if ge "$kv_pswpin" $PAGES; then
		pass "$what: pages swapped in from the device during the rounds (pswpin $kv_pswpin)"
	else
		fail "$what: pages swapped in from the device during the rounds" "pswpin ${kv_pswpin:-?}, want >= $PAGES"
	fi
	if ge "$kv_rounds_concurrent" 1; then
		pass "$what: concurrent swapins: two or more workers took major faults in $kv_rounds_concurrent of $kv_rounds rounds"
	else
		fail "$what: concurrent swapins: two or more workers took major faults in a round" \
			"$(grep '^# round' "$OUT" | head -n 20)"
	fi
}

# 2 x (4 cases x 3 + swapoff)
plan 26
trap cleanup EXIT
trap 'exit 143' TERM INT
swapcache_setup "$CGNAME"
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}, $SIZE, $WORKERS workers, $SECS s per case"
for s in 1 0; do
	start=$(uptime_s)
	tierblk_swap_sync "$s" || bail "swapon tierblk0 synchronous=$s"
	race "$s" fork ""
	race "$s" threads 64K
	race "$s" shared 64K
	race "$s" shmem ""
	thp_reset
	check "sync=$s: swapoff succeeds after the races" tierblk_swapoff 0
	diag "synchronous=$s: $(( $(uptime_s) - start )) s"
done
tap_status
