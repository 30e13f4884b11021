# Guest helpers for a mix of swap tiers behind one interface: a test sets
# up any combination, then changes latency or injects faults on any tier
# while its workload runs (docs/tiers.md).
#
#   tiers_up SPEC...              set up every tier, in order; returns 2 on a
#                                 bad SPEC, or when swap or zswap is already
#                                 on (nothing changed), 1 if a setup failed
#                                 (what was set up is torn down again)
#   tiers_down                    swapoff and remove every tier; 1 if a
#                                 swapoff failed or hung (that tier stays up)
#   tier_dev NAME                 its block device
#   tier_swap_type NAME           its swap type (pagemap's swap_type field)
#   tier_latency NAME OPS DELAY   delay of each read|write|rw: a duration or
#                                 distribution (50us, 1ms, uniform:20us,80us,
#                                 off; a number without a unit is us)
#   tier_error_rate NAME OPS RATE fail that share of read|write|rw operations
#                                 (20%, 250ppm; a bare number is ppm)
#   tier_fail_slot NAME SLOT      the next read touching swap slot SLOT fails (once)
#   tier_faults_off NAME          undo what the three verbs above set
#   tier_stat NAME KEY            reads|writes|read_errors|write_errors (take deltas)
#   tier_used_kb NAME             KiB of swap in use on it
#   tier_size_kb NAME             KiB of swap it has (its /proc/swaps size)
#
# tierblk and tiernbd speak one fault vocabulary (docs/conventions.md,
# "Faults and latencies"): the verbs pass DELAY and RATE to both as they
# are (but for "us" after a number without a unit, where the two tiers'
# old units differ), and read the counters by the names both use.
#
# SPEC is KIND:SIZE[:prio=P][:sync=0|1] for a swap device, KIND one of
# tierblkN (N 0..7: /dev/tierblkN), nbd ($NBD_DEV, served by tiernbd) or
# zram; SIZE a positive multiple of 4 KiB (K, M, G suffixes). The tier's
# NAME is its KIND. "zswap[:pool=PCT]" puts zswap in front of every
# device: once enabled it stays latched for the boot, so tests that use it
# run in a boot of their own.
#
# "vswap[:SIZE][:lazy=0|1]" puts a virtual swap device (mm-patches 0013+,
# docs/vswap.md) over the other devices: each becomes one of its tiers
# (/sys/kernel/mm/vswap/add "DEV prio=P", P 0 when not given) instead of
# swap of its own, and the virtual device is turned on with SIZE (default:
# the tiers' slots together); lazy=1 writes lazy_bind first (a slot gets
# its tier slot at its first write; tiers_down writes 0 back). Page tables then hold the virtual device's
# slots: its NAME is vswap (tier_dev: [vswap]); tier_used_kb of a device
# tier still reads that tier's usage.
#
# Swap types are given in swapon order (tiers_up refuses to start while
# any swap is on), so tier_swap_type maps pagemap entries back to tiers.

TIERS_LIST=${TIERS_LIST:-/tmp/tiers.list}
VSWAP_SYS=${VSWAP_SYS:-/sys/kernel/mm/vswap}
TIERS_SWAPOFF_TIMEOUT=${TIERS_SWAPOFF_TIMEOUT:-300}
ZSWAP_PARAMS=${ZSWAP_PARAMS:-/sys/module/zswap/parameters}

_tiers_err() {
	echo "tiers: $*" >&2
}

# vswap_required: 0 when this kernel has virtual swap; otherwise a plan of
# one skipped test and 1 (the test then exits 0)
vswap_required() {
	[ -d "$VSWAP_SYS" ] && return 0
	plan 1
	skip "no $VSWAP_SYS: a kernel without virtual swap (mm-patches 0013)"
	return 1
}

