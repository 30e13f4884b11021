# Guest helpers for the tierblk driver (drivers/tierblk, docs/tierblk.md).
#
#   tierblk_load [PARAM=VALUE...]     insmod tierblk.ko, wait for tierblk0
#   tierblk_unload                    swapoff tierblk devices, rmmod
#   tierblk_dir N                     /sys/block/tierblkN/tierblk
#   tierblk_set N ATTR VALUE          write a knob (fails like the write)
#   tierblk_get N ATTR                read a knob
#   tierblk_try N ATTR VALUE          write a knob, print ok|EINVAL|EBUSY|...
#   tb_write FILE VALUE / tb_read FILE  same without a fork: set TB_R / TB_V
#   tierblk_stat N KEY                one counter from the stats file
#   tierblk_swapon N [PRIO]           mkswap and swapon /dev/tierblkN
#   tierblk_swapoff N [SECONDS]       swapoff /dev/tierblkN (1 when it fails,
#                                     or has not ended after SECONDS)
#   tierblk_swap_used N               KiB of swap used on /dev/tierblkN
#   errno_name MSG                    map a shell error message to E-name
#
# TIERSWAP_VSWAP=1 (make test-full's "vswap" boot, qemu/boot-plan.sh) puts
# the tests' tierblk swap behind the virtual swap device (mm-patches 0013+,
# docs/vswap.md): tierblk_swapon makes /dev/tierblkN a tier of
# /sys/kernel/mm/vswap and turns the virtual device on with the slots of
# its tiers; tierblk_swapoff turns the virtual device off (a swapoff: every
# page comes back into memory, a leaked slot makes it fail or hang) and
# removes the tier. Page tables then hold virtual slots, and /proc/swaps
# lists /dev/tierblkN as a "tier" with its own usage; a test that looks for
# a page's slot on the device (ss-locate) finds the tier's slot, so
# slot-level fault injection works as on direct swap.

TIERBLK_KO=${TIERBLK_KO:-/lib/modules/tierswap/tierblk.ko}
# the driver as of DRIVER_BEFORE (make's knob), when the image has one
TIERBLK_KO_BEFORE=${TIERBLK_KO_BEFORE:-/lib/modules/tierswap/tierblk-before.ko}

tierblk_load() {
	insmod "$TIERBLK_KO" "$@" || return 1
	local i=0
	while [ ! -b /dev/tierblk0 ] && [ ! -d /sys/class/tierblk-control ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -d /sys/class/tierblk-control ]
}

tierblk_unload() {
	local d
	grep -q '^tierblk ' /proc/modules || return 0
	for d in $(awk '$1 ~ /^\/dev\/tierblk/ { print $1 }' /proc/swaps); do
		tierblk_swapoff "${d#/dev/tierblk}"
	done
	rmmod tierblk
}

tierblk_dir() {
	echo "/sys/block/tierblk$1/tierblk"
}

tierblk_set() {
	echo "$3" > "$(tierblk_dir "$1")/$2"
}

# The helpers below use shell builtins only: a fork costs ~50 ms and an exec
# ~100 ms in the TCG debug guest.

# tb_errno MSG: set TB_R to the E-name of the strerror() text in MSG.
tb_errno() {
	case "$1" in
	*"Invalid argument"*) TB_R=EINVAL ;;
	*"resource busy"*) TB_R=EBUSY ;;
	*"No space left"*) TB_R=ENOSPC ;;
	*"No such device"*) TB_R=ENODEV ;;
	*"Input/output error"*) TB_R=EIO ;;
	*"timed out"*) TB_R=ETIMEDOUT ;;
	*"Cannot allocate memory"*|*"Out of memory"*) TB_R=ENOMEM ;;
	*"No data available"*) TB_R=ENODATA ;;
	*"Permission denied"*) TB_R=EACCES ;;
	*"No such file or directory"*) TB_R=ENOENT ;;
	*) TB_R="OTHER($1)" ;;
	esac
}

# errno_name MSG: print the E-name of a strerror() text in MSG.
errno_name() {
	tb_errno "$1"
	echo "$TB_R"
}

# tb_write FILE VALUE: write VALUE (and a newline) to FILE; TB_R is "ok" or
# the errno name of the refused write.
tb_write() {
	local msg=
	if echo "$2" 2>/tmp/.tierblk-err > "$1"; then
		TB_R=ok
		return 0
	fi
	read -r msg < /tmp/.tierblk-err
	tb_errno "$msg"
	return 1
}

