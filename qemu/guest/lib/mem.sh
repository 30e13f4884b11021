# Guest helpers for memory-pressure tests (workloads/, docs/workloads.md).
#
#   zram_swap_up SIZE [PRIO] [ALGO]  a zram device as swap; prints /dev/zramN
#   zram_swap_down [DEV]             swapoff and reset DEV (default: every zram swap)
#   zram_dev_up SIZE                 a zram block device (not swap); prints /dev/zramN
#   zram_dev_down DEV                reset (and hot-remove) a zram device
#   zram_rot_swap_up SIZE            a zram device marked rotational (an HDD's
#                                    stand-in), as swap; prints /dev/zramN
#   swapon_not_ssd DEV               swapon's kernel line for DEV, and true when it
#                                    names no SS flag (a rotational device)
#   swapon_dev DEV [PRIO]            swapon DEV, with priority PRIO if given
#   swap_all_off                     swapoff everything in /proc/swaps
#   swap_used_kb [DEV]               KiB of swap in use (on DEV, or in total)
#   vmstat_get KEY                   one counter from /proc/vmstat (0 if absent)
#   kv_get FILE KEY                  value of KEY in key=value output (swapstress, usemem)
#   memcg_create NAME MAX [SWAPMAX]  /sys/fs/cgroup/NAME with memory.max (and swap.max)
#   memcg_destroy NAME               move its tasks to the root, rmdir
#   memcg_stat NAME KEY              one key of NAME's memory.stat
#   memcg_cleanup [PREFIX]           remove leftover groups (default swapstress-*)
#   wait_stopped PID [SECONDS]       wait until PID is stopped (SIGSTOP), default 60 s
#   thp_set SIZE MODE                anon THP: SIZE pmd or e.g. 64kB; MODE always|madvise|never|inherit
#   shmem_thp_set SIZE MODE          shmem THP for memfd/tmpfs: SIZE pmd or 64kB...;
#                                    MODE always|within_size|advise|never|deny|force|inherit
#   thp_reset                        boot defaults: pmd madvise, mTHP never/inherit, shmem never
#   khugepaged_park / khugepaged_restore
#                                    khugepaged asleep for a day / its sleep as before:
#                                    it collapses PTE-mapped THPs into new folios outside
#                                    the swap cache, which a test of folio identity must
#                                    not race with (seen: 1 migrate case in ~100)
#   fio_job NAME [RUNTIME]           path of workloads/fio/NAME.fio; with RUNTIME a copy
#                                    with runtime=RUNTIME and no ramp (for short guest runs)

CGROOT=${CGROOT:-/sys/fs/cgroup}
FIO_JOBS=${FIO_JOBS:-/usr/share/tierswap/fio}

# _zram_get: print the name (zramN) of a zram device with disksize 0.
_zram_get() {
	local d id
	for d in /sys/block/zram*; do
		[ -e "$d/disksize" ] || continue
		if [ "$(cat "$d/disksize")" = 0 ]; then
			echo "${d##*/}"
			return 0
		fi
	done
	[ -r /sys/class/zram-control/hot_add ] || return 1
	id=$(cat /sys/class/zram-control/hot_add) || return 1
	echo "zram$id"
}

zram_dev_up() {
	local z
	z=$(_zram_get) || { echo "zram_dev_up: no free zram device" >&2; return 1; }
	echo "$1" > "/sys/block/$z/disksize" || return 1
	echo "/dev/$z"
}

zram_swap_up() {
	local size=$1 prio=${2:-} algo=${3:-} z
	z=$(_zram_get) || { echo "zram_swap_up: no free zram device" >&2; return 1; }
	if [ -n "$algo" ]; then
		echo "$algo" > "/sys/block/$z/comp_algorithm" || return 1
	fi
	echo "$size" > "/sys/block/$z/disksize" || return 1
	mkswap "/dev/$z" >/dev/null || return 1
	swapon_dev "/dev/$z" "$prio" || return 1
	echo "/dev/$z"
}

