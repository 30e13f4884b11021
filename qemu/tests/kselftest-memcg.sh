#!/bin/sh
# timeout: 900
# kselftest: cgroup
# suite: full
# also-vswap: yes
# The kernel's tools/testing/selftests/cgroup/test_memcontrol: memory.current
# and .peak, min/low/high/max protection and limits, memory.reclaim (with
# swap), swap.max and swap.peak, OOM events, socket accounting; on a
# synchronous swap device (zram, or KSELFTEST_SWAP=tierblk). Each test_memcg_*
# is one TAP line. Its page cache tests create O_TMPFILE files in the working
# directory and expect them reclaimable without swap (swap.max=0 in
# test_memcg_max), as on a disk: it runs in an ext2 on a second zram device,
# not on tmpfs (where that page cache is shmem).
. /usr/lib/tierswap/lib.sh

FS=/tmp/ksft-memcg-fs
cleanup() {
	cd /
	grep -q " $FS " /proc/mounts && umount "$FS"
	[ -n "$fsdev" ] && zram_dev_down "$fsdev"
	rmdir "$FS" 2>/dev/null
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
fsdev=$(zram_dev_up 512M) || bail "zram device for the filesystem failed"
mkdir -p "$FS"
check "ext2 on a second zram device mounted at $FS (the selftest's working directory)" \
	sh -c "mkfs.ext2 $fsdev >/dev/null 2>&1 && mount -t ext2 $fsdev $FS"
cd "$FS" || bail "cd $FS"
check "memory controller enabled for children" grep -qw memory /sys/fs/cgroup/cgroup.subtree_control
out0=$(ksft_swapouts)
ksft_run ktap test_memcontrol 800 "$KSFT_DIR/cgroup/test_memcontrol"
diag "pswpout + swpout_zero: $out0 -> $(ksft_swapouts)"
check "test_memcontrol swapped pages out (pswpout + swpout_zero grew)" \
	test "$(ksft_swapouts)" -gt "$out0"
ksft_done
