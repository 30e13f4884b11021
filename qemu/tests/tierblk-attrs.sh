#!/bin/sh
# timeout: 180
# suite: quick
# tierblk: every attribute set, read back, invalid values refused with EINVAL
# and no change, changes that need an unused device refused with EBUSY while
# it is open or swapped on; module parameters; hot_add and hot_remove.
. /usr/lib/tierswap/lib.sh

cleanup() {
	exec 3<&- 2>/dev/null
	tierblk_unload 2>/dev/null
}

# accept N ATTR "VALUE=>READBACK"...: each write succeeds and reads back
# (lines joined with ';').
accept() {
	local f pair v want bad=
	f=$(tierblk_dir "$1")/$2
	shift 2
	for pair in "$@"; do
		v=${pair%%=>*}
		want=${pair#*=>}
		tb_write "$f" "$v"
		tb_read "$f"
		[ "$TB_R" = ok ] && [ "$TB_V" = "$want" ] ||
			bad="$bad [$v: $TB_R, read '$TB_V' want '$want']"
	done
	[ -z "$bad" ] || { echo "${f##*/}:$bad"; return 1; }
}

# reject N ATTR ERRNO VALUE...: each write fails with ERRNO, value unchanged.
reject() {
	local f e v before bad=
	f=$(tierblk_dir "$1")/$2
	e=$3
	shift 3
	for v in "$@"; do
		tb_read "$f"
		before=$TB_V
		tb_write "$f" "$v"
		tb_read "$f"
		[ "$TB_R" = "$e" ] && [ "$before" = "$TB_V" ] ||
			bad="$bad ['$v': $TB_R, '$before' -> '$TB_V']"
	done
	[ -z "$bad" ] || { echo "${f##*/}:$bad"; return 1; }
}

plan 54
trap cleanup EXIT

# Module parameters.
check "size=12Q refused at load" sh -c "! insmod $TIERBLK_KO size=12Q 2>/dev/null"
check "size=4097 (not page aligned) refused at load" sh -c "! insmod $TIERBLK_KO size=4097 2>/dev/null"
check "load nr_devices=2 size=64M" tierblk_load nr_devices=2 size=64M
check "two devices" test -b /dev/tierblk0 -a -b /dev/tierblk1 -a ! -e /sys/block/tierblk2
check_eq "size parameter: disksize 64M" 67108864 "$(tierblk_get 1 disksize)"
check_eq "capacity in sectors" 131072 "$(cat /sys/block/tierblk0/size)"

# hot_add / hot_remove.
id=$(cat /sys/class/tierblk-control/hot_add)
check_eq "hot_add returns the new index" 2 "$id"
check "hot_add made /dev/tierblk2 with its knobs" test -b /dev/tierblk2 -a -f "$(tierblk_dir 2)/stats"
check_eq "hot_remove of an unknown index: ENODEV" ENODEV "$(tierblk_try_file /sys/class/tierblk-control/hot_remove 7)"
check_eq "hot_remove of garbage: EINVAL" EINVAL "$(tierblk_try_file /sys/class/tierblk-control/hot_remove x)"
exec 3< /dev/tierblk2
check_eq "hot_remove of an open device: EBUSY" EBUSY "$(tierblk_try_file /sys/class/tierblk-control/hot_remove 2)"
exec 3<&-
check_eq "hot_remove of the closed device" ok "$(tierblk_try_file /sys/class/tierblk-control/hot_remove 2)"
check "tierblk2 gone" test ! -e /sys/block/tierblk2
check_eq "hot_add reuses the freed index" 2 "$(cat /sys/class/tierblk-control/hot_add)"
echo 2 > /sys/class/tierblk-control/hot_remove

# disksize and synchronous: set while unused, EBUSY while open or swapped on.
check "disksize: set, suffixes" accept 0 disksize 128M=\>134217728 1G=\>1073741824 65536=\>65536 64m=\>67108864
check_eq "disksize: capacity follows" 131072 "$(cat /sys/block/tierblk0/size)"
check "disksize: invalid values" reject 0 disksize EINVAL abc 0 4097 1Q -1 "" "1 M" 100T
check "synchronous: set" accept 0 synchronous 0=\>0 1=\>1
check "synchronous: invalid values" reject 0 synchronous EINVAL 2 yes "" -1 "1 1"
exec 3< /dev/tierblk0
check "disksize while open: EBUSY" reject 0 disksize EBUSY 32M
check "synchronous while open: EBUSY" reject 0 synchronous EBUSY 0
check "run-time knobs change while open" accept 0 read_latency 1000=\>fixed:1us 0=\>off
exec 3<&-
tierblk_swapon 0 || diag "swapon failed"
check "synchronous while swapped on: EBUSY" reject 0 synchronous EBUSY 0
check "disksize while swapped on: EBUSY" reject 0 disksize EBUSY 32M
check_eq "hot_remove while swapped on: EBUSY" EBUSY "$(tierblk_try_file /sys/class/tierblk-control/hot_remove 0)"
tierblk_swapoff 0
check "synchronous after swapoff" accept 0 synchronous 0=\>0 1=\>1
# completion: run time, any state.
check_eq "completion: default workqueue" workqueue "$(tierblk_get 0 completion)"
check "completion: set" accept 0 completion inline=\>inline workqueue=\>workqueue
check "completion: invalid values" reject 0 completion EINVAL inl 1 "" "inline x"
tierblk_swapon 0 || diag "swapon failed"
check "completion while swapped on" accept 0 completion inline=\>inline workqueue=\>workqueue
tierblk_swapoff 0

# Latency, all four operation types.
lat_ok() {
	local a
	for a in read_latency write_latency discard_latency flush_latency; do
		# the shared vocabulary (docs/conventions.md), then the form
		# before it (bare numbers are ns)
		accept 1 "$a" 50us=\>fixed:50us 1ms=\>fixed:1ms 1.5ms=\>fixed:1500us \
			2s=\>fixed:2s 1500ns=\>fixed:1500ns 0.5us=\>fixed:500ns off=\>off \
			fixed:10ms=\>fixed:10ms "uniform:20us,80us=>uniform:20us,80us" \
			"normal:1ms,100us=>normal:1ms,100us" "lognormal:200us,80us=>lognormal:200us,80us" \
			"uniform:0,1ms=>uniform:0,1ms" \
			50000=\>fixed:50us "fixed 7=>fixed:7ns" "uniform 10 20=>uniform:10ns,20ns" \
			"normal 100000 5000=>normal:100us,5us" "  fixed   0 =>off" || return 1
	done
}
lat_bad() {
	local a
	for a in read_latency write_latency discard_latency flush_latency; do
		tierblk_set 1 "$a" "uniform 10 20"
		reject 1 "$a" EINVAL "uniform 20 10" fixed "gauss 1 2" "normal 1" -5 "fixed 1 2" \
			10000000001 "lognormal 30000 500" "uniform 1 10000000001" "" x 50xs 1.5 \
			0.1ns 11s "50 us" uniform:20us,10us uniform:1us fixed:1us,2us gauss:1us,2us \
			normal:1us "lognormal:1us,5ms" fixed: :1us 1..5ms || return 1
		tierblk_set 1 "$a" 0
	done
}
check "latency: all distributions accepted and read back" lat_ok
check "latency: invalid values" lat_bad

check "bandwidth: set" accept 1 bandwidth 100M=\>104857600 4096=\>4096 0=\>0
check "bandwidth: invalid values" reject 1 bandwidth EINVAL 4095 abc -1 "1 M" 1Z
check "seed: set" accept 1 seed 42=\>42 18446744073709551615=\>18446744073709551615 0=\>0
check "seed: invalid values" reject 1 seed EINVAL -1 abc 18446744073709551616 ""
check "spin_threshold_ns: set" accept 1 spin_threshold_ns 5000=\>5000 0=\>0 100000=\>100000
check "spin_threshold_ns: invalid values" reject 1 spin_threshold_ns EINVAL 1000001 x -1

knobs_ok() {
	local o
	for o in read write discard flush; do
		accept 1 "error_rate_$o" 1000=\>1000 1000000=\>1000000 0=\>0 20%=\>200000 \
			0.5%=\>5000 0.0001%=\>1 100%=\>1000000 250ppm=\>250 || return 1
		reject 1 "error_rate_$o" EINVAL 1000001 -1 x 0.5 "" 101% 0.00001% 1.5ppm "20 %" % \
			1844674407370955.9999% || return 1
		accept 1 "every_nth_$o" 3=\>3 0=\>0 || return 1
		reject 1 "every_nth_$o" EINVAL x -1 "" "3 4" || return 1
	done
}
check "error_rate_* and every_nth_*: set and invalid values" knobs_ok

check "error_status: errno names, any case, and the names before them" accept 1 error_status \
	ENOSPC=\>ENOSPC ETIMEDOUT=\>ETIMEDOUT ENOMEM=\>ENOMEM ENODATA=\>ENODATA EIO=\>EIO \
	enospc=\>ENOSPC timeout=\>ETIMEDOUT resource=\>ENOMEM medium=\>ENODATA eio=\>EIO
check "error_status: invalid values" reject 1 error_status EINVAL EPERM foo "" "eio eio" 5

check "badblocks: add, split by clear, list" accept 1 badblocks \
	"+100-107 read 3=>100-107 read 3" "+200-299=>100-107 read 3;200-299 rw 0" \
	"-104-104=>100-103 read 3;105-107 read 3;200-299 rw 0" \
	"+150-150 write=>100-103 read 3;105-107 read 3;150-150 write 0;200-299 rw 0" \
	"+90-101 rw 2=>90-101 rw 2;102-103 read 3;105-107 read 3;150-150 write 0;200-299 rw 0" \
	"clear=>" "+12p+1p read count=1=>96-103 read 1" "+4096b-8191b count=inf=>8-15 rw 0;96-103 read 1" \
	"+12p-13p write=>8-15 rw 0;96-111 write 0" \
	"+1M+4K read,write 2=>8-15 rw 0;96-111 write 0;2048-2055 rw 2" "clear=>" \
	"+1k+1KiB=>2-3 rw 0" "+1KB-1KB=>2-3 rw 0" "clear=>"
check "badblocks: invalid values" reject 1 badblocks EINVAL 100-107 +107-100 "+1-2 both" \
	"+1-2 read x" "+1-131072" "-1-2 read" "+1" "+a-b" "+1-2 read 3 4" "" "+-1-2" \
	"+1+0" "+100b+1s" "+1s+100b" "+0-8190b" "+1p+1p count=0" "+1-2 discard" "+1-2 read,flush" "+1+1x"
many_bad() {
	local i=0 f
	f=$(tierblk_dir 1)/badblocks
	while [ $i -lt 64 ]; do
		tb_write "$f" "+$((i * 10))-$((i * 10 + 2))" || { echo "range $i: $TB_R"; return 1; }
		i=$((i + 1))
	done
	tb_write "$f" "+5000-5001"
	[ "$TB_R" = ENOSPC ] || { echo "65th range: $TB_R"; return 1; }
	tb_write "$f" "-0-2" || { echo "clear of a whole range when full: $TB_R"; return 1; }
	tb_write "$f" "+0-2" || { echo "add back: $TB_R"; return 1; }
	tb_write "$f" "-11-11"
	[ "$TB_R" = ENOSPC ] || { echo "split when full: $TB_R"; return 1; }
	tb_write "$f" clear
}
check "badblocks: table full gives ENOSPC" many_bad

check "one_shot_read_sector: set" accept 1 one_shot_read_sector 8=\>8 131071=\>131071 none=\>none \
	12p=\>96 4096b=\>8 1K=\>2 7s=\>7 none=\>none
check "one_shot_read_sector: invalid values" reject 1 one_shot_read_sector EINVAL 131072 x -1 "" \
	16384p 100b 1x "1 2"
check "corrupt: set" accept 1 corrupt 0-7=\>0-7 "100-100=>100-100" 1p+1p=\>8-15 1p-1p=\>8-15 \
	none=\>none
check "corrupt: invalid values" reject 1 corrupt EINVAL 7-0 abc 0-131072 "1-2 3-4" ""

dd if=/dev/urandom of=/dev/tierblk1 bs=4096 count=4 oflag=direct 2>/dev/null
dd if=/dev/tierblk1 of=/dev/null bs=4096 count=4 iflag=direct 2>/dev/null
stats_keys() {
	local k
	for k in reads writes discards flushes read_bytes write_bytes discard_bytes \
		read_errors write_errors discard_errors flush_errors badblock_errors \
		rate_errors every_nth_errors one_shot_errors corrupted_sectors \
		slot_free_notify alloc_failures insert_races delayed_ops delay_total_us delay_total_ns pages; do
		[ -n "$(tierblk_stat 1 "$k")" ] || { echo "missing $k"; return 1; }
	done
	[ "$(tierblk_stat 1 reads)" -ge 1 ] && [ "$(tierblk_stat 1 writes)" -ge 4 ] &&
		[ "$(tierblk_stat 1 pages)" = 4 ]
}
check "stats: every counter present, I/O counted" stats_keys
check_eq "reset_stats: invalid value" EINVAL "$(tierblk_try 1 reset_stats 2)"
echo 1 > "$(tierblk_dir 1)/reset_stats"
check_eq "reset_stats: counters zero, pages kept" "0 0 4" \
	"$(tierblk_stat 1 reads) $(tierblk_stat 1 writes) $(tierblk_stat 1 pages)"

features_ok() {
	local f a bad=
	f=$(tierblk_get 1 features)
	for a in $(echo "$f" | tr , ' '); do
		# root may open anything: read the owner's write bit instead
		case "$(stat -c %A "$(tierblk_dir 1)/$a" 2>/dev/null)" in
		??w*) ;;
		*) bad="$bad $a(not writable)" ;;
		esac
	done
	for a in disksize read_latency error_rate_write every_nth_flush seed bandwidth \
		spin_threshold_ns error_status badblocks one_shot_read_sector corrupt reset_stats; do
		echo ",$f," | grep -q ",$a," || bad="$bad $a(missing)"
	done
	echo ",$f," | grep -q ",stats," && bad="$bad stats(read only)"
	[ -z "$bad" ] || { echo "features '$f':$bad"; return 1; }
}
check "features: every writable attribute, no read-only one" features_ok
check_eq "features: read only" EACCES "$(tierblk_try 1 features x)"

check "rmmod" tierblk_unload
tap_status