zram_rot_swap_up() {
	local dev z
	dev=$(zram_dev_up "$1") || return 1
	z=${dev#/dev/}
	echo 1 > "/sys/block/$z/queue/rotational" || return 1
	mkswap "$dev" >/dev/null || return 1
	swapon "$dev" || return 1
	echo "$dev"
}

# swapon's "Adding ...k swap on DEV. Priority:P extents:E across:Nk FLAGS"
# names SS for a solid state device; a rotational one has no flag there.
swapon_not_ssd() {
	local line
	line=$(dmesg | grep "swap on $1\." | tail -n 1)
	echo "$line"
	[ -n "$line" ] && ! echo "$line" | grep -q 'k SS'
}

zram_dev_down() {
	local z=${1#/dev/} id
	[ -e "/sys/block/$z/reset" ] || return 0
	grep -q "^/dev/$z " /proc/swaps && swapoff "/dev/$z"
	echo 1 > "/sys/block/$z/reset" || return 1
	# reset keeps queue attributes: the next user of zram0 (never
	# hot-removed) must not inherit zram_rot_swap_up's rotational flag
	echo 0 > "/sys/block/$z/queue/rotational" || return 1
	id=${z#zram}
	if [ "$id" != 0 ] && [ -w /sys/class/zram-control/hot_remove ]; then
		{ echo "$id" > /sys/class/zram-control/hot_remove; } 2>/dev/null
	fi
	return 0
}

zram_swap_down() {
	local d rc=0
	if [ -n "${1:-}" ]; then
		zram_dev_down "$1"
		return
	fi
	for d in $(awk '$1 ~ /^\/dev\/zram/ { print $1 }' /proc/swaps); do
		zram_dev_down "$d" || rc=1
	done
	return $rc
}

# swapon_dev DEV [PRIO]: busybox's swapon takes no priority; util-linux's
# does (copied into the initramfs off PATH).
SWAPON_PRIO=${SWAPON_PRIO:-/usr/lib/tierswap/util-linux/swapon}
swapon_dev() {
	if [ -n "${2:-}" ]; then
		"$SWAPON_PRIO" -p "$2" "$1"
	else
		swapon "$1"
	fi
}

# kill_bg PID: a background job, stopped or running, killed and reaped
# (nothing when PID is empty)
kill_bg() {
	[ -n "${1:-}" ] || return 0
	kill -CONT "$1" 2>/dev/null
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# swap_all_off: every swap device off; a virtual swap device (mm-patches
# 0013, /sys/kernel/mm/vswap) first, then its tiers removed
VSWAP_SYS=${VSWAP_SYS:-/sys/kernel/mm/vswap}
swap_all_off() {
	local d rc=0
	if [ -d "$VSWAP_SYS" ]; then
		echo 0 > "$VSWAP_SYS/size" || rc=1
		for d in $(awk '{ print $1 }' "$VSWAP_SYS/tiers"); do
			echo "$d" > "$VSWAP_SYS/remove" || rc=1
		done
	fi
	for d in $(awk 'NR > 1 && $2 != "tier" && $2 != "virtual" { print $1 }' /proc/swaps); do
		swapoff "$d" || rc=1
	done
	return $rc
}

swap_used_kb() {
	if [ -n "${1:-}" ]; then
		awk -v d="$1" '$1 == d { print $4; f = 1 } END { if (!f) print 0 }' /proc/swaps
	else
		awk 'NR > 1 { s += $4 } END { print s + 0 }' /proc/swaps
	fi
}

vmstat_get() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat
}

kv_get() {
	sed -n "s/^$2=//p" "$1" | head -n 1
}

# set_minus A B: the numbers of comma list A not in comma list B, as
# "COUNT: the first five" ("0:" when none): swapstress's sigbus_pages
# against the pages a test expected to fail
set_minus() {
	echo "$1|$2" | awk -F'|' '{ n = split($2, b, ","); for (i = 1; i <= n; i++) in_b[b[i]] = 1
		m = split($1, a, ","); k = 0; l = ""
		for (i = 1; i <= m; i++) if (a[i] != "" && !(a[i] in in_b)) { k++; if (k <= 5) l = l " " a[i] }
		printf "%d:%s\n", k, l }'
}

# wait_exit PID SECONDS: wait for the background job PID (a child of this
# shell: not from a command substitution) to end, at most SECONDS, then
# kill -9 it. Sets WAIT_RC to its exit status, or "hung" when killed.
wait_exit() {
	local i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		wait "$1"
		WAIT_RC=hung
		return
	fi
	wait "$1"
	WAIT_RC=$?
}

memcg_create() {
	local cg="$CGROOT/$1"
	mkdir "$cg" || return 1
	echo "$2" > "$cg/memory.max" || { rmdir "$cg"; return 1; }
	if [ -n "${3:-}" ]; then
		echo "$3" > "$cg/memory.swap.max" || { rmdir "$cg"; return 1; }
	fi
}

memcg_destroy() {
	local cg="$CGROOT/$1" p i=0
	[ -d "$cg" ] || return 0
	for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
		{ echo "$p" > "$CGROOT/cgroup.procs"; } 2>/dev/null
	done
	while ! rmdir "$cg" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 50 ] && { echo "memcg_destroy: rmdir $cg failed" >&2; return 1; }
		sleep 0.1
	done
}

memcg_stat() {
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$CGROOT/$1/memory.stat"
}

memcg_cleanup() {
	local d rc=0
	for d in "$CGROOT"/${1:-swapstress-}*; do
		[ -d "$d" ] || continue
		memcg_destroy "${d#$CGROOT/}" || rc=1
	done
	return $rc
}

wait_stopped() {
	local pid=$1 n=$(( ${2:-60} * 10 )) i=0
	while [ $i -lt $n ]; do
		grep -q '^State:[[:space:]]*T' "/proc/$pid/status" 2>/dev/null && return 0
		[ -d "/proc/$pid" ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# cont_wait VAR: continue the stopped job whose pid is in variable VAR,
# wait for it, empty VAR (a cleanup's kill_bg then has nothing to do);
# its exit status in CONT_RC (0 when VAR was empty: nothing ran)
cont_wait() {
	local pid
	eval "pid=\${$1:-}"
	CONT_RC=0
	[ -n "$pid" ] || return 0
	kill -CONT "$pid" 2>/dev/null
	wait "$pid"
	CONT_RC=$?
	eval "$1="
}

_thp_file() { # _thp_file SIZE FILE
	if [ "$1" = pmd ]; then
		echo "/sys/kernel/mm/transparent_hugepage/$2"
	else
		echo "/sys/kernel/mm/transparent_hugepage/hugepages-$1/$2"
	fi
}

thp_set() {
	local f
	if [ "$1" = pmd ]; then
		# PMD size: the global knob (hugepages-2048kB inherits it by default)
		f=/sys/kernel/mm/transparent_hugepage/enabled
	else
		f=$(_thp_file "$1" enabled)
	fi
	echo "$2" > "$f"
}

shmem_thp_set() {
	local f
	if [ "$1" = pmd ]; then
		f=/sys/kernel/mm/transparent_hugepage/shmem_enabled
	else
		f=$(_thp_file "$1" shmem_enabled)
	fi
	echo "$2" > "$f"
}

thp_reset() {
	local d
	echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
	{ echo never > /sys/kernel/mm/transparent_hugepage/shmem_enabled; } 2>/dev/null
	for d in /sys/kernel/mm/transparent_hugepage/hugepages-*; do
		[ -d "$d" ] || continue
		if [ "$d" = /sys/kernel/mm/transparent_hugepage/hugepages-2048kB ]; then
			{ echo inherit > "$d/enabled"; } 2>/dev/null
			{ echo inherit > "$d/shmem_enabled"; } 2>/dev/null
		else
			# some sizes (e.g. 8kB) have read-only knobs
			{ echo never > "$d/enabled"; } 2>/dev/null
			{ echo never > "$d/shmem_enabled"; } 2>/dev/null
		fi
	done
	return 0
}

_KHUGEPAGED_SLEEP=/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs

# Writing the knob wakes khugepaged, which then sleeps for the new time.
khugepaged_park() {
	[ -w "$_KHUGEPAGED_SLEEP" ] || return 0
	[ -s /tmp/.khugepaged-sleep ] || cat "$_KHUGEPAGED_SLEEP" > /tmp/.khugepaged-sleep
	echo 86400000 > "$_KHUGEPAGED_SLEEP"
}

khugepaged_restore() {
	[ -s /tmp/.khugepaged-sleep ] && cat /tmp/.khugepaged-sleep > "$_KHUGEPAGED_SLEEP"
	rm -f /tmp/.khugepaged-sleep
	return 0
}

fio_job() {
	local src="$FIO_JOBS/$1.fio" dst
	[ -r "$src" ] || { echo "fio_job: no $src" >&2; return 1; }
	if [ -z "${2:-}" ]; then
		echo "$src"
		return 0
	fi
	dst=/tmp/fio-$1-$2.fio
	sed -e "s/^runtime=.*/runtime=$2/" -e 's/^ramp_time=.*/ramp_time=0/' "$src" > "$dst" || return 1
	echo "$dst"
}

# ge VALUE MIN: VALUE is a number >= MIN (empty or not a number: false)
ge() {
	case "$1" in
	''|*[!0-9]*) return 1 ;;
	esac
	[ "$1" -ge "$2" ]
}

# ss DESC ARGS...: ss_check with the keys of $SS_KEYS (default: the swap
# counters) in its diag line
ss() {
	local desc=$1
	shift
	ss_check "$desc" "${SS_KEYS:-pswpin|pswpout|swapped_after_pageout}" "$@"
}

# ss_check DESC KEYS ARGS...: run swapstress ARGS, output in $OUT; pass when
# it exits 0 with corrupt=0 and pages_verified covering every page. A diag
# line shows the summary keys matching KEYS (an ERE alternation). Sets ss_rc.
ss_check() {
	local desc=$1 keys=$2 pages
	shift 2
	swapstress "$@" >"$OUT" 2>&1
	ss_rc=$?
	pages=$(kv_get "$OUT" pages)
	if [ $ss_rc -eq 0 ] && [ "$(kv_get "$OUT" corrupt)" = 0 ] &&
		[ "$(kv_get "$OUT" pages_verified)" -ge "${pages:-1}" ]; then
		pass "$desc"
	else
		fail "$desc" "rc=$ss_rc" "$(cat "$OUT")"
	fi
	diag "$(grep -E "^($keys)=" "$OUT" | tr '\n' ' ')"
}
