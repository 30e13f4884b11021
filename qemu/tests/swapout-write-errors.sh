#!/bin/sh
# timeout: 600
# suite: full
# also-vswap: yes
# Swap-out write errors lose nothing. With every write to tierblk0 failing,
# a process's pages are paged out (MADV_PAGEOUT) and stay in memory: the
# failed folios are re-dirtied and kept in the swap cache. Once the errors
# stop, reclaim writes the same pages out, they are read back from the
# device, and every page verifies; swapoff succeeds. For anon and
# shmem (MAP_SHARED|MAP_ANONYMOUS), synchronous=1 and 0. Then the same under
# memcg pressure (16M in an 8M memcg) with 30% of writes failing: the workload runs to the end
# with every page verified.
. /usr/lib/tierswap/lib.sh

SIZE=16M
PAGES=4096
CG=/sys/fs/cgroup/swapout-write-errors

cleanup() {
	[ -n "$sspid" ] && kill -CONT "$sspid" 2>/dev/null && kill -9 "$sspid" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG" 2>/dev/null
	memcg_cleanup swapout-werr
	tierblk_unload 2>/dev/null
}

memcg_kb() {
	echo $(( $(cat "$CG/memory.current") / 1024 ))
}

# swapoff_ok: no slot leaked (swapoff would fail or never end), the device
# holds only the swap header afterwards.
swapoff_ok() {
	tierblk_swapoff 0 120 || { echo "swapoff failed or hung"; return 1; }
	[ "$(tierblk_stat 0 pages)" -le 1 ] ||
		{ echo "after swapoff $(tierblk_stat 0 pages) pages left on the device"; return 1; }
}

# stopped_case SYNC MEM: four checks.
stopped_case() {
	local s=$1 mem=$2 what after werr rc out
	what="synchronous=$s $mem, all writes failing"
	tierblk_set 0 synchronous "$s"
	tierblk_swapon 0 || { fail "$what: swapon"; return; }
	echo 1 > "$(tierblk_dir 0)/reset_stats"
	tierblk_set 0 error_rate_write 1000000
	sh -c "echo \$\$ > $CG/cgroup.procs && exec swapstress --size $SIZE --mem $mem \
		--thp never --pageout madvise --write-pct 0 --stop-after-pageout --seed 11" \
		> /tmp/ss.out 2>&1 &
	sspid=$!
	if ! wait_stopped "$sspid" 300; then
		fail "$what: swapstress did not stop after pageout" "$(cat /tmp/ss.out)"
		kill -9 "$sspid" 2>/dev/null; wait "$sspid"; sspid=
		tierblk_set 0 error_rate_write 0
		tierblk_swapoff 0
		return
	fi
	# MADV_PAGEOUT tried each page once; let asynchronous writeback finish
	# failing. (memory.reclaim here would retry every page ~40 times, each a
	# failed write and a rate-limited alert: minutes under TCG, no new fact.)
	sleep 1
	after=$(memcg_kb)
	werr=$(tierblk_stat 0 write_errors)
	if [ "$werr" -ge $((PAGES * 9 / 10)) ] && [ "$after" -ge $((PAGES * 4 * 9 / 10)) ]; then
		pass "$what: $werr writes failed, pages stay in memory (memcg ${after} kB)"
	else
		fail "$what: writes failed, pages stay in memory" \
			"write_errors=$werr memcg ${after} kB" "$(cat "$(tierblk_dir 0)/stats")"
	fi
	# errors stop: the same folios are written out now
	tierblk_set 0 error_rate_write 0
	if out=$(memcg_drain_swapcache "$CG") && [ "$(memcg_kb)" -lt $((PAGES * 4 / 10)) ]; then
		pass "$what: errors off, reclaim writes the pages out (memcg $(memcg_kb) kB)"
	else
		fail "$what: errors off, reclaim writes the pages out" "memcg $(memcg_kb) kB" "$out"
	fi
	kill -CONT "$sspid"
	wait "$sspid"
	rc=$?
	sspid=
	out=$(cat /tmp/ss.out)
	if [ "$rc" = 0 ] && [ "$(kv_get /tmp/ss.out pages_verified)" = "$PAGES" ] &&
		[ "$(kv_get /tmp/ss.out corrupt)" = 0 ] &&
		[ "$(kv_get /tmp/ss.out pswpin)" -ge $((PAGES * 9 / 10)) ]; then
		pass "$what: the workload completes, $PAGES pages read back from the device and verified"
	else
		fail "$what: the workload completes, pages read back and verified" "rc=$rc" "$out"
	fi
	check "$what: swapoff succeeds, nothing left on the device" swapoff_ok
	grep -q '^/dev/tierblk0 ' /proc/swaps && tierblk_swapoff 0
}

# pressure_case SYNC MEM: two checks. 16M in an 8M memcg, two passes that
# rewrite a quarter of the pages, 30% of swap writes failing throughout.
pressure_case() {
	local s=$1 mem=$2 what rc werr
	what="synchronous=$s $mem, memcg pressure, 30% of writes failing"
	tierblk_set 0 synchronous "$s"
	tierblk_swapon 0 || { fail "$what: swapon"; return; }
	echo 1 > "$(tierblk_dir 0)/reset_stats"
	tierblk_set 0 error_rate_write 300000
	swapstress --size 16M --mem "$mem" --thp never --pageout memcg --memcg-max 8M \
		--memcg-name swapout-werr --passes 2 --write-pct 25 --seed 12 > /tmp/ss.out 2>&1
	rc=$?
	tierblk_set 0 error_rate_write 0
	werr=$(tierblk_stat 0 write_errors)
	if [ "$rc" = 0 ] && [ "$(kv_get /tmp/ss.out corrupt)" = 0 ] &&
		[ "$(kv_get /tmp/ss.out pages_verified)" -ge 4096 ] &&
		[ "$(kv_get /tmp/ss.out pswpin)" -gt 0 ] && [ "$werr" -gt 0 ]; then
		pass "$what: completes, every page verified ($werr writes failed, pswpin $(kv_get /tmp/ss.out pswpin))"
	else
		fail "$what: completes, every page verified" "rc=$rc write_errors=$werr" "$(cat /tmp/ss.out)"
	fi
	memcg_cleanup swapout-werr
	check "$what: swapoff succeeds, nothing left on the device" swapoff_ok
	grep -q '^/dev/tierblk0 ' /proc/swaps && tierblk_swapoff 0
}

plan 20
trap cleanup EXIT
command -v swapstress >/dev/null || bail "swapstress missing"
tierblk_load size=128M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
timed() {
	local t0
	t0=$(cut -d. -f1 /proc/uptime)
	"$@"
	diag "$*: $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
}
for s in 1 0; do
	timed stopped_case "$s" anon
	timed stopped_case "$s" shared
done
timed pressure_case 1 anon
timed pressure_case 0 shared
tap_status
