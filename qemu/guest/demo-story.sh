#!/bin/sh
# make run, the story (demo.sh runs it after its per-tier runs): zswap, a
# fast tierblk and a slow tiernbd behind one virtual swap device with lazy
# binding, verifying workloads, and step by step what the tiers hold and
# what moved. A kernel without virtual swap (TREE=base) skips it.
#
#   1. pages land: compressible pages stay in zswap with no tier slot,
#      the others fill tierblk0 and spill to nbd;
#   2. a demotion: cold slots of tierblk0 move to nbd (demote), then the
#      watermark keeps tierblk0 under its high mark;
#   3. a read error: one page's nbd slot fails its next read: SIGBUS on
#      exactly that page, every other page verified;
#   4. a tier that fails every write is passed over: its pages go to nbd
#      (write_errors, retargeted_pages; few: it rests after a failure),
#      nothing lost;
#   5. a live drain: tierblk0 removed while a workload runs over it;
#   6. the table: every workload's pages verified, corrupt, SIGBUS; and
#      "USAGE" lines, a sample a second of what each tier held, which the
#      host draws (qemu/run-plot.sh: tier-usage.svg in the log directory).
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=story
rows=/tmp/story.rows
usage=/tmp/story.usage
: > "$rows"
: > "$usage"
sampler=
pids=
cluster=$(cat /proc/sys/vm/page-cluster)

