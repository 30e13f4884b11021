#!/bin/sh
# timeout: 2400
# suite: quick
# also-vswap: yes
# shmem swapin correctness and the fast path. A shmem region of SIZE
# (default 64M, 8M in the quick suite), filled with swapstress's per-page pattern, is paged out
# to tierblk0 and read back and verified, at order 0, 64K and 2M (anon shmem,
# MAP_SHARED|MAP_ANONYMOUS, with the per-size shmem mTHP knobs), on
# synchronous=1 and synchronous=0, plus a 2M memfd read back with pread (the
# read path: no VMA). On the patched kernel with synchronous=1 the folios
# must come back at their order (pagemap + kpageflags census) and the swap
# cache must stay empty; on the base kernel, and on synchronous=0, the swap
# cache path runs and pages come back at order 0. Every page is verified in
# all cases. The process runs in a memcg and stops after MADV_PAGEOUT: with
# synchronous=0 writeback ends after MADV_PAGEOUT returns and the folios stay
# in the swap cache, so the memcg is reclaimed until its swap cache is empty
# before the pages are read back from the device.
. /usr/lib/tierswap/lib.sh

SIZE=${SHMEM_SWAPIN_SIZE:-$(by_suite 8M 64M)}
PAGES=$(( $(echo "$SIZE" | sed 's/M$//') * 256 ))

CG=/sys/fs/cgroup/shmem-swapin

cleanup() {
	[ -n "$sspid" ] && kill -CONT "$sspid" 2>/dev/null && kill -9 "$sspid" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG" 2>/dev/null
	thp_reset
	tierblk_unload 2>/dev/null
}

swapcached_kb() {
	awk '$1 == "SwapCached:" { print $2 }' /proc/meminfo
}

# one_case SYNC ORDER MEM ACCESS: three checks, four on the fast path.
one_case() {
	local s=$1 order=$2 mem=$3 acc=$4 what thp out large sc fast t0
	what="synchronous=$s order=$order $mem${acc:+ $acc}"
	tierblk_set 0 synchronous "$s"
	thp=$(order_setup "$order") || { fail "$what: mTHP setup"; return; }
	# a memfd (tmpfs file) takes 2M folios from the global shmem knob
	[ "$mem" = shmem ] && [ "$order" = 2M ] && shmem_thp_set pmd always
	tierblk_swapon 0 || { fail "$what: swapon"; return; }
	sh -c "echo \$\$ > $CG/cgroup.procs && exec swapstress --size $SIZE --mem $mem \
		${acc:+--access $acc} --thp $thp --pageout madvise --write-pct 0 \
		--folio-stats --stop-after-pageout --seed 3" > /tmp/ss.out 2>&1 &
	sspid=$!
	if wait_stopped "$sspid" 900; then
		t0=$(cut -d. -f1 /proc/uptime)
		memcg_drain_swapcache "$CG" 300 >&2 || diag "$what: swap cache not drained"
		diag "$what: paged out, swap cache drained in $(( $(cut -d. -f1 /proc/uptime) - t0 )) s"
		kill -CONT "$sspid"
	fi
	wait "$sspid"
	sspid=
	out=$(cat /tmp/ss.out)
	sc=$(swapcached_kb)
	diag "$what: fill $(kv_get /tmp/ss.out fill_ms) ms, pageout $(kv_get /tmp/ss.out pageout_ms) ms, readback $(kv_get /tmp/ss.out access_ms) ms"
	check_eq "$what: every page verified, none corrupt" "$PAGES 0" \
		"$(kv_get /tmp/ss.out pages_verified) $(kv_get /tmp/ss.out corrupt)"
	# Written by MADV_PAGEOUT, or by the memcg reclaim that drains the swap
	# cache: once (a quick run, synchronous=0 64K after the order-0 case)
	# MADV_PAGEOUT wrote the 1648 pages of large folios the fill got and
	# none of the 400 order-0 ones, which went out in the drain; not seen
	# again, nor with a mixed region forced (shmem-pageout-mixed).
	[ "$(kv_get /tmp/ss.out pswpout_pageout)" -ge $((PAGES * 9 / 10)) ] ||
		diag "$what: MADV_PAGEOUT wrote $(kv_get /tmp/ss.out pswpout_pageout) of $PAGES pages, the drain the rest"
	if [ "$(kv_get /tmp/ss.out pswpout)" -ge $((PAGES * 9 / 10)) ] &&
		[ "$(kv_get /tmp/ss.out pswpin)" -ge $((PAGES * 9 / 10)) ]; then
		pass "$what: paged out and read back from the device"
	else
		fail "$what: paged out and read back from the device" "$out"
	fi
	fast=no
	[ "$s" = 1 ] && [ "${TIERSWAP_TREE:-patched}" = patched ] && fast=yes
	if [ "$acc" = read ]; then
		# pread maps nothing: the file's huge pages, counted before exit
		large=$(( $(kv_get /tmp/ss.out shmem_huge_kb) / 4 ))
		filled=$(( $(kv_get /tmp/ss.out shmem_huge_kb_fill) / 4 ))
	else
		large=$(kv_get /tmp/ss.out folio_pages_large)
		filled=$(kv_get /tmp/ss.out folio_pages_large_fill)
	fi
	census="large pages $large of $PAGES, $filled after fill (folio_pages=$(kv_get /tmp/ss.out folio_pages))"
	diag "$what: $order folios split at swapout since boot: $(mthp_swpout_fallback "$order")"
	if [ "$order" != 0 ] && [ "$fast" = yes ]; then
		# Against what the fill got: after other tests free memory may be
		# too fragmented for every folio to be large in the first place.
		if [ "${filled:-0}" -ge $((PAGES / 2)) ] &&
			[ "${large:-0}" -ge $((filled * 9 / 10)) ]; then
			pass "$what: folios came back whole: $census"
		else
			fail "$what: folios came back whole (>= 90% of the large pages after fill, which must be >= half)" "$census" "$out"
		fi
	elif [ "${large:-0}" -le $((PAGES / 10)) ]; then
		# order 0 stays order 0; the swap cache path splits large entries
		pass "$what: pages came back at order 0: $census"
	else
		fail "$what: pages came back at order 0" "$census"
	fi
	if [ "$fast" = yes ]; then
		if [ "$sc" -le 4096 ]; then
			pass "$what: swap cache skipped (SwapCached ${sc} kB)"
		else
			fail "$what: swap cache skipped" "SwapCached ${sc} kB"
		fi
	fi
	tierblk_swapoff 0 || diag "$what: swapoff failed"
}

# 7 cases x 3 checks, plus the swap cache check of the 4 on the fast path
if [ "${TIERSWAP_TREE:-patched}" = patched ]; then plan 25; else plan 21; fi
trap cleanup EXIT
tierblk_load size=512M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}, $SIZE per case"
# The memfd case runs before the synchronous=0 ones: after those, free memory
# is fragmented enough that a large file gets fewer 2M folios at fill time.
for s in 1 0; do
	for order in 0 64K 2M; do
		start=$(cut -d. -f1 /proc/uptime)
		one_case "$s" "$order" shared ""
		diag "synchronous=$s order=$order: $(( $(cut -d. -f1 /proc/uptime) - start )) s"
	done
	[ "$s" = 1 ] && one_case 1 2M shmem read
done
tap_status