# vswap_zswap_required: 0 when this kernel has virtual swap with lazy
# binding (mm-patches 0024) and zswap, and remembers zswap's
# shrinker_enabled for zswap_shrinker_restore; otherwise a plan of one
# skipped test and 1 (the test then exits 0)
vswap_zswap_required() {
	vswap_required || return 1
	if [ ! -w "$VSWAP_SYS/lazy_bind" ]; then
		plan 1
		skip "no $VSWAP_SYS/lazy_bind (mm-patches 0024)"
		return 1
	fi
	if [ ! -d "$ZSWAP_PARAMS" ]; then
		plan 1
		skip "no $ZSWAP_PARAMS (CONFIG_ZSWAP)"
		return 1
	fi
	_zswap_shrinker0=$(cat "$ZSWAP_PARAMS/shrinker_enabled" 2>/dev/null)
}

# zswap_shrinker Y|N: turn zswap's shrinker (writeback) on or off
zswap_shrinker() { echo "$1" > "$ZSWAP_PARAMS/shrinker_enabled"; }
# zswap_shrinker_restore: shrinker_enabled as vswap_zswap_required found it
zswap_shrinker_restore() {
	[ -z "${_zswap_shrinker0:-}" ] || zswap_shrinker "$_zswap_shrinker0"
}
# zswap_stat NAME: a counter of debugfs zswap/
zswap_stat() { cat "/sys/kernel/debug/zswap/$1"; }

# vs_try FILE VALUE: write VALUE to $VSWAP_SYS/FILE; prints "ok" or the
# error's E-name (tierblk_try_file)
vs_try() { tierblk_try_file "$VSWAP_SYS/$1" "$2"; }

# vswap_stat KEY: the value of KEY in $VSWAP_SYS/stats
vswap_stat() { awk -v k="$1" '$1 == k { print $2 }' "$VSWAP_SYS/stats"; }

# vswap_fail_bind PCT: PCT% of the binds of an unbound slot at its write
# fail as if no tier had room (debugfs vswap/fail_bind, mm-patches 0024,
# CONFIG_FAULT_INJECTION_DEBUG_FS); 1 without it. vswap_fail_bind_off: none.
VSWAP_FAIL_BIND=${VSWAP_FAIL_BIND:-/sys/kernel/debug/vswap/fail_bind}
vswap_fail_bind() {
	[ -w "$VSWAP_FAIL_BIND/probability" ] || return 1
	echo 0 > "$VSWAP_FAIL_BIND/verbose" && echo 1 > "$VSWAP_FAIL_BIND/interval" &&
		echo -1 > "$VSWAP_FAIL_BIND/times" && echo "$1" > "$VSWAP_FAIL_BIND/probability"
}
vswap_fail_bind_off() {
	[ ! -w "$VSWAP_FAIL_BIND/probability" ] || echo 0 > "$VSWAP_FAIL_BIND/probability"
}

# _tiers_num S: S is a decimal number without leading zeros.
_tiers_num() {
	case "$1" in
	0) return 0 ;;
	'' | 0* | *[!0-9]*) return 1 ;;
	esac
	return 0
}

# _tiers_size SIZE: SIZE is a positive multiple of 4 KiB: N, NK, NM or NG.
_tiers_size() {
	local n=${1%[KMG]}
	_tiers_num "$n" && [ "$n" -gt 0 ] || return 1
	case "$1" in
	*K) [ $((n % 4)) = 0 ] ;;
	*M | *G) return 0 ;;
	*) [ $((n % 4096)) = 0 ] ;;
	esac
}

