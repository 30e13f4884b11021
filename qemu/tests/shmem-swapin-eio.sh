#!/bin/sh
# timeout: 900
# suite: quick
# also-vswap: yes
# The -EIO swapin matrix: {anon, shmem} x {synchronous=1, 0} x {order 0,
# 64K, 2M}. swapstress fills 4M, pages it out to tierblk0 and stops; the
# test arms a one-shot read failure on the swap slot of page 512 (the first
# page of the second 2M folio, so the first page of its folio at every
# order) and lets it go on. Expected:
#   anon:  SIGBUS on page 512 only. A large anon folio that fails to read is
#          not poisoned: the fault that hit the error gets SIGBUS, the next
#          fault reads the folio again (the one-shot is spent) and succeeds.
#   shmem (MAP_SHARED|MAP_ANONYMOUS, where 6.12 allows mTHP): the swap
#          entry that failed is poisoned, so its pages get SIGBUS from then
#          on. On the patched kernel with synchronous=1 a large entry is read
#          whole around the swap cache, so all pages of that folio (16 or
#          512) are lost; otherwise (swap cache path, or the base kernel)
#          the large entry is split first and page 512 alone is lost.
# Every other page verifies, no splat (the runner checks the kernel log),
# swap is released after exit and swapoff succeeds (no leaked reservation).
# The quick suite runs every shmem case and anon at 64K only (anon's error
# handling is 6.12's own; the full suite runs all twelve cases).
. /usr/lib/tierswap/lib.sh

PAGE=512
CG=/sys/fs/cgroup/shmem-swapin-eio
cluster=$(cat /proc/sys/vm/page-cluster)

cleanup() {
	[ -n "$sspid" ] && kill -CONT "$sspid" 2>/dev/null && kill -9 "$sspid" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG" 2>/dev/null
	echo "$cluster" > /proc/sys/vm/page-cluster
	thp_reset
	tierblk_unload 2>/dev/null
}

# expected_pages MEM SYNC ORDER: the comma list swapstress should report.
expected_pages() {
	local n=1
	if [ "$1" = shared ] && [ "$2" = 1 ] && [ "${TIERSWAP_TREE:-patched}" = patched ]; then
		n=$(order_pages "$3")
	fi
	seq -s, "$PAGE" $((PAGE + n - 1))
}

# one_case MEM SYNC ORDER: three checks.
one_case() {
	local mem=$1 s=$2 order=$3 what thp slot out rc got want
	what="$mem synchronous=$s order=$order"
	tierblk_set 0 synchronous "$s"
	thp=$(order_setup "$order") || { fail "$what: mTHP setup"; fail "$what: swapoff"; fail "$what: release"; return; }
	# an empty device: ss-locate below searches all of it, so no earlier
	# case's copy of the page may be left there
	blkdiscard /dev/tierblk0 &&
		tierblk_swapon 0 || { fail "$what: swapon"; fail "$what: swapoff"; fail "$what: release"; return; }
	rm -f /tmp/ss.out
	sh -c "echo \$\$ > $CG/cgroup.procs && exec swapstress --size 4M --mem $mem \
		--thp $thp --pageout madvise --write-pct 0 --stop-after-pageout \
		--expect-sigbus --seed 11" > /tmp/ss.out 2>&1 &
	sspid=$!
	slot=
	if wait_stopped "$sspid" 120; then
		memcg_drain_swapcache "$CG" >/dev/null || diag "$what: pages left in the swap cache"
		# the whole device: with 64K entries on two CPUs the page's
		# cluster can lie anywhere among those in use
		slot=$(swap_slot_of_page /dev/tierblk0 "$PAGE")
	fi
	if [ -z "$slot" ]; then
		kill -CONT "$sspid" 2>/dev/null
		wait "$sspid"
		sspid=
		fail "$what: page $PAGE found on the device" "$(cat /tmp/ss.out)" \
			"$(cat /proc/swaps)" "$(grep -E '^(shmem|swapcached|file) ' "$CG/memory.stat")" \
			"$(cat "$VSWAP_SYS/stats" 2>/dev/null)" "$(grep -E '^(thp_swpout|swap_table_alloc)' /proc/vmstat)"
	else
		tierblk_set 0 one_shot_read_sector $((slot * 8))
		kill -CONT "$sspid"
		wait "$sspid"
		rc=$?
		sspid=
		out=$(cat /tmp/ss.out)
		got=$(echo "$out" | sed -n 's/^sigbus_pages=//p')
		want=$(expected_pages "$mem" "$s" "$order")
		if [ "$rc" = 0 ] && [ "$got" = "$want" ] &&
			echo "$out" | grep -qx 'corrupt=0' &&
			echo "$out" | grep -qx 'eio=0' &&
			[ "$(tierblk_stat 0 one_shot_errors)" = 1 ]; then
			pass "$what: slot $slot fails once: SIGBUS on pages $PAGE..+$(( $(echo "$want" | tr , '\n' | wc -l) - 1 )), the rest intact"
		else
			fail "$what: slot $slot fails once: SIGBUS on exactly $want" \
				"rc=$rc sigbus_pages='$got'" "$out" "$(cat "$(tierblk_dir 0)/stats")"
		fi
	fi
	check "$what: swap released after exit" wait_swap_released /dev/tierblk0
	check "$what: swapoff succeeds (no leaked reservation)" tierblk_swapoff 0
	echo 1 > "$(tierblk_dir 0)/reset_stats"
}

ANON_ORDERS=$(by_suite 64K "0 64K 2M")
set -- $ANON_ORDERS
plan $(( (2 * $# + 6) * 3 ))
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
# One page per swap-cache swapin: the failure hits the page it was aimed at.
echo 0 > /proc/sys/vm/page-cluster
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

for mem in anon shared; do
	orders="0 64K 2M"
	[ "$mem" = anon ] && orders=$ANON_ORDERS
	for s in 1 0; do
		for order in $orders; do
			one_case "$mem" "$s" "$order"
		done
	done
done
tap_status
