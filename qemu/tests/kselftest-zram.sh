#!/bin/sh
# timeout: 1200
# kselftest: zram
# suite: quick
# The kernel's tools/testing/selftests/zram scripts (bash, as shipped):
# zram02 (a hot-added zram device as swap: mkswap, swapon, swapoff) and, with
# KSELFTEST_LONG=1, zram.sh: zram01 (a hot-added zram device with ext2 on it,
# filled 1 KiB per dd, compression ratio checked; ~2000 forks of dd, 4+ min
# under TCG) then zram02. Each step the scripts report is one TAP line.
. /usr/lib/tierswap/lib.sh

W=/tmp/ksft-zram
cleanup() {
	cd /
	for m in $(awk '$1 ~ /^\/dev\/zram/ { print $1 }' /proc/mounts); do umount "$m"; done
	swap_all_off
	for d in /sys/block/zram*; do
		z=${d##*/}
		[ "$z" = zram0 ] && { echo 1 > "$d/reset"; continue; }
		echo 1 > "$d/reset" 2>/dev/null
		echo "${z#zram}" > /sys/class/zram-control/hot_remove 2>/dev/null
	done
	rm -rf "$W"
}
trap cleanup EXIT
ksft_swap_down
rm -rf "$W" && mkdir -p "$W" && cp "$KSFT_DIR"/zram/* "$W"/ || bail "no zram selftests in $KSFT_DIR/zram"
check "bash present (the scripts are #!/bin/bash)" test -x /bin/bash
cd "$W" || bail "cd $W"
if ksft_long; then
	ksft_run zram zram 1100 ./zram.sh
else
	ksft_run zram zram 240 ./zram02.sh
fi
check "the zram devices the scripts added are gone" \
	sh -c '[ "$(ls -d /sys/block/zram* | wc -l)" = 1 ]'
ksft_done
