#!/bin/sh
# timeout: 600
# suite: quick
# The fio jobs of workloads/fio on a zram block device: every tier
# characterisation job runs (shortened to 2 s) and reports IOPS; the crc32c
# verify jobs pass on a healthy device and fail once a block is corrupted.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/fio.out
cleanup() { [ -n "${DEV:-}" ] && zram_dev_down "$DEV"; }

plan 10
trap cleanup EXIT
DEV=$(zram_dev_up 64M) || bail "zram device failed"
export DEV

for j in randread-4k-psync randwrite-4k-psync randread-4k-uring randwrite-4k-uring seqread-1m seqwrite-1m; do
	job=$(fio_job $j "$(by_suite 1 2)") || { fail "$j: job file"; continue; }
	if fio "$job" >"$OUT" 2>&1 && grep -qE '(read|write): IOPS=' "$OUT"; then
		pass "$j on $DEV: $(grep -oE '(read|write): IOPS=[^,]*, BW=[^ ]*' "$OUT" | head -n 1)"
	else
		fail "$j on $DEV" "$(tail -n 20 "$OUT")"
	fi
done

check "verify-4k-psync passes on a healthy device" fio "$(fio_job verify-4k-psync)"
check "verify-mixed-uring passes on a healthy device" fio "$(fio_job verify-mixed-uring)"
# corrupt one written block, re-verify only: fio must notice (written
# again first: the mixed job above left its own pattern on the device)
fio "$(fio_job verify-4k-psync)" >/dev/null 2>&1
dd if=/dev/urandom of="$DEV" bs=4096 seek=3 count=1 oflag=direct conv=notrunc 2>/dev/null
fio --verify_only "$(fio_job verify-4k-psync)" >"$OUT" 2>&1
rc=$?
check "verify-4k-psync --verify_only fails on the corrupted block" \
	sh -c "[ $rc -ne 0 ] && grep -q 'at file $DEV offset 12288' $OUT"
fio "$(fio_job verify-4k-psync)" >/dev/null 2>&1
check "and passes again once the device is rewritten" fio --verify_only "$(fio_job verify-4k-psync)"
tap_status
