#!/bin/sh
# timeout: 420
# suite: full
# tierblk: an injected read error on a swapped-out page reaches its owner.
# swapstress fills 4M, pages it out to tierblk0 and stops; the test arms a
# one-shot read failure on the swap slot of page 5 and lets it go on:
#   anon            -> SIGBUS on page 5 only
#   shmem, read()   -> EIO on page 5 only
#   shmem, mmap     -> SIGBUS on page 5 only
# for synchronous=1 (swap cache skipped) and 0; no other page is damaged,
# no splat (the runner checks the kernel log), and the swap is freed once the
# process is gone (see swap_freed for the per-cpu slot caches).
. /usr/lib/tierswap/lib.sh

PAGE=5
CG=/sys/fs/cgroup/tierblk-swap-errors
cluster=$(cat /proc/sys/vm/page-cluster)

cleanup() {
	[ -n "$sspid" ] && kill -CONT "$sspid" 2>/dev/null && kill -9 "$sspid" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG" 2>/dev/null
	echo "$cluster" > /proc/sys/vm/page-cluster
	tierblk_unload 2>/dev/null
}

# swap_freed: after the owner exited, tierblk0's swap usage is back to zero
# but for what the per-cpu swap slot caches hold (allocated ahead or freed
# lazily: at most 2 x 64 slots per CPU), and swapoff (which drains those
# caches and would never finish with a leaked slot) completes and leaves
# only the swap header page on the device.
swap_freed() {
	local i=0 used slop
	slop=$(($(nproc) * 2 * 64 * 4))
	while [ $i -lt 50 ]; do
		used=$(tierblk_swap_used 0)
		[ "$used" -le "$slop" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	[ "$used" -le "$slop" ] || { echo "swap used: $used KiB (slot cache slop $slop KiB)"; return 1; }
	timeout 60 swapoff /dev/tierblk0 || { echo "swapoff failed or hung (used $used KiB)"; return 1; }
	[ "$(tierblk_stat 0 pages)" = 1 ] ||
		{ echo "after swapoff $(tierblk_stat 0 pages) pages left on the device"; return 1; }
	diag "swap used after exit: $used KiB (slot caches), 0 after swapoff"
}

# one_case SYNC MEM ACCESS: two checks.
one_case() {
	local s=$1 mem=$2 acc=$3 what key other slot pmslot out rc got nobad
	what="synchronous=$s $mem${acc:+ $acc}"
	if [ "$mem" = anon ]; then key=sigbus_pages other=eio_pages
	elif [ "$acc" = read ]; then key=eio_pages other=sigbus_pages
	else key=sigbus_pages other=eio_pages
	fi
	tierblk_set 0 synchronous "$s"
	# an empty device: ss-locate searches all of it
	blkdiscard /dev/tierblk0 &&
		tierblk_swapon 0 || { fail "$what: swapon"; fail "$what: swap freed after exit"; return; }
	echo 1 > "$(tierblk_dir 0)/reset_stats"
	rm -f /tmp/ss.out /tmp/ss.pm
	# in the memcg: "exec" keeps the pid
	sh -c "echo \$\$ > $CG/cgroup.procs && exec swapstress --size 4M --mem $mem \
		${acc:+--access $acc} --thp never --pageout madvise --write-pct 0 \
		--pagemap /tmp/ss.pm --stop-after-pageout --expect-sigbus --seed 7" \
		> /tmp/ss.out 2>&1 &
	sspid=$!
	if ! wait_stopped "$sspid" 120; then
		fail "$what: swapstress did not stop after pageout" "$(cat /tmp/ss.out)"
		sspid=
		tierblk_swapoff 0
		fail "$what: swap freed after exit"
		return
	fi
	# with synchronous=0 writeback completes after MADV_PAGEOUT returns:
	# reclaim so the page is read from the device, not found in the cache
	memcg_drain_swapcache "$CG" || diag "$what: pages left in the swap cache"
	slot=$(swap_slot_of_page /dev/tierblk0 "$PAGE")
	pmslot=$(awk -v p="$PAGE" '$1 == p { print $3 }' /tmp/ss.pm)
	if [ -z "$slot" ] || { [ "$mem" = anon ] && [ "$pmslot" != "$slot" ]; }; then
		kill -CONT "$sspid"
		wait "$sspid"
		sspid=
		fail "$what: page $PAGE found on the device" "slot '$slot' pagemap '$pmslot'"
		tierblk_swapoff 0
		fail "$what: swap freed after exit"
		return
	fi
	tierblk_set 0 one_shot_read_sector $((slot * 8))
	kill -CONT "$sspid"
	wait "$sspid"
	rc=$?
	sspid=
	out=$(cat /tmp/ss.out)
	# Their tmpfs pages are charged to the memcg and may have been swapped
	# out by the reclaim above: they are not the process's.
	rm -f /tmp/ss.out /tmp/ss.pm
	got=$(echo "$out" | sed -n "s/^$key=//p")
	nobad=$(echo "$out" | sed -n "s/^$other=//p")
	if [ "$rc" = 0 ] && [ "$got" = "$PAGE" ] && [ -z "$nobad" ] &&
		echo "$out" | grep -qx 'corrupt=0' &&
		[ "$(tierblk_get 0 one_shot_read_sector)" = none ] &&
		[ "$(tierblk_stat 0 one_shot_errors)" = 1 ]; then
		pass "$what: slot $slot fails once, $key=$PAGE, nothing else"
	else
		fail "$what: slot $slot fails once, $key=$PAGE, nothing else" \
			"rc=$rc $key='$got' $other='$nobad'" "$out" "$(cat "$(tierblk_dir 0)/stats")"
	fi
	check "$what: swap freed after exit (swapoff drains the rest)" swap_freed
	grep -q '^/dev/tierblk0 ' /proc/swaps && tierblk_swapoff 0
}

plan 12
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
command -v swapstress >/dev/null || bail "swapstress missing"
# One page per swapin: the failure hits the page it was aimed at only.
echo 0 > /proc/sys/vm/page-cluster

for s in 1 0; do
	one_case "$s" anon ""
	one_case "$s" shmem read
	one_case "$s" shmem mmap
done
tap_status
