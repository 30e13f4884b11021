#!/bin/sh
# timeout: 900
# kselftest: mm
# suite: full
# also-vswap: yes
# The kernel's tools/testing/selftests/mm/khugepaged: collapse of anon memory
# by khugepaged and MADV_COLLAPSE, among them swapin during collapse
# (collapse_swapin_single_pte) and the max_ptes_swap limit
# (collapse_max_ptes_swap), on a synchronous swap device. KSELFTEST_LONG=1
# also runs the shmem cases and the mTHP-order anon runs of run_vmtests.sh.
. /usr/lib/tierswap/lib.sh

cleanup() {
	ksft_thp_restore
	ksft_swap_down
}
trap cleanup EXIT
ksft_swap_down
ksft_thp_save
dev=$(ksft_swap_up 512M) || bail "swap device setup failed"
ksft_swap_check "$dev"
out0=$(ksft_swapouts)
# what run_vmtests.sh runs as "khugepaged" (anon, both contexts)
ksft_run khugepaged khugepaged 600 "$KSFT_DIR/mm/khugepaged"
if ksft_long; then
	ksft_run khugepaged khugepaged-shmem 900 "$KSFT_DIR/mm/khugepaged" all:shmem
	ksft_run khugepaged khugepaged-s2-anon 900 "$KSFT_DIR/mm/khugepaged" -s 2 all:anon
	ksft_run khugepaged khugepaged-s4-shmem 900 "$KSFT_DIR/mm/khugepaged" -s 4 all:shmem
fi
diag "pswpout + swpout_zero: $out0 -> $(ksft_swapouts)"
check "khugepaged swapped pages out (pswpout + swpout_zero grew)" \
	test "$(ksft_swapouts)" -gt "$out0"
ksft_done
