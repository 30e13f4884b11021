#!/bin/sh
# timeout: 900
# The kernel's tools/testing/selftests/cgroup/test_memcontrol: memory.current
# and .peak, min/low/high/max protection and limits, memory.reclaim (with
# swap), swap.max and swap.peak, OOM events, socket accounting; on a
# synchronous swap device (zram, or KSELFTEST_SWAP=tierblk). Each test_memcg_*
# is one TAP line.
. /usr/lib/tierswap/lib.sh

cleanup() {
	# the selftest removes its groups; a killed run may leave memcg_test_*
	for d in /sys/fs/cgroup/memcg_test*; do
		[ -d "$d" ] || continue
		find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	ksft_swap_down
}
trap cleanup EXIT
ksft_swap_down
dev=$(ksft_swap_up 1G) || bail "swap device setup failed"
ksft_swap_check "$dev"
check "memory controller enabled for children" grep -qw memory /sys/fs/cgroup/cgroup.subtree_control
out0=$(vmstat_get pswpout)
ksft_run ktap test_memcontrol 800 "$KSFT_DIR/cgroup/test_memcontrol"
check "test_memcontrol swapped out to $dev (pswpout grew: $out0 -> $(vmstat_get pswpout))" \
	test "$(vmstat_get pswpout)" -gt "$out0"
ksft_done
