# Guest helpers for the benches (qemu/bench/*.sh).
#
#   median        the median of the numbers on stdin (words or lines);
#                 nothing when there are none
#   uptime_ms     /proc/uptime in milliseconds (10 ms steps)
#   fprof_start FUNC...
#                 ftrace's function profiler on, for those of FUNC that
#                 can be traced; 1 when the kernel has no profiler
#                 (FLAVOUR=profile has it) or none of FUNC can be traced
#   fprof_missing FUNC...
#                 those of FUNC that cannot be traced (inlined or absent)
#   fprof_stop FILE
#                 the profiler off; appends "FUNC HITS TIME_US" per
#                 function, summed over CPUs, to FILE. The time includes
#                 the calls the function makes (graph-time), and with them
#                 the profiler's own cost at each profiled call below it;
#                 with FPROF_SELF=1 at fprof_start, only what the function
#                 itself ran, the profiled functions it called left out
#   fprof_table ROUNDS A FILE_A B FILE_B
#                 per function: calls and us a call under A and B, and
#                 the ms a round B spends there more than A

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

FPROF=/sys/kernel/tracing

# whether FUNC can be traced (a module's are listed as "FUNC [module]")
fprof_traceable() {
	grep -Eq "^$1( \[[^]]*\])?\$" "$FPROF/available_filter_functions"
}

fprof_missing() {
	local f
	for f in "$@"; do fprof_traceable "$f" || printf ' %s' "$f"; done
}

fprof_start() {
	local f
	[ -e "$FPROF/function_profile_enabled" ] ||
		mount -t tracefs nodev "$FPROF" 2>/dev/null
	[ -w "$FPROF/function_profile_enabled" ] || return 1
	echo 0 > "$FPROF/function_profile_enabled"
	: > "$FPROF/set_ftrace_filter"
	for f in "$@"; do
		fprof_traceable "$f" && echo "$f" >> "$FPROF/set_ftrace_filter"
	done
	# an empty filter would profile every function in the kernel
	grep -q . "$FPROF/set_ftrace_filter" || return 1
	if [ "${FPROF_SELF:-0}" = 1 ]; then
		echo 0 > "$FPROF/options/graph-time"
	else
		echo 1 > "$FPROF/options/graph-time"
	fi
	# enabling it starts every count from zero
	echo 1 > "$FPROF/function_profile_enabled"
}

fprof_stop() {
	echo 0 > "$FPROF/function_profile_enabled"
	# "  name  hits  time us  avg us  s^2 us": after the two header lines
	cat "$FPROF"/trace_stat/function* | awk '
		$3 ~ /^[0-9.]+$/ && $2 ~ /^[0-9]+$/ { hits[$1] += $2; us[$1] += $3 }
		END { for (f in hits) printf "%s %d %.1f\n", f, hits[f], us[f] }' >> "$1"
}

fprof_table() {
	awk -v rounds="$1" -v a="$2" -v fa="$3" -v b="$4" '
		FILENAME == fa { ha[$1] += $2; ta[$1] += $3; seen[$1] = 1; next }
		{ hb[$1] += $2; tb[$1] += $3; seen[$1] = 1 }
		function per(t, h) { return h ? sprintf("%.2f", t / h) : "-" }
		END {
			printf "%-28s %10s %10s %10s %10s %12s\n", "function", a "_calls", a "_us", b "_calls", b "_us", "+ms/round"
			for (f in seen)
				printf "%-28s %10d %10s %10d %10s %12.1f\n", f, ha[f] / rounds, per(ta[f], ha[f]), hb[f] / rounds, per(tb[f], hb[f]), (tb[f] - ta[f]) / 1000 / rounds
		}' "$3" "$5" | { read -r h; echo "$h"; sort -k6,6gr; }
}
