# Guest helpers for the benches (qemu/bench/*.sh).
#
#   median        the median of the numbers on stdin (words or lines);
#                 nothing when there are none
#   uptime_ms     /proc/uptime in milliseconds (10 ms steps)

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
