#!/bin/bash
# Judge a guest run: report.sh LOGDIR NAME...
# Reads LOGDIR/results.log (TAP per test between ### markers) and
# LOGDIR/console.log (kernel log; splats between "tierswap: begin/end NAME").
# Prints one line per test and, for failures, its TAP and the splat; the last
# line is "RESULT <suite> <pass> <fail> <skip>" for the caller to add up.
# --tests-only: judge the named tests alone, not the boot and the shutdown
# (the progress lines of qemu/test.sh, while the guest still runs).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
whole=1
[ "${1:-}" = --tests-only ] && { whole=; shift; }
logs=${1:?log dir}
shift
results=$logs/results.log
console=$logs/console.log
touch "$results" "$console"

# What counts as a kernel splat.
splat_re='BUG:|WARNING:|Oops|general protection fault|Kernel panic|kernel BUG|BUG: KASAN|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked for more than|soft lockup|hard LOCKUP'

# Kernel log lines between the markers of one test (or before the first).
console_part() { # name
	tr -d '\r' < "$console" | awk -v n="$1" '
		n == "" { if (/tierswap: begin /) exit; print; next }
		index($0, "tierswap: begin " n) && $NF == n { on = 1; next }
		on && index($0, "tierswap: end " n) && $NF == n { exit }
		on { print }'
}

# The TAP of one test between its ### markers; prints rc on fd 3.
results_part() { # name
	tr -d '\r' < "$results" | awk -v n="$1" '
		$1 == "###" && $2 == "begin" && $3 == n { on = 1; next }
		on && $1 == "###" && $2 == "end" && $3 == n { print "RC " $4; exit }
		on && $1 == "###" && $2 == "leftover" { print "LEFTOVER " $0; next }
		on { print }'
}

tp=0 tf=0 ts=0
boot_splat=
[ -n "$whole" ] && boot_splat=$(console_part "" | grep -E "$splat_re" | head -n 20)
if [ -n "$boot_splat" ]; then
	echo "FAIL boot: kernel splat before the first test"
	echo "$boot_splat" | sed 's/^/    /'
	tf=$((tf + 1))
fi
died=
for t in "$@"; do
	part=$(results_part "$t")
	rc=$(echo "$part" | sed -n 's/^RC rc=\([0-9]*\).*/\1/p')
	extra=
	if [ -z "$rc" ]; then
		if [ -n "$died" ]; then
			extra="not run: $died"
		elif echo "$part" | grep -q .; then
			died="guest died or was killed during $t"
			extra="guest died or was killed while it ran"
		else
			died="guest died or was killed before $t"
			extra="not run: guest died or was killed before it"
		fi
	fi
	left=$(echo "$part" | sed -n 's/^LEFTOVER ### //p' | tr '\n' ' ')
	[ -n "$left" ] && extra="${extra:+$extra; }left behind: $left"
	splat=$(console_part "$t" | grep -E -A12 "$splat_re" | head -n 40)
	[ -n "$splat" ] && extra="${extra:+$extra; }kernel splat in the guest log"
	out=$(echo "$part" | grep -v -e '^RC ' -e '^LEFTOVER ' |
		awk -v name="$t" -v rc="$rc" -v extra="$extra" -f "$top/qemu/tap-verdict.awk")
	read -r _ _ p f s verdict why < <(echo "$out" | tail -n 1)
	printf '%s %s (%d passed, %d failed, %d skipped)%s\n' "$verdict" "$t" "$p" "$f" "$s" "${why:+: $why}"
	echo "$out" | sed '$d'
	[ -n "$splat" ] && { echo "    kernel log:"; echo "$splat" | sed 's/^/    | /'; }
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
done
# A panic or hang after the last test also fails the run.
if [ -n "$whole" ] && [ -z "$died" ] && ! grep -q '^### guest done' "$results"; then
	echo "FAIL shutdown: the guest did not finish cleanly (see $console)"
	tf=$((tf + 1))
fi
echo "RESULT guest $tp $tf $ts"
