#!/bin/sh
# timeout: 900
# suite: full
# also-flavour: debug-nothp
# Lockless swap table readers while tables come and go (mm-patches 0004,
# 0006, 0007; issue 15, item 4b). A cluster's table is freed when its last slot
# is and allocated again when one is taken; readers look slots up under RCU
# only: readahead (neighbouring slots, often another process's), mincore(),
# faults racing swap-in. On tierblk synchronous=0 (the swap cache path),
# page-cluster 3, swapon --discard=pages (a cluster that empties is
# discarded), for SWAP_TABLE_RCU_STRESS_S (60) seconds at once:
#  - swaprace, three threads on 8M of anon and two processes on 6M of
#    shmem, each in its own 12M memcg, faulting the same pages while a
#    reclaimer pushes them out: clusters fill and empty all the time;
#  - swapstress, random access through a 4M memcg, run after run:
#    readahead around random slots;
#  - scprobe mincore on anon and on shmem, run after run.
# The full suite runs it twice: on the debug kernel (THP_SWAP: 512-slot
# clusters, a table is a page freed after a grace period) and on
# debug-nothp (256-slot clusters, 2 KiB tables from the SLAB_TYPESAFE_BY_RCU
# swap_table cache, which a reader may find reused for another cluster).
# Must hold: every program exits clean (every page it read verified),
# readahead and discards happened, swapoff succeeds and frees every table;
# the runner fails the test on any kernel splat (KASAN: a freed table read).
. /usr/lib/tierswap/lib.sh

S=${SWAP_TABLE_RCU_STRESS_S:-60}
W=/tmp/swap-table-rcu-stress
cluster=$(cat /proc/sys/vm/page-cluster)
CGS="rcu-anon rcu-shmem rcu-mincore rcu-mincore-shmem"

cleanup() {
	local c
	[ -n "$PIDS" ] && kill -KILL $PIDS 2>/dev/null
	# what the loops ran, and any swapstress memcg of theirs
	for c in $CGS $(cd "$CGROOT" && ls -d swapstress-* 2>/dev/null); do
		[ -w "$CGROOT/$c/cgroup.kill" ] && echo 1 > "$CGROOT/$c/cgroup.kill"
	done
	pkill -KILL -x swapstress 2>/dev/null
	wait 2>/dev/null
	echo "$cluster" > /proc/sys/vm/page-cluster
	for c in $CGS; do memcg_destroy "$c" 2>/dev/null; done
	memcg_cleanup
	tierblk_unload 2>/dev/null
	rm -rf "$W"
	return 0
}

if ! swt_fault_setup || ! swt_counted; then
	plan 1
	skip "no swap tables or no swap_table_alloc in /proc/vmstat: a kernel without mm-patches 0004-0009"
	exit 0
fi
plan 9
PIDS=
trap cleanup EXIT
trap 'exit 143' TERM INT
[ -z "$(awk 'NR > 1' /proc/swaps)" ] || bail "another swap device is on: $(awk 'NR > 1 { print $1 }' /proc/swaps)"
rm -rf "$W" && mkdir -p "$W"
tierblk_unload
for c in $CGS; do memcg_destroy "$c" 2>/dev/null; done
sleep 1
t0=$(swt_tables)
tierblk_load size=256M || bail "insmod tierblk failed"
tierblk_set 0 synchronous 0 || bail "tierblk synchronous=0 failed"
mkswap /dev/tierblk0 >/dev/null && "$SWAPON_PRIO" --discard=pages /dev/tierblk0 ||
	bail "swapon --discard=pages /dev/tierblk0 failed"
echo 3 > /proc/sys/vm/page-cluster
for c in $CGS; do memcg_create "$c" 12M || bail "memcg $c failed"; done
ra0=$(vmstat_get swap_ra) d0=$(tierblk_stat 0 discards)
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}; $S s; swap tables before: $t0"

# Regions that fit their memcgs: swaprace's reclaimer pushes them out
# every round (MADV_PAGEOUT and memory.reclaim); --rounds 1 so that SIGUSR1
# ends each at the end of the round in progress.
in_memcg_bg "$CGROOT/rcu-anon" swaprace --mode threads --size 8M --workers 3 \
	--memcg "$CGROOT/rcu-anon" --until-signal --rounds 1 --seed 1 > "$W/anon.out" 2>&1
