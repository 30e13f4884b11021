#!/bin/sh
# timeout: 900
# suite: full
# also-vswap: yes
# A shmem region whose folios are of mixed order, paged out and read back.
# 64K shmem mTHP; while the region is filled, a quarter of its 64K folio
# allocations fail (fail_page_alloc, min-order 4, stack filter on the
# shmem fault path), so the region mixes 64K folios with order-0 ones.
# MADV_PAGEOUT must write every page of it, whatever its order, on
# tierblk0 with synchronous=1 and =0; every page is read back verified. On
# the patched kernel with synchronous=1 (mm-patches 0001) each entry comes
# back at the order it went out at: as many large pages after as after
# the fill; with synchronous=0 (the swap cache path) none is large.
. /usr/lib/tierswap/lib.sh

SIZE=8M
PAGES=2048
CG=/sys/fs/cgroup/shmem-pageout-mixed

cleanup() {
	[ -n "$sspid" ] && kill -CONT "$sspid" 2>/dev/null && kill -9 "$sspid" 2>/dev/null
	wait 2>/dev/null
	large_fail_off
	rmdir "$CG" 2>/dev/null
	thp_reset
	tierblk_swapoff 0 2>/dev/null
	tierblk_unload 2>/dev/null
}

one_case() {
	local s=$1 what="synchronous=$s" large filled out want
	tierblk_set 0 synchronous "$s"
	tierblk_swapon 0 || { fail "$what: swapon"; return; }
	large_fail_on "$SYM_START" "$SYM_END" 25 || bail "fail_page_alloc setup failed"
	sh -c "echo \$\$ > $CG/cgroup.procs && exec swapstress --size $SIZE --mem shared \
		--thp $thp --pageout madvise --write-pct 0 --folio-stats --stop-after-pageout \
		--seed 7" > /tmp/spm.out 2>&1 &
	sspid=$!
	wait_stopped "$sspid" 300 || bail "swapstress did not stop: $(cat /tmp/spm.out)"
	large_fail_off
	diag "$what: meminfo $(awk '/^(Shmem|SwapCached|SwapFree):/ { printf "%s %s ", $1, $2 }' /proc/meminfo)"
	memcg_drain_swapcache "$CG" 120 >&2 || diag "$what: swap cache not drained"
	kill -CONT "$sspid"
	wait "$sspid"
	sspid=
	out=$(cat /tmp/spm.out)
	large=$(kv_get /tmp/spm.out folio_pages_large)
	filled=$(kv_get /tmp/spm.out folio_pages_large_fill)
	diag "$what: pswpout_pageout $(kv_get /tmp/spm.out pswpout_pageout) pswpin $(kv_get /tmp/spm.out pswpin); large pages $filled after fill, $large after"
	check_eq "$what: every page verified, none corrupt" "$PAGES 0" \
		"$(kv_get /tmp/spm.out pages_verified) $(kv_get /tmp/spm.out corrupt)"
	if [ "${filled:-0}" -ge $((PAGES / 4)) ] && [ "${filled:-0}" -le $((PAGES * 15 / 16)) ]; then
		pass "$what: the fill mixed orders ($filled of $PAGES pages large)"
	else
		fail "$what: the fill mixed orders" "$filled of $PAGES pages large"
	fi
	if [ "$(kv_get /tmp/spm.out pswpout_pageout)" -ge $((PAGES * 9 / 10)) ]; then
		pass "$what: MADV_PAGEOUT wrote every order"
	else
		fail "$what: MADV_PAGEOUT wrote every order" "$out"
	fi
	if [ "$s" = 1 ] && [ "$PATCHED" = yes ]; then
		want=$filled
	else
		want=0
	fi
	check_eq "$what: large pages after the read back" "$want" "${large:-0}"
	check "$what: swapoff: no slot leaked" tierblk_swapoff 0
}

PATCHED=no
[ "${TIERSWAP_TREE:-patched}" = patched ] && PATCHED=yes
# 2 cases x 5 checks
plan 10
trap cleanup EXIT
trap 'exit 143' TERM INT
[ -w "$LARGE_FAIL/require-start" ] || bail "no $LARGE_FAIL with a stack filter"
SYM=$(sym_range shmem_get_folio_gfp) || bail "no shmem_get_folio_gfp in /proc/kallsyms"
set -- $SYM
SYM_START=$1 SYM_END=$2
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
tierblk_load size=128M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
thp=$(order_setup 64K) || bail "64K shmem mTHP setup failed"
for s in 1 0; do
	one_case "$s"
done
