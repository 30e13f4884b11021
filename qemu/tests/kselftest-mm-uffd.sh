#!/bin/sh
# timeout: 900
# kselftest: mm
# suite: full
# also-vswap: yes
# The kernel's tools/testing/selftests/mm/uffd-unit-tests. The wp-fork*
# cases write-protect a page, MADV_PAGEOUT it (private memory) and check the
# uffd-wp bit survives in the swap pte, across fork and unprotect, then fault
# it back from swap. By default the wp-* cases run (on anon, shmem, hugetlb);
# KSELFTEST_LONG=1 runs every case.
. /usr/lib/tierswap/lib.sh

cleanup() {
	echo 0 > /proc/sys/vm/nr_hugepages
	ksft_swap_down
}
trap cleanup EXIT
ksft_swap_down
dev=$(ksft_swap_up 512M) || bail "swap device setup failed"
ksft_swap_check "$dev"
# hugetlb cases: the test area is 32 MiB (16 pages), two areas
echo 40 > /proc/sys/vm/nr_hugepages
check "40 hugetlb pages reserved" test "$(cat /proc/sys/vm/nr_hugepages)" -ge 40
out0=$(ksft_swapouts)
if ksft_long; then
	ksft_run uffd uffd-unit-tests 1500 "$KSFT_DIR/mm/uffd-unit-tests"
else
	ksft_run uffd uffd-unit-tests 600 "$KSFT_DIR/mm/uffd-unit-tests" -f wp-
fi
diag "pswpout + swpout_zero: $out0 -> $(ksft_swapouts)"
check "uffd-unit-tests swapped pages out (pswpout + swpout_zero grew)" \
	test "$(ksft_swapouts)" -gt "$out0"
ksft_done
