# KTAP output for every shell test producer: the host suites source this
# file, and the guest gets it as /usr/lib/tierswap/lib/ktap.sh (qemu/
# mkinitramfs.sh), so guest tests and host suites speak one dialect
# (docs/conventions.md, "Test output"). For bash, dash and busybox ash
# (POSIX sh and `local`).
#
#   plan 3                                 the plan first, when it is known
#   pass "what" / fail "what" [detail...]
#   check "what" CMD...                    pass when CMD succeeds; its output
#                                          is a diagnostic when it fails;
#                                          returns 0 either way (a failed
#                                          check is recorded, not an error)
#   check_eq "what" EXPECTED ACTUAL
#   skip "what" "reason"                   ok N - what # SKIP reason
#   xfail "what" "reason"                  ok N - what # XFAIL reason: a
#                                          known failure (kselftest's form)
#   diag "line" ... / CMD | diag           '#' lines, one an argument
#   bail "reason"                          Bail out! and exit 1
#   tap_status                             0 when all passed, as planned
#   tap_end                                the plan if none came first, a
#                                          summary line; tap_status
#
# The first line is "KTAP version 1", printed with the first line any
# helper prints (sourcing prints nothing). Every result is numbered.

_tap_n=0
_tap_planned=
_tap_failed=0
_tap_head=

_tap_header() {
	[ -n "$_tap_head" ] && return 0
	_tap_head=1
	echo "KTAP version 1"
}

plan() {
	_tap_header
	_tap_planned=$1
	echo "1..$1"
}

# _tap_result ok|not ok TEXT: one numbered result line
_tap_result() {
	_tap_header
	_tap_n=$((_tap_n + 1))
	echo "$1 $_tap_n - $2"
}

pass() {
	_tap_result ok "$1"
}

fail() {
	_tap_failed=$((_tap_failed + 1))
	_tap_result "not ok" "$1"
	shift
	[ $# -gt 0 ] && diag "$@"
	return 0
}

skip() {
	_tap_result ok "$1 # SKIP${2:+ $2}"
}

xfail() {
	_tap_result ok "$1 # XFAIL${2:+ $2}"
}

# diag LINE...: each argument, and each line in it, as a comment; without
# arguments, stdin's lines.
diag() {
	_tap_header
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" | sed 's/^/# /'
	else
		sed 's/^/# /'
	fi
}

# check DESC CMD...: CMD runs in this shell (what it sets stays set), its
# output into a file that becomes the diagnostic of a failure.
check() {
	# names of its own: the command sees the caller's variables
	local _tap_desc=$1 _tap_out=${TMPDIR:-/tmp}/.ktap-check.$$.$_tap_n
	shift
	if "$@" >"$_tap_out" 2>&1; then
		pass "$_tap_desc"
	else
		fail "$_tap_desc" "command: $*" "$(head -n 40 "$_tap_out")"
	fi
	rm -f "$_tap_out"
}

check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

bail() {
	_tap_header
	echo "Bail out! $*"
	exit 1
}

tap_status() {
	[ "$_tap_failed" -eq 0 ] && [ "$_tap_n" = "${_tap_planned:-$_tap_n}" ]
}

tap_end() {
	_tap_header
	[ -n "$_tap_planned" ] || echo "1..$_tap_n"
	echo "# $((_tap_n - _tap_failed)) of $_tap_n passed"
	tap_status
}
