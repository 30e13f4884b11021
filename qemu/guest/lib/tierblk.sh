# Guest helpers for the tierblk driver (drivers/tierblk, docs/tierblk.md).
#
#   tierblk_load [PARAM=VALUE...]     insmod tierblk.ko, wait for tierblk0
#   tierblk_unload                    swapoff tierblk devices, rmmod
#   tierblk_dir N                     /sys/block/tierblkN/tierblk
#   tierblk_set N ATTR VALUE          write a knob (fails like the write)
#   tierblk_get N ATTR                read a knob
#   tierblk_try N ATTR VALUE          write a knob, print ok|EINVAL|EBUSY|...
#   tierblk_stat N KEY                one counter from the stats file
#   tierblk_swapon N [PRIO]           mkswap and swapon /dev/tierblkN
#   tierblk_swapoff N                 swapoff /dev/tierblkN
#   tierblk_swap_used N               KiB of swap used on /dev/tierblkN
#   errno_name MSG                    map a shell error message to E-name

TIERBLK_KO=${TIERBLK_KO:-/lib/modules/tierswap/tierblk.ko}

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
		swapoff "$d"
	done
	rmmod tierblk
}

tierblk_dir() {
	echo "/sys/block/tierblk$1/tierblk"
}

tierblk_set() {
	echo "$3" > "$(tierblk_dir "$1")/$2"
}

tierblk_get() {
	cat "$(tierblk_dir "$1")/$2"
}

# errno_name MSG: the E-name of a strerror() text in MSG (busybox messages).
errno_name() {
	case "$1" in
	*"Invalid argument"*) echo EINVAL ;;
	*"resource busy"*) echo EBUSY ;;
	*"No space left"*) echo ENOSPC ;;
	*"No such device"*) echo ENODEV ;;
	*"Input/output error"*) echo EIO ;;
	*"timed out"*) echo ETIMEDOUT ;;
	*"Cannot allocate memory"*|*"Out of memory"*) echo ENOMEM ;;
	*"No data available"*) echo ENODATA ;;
	*"Permission denied"*) echo EACCES ;;
	*) echo "OTHER($1)" ;;
	esac
}

# tierblk_try N ATTR VALUE: "ok", or the errno name of the refused write.
tierblk_try() {
	local err
	if err=$( (echo "$3" > "$(tierblk_dir "$1")/$2") 2>&1); then
		echo ok
	else
		errno_name "$err"
	fi
}

# tierblk_write_file FILE VALUE: same for any sysfs file.
tierblk_try_file() {
	local err
	if err=$( (echo "$2" > "$1") 2>&1); then
		echo ok
	else
		errno_name "$err"
	fi
}

tierblk_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$(tierblk_dir "$1")/stats"
}

tierblk_swapon() {
	mkswap "/dev/tierblk$1" >/dev/null || return 1
	swapon ${2:+-p "$2"} "/dev/tierblk$1"
}

tierblk_swapoff() {
	swapoff "/dev/tierblk$1"
}

tierblk_swap_used() {
	awk -v d="/dev/tierblk$1" '$1 == d { print $4 }' /proc/swaps
}

# dd_errno ARGS...: run dd, print "ok" or the errno name of its failure.
dd_errno() {
	local err
	if err=$(dd "$@" 2>&1); then
		echo ok
	else
		errno_name "$err"
	fi
}

# tierblk_read_sectors N SECTOR COUNT: direct read of COUNT 512-byte sectors
# at SECTOR (multiples of 8 for 4 KiB alignment); ok or errno name.
tierblk_read_at() {
	dd_errno if="/dev/tierblk$1" of=/dev/null bs=4096 count=$(($3 / 8)) \
		skip=$(($2 / 8)) iflag=direct
}

tierblk_write_at() {
	dd_errno if=/dev/urandom of="/dev/tierblk$1" bs=4096 count=$(($3 / 8)) \
		seek=$(($2 / 8)) oflag=direct conv=notrunc
}
