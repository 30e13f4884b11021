# TAP output for guest tests.
#
#   plan 3
#   ok_if "swap is on" grep -q zram0 /proc/swaps   # runs a command
#   check "pages verified" [ "$n" -gt 0 ]          # same, reads better for tests
#   pass "what" / fail "what" [detail...]
#   skip "what" "reason"
#   diag "text"                                    # a '#' comment line
#   bail "reason"                                  # Bail out! and exit 1
#
# Every helper numbers its line; tap_done (called by the EXIT trap set in
# plan) reports a mismatch between the plan and the lines printed.

_tap_n=0
_tap_planned=
_tap_failed=0

plan() {
	_tap_planned=$1
	echo "1..$1"
}

pass() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1"
}

fail() {
	_tap_n=$((_tap_n + 1))
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $1"
	shift
	[ $# -gt 0 ] && diag "$@"
	return 0
}

skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# check DESC CMD...: ok when CMD succeeds; its output is shown on failure.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$desc"
	else
		fail "$desc" "command: $*" "$out"
	fi
}
ok_if() { check "$@"; }

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

bail() {
	echo "Bail out! $*"
	exit 1
}

# Exit status for the end of a test: non-zero when anything failed.
tap_status() {
	[ "$_tap_failed" -eq 0 ] && [ "$_tap_n" = "${_tap_planned:-$_tap_n}" ]
}
