# Guest helpers for running the kernel's own selftests (docs/kselftests.md).
#
#   KSFT_DIR                        where the selftests are (built from the
#                                   booted kernel's tree: qemu/build-kselftests.sh)
#   ksft_long                       true when KSELFTEST_LONG=1 (the heavier runs)
#                                   (KSELFTEST_LIVE=1: raw output as '# live:' lines)
#   ksft_run FMT PROG SECS CMD...   run CMD (a selftest) for at most SECS seconds
#                                   and print its results as our TAP lines, each
#                                   "PROG: KEY", plus "PROG: ran to completion";
#                                   FMT is ktap | khugepaged | uffd | zram
#                                   (qemu/guest/ksft2tap.awk). Needs no plan:
#                                   end the test with ksft_done.
#   ksft_done                       print the (trailing) TAP plan, return the status
#   ksft_thp_save / ksft_thp_restore  THP and khugepaged sysfs knobs around a run
#
# The raw output of each program is kept in /tmp/ksft-PROG.out (stderr in
# .err); lines of stderr are shown as '#' lines after the program's results.

KSFT_DIR=${KSFT_DIR:-/usr/lib/tierswap/kselftest}
KSFT_AWK=${KSFT_AWK:-/usr/lib/tierswap/ksft2tap.awk}
KSFT_XFAIL=${KSFT_XFAIL:-/usr/lib/tierswap/kselftest-xfail}

ksft_long() {
	[ "${KSELFTEST_LONG:-0}" = 1 ]
}

ksft_run() {
	local fmt=$1 prog=$2 secs=$3 rc t0 t1 st live=
	shift 3
	st=/tmp/ksft-$prog.state
	t0=$(cut -d' ' -f1 /proc/uptime)
	diag "$prog: $* (at most ${secs} s)"
	: > "/tmp/ksft-$prog.out"
	# KSELFTEST_LIVE=1: the raw output as '# live:' lines while it runs (debugging)
	if [ "${KSELFTEST_LIVE:-0}" = 1 ]; then
		( tail -f "/tmp/ksft-$prog.out" & echo $! > /tmp/ksft-live.pid; wait ) |
			sed "s/^/# live: /" &
		live=1
	fi
	timeout -s KILL "$secs" "$@" > "/tmp/ksft-$prog.out" 2> "/tmp/ksft-$prog.err" < /dev/null
	rc=$?
	if [ -n "$live" ]; then
		sleep 1
		kill "$(cat /tmp/ksft-live.pid)" 2>/dev/null
		wait
	fi
	t1=$(cut -d' ' -f1 /proc/uptime)
	rm -f "$st"
	awk -v fmt="$fmt" -v prog="$prog" -v n="$_tap_n" -v rc="$rc" \
		-v xfail="$KSFT_XFAIL" -v state="$st" -f "$KSFT_AWK" "/tmp/ksft-$prog.out"
	if [ -s "$st" ]; then
		read -r _tap_n t < "$st"
		_tap_failed=$((_tap_failed + t))
	else
		fail "$prog: results converted" "ksft2tap.awk wrote no state"
	fi
	diag "$prog: exit status $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
	if [ -s "/tmp/ksft-$prog.err" ]; then
		head -n 40 "/tmp/ksft-$prog.err" | sed "s/^/# $prog stderr: /"
	fi
	return 0
}

ksft_done() {
	echo "1..$_tap_n"
	_tap_planned=$_tap_n
	tap_status
}

_KSFT_THP=/sys/kernel/mm/transparent_hugepage
ksft_thp_save() {
	local f
	: > /tmp/ksft-thp.saved
	for f in $_KSFT_THP/enabled $_KSFT_THP/defrag $_KSFT_THP/shmem_enabled \
		$_KSFT_THP/use_zero_page $_KSFT_THP/hugepages-*/enabled \
		$_KSFT_THP/hugepages-*/shmem_enabled $_KSFT_THP/khugepaged/*; do
		[ -w "$f" ] || continue
		# "always [madvise] never" -> madvise
		echo "$f $(sed -n 's/.*\[\(.*\)\].*/\1/p; t; p' "$f")" >> /tmp/ksft-thp.saved
	done
}

ksft_thp_restore() {
	local f v
	[ -r /tmp/ksft-thp.saved ] || return 0
	while read -r f v; do
		[ "$(sed -n 's/.*\[\(.*\)\].*/\1/p; t; p' "$f")" = "$v" ] && continue
		{ echo "$v" > "$f"; } 2>/dev/null
	done < /tmp/ksft-thp.saved
	return 0
}

# ksft_swap_up SIZE: the synchronous swap device the selftests page out to:
# zram (default) or tierblk (KSELFTEST_SWAP=tierblk, synchronous=1); prints it.
ksft_swap_up() {
	local kind=${KSELFTEST_SWAP:-zram}
	# the vswap boot of make test-full (TIERSWAP_VSWAP=1): tierblk, which
	# tierblk_swapon then puts behind the virtual swap device
	[ "${TIERSWAP_VSWAP:-0}" = 1 ] && kind=tierblk
	case "$kind" in
	zram) zram_swap_up "$1" ;;
	tierblk)
		tierblk_load size="$1" >/dev/null || return 1
		tierblk_set 0 synchronous 1 || return 1
		tierblk_swapon 0 >/dev/null || return 1
		echo /dev/tierblk0 ;;
	*) echo "ksft_swap_up: KSELFTEST_SWAP must be zram or tierblk" >&2; return 1 ;;
	esac
}

# ksft_swap_down: every swap off, zram reset, tierblk unloaded.
ksft_swap_down() {
	zram_swap_down		# swapoff and reset (hot-remove) the zram swaps
	swap_all_off
	tierblk_unload 2>/dev/null
	return 0
}

# ksft_swap_check DEV: a check line that DEV is the only swap and is synchronous
# (SWP_SYNCHRONOUS_IO is what both zram and tierblk synchronous=1 give).
ksft_swap_check() {
	diag "swap device: $1"
	if [ "${TIERSWAP_VSWAP:-0}" = 1 ]; then
		check "swap on the virtual swap device, the only swap device, $1 its only tier" \
			sh -c "[ \$(awk 'NR > 1' /proc/swaps | wc -l) = 2 ] && grep -q '^\\[vswap\\] ' /proc/swaps &&
				[ \"\$(awk '\$2 == \"tier\" { print \$1 }' /proc/swaps)\" = '$1' ]"
		return
	fi
	check "swap on the ${KSELFTEST_SWAP:-zram} device, the only swap device" \
		sh -c "[ \$(awk 'NR > 1' /proc/swaps | wc -l) = 1 ] && grep -q '^$1 ' /proc/swaps"
}

# ksft_swapouts: pages swapped out so far, to the device (pswpout) or, being
# zero-filled, only marked in the swap zeromap (swpout_zero; most selftests
# write zeros).
ksft_swapouts() {
	echo $(( $(vmstat_get pswpout) + $(vmstat_get swpout_zero) ))
}
