#!/bin/sh
# timeout: 60
# suite: quick
# The guest environment every other test relies on.
. /usr/lib/tierswap/lib.sh

plan 10
check "cgroup v2 mounted with the memory controller for children" \
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control
check "debugfs mounted" test -d /sys/kernel/debug/block
check "two NUMA nodes (numa=fake=2)" test -d /sys/devices/system/node/node1
check "vm event counters (pswpin/pswpout) present" grep -q '^pswpin ' /proc/vmstat
check "shmem mTHP controls present" test -d /sys/kernel/mm/transparent_hugepage/hugepages-64kB
check "zswap is off at boot" grep -qx N /sys/module/zswap/parameters/enabled
check "loopback is up" sh -c 'ip addr show lo | grep -q 127.0.0.1'
check "fio runs" fio --version
# TCG's TSC fails calibration; without HPET/acpi_pm every timing is in 1 ms steps
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
check "a fine-grained clocksource ($cs), not jiffies" sh -c "[ '$cs' != jiffies ] && [ '$cs' != refined-jiffies ]"
# zram as swap: set up, on, off, reset.
zram_ok() {
	echo 32M > /sys/block/zram0/disksize &&
	mkswap /dev/zram0 >/dev/null &&
	swapon /dev/zram0 &&
	grep -q '^/dev/zram0' /proc/swaps &&
	swapoff /dev/zram0 &&
	echo 1 > /sys/block/zram0/reset
}
check "zram swap on and off" zram_ok
tap_status
