#!/bin/sh
# timeout: 600
# suite: quick
# also-vswap: yes
# A large shmem swap entry that cannot come back whole from a synchronous
# device (mm-patches 0001). 64K shmem folios are paged out to tierblk0
# (synchronous=1, page-cluster 3); while they are read back, every 64K
# folio allocation of the shmem swap-in fails (fail_page_alloc, min-order
# 4, with a stack filter on the shmem swap-in), so each entry is split and
# its pages read at order 0. They must be read around the swap cache
# without readahead, as do_swap_page() does on such a device: readahead
# would put the neighbouring slots in the swap cache, which pushes the
# entries that own them into the same fallback. Checked: every page
# verified, the failures were injected, the pages came back at order 0,
# swap_ra did not move and the swap cache stayed empty (patched kernel;
# the base kernel reads through the swap cache with readahead), swapoff.
. /usr/lib/tierswap/lib.sh

SIZE=8M
PAGES=2048
CG=/sys/fs/cgroup/shmem-swapin-fallback

cleanup() {
	[ -n "$sspid" ] && kill -CONT "$sspid" 2>/dev/null && kill -9 "$sspid" 2>/dev/null
	wait 2>/dev/null
	large_fail_off
	rmdir "$CG" 2>/dev/null
	[ -n "$pc0" ] && echo "$pc0" > /proc/sys/vm/page-cluster
	thp_reset
	tierblk_swapoff 0 2>/dev/null
	tierblk_unload 2>/dev/null
}

PATCHED=no
[ "${TIERSWAP_TREE:-patched}" = patched ] && PATCHED=yes
# 4 checks, 2 more on the patched kernel (the base one allocates no large
# folio at swap-in, so nothing is injected there)
if [ "$PATCHED" = yes ]; then plan 6; else plan 4; fi
trap cleanup EXIT
trap 'exit 143' TERM INT
[ -w "$LARGE_FAIL/require-start" ] ||
	bail "no $LARGE_FAIL with a stack filter (CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_STACKTRACE_FILTER: qemu/debug.config)"
SYM=$(sym_range shmem_swapin_direct shmem_swapin_folio shmem_get_folio_gfp) ||
	bail "no shmem swap-in symbol in /proc/kallsyms"
set -- $SYM
SYM_START=$1 SYM_END=$2
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}, stack filter $3"
pc0=$(cat /proc/sys/vm/page-cluster)
echo 3 > /proc/sys/vm/page-cluster
tierblk_load size=128M || bail "insmod tierblk failed"
tierblk_set 0 synchronous 1
mkdir -p "$CG" || bail "no memcg"
thp=$(order_setup 64K) || bail "64K shmem mTHP setup failed"
tierblk_swapon 0 || bail "swapon tierblk0 failed"

sh -c "echo \$\$ > $CG/cgroup.procs && exec swapstress --size $SIZE --mem shared \
	--thp $thp --pageout madvise --write-pct 0 --folio-stats --stop-after-pageout \
	--seed 5" > /tmp/ssfb.out 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop after pageout: $(cat /tmp/ssfb.out)"
memcg_drain_swapcache "$CG" 120 >&2 || diag "swap cache not drained"
ra0=$(vmstat_get swap_ra)
large_fail_on "$SYM_START" "$SYM_END" 100 || bail "fail_page_alloc setup failed"
kill -CONT "$sspid"
wait "$sspid"
sspid=
injected=$(large_fail_count)
large_fail_off
ra=$(( $(vmstat_get swap_ra) - ra0 ))
sc=$(awk '$1 == "SwapCached:" { print $2 }' /proc/meminfo)
large=$(kv_get /tmp/ssfb.out folio_pages_large)
filled=$(kv_get /tmp/ssfb.out folio_pages_large_fill)
diag "64K allocations failed: $injected; swap_ra +$ra; SwapCached $sc kB; large pages $large after, $filled after fill"

check_eq "every page verified, none corrupt" "$PAGES 0" \
	"$(kv_get /tmp/ssfb.out pages_verified) $(kv_get /tmp/ssfb.out corrupt)"
if [ "$(kv_get /tmp/ssfb.out pswpout_pageout)" -ge $((PAGES * 9 / 10)) ] &&
	[ "$(kv_get /tmp/ssfb.out pswpin)" -ge $((PAGES * 9 / 10)) ] &&
	[ "${filled:-0}" -ge $((PAGES / 2)) ]; then
	pass "64K folios paged out and read back from the device ($filled large pages after fill)"
else
	fail "64K folios paged out and read back from the device" "$(cat /tmp/ssfb.out)"
fi
# at least one failure per entry that came back from the device
if [ "$PATCHED" = yes ]; then
	if [ "$injected" -ge $((PAGES / 16 / 2)) ]; then
		pass "64K folio allocations of the swap-in failed ($injected)"
	else
		fail "64K folio allocations of the swap-in failed" "$injected injected, want >= $((PAGES / 32))"
	fi
fi
if [ "${large:-0}" -le $((PAGES / 10)) ]; then
	pass "pages came back at order 0 ($large large pages of $PAGES)"
else
	fail "pages came back at order 0" "$large large pages of $PAGES"
fi
if [ "$PATCHED" = yes ]; then
	if [ "$ra" = 0 ] && [ "$sc" -le 1024 ]; then
		pass "order 0 around the swap cache: no readahead, swap cache empty (swap_ra +$ra, SwapCached $sc kB)"
	else
		fail "order 0 around the swap cache: no readahead, swap cache empty" \
			"swap_ra +$ra, SwapCached $sc kB"
	fi
fi
check "swapoff: no slot leaked" tierblk_swapoff 0
tap_status
