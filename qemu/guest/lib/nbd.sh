# Guest helpers for the slow tier served by tiernbd (nbd-backend/,
# docs/tiernbd.md): a RAM export on 127.0.0.1 connected to /dev/nbd0 by
# nbd-client through the kernel's nbd driver.
#
#   nbd_tier_up SIZE [TIERNBD_OPTION...]  start tiernbd, connect $NBD_DEV
#   nbd_tier_down                         swapoff, disconnect, stop tiernbd
#   nbd_swapon [PRIO]                     mkswap + swapon $NBD_DEV
#   nbd_ctl ARGS...                       tiernbd-ctl on the control socket
#   nbd_stat OP KEY                       one counter: nbd_stat read requests
#   nbd_counter KEY                       one of the counters tierblk has too:
#                                         nbd_counter read_errors
#   nbd_server_pid                        pid of the running tiernbd
#   nbd_ms                                milliseconds of uptime (10 ms steps)
#
# Knobs (environment): NBD_DEV (/dev/nbd0), NBD_PORT (10809), NBD_CONNS
# (nbd-client -C, 1), NBD_TIMEOUT (nbd-client -t seconds, 30), NBD_CTL,
# NBD_LOG (server log, /tmp/tiernbd.log).
#
# Swap goes to /dev/nbd0 with one connection. Multi-connection tests use
# another device (/dev/nbd1): connecting with -C N > 1 makes the driver
# resize its hardware queues (blk_mq_update_nr_hw_queues: q->sysfs_lock,
# set->srcu, queue freeze), and lockdep then links that device's queue to
# the socket locks; a later swap-in on the same device (fault under the
# VMA lock -> submit_bio) is reported as a possible circular locking
# dependency for the rest of the boot.

NBD_DEV=${NBD_DEV:-/dev/nbd0}
NBD_PORT=${NBD_PORT:-10809}
NBD_CONNS=${NBD_CONNS:-1}
NBD_TIMEOUT=${NBD_TIMEOUT:-30}
NBD_CTL=${NBD_CTL:-/tmp/tiernbd.ctl}
NBD_LOG=${NBD_LOG:-/tmp/tiernbd.log}
NBD_PIDFILE=${NBD_PIDFILE:-/tmp/tiernbd.pid}

nbd_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

nbd_server_pid() {
	cat "$NBD_PIDFILE" 2>/dev/null
}

nbd_ctl() {
	tiernbd-ctl -s "$NBD_CTL" "$@"
}

nbd_stat() {
	nbd_ctl stats | awk -v op="op=$1" -v k="$2" '
		$1 == op { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }'
}

nbd_counter() {
	nbd_ctl stats | awk -v k="$1" 'NF == 2 && $1 == k { print $2 }'
}

_nbd_devname() {
	echo "${NBD_DEV#/dev/}"
}

# nbd_connected: the kernel device has a size (nbd-client is done)
nbd_connected() {
	local s
	s=$(cat "/sys/block/$(_nbd_devname)/size" 2>/dev/null)
	[ -n "$s" ] && [ "$s" != 0 ]
}

nbd_tier_up() {
	local size=$1 i=0
	shift
	rm -f "$NBD_PIDFILE"
	tiernbd --size "$size" --bind 127.0.0.1 --port "$NBD_PORT" --ctl "$NBD_CTL" \
		--pidfile "$NBD_PIDFILE" --max-conns 8 "$@" >>"$NBD_LOG" 2>&1 &
	while [ ! -s "$NBD_PIDFILE" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "nbd_tier_up: tiernbd did not start" >&2; tail -5 "$NBD_LOG" >&2; return 1; }
		sleep 0.1
	done
	nbd-client 127.0.0.1 "$NBD_PORT" "$NBD_DEV" -N tiernbd -b 4096 \
		-C "$NBD_CONNS" -t "$NBD_TIMEOUT" >>"$NBD_LOG" 2>&1 ||
		{ echo "nbd_tier_up: nbd-client failed" >&2; tail -5 "$NBD_LOG" >&2; return 1; }
	i=0
	until nbd_connected; do
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "nbd_tier_up: $NBD_DEV has no size" >&2; return 1; }
		sleep 0.1
	done
}

nbd_swapon() {
	mkswap "$NBD_DEV" >/dev/null && swapon_dev "$NBD_DEV" "${1:-}"
}

# _nbd_alive PID: running (a zombie child counts as gone)
_nbd_alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! awk '{ exit ($3 == "Z") ? 0 : 1 }' "/proc/$1/stat" 2>/dev/null
}

nbd_tier_down() {
	local pid i=0
	if grep -q "^$NBD_DEV " /proc/swaps 2>/dev/null; then
		swapoff "$NBD_DEV" 2>/dev/null
	fi
	nbd-client -d "$NBD_DEV" >/dev/null 2>&1
	pid=$(nbd_server_pid)
	if [ -n "$pid" ] && _nbd_alive "$pid"; then
		kill -CONT "$pid" 2>/dev/null
		kill "$pid" 2>/dev/null
		while _nbd_alive "$pid" && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$pid" 2>/dev/null
	fi
	rm -f "$NBD_PIDFILE"
	return 0
}