# _tiers_check SPEC: 0 when SPEC is well formed.
_tiers_check() {
	local kind size opt rest keys=
	kind=${1%%:*}
	rest=${1#"$kind"}
	rest=${rest#:}
	case "$kind" in
	tierblk[0-7] | nbd | zram)
		size=${rest%%:*}
		_tiers_size "$size" || { _tiers_err "$1: size '$size' is not a positive multiple of 4K"; return 1; }
		rest=${rest#"$size"}
		;;
	vswap)
		size=${rest%%:*}
		case "$size" in *=*) size= ;; esac
		[ -z "$size" ] || _tiers_size "$size" ||
			{ _tiers_err "$1: size '$size' is not a positive multiple of 4K"; return 1; }
		rest=${rest#"$size"}
		;;
	zswap) ;;
	*) _tiers_err "$1: unknown tier '$kind' (tierblk0..7, nbd, zram, zswap, vswap)"; return 1 ;;
	esac
	rest=${rest#:}
	while [ -n "$rest" ]; do
		opt=${rest%%:*}
		rest=${rest#"$opt"}
		rest=${rest#:}
		case " $keys " in *" ${opt%%=*} "*) _tiers_err "$1: '${opt%%=*}' given twice"; return 1 ;; esac
		keys="$keys ${opt%%=*}"
		case "$kind:$opt" in
		zswap:pool=*) _tiers_num "${opt#pool=}" && [ "${opt#pool=}" -le 100 ] ||
			{ _tiers_err "$1: pool=PCT, 0..100"; return 1; } ;;
		zswap:*) _tiers_err "$1: zswap takes pool=PCT only"; return 1 ;;
		vswap:lazy=[01]) ;;
		vswap:*) _tiers_err "$1: vswap takes SIZE and lazy=0|1 only"; return 1 ;;
		*:prio=*) _tiers_num "${opt#prio=}" && [ "${opt#prio=}" -le 32767 ] ||
			{ _tiers_err "$1: prio=P, 0..32767"; return 1; } ;;
		tierblk*:sync=[01]) ;;
		*) _tiers_err "$1: bad option '$opt'"; return 1 ;;
		esac
	done
	return 0
}

# _tiers_opt SPEC KEY: the value of KEY=... in SPEC, or nothing.
_tiers_opt() {
	echo "$1" | tr ':' '\n' | sed -n "s/^$2=//p"
}

_zswap_on() {
	[ "$(cat "$ZSWAP_PARAMS/enabled" 2>/dev/null)" = Y ]
}

tiers_up() {
	local s kind seen= zs=no vs=
	[ $# -gt 0 ] || { _tiers_err "tiers_up: no tier given"; return 2; }
	for s in "$@"; do
		_tiers_check "$s" || return 2
		kind=${s%%:*}
		case " $seen " in *" $kind "*) _tiers_err "$kind given twice"; return 2 ;; esac
		seen="$seen $kind"
		[ "$kind" = zswap ] && zs=yes
		[ "$kind" = vswap ] && vs=$s
	done
	if [ -n "$vs" ]; then
		[ -d "$VSWAP_SYS" ] || { _tiers_err "vswap: no $VSWAP_SYS (a kernel without virtual swap)"; return 2; }
		case "$seen" in
		*tierblk* | *nbd* | *zram*) ;;
		*) _tiers_err "vswap: no device to be its tier"; return 2 ;;
		esac
	fi
	if [ "$(tail -n +2 /proc/swaps | wc -l)" != 0 ]; then
		_tiers_err "swap is already active: swapoff first"
		return 2
	fi
	case "$seen" in
	*tierblk*) grep -q '^tierblk ' /proc/modules &&
		{ _tiers_err "tierblk is already loaded"; return 2; } ;;
	esac
	# zswap in front would serve swap-ins from its pool: no device would
	# see them, nor their faults
	if [ $zs = no ] && _zswap_on; then
		_tiers_err "zswap is on and no zswap tier was asked for"
		return 2
	fi
	# the list belongs to this shell: tiers_down leaves other shells' lists alone
	echo "# $$" > "$TIERS_LIST"
	TIERS_WANT="$*"
	TIERS_VSWAP=${vs:+yes}
	for s in "$@"; do
		[ "${s%%:*}" = vswap ] && continue
		_tiers_up_one "$s" || { _tiers_err "setting up $s failed"; tiers_down; return 1; }
	done
	if [ -n "$vs" ]; then
		_tiers_up_one "$vs" || { _tiers_err "setting up $vs failed"; tiers_down; return 1; }
	fi
	return 0
}

