#!/bin/sh
# timeout: 300
# suite: quick
# One fault vocabulary for both tiers (docs/conventions.md, "Faults and
# latencies"): tierblk0 (sysfs) and tiernbd (tiernbd-ctl over /dev/nbd0)
# take the same strings and report the same counter names.
#  1. "1ms" read latency and a "20%" write error rate, written as the same
#     strings to both, read back in the same canonical form;
#  2. the same bad strings refused by both, nothing changed;
#  3. 100 direct 4K writes and 40 direct 4K reads on each device: on both,
#     write_errors counts exactly the writes that failed (a share near 20%),
#     and delayed_ops / delay_total_us count the 1 ms read delays;
#  4. the same range strings fail the same pages on both: "12p-12p"
#     count=1 the next read of page 12, once (read_errors +1), then it
#     reads again; "4096b+4K" count=inf every read of page 1;
#  5. "0us" and "off" read back "off" on both, an errno name (enospc)
#     upper case on both.
# The two tiers' old spellings (bare numbers in each one's unit) are
# tierblk-attrs' and tiernbd's host tests' business.
. /usr/lib/tierswap/lib.sh

plan 15
cleanup() {
	nbd_tier_down
	tierblk_unload
}
trap cleanup EXIT

tierblk_load nr_devices=1 size=64M || bail "tierblk_load failed"
nbd_tier_up 64M || bail "nbd_tier_up failed: $(tail -5 "$NBD_LOG")"
TB=/dev/tierblk0

# nbd_show KEY...: the value after the words KEY... in tiernbd-ctl show
nbd_show() {
	nbd_ctl show | awk -v k="$*" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }'
}

# 1. the same strings on both
tierblk_set 0 read_latency 1ms && nbd_ctl latency read 1ms >/dev/null &&
	tierblk_set 0 error_rate_write 20% && nbd_ctl error rate write 20% >/dev/null
check_eq "'1ms' and '20%' accepted by both" 0 "$?"
check_eq "read latency reads back the same: tierblk0, tiernbd" "fixed:1ms fixed:1ms" \
	"$(tierblk_get 0 read_latency) $(nbd_show latency read)"
check_eq "write error rate reads back the same (ppm): tierblk0, tiernbd" "200000 200000" \
	"$(tierblk_get 0 error_rate_write) $(nbd_show error rate write | awk '{ print $1 }')"

# 2. the same bad strings refused by both
refused() {
	local bad= v
	for v in 101% 0.00001% 1.5ppm x; do
		[ "$(tierblk_try 0 error_rate_write "$v")" = EINVAL ] || bad="$bad tierblk0:$v"
		nbd_ctl error rate write "$v" >/dev/null 2>&1 && bad="$bad tiernbd:$v"
	done
	for v in 1xs 0.1ns 11s uniform:2ms,1ms "lognormal 30000 500" fixed:; do
		[ "$(tierblk_try 0 read_latency "$v")" = EINVAL ] || bad="$bad tierblk0:$v"
		# tiernbd's delays may reach ten minutes: 11s is good there
		[ "$v" = 11s ] && continue
		nbd_ctl latency read "$v" >/dev/null 2>&1 && bad="$bad tiernbd:$v"
	done
	[ -z "$bad" ] || { echo "accepted:$bad"; return 1; }
	[ "$(tierblk_get 0 read_latency) $(nbd_show latency read)" = "fixed:1ms fixed:1ms" ] &&
		[ "$(tierblk_get 0 error_rate_write)" = 200000 ] || { echo "a refused value changed a knob"; return 1; }
}
check "bad rates and durations refused by both, nothing changed" refused

# counters by the names both use: tier_counter DEV KEY
tier_counter() {
	case "$1" in
	"$TB") tierblk_stat 0 "$2" ;;
	*) nbd_counter "$2" ;;
	esac
}