# tb_read FILE: TB_V is the content of FILE, lines joined with ';'.
tb_read() {
	local l
	TB_V=
	while IFS= read -r l; do
		TB_V="${TB_V:+$TB_V;}$l"
	done < "$1"
}

tierblk_get() {
	local l
	while IFS= read -r l; do
		echo "$l"
	done < "$(tierblk_dir "$1")/$2"
}

# tierblk_try N ATTR VALUE: "ok", or the errno name of the refused write.
tierblk_try() {
	tb_write "$(tierblk_dir "$1")/$2" "$3"
	echo "$TB_R"
}

# tierblk_try_file FILE VALUE: same for any sysfs file.
tierblk_try_file() {
	tb_write "$1" "$2"
	echo "$TB_R"
}

# tierblk_stat N KEY: one counter of the stats file.
tierblk_stat() {
	local k v
	while read -r k v; do
		[ "$k" = "$2" ] && { echo "$v"; return 0; }
	done < "$(tierblk_dir "$1")/stats"
	return 1
}

TB_VSWAP_SYS=${VSWAP_SYS:-/sys/kernel/mm/vswap}

tierblk_swapon() {
	local kb
	mkswap "/dev/tierblk$1" >/dev/null || return 1
	if [ "${TIERSWAP_VSWAP:-0}" != 1 ]; then
		swapon_dev "/dev/tierblk$1" "${2:-}"
		return
	fi
	[ -d "$TB_VSWAP_SYS" ] || { echo "tierblk: TIERSWAP_VSWAP=1, but no $TB_VSWAP_SYS" >&2; return 1; }
	echo "/dev/tierblk$1 prio=${2:-0}" > "$TB_VSWAP_SYS/add" || return 1
	# already on (another tier came first): it keeps its size
	grep -q '^\[vswap\] ' /proc/swaps && return 0
	kb=$(awk '{ s += $3 } END { print s }' "$TB_VSWAP_SYS/tiers")
	echo "${kb}K" > "$TB_VSWAP_SYS/size" || return 1
	echo "# /dev/tierblk$1: the tier of a ${kb}K virtual swap device (TIERSWAP_VSWAP=1)"
}

# _tb_bounded SECONDS CMD: CMD (a shell command line), killed after
# SECONDS unless 0
_tb_bounded() {
	if [ "$1" = 0 ]; then
		sh -c "$2"
	else
		timeout "$1" sh -c "$2"
	fi
}

tierblk_swapoff() {
	local d=/dev/tierblk$1 t=${2:-0}
	if [ "$(awk -v d="$d" '$1 == d { print $2 }' /proc/swaps)" != tier ]; then
		_tb_bounded "$t" "swapoff $d"
		return
	fi
	# a tier: the virtual device goes off first, then the empty tier
	if grep -q '^\[vswap\] ' /proc/swaps; then
		_tb_bounded "$t" "echo 0 > $TB_VSWAP_SYS/size" || return 1
	fi
	echo "$d" > "$TB_VSWAP_SYS/remove"
}

tierblk_swap_used() {
	awk -v d="/dev/tierblk$1" '$1 == d { print $4 }' /proc/swaps
}

# dd_errno ARGS...: run dd, print "ok" or the errno name of its failure.
dd_errno() {
	local l
	if dd "$@" 2>/tmp/.tierblk-dd; then
		echo ok
		return 0
	fi
	TB_R=OTHER
	while IFS= read -r l; do
		tb_errno "$l"
		case "$TB_R" in OTHER*) ;; *) break ;; esac
	done < /tmp/.tierblk-dd
	echo "$TB_R"
}

# tierblk_read_at N SECTOR COUNT: direct read of COUNT 512-byte sectors at
# SECTOR (multiples of 8: 4 KiB blocks); prints ok or the errno name.
tierblk_read_at() {
	dd_errno if="/dev/tierblk$1" of=/dev/null bs=4096 count=$(($3 / 8)) \
		skip=$(($2 / 8)) iflag=direct
}

tierblk_write_at() {
	dd_errno if=/dev/urandom of="/dev/tierblk$1" bs=4096 count=$(($3 / 8)) \
		seek=$(($2 / 8)) oflag=direct conv=notrunc
}