# _tiers_swapon DEV PRIO: DEV becomes swap, or a tier of the virtual device
# when tiers_up was given vswap
_tiers_swapon() {
	if [ "$TIERS_VSWAP" = yes ]; then
		echo "$1 prio=${2:-0}" > "$VSWAP_SYS/add"
	else
		swapon_dev "$1" "$2"
	fi
}

# _tiers_up_one SPEC: set up one checked SPEC. "NAME DEV" goes on the list
# as soon as the device exists, so that tiers_down removes it on failure.
_tiers_up_one() {
	local kind=${1%%:*} size prio sync i max
	size=$(echo "$1" | cut -d: -f2)
	prio=$(_tiers_opt "$1" prio)
	case "$kind" in
	tierblk*)
		i=${kind#tierblk}
		if ! grep -q '^tierblk ' /proc/modules; then
			# devices 0..N for the highest tierblkN asked for
			max=$(echo "$TIERS_WANT" | tr ' ' '\n' | sed -n 's/^tierblk\([0-7]\).*/\1/p' | sort -n | tail -1)
			tierblk_load nr_devices=$((max + 1)) size="$size" || return 1
			echo "tierblk-module -" >> "$TIERS_LIST"
		fi
		echo "$kind /dev/$kind" >> "$TIERS_LIST"
		tierblk_set "$i" disksize "$size" || return 1
		sync=$(_tiers_opt "$1" sync)
		[ -z "$sync" ] || tierblk_set "$i" synchronous "$sync" || return 1
		mkswap "/dev/$kind" >/dev/null && _tiers_swapon "/dev/$kind" "$prio"
		;;
	nbd)
		nbd_tier_up "$size" || { nbd_tier_down; return 1; }
		echo "nbd $NBD_DEV" >> "$TIERS_LIST"
		mkswap "$NBD_DEV" >/dev/null && _tiers_swapon "$NBD_DEV" "$prio"
		;;
	zram)
		i=$(zram_dev_up "$size") || return 1
		echo "zram $i" >> "$TIERS_LIST"
		mkswap "$i" >/dev/null && _tiers_swapon "$i" "$prio"
		;;
	vswap)
		case "$size" in vswap | *=*)
			size=$(awk '{ s += $3 } END { print s "K" }' "$VSWAP_SYS/tiers") ;;
		esac
		echo "vswap [vswap]" >> "$TIERS_LIST"
		i=$(_tiers_opt "$1" lazy)
		[ -z "$i" ] || echo "$i" > "$VSWAP_SYS/lazy_bind" || return 1
		echo "$size" > "$VSWAP_SYS/size"
		;;
	zswap)
		echo "zswap $(cat "$ZSWAP_PARAMS/max_pool_percent")" >> "$TIERS_LIST"
		i=$(_tiers_opt "$1" pool)
		[ -z "$i" ] || echo "$i" > "$ZSWAP_PARAMS/max_pool_percent" || return 1
		echo 1 > "$ZSWAP_PARAMS/enabled"
		;;
	esac
}

# _tiers_swapoff DEV: swapoff DEV if it is on (a virtual device's tier is
# removed, the virtual device turned off); 1 if that failed or hung (a
# leaked slot makes try_to_unuse() retry for ever).
_tiers_swapoff() {
	case "$(awk -v d="$1" '$1 == d { print $2 }' /proc/swaps)" in
	'') return 0 ;;
	tier) echo "$1" > "$VSWAP_SYS/remove" && return 0 ;;
	virtual) timeout "$TIERS_SWAPOFF_TIMEOUT" sh -c "echo 0 > $VSWAP_SYS/size" && return 0 ;;
	*) timeout "$TIERS_SWAPOFF_TIMEOUT" swapoff "$1" && return 0 ;;
	esac
	_tiers_err "swapoff $1 failed or hung"
	return 1
}