# io DEV: 100 direct writes, 40 direct reads; prints "failed_writes
# write_errors(delta) writes(delta) delayed(delta) delay_us(delta)"
io() {
	local d=$1 i=0 f=0 w0 e0 n0 t0
	w0=$(tier_counter "$d" writes) e0=$(tier_counter "$d" write_errors)
	n0=$(tier_counter "$d" delayed_ops) t0=$(tier_counter "$d" delay_total_us)
	while [ $i -lt 100 ]; do
		dd if=/dev/zero of="$d" bs=4096 count=1 seek=$((i + 100)) oflag=direct 2>/dev/null ||
			f=$((f + 1))
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 40 ]; do
		dd if="$d" of=/dev/null bs=4096 count=1 skip=$i iflag=direct 2>/dev/null
		i=$((i + 1))
	done
	echo $f $(($(tier_counter "$d" write_errors) - e0)) $(($(tier_counter "$d" writes) - w0)) \
		$(($(tier_counter "$d" delayed_ops) - n0)) $(($(tier_counter "$d" delay_total_us) - t0))
}

# 3. the same faults, the same counters
for d in "$TB" "$NBD_DEV"; do
	set -- $(io "$d")
	check "$d: write_errors = the failed writes ($2 = $1 of $3), about 20% (10..35)" \
		[ "$1" = "$2" -a "$3" -ge 100 -a "$1" -ge 10 -a "$1" -le 35 ]
	check "$d: delayed_ops counts the 40 delayed reads ($4), delay_total_us their 1 ms ($5)" \
		[ "$4" -ge 40 -a "$5" -ge 40000 ]
done

# 4. range strings, the same pages failing on each
tierblk_set 0 error_rate_write 0% && nbd_ctl error rate write 0% >/dev/null
r0=$(tierblk_stat 0 read_errors) s0=$(nbd_counter read_errors)
echo "+12p-12p read count=1" > "$(tierblk_dir 0)/badblocks" &&
	nbd_ctl error add read 12p-12p count=1 >/dev/null &&
	echo "+4096b+4K read count=inf" > "$(tierblk_dir 0)/badblocks" &&
	nbd_ctl error add read 4096b+4K count=inf >/dev/null
check_eq "'12p-12p' count=1 and '4096b+4K' count=inf accepted by both" 0 "$?"
rd() { # rd DEV PAGE: ok or fail
	dd if="$1" of=/dev/null bs=4096 count=1 skip="$2" iflag=direct 2>/dev/null && echo ok || echo fail
}
check_eq "page 12 fails once on both, then reads; its neighbours read" \
	"ok fail ok ok ok fail ok ok" \
	"$(rd $TB 11) $(rd $TB 12) $(rd $TB 12) $(rd $TB 13) $(rd $NBD_DEV 11) $(rd $NBD_DEV 12) $(rd $NBD_DEV 12) $(rd $NBD_DEV 13)"
check_eq "page 1 fails every read on both, page 2 reads" "fail fail ok fail fail ok" \
	"$(rd $TB 1) $(rd $TB 1) $(rd $TB 2) $(rd $NBD_DEV 1) $(rd $NBD_DEV 1) $(rd $NBD_DEV 2)"
check_eq "read_errors +3 on both" "3 3" \
	"$(($(tierblk_stat 0 read_errors) - r0)) $(($(nbd_counter read_errors) - s0))"
echo clear > "$(tierblk_dir 0)/badblocks" && nbd_ctl error clear >/dev/null

# 5. off, and an errno name
tierblk_set 0 read_latency 0us && nbd_ctl latency read 0us >/dev/null
check_eq "'0us' reads back 'off' on both" "off off" \
	"$(tierblk_get 0 read_latency) $(nbd_show latency read)"
tierblk_set 0 error_status enospc && nbd_ctl error rate write 0% errno=enospc >/dev/null
check_eq "errno 'enospc' reads back 'ENOSPC' on both" "ENOSPC ENOSPC" \
	"$(tierblk_get 0 error_status) $(nbd_show error rate write | sed -n 's/.*errno=//p')"
tierblk_set 0 read_latency off && nbd_ctl latency read off >/dev/null
check_eq "'off' turns read latency off on both" "off off" \
	"$(tierblk_get 0 read_latency) $(nbd_show latency read)"
tap_status
