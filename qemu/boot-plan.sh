#!/bin/bash
# The boots that run a list of guest tests: boot-plan.sh SUITE NAME...
# One line per boot: "LABEL FLAVOUR NAME...", FLAVOUR "-" for the run's own
# kernel flavour. The tests share one boot (label "shared") except:
#  - a test with the header line "# boot: own" (it changes state that lasts
#    for the rest of a boot, e.g. enabling zswap) gets a boot of its own,
#    labelled by its name;
#  - in the full suite, a test with "# also-flavour: F" runs once more, in a
#    boot of its own on the F flavour of the same tree (qemu/build-kernel.sh),
#    labelled NAME@F;
#  - in the full suite, the tests with "# also-vswap: yes" run once more, all
#    in one boot labelled "vswap" whose tests see TIERSWAP_VSWAP=1: their
#    tierblk swap goes behind the virtual swap device (qemu/guest/lib/
#    tierblk.sh). A boot's extra guest environment: boot-plan.sh --env LABEL.
# qemu/test.sh runs these boots; qemu/lava-jobs.sh writes a LAVA job for each.
# BOOT_PLAN_TESTS: another directory of tests (the frame's own tests).
set -euo pipefail

# --env LABEL: the NAME=VALUE words a boot's guest gets on top of GUEST_ENV
if [ "${1:-}" = --env ]; then
	case "${2:?--env LABEL}" in
	vswap) echo TIERSWAP_VSWAP=1 ;;
	esac
	exit 0
fi

top=$(cd "$(dirname "$0")/.." && pwd)
tests=${BOOT_PLAN_TESTS:-$top/qemu/tests}
suite=${1:?suite}
shift
case "$suite" in
quick | full) ;;
*) echo "boot-plan: unknown suite '$suite' (quick or full)" >&2; exit 2 ;;
esac

header() { # header NAME KEY: the value of "# KEY: value" in the test, if any
	sed -n "s/^# $2: *\\([a-z0-9-]*\\) *\$/\\1/p" "$tests/$1.sh" 2>/dev/null | head -n 1
}

shared= own= extra= vswap= vswap_own=
for n in "$@"; do
	if [ "$(header "$n" boot)" = own ]; then
		own="$own $n"
	else
		shared="$shared $n"
	fi
	f=$(header "$n" also-flavour)
	[ "$suite" = full ] && [ -n "$f" ] && extra="$extra $n@$f"
	if [ "$suite" = full ] && [ "$(header "$n" also-vswap)" = yes ]; then
		# a test that needs a boot of its own (it may hang a broken
		# kernel) goes last
		if [ "$(header "$n" boot)" = own ]; then vswap_own="$vswap_own $n"; else vswap="$vswap $n"; fi
	fi
done
vswap="$vswap$vswap_own"
[ -n "$shared" ] && echo "shared -$shared"
for n in $own; do echo "$n - $n"; done
for x in $extra; do echo "$x ${x#*@} ${x%@*}"; done
[ -n "$vswap" ] && echo "vswap -$vswap"
exit 0
