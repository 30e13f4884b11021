#!/bin/bash
# The guest tests of a suite: suite-list.sh quick|full [DIR]
# Each test says which suite it belongs to in its own header line
# "# suite: quick" or "# suite: full"; quick lists the quick tests, full
# lists every test. Names on stdout, one a line; a test without exactly
# one valid header is named on stderr and the exit status is 1.
set -uo pipefail

suite=${1:?quick or full}
dir=${2:-$(cd "$(dirname "$0")" && pwd)/tests}
case "$suite" in
quick | full) ;;
*) echo "suite-list: unknown suite '$suite' (quick or full)" >&2; exit 2 ;;
esac

rc=0
for f in "$dir"/*.sh; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .sh)
	s=$(sed -n 's/^# suite: *\([a-z]*\) *$/\1/p' "$f")
	case "$s" in
	quick) echo "$n" ;;
	full) [ "$suite" = full ] && echo "$n" ;;
	*) echo "suite-list: $n: needs one header line '# suite: quick' or '# suite: full' (has: '${s//$'\n'/,}')" >&2; rc=1 ;;
	esac
done
exit $rc