story_cleanup() {
	for p in $pids; do kill_bg "$p"; done
	kill_bg "$sampler"
	tier_faults_off tierblk0 2>/dev/null
	tier_faults_off nbd 2>/dev/null
	for c in $CG-a $CG-b $CG-c $CG-d; do memcg_destroy "$c"; done
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

say() { printf '\n== %s\n' "$*"; }
now() { cut -d' ' -f1 /proc/uptime; }
zswap_kb() { echo $(($(cat /sys/kernel/debug/zswap/stored_pages 2>/dev/null || echo 0) * 4)); }
# one line per tier and zswap: what each holds now
show_tiers() {
	printf '   %-16s %10s %10s\n' tier size_kb used_kb
	awk '{ printf "   %-16s %10s %10s\n", $1, $3, $4 }' "$V/tiers"
	printf '   %-16s %10s %10s\n' zswap - "$(zswap_kb)"
}
show_stats() {
	grep -E "^($1) " "$V/stats" | awk '{ printf "   %s=%s", $1, $2 } END { print "" }'
}
tdir() { awk -v d="$(tier_dev "$1")" -v v="$V" '$1 == d { print v "/tier" $2 }' "$V/tiers"; }
# row NAME OUTFILE: one line of the final table
row() {
	printf '%-28s %8s %8s %8s %8s\n' "$1" "$(kv_get "$2" pages)" "$(kv_get "$2" pages_verified)" \
		"$(kv_get "$2" corrupt)" "$(kv_get "$2" sigbus)" >> "$rows"
}
# ss_bg NAME ARGS...: swapstress in memcg $CG-NAME, stopped after pageout
ss_bg() {
	local n=$1
	shift
	swapstress --memcg-name "$CG-$n" --stop-after-pageout --lock-self --expect-sigbus "$@" \
		> "/tmp/story-$n.out" 2>&1 &
	SSPID=$!
	pids="$pids $SSPID"
	wait_stopped "$SSPID" 300
}
ss_finish() {
	kill -CONT "$1"
	wait "$1"
}

trap story_cleanup EXIT
[ -d "$V" ] || { echo "story: no $V (a kernel without virtual swap)"; exit 0; }
echo "the story: zswap + tierblk0 (fast, 32M) + nbd (slow, 128M, 200us reads) behind one virtual"
echo "swap device, lazy binding: a page in zswap holds no tier slot"
tiers_up zswap vswap:480M:lazy=1 tierblk0:32M:prio=20:sync=1 nbd:128M:prio=10 ||
	{ echo "story: tiers_up failed"; exit 1; }
tier_latency nbd read 200us
(
	t0=$(now)
	while :; do
		echo "USAGE $(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }') $(tier_used_kb tierblk0) $(tier_used_kb nbd) $(zswap_kb)"
		sleep 1
	done
) > "$usage" &
sampler=$!

say "1. pages land: 64M of compressible pages (zswap), 96M of data pages (tiers)"
ss_bg a --size 64M --mem anon --thp never --pageout memcg --memcg-max 16M --fill sparse --seed 1 ||
	echo "   (workload a did not stop)"
A=$SSPID
ss_bg b --size 96M --mem anon --thp never --pageout memcg --memcg-max 16M --seed 2 ||
	echo "   (workload b did not stop)"
B=$SSPID
show_tiers
show_stats 'bound_pages|spilled_pages|unbound_pages'

D0=$(tdir tierblk0)
if [ -w "$D0/demote" ]; then
	say "2. a demotion: 2048 cold slots of tierblk0 to nbd; then watermark 75 50 on tierblk0"
	echo 2048 > "$D0/demote" && echo "   demote 2048: ok" || echo "   demote 2048: failed"
	awk '{ printf "   %s=%s", $1, $2 } END { print "" }' "$D0/stats"
	echo "75 50" > "$D0/watermark"
	show_tiers
else
	say "2. a demotion: not in this kernel (mm-patches 0029), skipped"
fi

say "3. a read error: the next read of one page's nbd slot fails"
# no readahead: only the page that owns the slot reads it
echo 0 > /proc/sys/vm/page-cluster
pick=$(ss-locate --all "$(tier_dev nbd)" 2>/dev/null | head -n 1)
slot=${pick%% *}
page=${pick##* }
if [ -n "$pick" ] && tier_fail_slot nbd "$slot"; then
	echo "   page $page is in nbd slot $slot: its next read fails"
else
	echo "   no page of workload b found on nbd: no fault injected"
	page=none
fi
ss_finish "$B"
echo "   workload b: sigbus=$(kv_get /tmp/story-b.out sigbus) on page(s) $(kv_get /tmp/story-b.out sigbus_pages) (injected: $page), corrupt=$(kv_get /tmp/story-b.out corrupt)"
row "b: data, read error on nbd" /tmp/story-b.out
tier_faults_off nbd
echo "$cluster" > /proc/sys/vm/page-cluster

say "4. tierblk0 fails every write: after the first failures it rests (write_error_rest_ms) and new pages go to nbd"
e0=$(vswap_stat write_errors)
r0=$(vswap_stat retargeted_pages)
tier_error_rate tierblk0 write 100%
ss_bg c --size 48M --mem anon --thp never --pageout memcg --memcg-max 16M --seed 3 ||
	echo "   (workload c did not stop)"
C=$SSPID
tier_faults_off tierblk0
echo "   write_errors +$(($(vswap_stat write_errors) - e0)), retargeted_pages +$(($(vswap_stat retargeted_pages) - r0))" \
	"(few: a failed tier rests $(cat /sys/kernel/mm/vswap/write_error_rest_ms) ms and is passed over meanwhile)"
show_tiers
ss_finish "$C"
row "c: data, tierblk0 writes fail" /tmp/story-c.out

say "5. a live drain: tierblk0 removed while workload d runs over it"
swapstress --memcg-name "$CG-d" --size 48M --mem anon --thp never --pageout memcg --memcg-max 16M \
	--pattern random --passes 3 --seed 4 --lock-self > /tmp/story-d.out 2>&1 &
D=$!
pids="$pids $D"
sleep 20
m0=$(vswap_stat drained_pages)
t0=$(now)
if echo /dev/tierblk0 > "$V/remove"; then
	echo "   tierblk0 removed in $(echo "$(now) $t0" | awk '{ printf "%.1f", $1 - $2 }') s: drained_pages +$(($(vswap_stat drained_pages) - m0))"
else
	echo "   the removal of tierblk0 failed"
fi
show_tiers
wait "$D"
row "d: random, drained live" /tmp/story-d.out
ss_finish "$A"
row "a: compressible (zswap)" /tmp/story-a.out

say "6. the table"
printf '%-28s %8s %8s %8s %8s\n' workload pages verified corrupt sigbus
cat "$rows"
show_stats 'bound_pages|spilled_pages|unbound_pages|demoted_pages|drained_pages|write_errors|retargeted_pages|bind_failures'
kill_bg "$sampler"
sampler=
echo "USAGE-BEGIN t_s tierblk0_kb nbd_kb zswap_kb"
cat "$usage"
echo "USAGE-END"