tiers_down() {
	local name dev rc=0 keep=no
	[ -f "$TIERS_LIST" ] || return 0
	read -r name dev < "$TIERS_LIST"
	[ "$dev" = "$$" ] || { _tiers_err "$TIERS_LIST is not this shell's"; return 1; }
	# the virtual device goes first: its tiers hold its pages
	if grep -q '^vswap ' "$TIERS_LIST" && ! _tiers_swapoff '[vswap]'; then
		rm -f "$TIERS_LIST"
		return 1
	fi
	# off now: lazy_bind back to its default for the next test
	[ ! -w "$VSWAP_SYS/lazy_bind" ] || echo 0 > "$VSWAP_SYS/lazy_bind"
	while read -r name dev; do
		case "$name" in
		'#') ;;
		zswap)
			echo 0 > "$ZSWAP_PARAMS/enabled"
			echo "$dev" > "$ZSWAP_PARAMS/max_pool_percent"
			;;
		nbd) if _tiers_swapoff "$dev"; then nbd_tier_down; else rc=1; fi ;;
		zram) if _tiers_swapoff "$dev"; then zram_dev_down "$dev"; else rc=1; fi ;;
		tierblk[0-7]) _tiers_swapoff "$dev" || { rc=1; keep=yes; } ;;
		vswap) ;;
		esac
	done < "$TIERS_LIST"
	if grep -q '^tierblk-module ' "$TIERS_LIST" && [ $keep = no ]; then
		rmmod tierblk || { _tiers_err "rmmod tierblk failed"; rc=1; }
	fi
	rm -f "$TIERS_LIST"
	return $rc
}

# _tier_get NAME: TIER_DEV of a tier that is up (1 and a message if not).
_tier_get() {
	TIER_DEV=$(awk -v n="$1" '$1 == n { print $2 }' "$TIERS_LIST" 2>/dev/null)
	[ -n "$TIER_DEV" ] || { _tiers_err "no tier '$1' is up"; return 1; }
}

# _tier_dev NAME: TIER_DEV of a tier that is a swap device.
_tier_dev() {
	_tier_get "$1" || return 1
	case "$1" in zswap) _tiers_err "zswap is not a swap device"; return 2 ;; esac
}

tier_dev() {
	_tier_dev "$1" && echo "$TIER_DEV"
}

# tier_swap_type NAME: types follow swapon order, the order of the list
tier_swap_type() {
	_tier_dev "$1" || return
	awk -v d="$TIER_DEV" '$1 !~ /^(#|zswap|tierblk-module)$/ { if ($2 == d) { print t; exit } t++ }' \
		t=0 "$TIERS_LIST"
}

# _tier_swaps NAME FIELD: that field of NAME's /proc/swaps line (0 if none)
_tier_swaps() {
	_tier_dev "$1" || return
	awk -v d="$TIER_DEV" -v f="$2" '$1 == d { print $f; n = 1 } END { if (!n) print 0 }' /proc/swaps
}
tier_size_kb() { _tier_swaps "$1" 3; }
tier_used_kb() { _tier_swaps "$1" 4; }

# _tier_ops OPS: "read", "write" or "read write" (1 on a bad OPS).
_tier_ops() {
	case "$1" in
	read | write) echo "$1" ;;
	rw) echo "read write" ;;
	*) _tiers_err "operations '$1': read, write or rw"; return 1 ;;
	esac
}

# _tier_nofault NAME: the tiers without fault injection.
_tier_nofault() {
	_tiers_err "$1 has no latency or fault injection (tierblkN and nbd do)"
	return 2
}

# _tier_refused NAME KNOB VALUE: say which tier refused what; 2
_tier_refused() {
	_tiers_err "$1 refused $2 '$3'"
	return 2
}

