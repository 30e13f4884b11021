#!/bin/sh
# timeout: 1500
# kselftest: mm
# suite: full
# also-vswap: yes
# The kernel's tools/testing/selftests/mm/cow (built from the booted kernel's
# own tree): COW and GUP-pin exclusivity of anon base pages, THP, PTE-mapped
# THP and every mTHP size, each also after MADV_PAGEOUT to a synchronous swap
# device and swapin; plus a few hugetlb and non-anon cases. Every cow case is
# one TAP line here ("cow: <case>"). KSELFTEST_SWAP=tierblk swaps to tierblk
# instead of zram. docs/kselftests.md.
. /usr/lib/tierswap/lib.sh

cleanup() {
	ksft_thp_restore
	echo 0 > /proc/sys/vm/nr_hugepages
	ksft_swap_down
}
trap cleanup EXIT
ksft_swap_down
ksft_thp_save
dev=$(ksft_swap_up 1G) || bail "swap device setup failed"
ksft_swap_check "$dev"
# a few 2 MiB hugetlb pages for cow's hugetlb cases (run_vmtests.sh reserves too)
echo 16 > /proc/sys/vm/nr_hugepages
check "16 hugetlb pages reserved" test "$(cat /proc/sys/vm/nr_hugepages)" -ge 16
out0=$(ksft_swapouts)
ksft_run ktap cow 1200 "$KSFT_DIR/mm/cow"
# the point of running cow here: its swapped-out cases really swapped
diag "pswpout + swpout_zero: $out0 -> $(ksft_swapouts)"
check "cow swapped pages out (pswpout + swpout_zero grew)" \
	test "$(ksft_swapouts)" -gt "$out0"
ksft_done
