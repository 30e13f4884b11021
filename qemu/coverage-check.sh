#!/bin/bash
# Check the coverage tables of docs/test-coverage.md against the series and
# the tests: coverage-check.sh [DOC SERIES TESTS_DIR COMPONENTS]
# (defaults: this checkout's). One line per problem on stdout; exit 1 if any.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
doc=${1:-$top/docs/test-coverage.md}
series=${2:-$top/mm-patches/series}
tests=${3:-$top/qemu/tests}
components=${4:-$top/qemu/components}
bad=0
problem() { echo "coverage: $*"; bad=1; }

suite_of() { sed -n 's/^# suite: *\([a-z]*\) *$/\1/p' "$tests/$1.sh" 2>/dev/null; }

# Table rows: | `item` | what | quick tests | full tests |
rows=$(awk -F'|' '/^\| `[^`]+` *\|/ {
	item = $2; gsub(/[ `]/, "", item)
	q = $4; f = $5; gsub(/^ +| +$/, "", q); gsub(/^ +| +$/, "", f)
	print item ";" q ";" f }' "$doc")
[ -n "$rows" ] || { problem "no table rows in $doc"; exit 1; }

# check_test ITEM NAME WANT: NAME is a test of suite WANT (host/C: a component).
check_test() {
	local item=$1 t=$2 want=$3 have
	case "$t" in
	host/*)
		# host/frame is qemu/selftest.sh; the others are qemu/components lines
		[ "$t" = host/frame ] || sed 's/#.*//; s|.*/||' "$components" | grep -qxF "${t#host/}" ||
			problem "$item: $t: no such host suite (qemu/components)"
		[ "$want" = quick ] || problem "$item: $t: host suites run in both suites: list it as quick"
		return ;;
	esac
	[ -f "$tests/$t.sh" ] || { problem "$item: $t: no such test ($tests/$t.sh)"; return; }
	have=$(suite_of "$t")
	[ "$have" = "$want" ] || problem "$item: $t is listed as $want but its header says '# suite: ${have:-none}'"
}

listed=" "
while IFS=";" read -r item q f; do
	[ -n "$q" ] || problem "$item: no quick test"
	for t in ${q//,/ }; do check_test "$item" "$t" quick; listed="$listed$t "; done
	for t in ${f//,/ }; do check_test "$item" "$t" full; listed="$listed$t "; done
done <<< "$rows"

# Every patch of the series has a row; every patch row is in the series.
items=$(echo "$rows" | cut -d";" -f1)
for p in $(sed 's/#.*//' "$series"); do
	echo "$items" | grep -qxF "$p" || problem "$p: a patch of the series with no row"
done
for p in $(echo "$items" | grep '\.patch$'); do
	sed 's/#.*//' "$series" | grep -qwF "$p" || problem "$p: has a row but is not in the series"
done
# Every guest test has a place.
for f in "$tests"/*.sh; do
	t=$(basename "$f" .sh)
	case "$listed" in *" $t "*) ;; *) problem "$t: a guest test in no row" ;; esac
done
exit $bad
