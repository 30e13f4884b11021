#!/bin/bash
# The parts of the kernel's selftests that the chosen guest tests run, from
# each test's own header line "# kselftest: PART..." (PART: mm, cgroup, zram):
#   kselftest-parts.sh quick|full [TEST...]
# With TEST names, those tests (whatever their suite), else the suite's tests
# (suite-list.sh). Prints the parts on one line, or "none". `make test` builds
# only these (build-kselftests.sh): the quick suite needs zram's scripts, not
# the 45 s of static mm and cgroup binaries the full suite runs.
set -uo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
suite=${1:?quick or full}
shift
if [ $# -gt 0 ]; then
	tests=("$@")
else
	list=$("$dir/suite-list.sh" "$suite") || exit $?
	mapfile -t tests <<< "$list"
fi
for t in "${tests[@]}"; do
	[ -f "$dir/tests/$t.sh" ] || { echo "kselftest-parts: no guest test '$t'" >&2; exit 2; }
done
parts=$(for t in "${tests[@]}"; do sed -n 's/^# kselftest: *//p' "$dir/tests/$t.sh"; done |
	tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
for p in $parts; do
	case "$p" in
	mm | cgroup | zram) ;;
	*) echo "kselftest-parts: unknown part '$p' (mm, cgroup, zram)" >&2; exit 2 ;;
	esac
done
parts=${parts% }
echo "${parts:-none}"
