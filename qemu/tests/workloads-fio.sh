#!/bin/sh
# timeout: 600
# suite: quick
# The fio jobs of workloads/fio on a zram block device: every tier
# characterisation job runs (shortened to 1 s in the quick suite, 2 s in
# the full one) and reports IOPS; the crc32c
# verify jobs pass on a healthy device and fail once a block is corrupted.
# The device is 16M in the quick suite (the verify jobs write half of it, four
# times: most of the test's time), 64M in the full one.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/fio.out
cleanup() { [ -n "${DEV:-}" ] && zram_dev_down "$DEV"; }

plan 10
trap cleanup EXIT
DEV=$(zram_dev_up "$(by_suite 16M 64M)") || bail "zram device failed"
export DEV

# secs T0: seconds since T0 (uptime_s), for the check lines
secs() { echo "$(($(uptime_s) - $1)) s"; }

# One fio run for the six: fio runs the job files it is given one after
# the other, and its start and exit cost some 7 s each in the debug guest.
CHAR_JOBS="randread-4k-psync randwrite-4k-psync randread-4k-uring randwrite-4k-uring seqread-1m seqwrite-1m"
t0=$(uptime_s)
files=
for j in $CHAR_JOBS; do
	files="$files $(fio_job $j "$(by_suite 1 2)")" || bail "$j: no job file"
done
fio $files > "$OUT" 2>&1
rc=$?
diag "the six characterisation jobs in one fio run: exit $rc, $(secs $t0)"
# iops_of JOB: the first "read|write: IOPS=..., BW=..." of JOB's report
iops_of() {
	awk -v j="$1" '$0 ~ "^" j ": \\(groupid" { in_job = 1; next }
		/^[^ ].*: \(groupid/ { in_job = 0 }
		in_job && match($0, /(read|write): IOPS=[^,]*, BW=[^ ]*/) { print substr($0, RSTART, RLENGTH); exit }' "$OUT"
}
for j in $CHAR_JOBS; do
	r=$(iops_of "$j")
	if [ $rc = 0 ] && [ -n "$r" ]; then
		pass "$j on $DEV: $r"
	else
		fail "$j on $DEV" "fio exit $rc" "$(tail -n 20 "$OUT")"
	fi
done

t0=$(uptime_s)
check "verify-mixed-uring passes on a healthy device" fio "$(fio_job verify-mixed-uring)"
diag "verify-mixed-uring: $(secs $t0)"
# verify-4k-psync last: its blocks stay on the device for the checks below
t0=$(uptime_s)
check "verify-4k-psync passes on a healthy device" fio "$(fio_job verify-4k-psync)"
diag "verify-4k-psync: $(secs $t0)"
# corrupt one written block, re-verify only: fio must notice
dd if=/dev/urandom of="$DEV" bs=4096 seek=3 count=1 oflag=direct conv=notrunc 2>/dev/null
fio --verify_only "$(fio_job verify-4k-psync)" >"$OUT" 2>&1
rc=$?
check "verify-4k-psync --verify_only fails on the corrupted block" \
	sh -c "[ $rc -ne 0 ] && grep -q 'at file $DEV offset 12288' $OUT"
fio "$(fio_job verify-4k-psync)" >/dev/null 2>&1
check "and passes again once the device is rewritten" fio --verify_only "$(fio_job verify-4k-psync)"
tap_status
