#!/bin/sh
# timeout: 900
# suite: quick
# fio plus memory pressure: crc32c-verified fio I/O on one tier (a zram
# block device) while swapstress thrashes another (zram swap) from inside a
# memcg; both must verify: fio exits 0 and swapstress reports corrupt=0.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/pressure.out
FOUT=/tmp/pressure-fio.out
cleanup() {
	touch /tmp/pressure.stop
	[ -n "${fpid:-}" ] && wait "$fpid" 2>/dev/null
	memcg_cleanup
	[ -n "${DEV:-}" ] && zram_dev_down "$DEV"
	zram_swap_down
}

plan 4
trap cleanup EXIT
zram_swap_down 2>/dev/null
SWAP=$(zram_swap_up 128M) || bail "zram swap failed"
DEV=$(zram_dev_up 64M) || bail "zram device failed"
pass "swap tier $SWAP, I/O tier $DEV"

# fio runs back to back (each run fully verified) until swapstress is done
rm -f /tmp/pressure.stop /tmp/pressure.runs
(
	while [ ! -e /tmp/pressure.stop ]; do
		DEV=$DEV fio "$(fio_job pressure-verify)" >"$FOUT" 2>&1 || exit 1
		echo run >> /tmp/pressure.runs
	done
) &
fpid=$!
swapstress --size $(by_suite 16M 32M) --procs 2 --threads 2 --pattern random --passes $(by_suite 1 2) \
	--pageout memcg --memcg-max $(by_suite 6M 12M) >"$OUT" 2>&1
rc=$?
touch /tmp/pressure.stop
wait $fpid
frc=$?
fpid=
if [ $rc -eq 0 ] && [ "$(kv_get $OUT corrupt)" = 0 ] && [ "$(kv_get $OUT pswpin)" -gt 0 ]; then
	pass "swapstress thrashed swap (pswpin=$(kv_get $OUT pswpin) pswpout=$(kv_get $OUT pswpout)) with corrupt=0"
else
	fail "swapstress under fio" "rc=$rc" "$(cat $OUT)"
fi
check_eq "every fio crc32c verify run on $DEV passed during the pressure" 0 $frc
[ $frc -eq 0 ] || diag "$(tail -n 20 $FOUT)"
check "fio completed at least one verified run while swapstress ran" test -s /tmp/pressure.runs
tap_status