tier_latency() {
	local ops op d=$3
	_tier_get "$1" || return 1
	ops=$(_tier_ops "$2") || return 2
	[ -n "$d" ] || { _tiers_err "latency: a duration or distribution"; return 2; }
	# every number without a unit is us (tierblk would read ns)
	d=$(echo "$d" | sed -E -e ':a' -e 's/(^|[:,])([0-9.]+)(,|$)/\1\2us\3/' -e 'ta')
	case "$1" in
	tierblk*)
		for op in $ops; do
			tierblk_set "${1#tierblk}" "${op}_latency" "$d" 2>/dev/null ||
				_tier_refused "$1" latency "$d" || return
		done
		;;
	nbd)
		nbd_ctl latency "$(echo $ops | tr ' ' ,)" "$d" >/dev/null 2>&1 ||
			_tier_refused "$1" latency "$d"
		;;
	*) _tier_nofault "$1" ;;
	esac
}

tier_error_rate() {
	local ops op
	_tier_get "$1" || return 1
	ops=$(_tier_ops "$2") || return 2
	[ -n "$3" ] || { _tiers_err "rate: N% or Nppm"; return 2; }
	case "$1" in
	tierblk*)
		for op in $ops; do
			tierblk_set "${1#tierblk}" "error_rate_$op" "$3" 2>/dev/null ||
				_tier_refused "$1" "error rate" "$3" || return
		done
		;;
	nbd)
		nbd_ctl error rate "$(echo $ops | tr ' ' ,)" "$3" >/dev/null 2>&1 ||
			_tier_refused "$1" "error rate" "$3"
		;;
	*) _tier_nofault "$1" ;;
	esac
}

# tier_fail_slot NAME SLOT: tierblk has one pending one-shot sector per
# device, so a second slot is refused until the first has fired; tiernbd
# takes any number (one range rule each).
tier_fail_slot() {
	_tier_get "$1" || return 1
	_tiers_num "$2" || { _tiers_err "slot '$2': a swap offset"; return 2; }
	case "$1" in
	tierblk*)
		[ "$(tierblk_get "${1#tierblk}" one_shot_read_sector)" = none ] ||
			{ _tiers_err "$1: a one-shot read fault is pending already"; return 2; }
		tierblk_set "${1#tierblk}" one_shot_read_sector "${2}p"
		;;
	nbd) nbd_ctl error add read "${2}p+1p" count=1 >/dev/null ;;
	*) _tier_nofault "$1" ;;
	esac
}

tier_faults_off() {
	local i
	_tier_get "$1" || return 1
	case "$1" in
	tierblk*)
		i=${1#tierblk}
		tierblk_set "$i" read_latency 0 && tierblk_set "$i" write_latency 0 &&
			tierblk_set "$i" error_rate_read 0 && tierblk_set "$i" error_rate_write 0 &&
			tierblk_set "$i" one_shot_read_sector none
		;;
	nbd) nbd_ctl latency read,write off >/dev/null && nbd_ctl error clear >/dev/null ;;
	*) return 0 ;;
	esac
}

tier_stat() {
	local z
	_tier_get "$1" || return 1
	case "$2" in
	reads | writes | read_errors | write_errors) ;;
	*) _tiers_err "stat '$2': reads, writes, read_errors or write_errors"; return 2 ;;
	esac
	case "$1:$2" in
	tierblk*:*) tierblk_stat "${1#tierblk}" "$2" ;;
	nbd:*) nbd_counter "$2" ;;
	zram:*)
		z=/sys/block/${TIER_DEV#/dev/}
		case "$2" in
		reads) awk '{ print $1 }' "$z/stat" ;;
		writes) awk '{ print $5 }' "$z/stat" ;;
		read_errors) awk '{ print $1 }' "$z/io_stat" ;;
		write_errors) awk '{ print $2 }' "$z/io_stat" ;;
		esac
		;;
	zswap:reads) vmstat_get zswpin ;;
	zswap:writes) vmstat_get zswpout ;;
	*) _tiers_err "$1 counts no $2"; return 2 ;;
	esac
}