PANON=$BGPID PIDS="$PIDS $BGPID"
in_memcg_bg "$CGROOT/rcu-shmem" swaprace --mode shmem --size 6M --workers 2 \
	--memcg "$CGROOT/rcu-shmem" --until-signal --rounds 1 --seed 2 > "$W/shmem.out" 2>&1
PSHMEM=$BGPID PIDS="$PIDS $BGPID"
# loop NAME CMD...: CMD again and again until the time is up, a line each
# in $W/NAME.log: "ok" or "FAIL rc" followed by its output
loop() {
	local name=$1 end rc
	shift
	end=$(($(date +%s) + S))
	while [ "$(date +%s)" -lt "$end" ]; do
		"$@" > "$W/$name.last" 2>&1
		rc=$?
		if [ $rc = 0 ]; then echo ok; else echo "FAIL $rc"; cat "$W/$name.last"; fi
	done > "$W/$name.log"
}
# swaprace takes SIGUSR1 once its region is filled: start the clock then
i=0
until grep -q '^# round' "$W/anon.out" && grep -q '^# round' "$W/shmem.out"; do
	i=$((i + 1))
	[ $i -gt 240 ] && bail "swaprace did not finish a round in 120 s: $(tail -n 5 "$W/anon.out" "$W/shmem.out")"
	sleep 0.5
done
loop ss swapstress --size 8M --pattern random --passes 1 --pageout memcg --memcg-max 4M &
PSS=$! PIDS="$PIDS $!"
loop mincore-anon in_memcg "$CGROOT/rcu-mincore" scprobe mincore --mem anon --size 2M \
	--memcg "$CGROOT/rcu-mincore" &
PMA=$! PIDS="$PIDS $!"
loop mincore-shmem in_memcg "$CGROOT/rcu-mincore-shmem" scprobe mincore --mem shmem --size 2M \
	--memcg "$CGROOT/rcu-mincore-shmem" &
PMS=$! PIDS="$PIDS $!"

sleep "$S"
kill -USR1 $PANON $PSHMEM 2>/dev/null
wait $PANON
r_anon=$?
wait $PSHMEM
r_shmem=$?
wait $PSS $PMA $PMS
PIDS=

# swaprace NAME WORKERS PAGES: every worker verifies every page each round
# and once at the end
for w in anon:3:2048 shmem:2:1536; do
	n=${w%%:*} w=${w#*:}
	workers=${w%%:*} pages=${w#*:}
	eval "rc=\$r_$n"
	kv_load "$W/$n.out"
	want=$((workers * (${kv_rounds:-0} + 1) * pages))
	diag "swaprace $n: rc $rc; $(kv_line rounds rounds_concurrent pswpin pswpout swap_ra swap_ra_hit pages_verified corrupt)"
	check "swaprace $n: ${kv_rounds:-0} rounds while tables came and went, every page read verified ($want), none corrupt, swapped in ($((${kv_pswpin:-0})) >= $pages)" \
		sh -c "[ $rc = 0 ] && [ '${kv_corrupt:-}' = 0 ] && [ '${kv_pages_verified:-}' = $want ] && [ ${kv_pswpin:-0} -ge $pages ]"
done
for l in ss mincore-anon mincore-shmem; do
	nok=$(grep -c '^ok' "$W/$l.log") nfail=$(grep -c '^FAIL' "$W/$l.log")
	diag "$l: $nok runs ok, $nfail failed"
	[ "$nfail" = 0 ] || diag "$(head -n 30 "$W/$l.log")"
	check "$l again and again: every run clean, every page verified ($nok ok, $nfail failed)" \
		sh -c "[ $nok -ge 1 ] && [ $nfail = 0 ]"
done
ra=$(($(vmstat_get swap_ra) - ra0)) d=$(($(tierblk_stat 0 discards) - d0))
check "readahead looked up neighbouring slots meanwhile (swap_ra +$ra)" ge "$ra" 1
check "clusters that emptied were discarded (tierblk discards +$d)" ge "$d" 1
check "swapoff succeeds" swapoff /dev/tierblk0
check "every table freed after swapoff (tables back to $t0)" swt_tables_become "$t0"
tap_status
