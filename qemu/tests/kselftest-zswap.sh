#!/bin/sh
# timeout: 1500
# kselftest: cgroup
# suite: full
# boot: own
# The kernel's tools/testing/selftests/cgroup/test_zswap, with zswap enabled
# in front of a synchronous swap device. Its own boot: once zswap has been
# enabled, 6.12 keeps zswap_never_enabled() false for the rest of the boot,
# and large-folio swapin from synchronous devices falls back to order 0 in
# every later test (docs/kselftests.md). test_zswap took 616 s under TCG on
# a loaded host (its test_no_kmem_bypass allocates more than the guest's RAM).
. /usr/lib/tierswap/lib.sh

Z=/sys/module/zswap/parameters
cleanup() {
	for d in /sys/fs/cgroup/*_test*; do
		[ -d "$d" ] || continue
		find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	echo N > $Z/enabled
	ksft_swap_down
}
trap cleanup EXIT
ksft_swap_down
dev=$(ksft_swap_up 1G) || bail "swap device setup failed"
ksft_swap_check "$dev"
check "zswap enabled" sh -c "echo Y > $Z/enabled && grep -qx Y $Z/enabled"
diag "zswap: compressor $(cat $Z/compressor), zpool $(cat $Z/zpool), max_pool_percent $(cat $Z/max_pool_percent)"
st0=$(vmstat_get zswpout)
ksft_run ktap test_zswap 1300 "$KSFT_DIR/cgroup/test_zswap"
diag "zswpout: $st0 -> $(vmstat_get zswpout)"
check "test_zswap stored pages in zswap (zswpout grew)" \
	test "$(vmstat_get zswpout)" -gt "$st0"
ksft_done
