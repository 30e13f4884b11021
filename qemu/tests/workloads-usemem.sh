#!/bin/sh
# timeout: 600
# suite: quick
# usemem (vm-scalability compatible) under swap pressure: the cover-letter
# shape "usemem --init-time -O -y -x -n N SIZE" inside a memcg smaller than
# the total, on zram swap; upstream-format lines plus the key=value summary.
# Quick suite: 2 x 12M in a 12M memcg, then 8M in 6M (full: 2 x 24M in 24M,
# then 16M in 12M): the second run's memcg is 3/4 of its size, so its
# read-again must swap in (in a memcg 1.5 times its size it did not always).
. /usr/lib/tierswap/lib.sh

OUT=/tmp/usemem.out
CG=usemem-test
cleanup() {
	memcg_destroy $CG
	zram_swap_down
}

plan 5
trap cleanup EXIT
zram_swap_down 2>/dev/null
ZRAM=$(zram_swap_up 128M) || bail "zram swap failed"
M=$(by_suite 12M 24M)
R=$(by_suite 8M 16M)
memcg_create $CG $M || bail "memcg failed"

# run usemem inside the memcg (a subshell moves itself there first)
(echo 0 > $CGROOT/$CG/cgroup.procs && exec usemem --init-time -O -y -x -n 2 $M) >"$OUT" 2>&1
rc=$?
check_eq "usemem -O -y -x -n 2 $M in a $M memcg exits 0" 0 $rc
check "two throughput and two free-latency lines in upstream format" sh -c \
	"[ \$(grep -c 'bytes / [0-9]* usecs = [0-9]* KB/s\$' $OUT) -eq 2 ] && [ \$(grep -c 'usecs to free memory\$' $OUT) -eq 2 ]"
check "memcg pressure swapped out (pswpout > 0)" test "$(kv_get $OUT pswpout)" -gt 0
diag "$(grep -E '^(throughput_sum_kbps|free_latency_mean_us|free_latency_max_us|pswpin|pswpout)=' $OUT | tr '\n' ' ')"

R_MAX=$(( ${R%M} * 3 / 4 ))M
echo "$R_MAX" > "$CGROOT/$CG/memory.max" || bail "memory.max $R_MAX"
(echo 0 > $CGROOT/$CG/cgroup.procs && exec usemem -O -n 1 -t 2 -r 2 -Z $R) >"$OUT" 2>&1
rc=$?
check "$R in a $R_MAX memcg, threads, repeat and read-again verify data through swap (corrupt=0)" \
	sh -c "[ $rc -eq 0 ] && grep -q '^corrupt=0\$' $OUT && grep -q '^usemem_done=2\$' $OUT"
check "read-again swapped pages back in (pswpin > 0)" test "$(kv_get $OUT pswpin)" -gt 0
tap_status
