#!/bin/sh
# make run: one memory-pressure run per swap tier, then a summary table;
# then the story (demo-story.sh): the tiers together behind the virtual
# swap device, pages moving between them, faults injected. Each tier is
# set up alone, a verifying workload (swapstress) thrashes a memcg limited
# to half its size, and the tier is torn down again. zswap runs last: once
# enabled it stays latched for the rest of the boot (the story uses it).
. /usr/lib/tierswap/lib.sh

SIZE=${DEMO_SIZE:-96M}
LIMIT=${DEMO_LIMIT:-48M}
rows=/tmp/demo.rows
: > "$rows"

# run_tier NAME: swapstress in a memcg; one row of the summary.
run_tier() {
	local name=$1 dev=$2 out=/tmp/demo.out t0 t1 zo zi
	echo "--- $name ($dev)"
	zo=$(vmstat_get zswpout) zi=$(vmstat_get zswpin)
	t0=$(cut -d' ' -f1 /proc/uptime)
	swapstress --size "$SIZE" --pageout memcg --memcg-max "$LIMIT" \
		--pattern random --passes 2 --seed 7 > "$out" 2>&1
	t1=$(cut -d' ' -f1 /proc/uptime)
	grep -E '^(pages_verified|corrupt|pswpin|pswpout|p50_us|p99_us|max_us)=' "$out"
	printf '%-22s %-14s %9s %9s %9s %9s %8s %8s %8s\n' "$name" "$dev" \
		"$(kv_get "$out" pswpout)" "$(kv_get "$out" pswpin)" \
		$(($(vmstat_get zswpout) - zo)) $(($(vmstat_get zswpin) - zi)) \
		"$(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }')" \
		"$(kv_get "$out" p99_us)" "$(kv_get "$out" corrupt)" >> "$rows"
}

echo "tierswap demo: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo)"
echo "workload: swapstress --size $SIZE in a memcg with memory.max=$LIMIT, random access, 2 passes, every page verified"

dev=$(zram_swap_up 256M) && run_tier "zram" "$dev"
zram_swap_down "$dev"

if [ -f "${TIERBLK_KO:-/lib/modules/tierswap/tierblk.ko}" ] && tierblk_load size=256M; then
	tierblk_swapon 0 && run_tier "tierblk sync" /dev/tierblk0
	tierblk_swapoff 0
	if tierblk_set 0 synchronous 0; then
		tierblk_swapon 0 && run_tier "tierblk async" /dev/tierblk0
		tierblk_swapoff 0
		tierblk_set 0 synchronous 1
	fi
	tierblk_set 0 read_latency 100us &&
		tierblk_swapon 0 && run_tier "tierblk sync +100us rd" /dev/tierblk0
	tierblk_swapoff 0
	tierblk_set 0 read_latency 0
fi

if command -v tiernbd >/dev/null && nbd_tier_up 256M; then
	nbd_swapon && run_tier "tiernbd (nbd)" "$NBD_DEV"
	nbd_tier_down
fi

if [ -d /sys/block/tierblk0 ]; then
	# zswap in front of tierblk: the compressed tier absorbs most writes.
	echo 1 > /sys/module/zswap/parameters/enabled &&
		tierblk_swapon 0 && run_tier "zswap + tierblk" /dev/tierblk0
	tierblk_swapoff 0
	echo 0 > /sys/module/zswap/parameters/enabled
	tierblk_unload
fi

echo
echo "summary (pages written to/read from the device, pages stored in/loaded from zswap,"
echo "time of the whole run, p99 access latency, corrupt pages)"
printf '%-22s %-14s %9s %9s %9s %9s %8s %8s %8s\n' tier device pswpout pswpin zswpout zswpin time_s p99_us corrupt
cat "$rows"

# the tiers together (a kernel without virtual swap says so and skips it)
echo
/usr/lib/tierswap/demo-story.sh
