#!/bin/bash
# The whole test run behind `make test`:
#   1. host-side tests of each userspace component (make -C <dir> check, TAP);
#   2. the guest suite on one kernel (default: patched, debug flavour): one
#      boot for all tests, plus one boot for each test marked "# boot: own".
# Environment: T="a b" runs only those guest tests (and skips host tests when
# set); TREE, FLAVOUR pick the kernel. Ends with "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-patched}
flavour=${FLAVOUR:-debug}
tag=$tree-$flavour
only=${T:-}
tp=0 tf=0 ts=0

add() { tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3)); }

mkdir -p "$top/build/logs"
# Knobs of the kernel selftests' guest tests (docs/kselftests.md) reach the guest.
for v in KSELFTEST_LONG KSELFTEST_SWAP KSELFTEST_LIVE; do
	[ -n "${!v:-}" ] && export GUEST_ENV="${GUEST_ENV:+$GUEST_ENV }$v=${!v}"
done

# host_suite NAME CMD...: run a host-side TAP producer and judge it.
host_suite() {
	local name=$1 log=$top/build/logs/host-$1.tap rc out p f s verdict why
	shift
	echo "== host: $name"
	"$@" > "$log" 2> "$log.stderr"
	rc=$?
	out=$(awk -v name="host/$name" -v rc="$rc" -v extra="" -f "$top/qemu/tap-verdict.awk" < "$log")
	read -r _ _ p f s verdict why < <(echo "$out" | tail -n 1)
	printf '%s host/%s (%d passed, %d failed, %d skipped)%s\n' "$verdict" "$name" "$p" "$f" "$s" "${why:+: $why}"
	if [ "$verdict" != PASS ]; then
		echo "$out" | sed '$d'
		sed 's/^/    stderr: /' "$log.stderr" | tail -n 30
	fi
	add "$p" "$f" "$s"
}

if [ -z "$only" ]; then
	host_suite frame "$top/qemu/selftest.sh"
	for comp in $(cat "$top/qemu/components"); do
		[ -f "$top/$comp/Makefile" ] || continue
		host_suite "$(basename "$comp")" make -s -C "$top/$comp" check O="$top/build/host/$(basename "$comp")"
	done
fi

if [ -n "$only" ]; then
	names=$only
else
	names=$(cd "$top/qemu/tests" && ls ./*.sh 2>/dev/null | sed 's|^\./||; s/\.sh$//')
fi
# guest_boot NAME...: one boot of the guest running those tests, judged.
guest_boot() {
	local logs out p f s
	logs=$("$top/qemu/boot.sh" test "$tag" "$@")
	if [ -z "$logs" ]; then
		echo "FAIL guest: could not boot"
		tf=$((tf + 1))
		return
	fi
	out=$("$top/qemu/report.sh" "$logs" "$@")
	echo "$out" | sed '$d'
	read -r _ _ p f s < <(echo "$out" | tail -n 1)
	add "$p" "$f" "$s"
	awk '/^### guest up/ { print "guest: first test at " $4 " s of guest uptime" }' "$logs/results.log" | tr -d '\r'
	cat "$logs/boot.info"
	echo "logs: ${logs#"$top"/}"
}

# A test with the header line "# boot: own" runs in a boot of its own (e.g. it
# changes state that lasts for the rest of a boot); the others share one boot.
shared= own=
for n in $names; do
	if [ -f "$top/qemu/tests/$n.sh" ] && grep -q '^# boot: *own *$' "$top/qemu/tests/$n.sh"; then
		own="$own $n"
	else
		shared="$shared $n"
	fi
done
if [ -n "$shared" ]; then
	echo "== guest: $tag"
	guest_boot $shared
fi
for n in $own; do
	echo "== guest: $tag (own boot: $n)"
	guest_boot "$n"
done

echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
