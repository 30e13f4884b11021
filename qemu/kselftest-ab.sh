#!/bin/bash
# The kernel's own selftests on the base and the patched kernel, side by side:
#   kselftest-ab.sh            (behind `make kselftest-ab`)
# Runs the guest tests qemu/tests/kselftest-*.sh (KT="a b" a subset) through
# qemu/test.sh on TREE=base then TREE=patched (FLAVOUR, default debug), reads
# every TAP line of both runs and prints one table: subtest, base, patched.
# The run fails when a subtest (or a whole test) passes on base and does not
# pass on patched, when a case fails on both kernels without being listed in
# qemu/kselftest-xfail, or when a listed case does not fail on base (stale
# entry). Subtests skipped on both are listed with the reason.
# The table is also written to build/logs/kselftest-ab.txt.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${FLAVOUR:-debug}
tests=${KT:-$(cd "$top/qemu/tests" && ls kselftest-*.sh | sed 's/\.sh$//' | tr '\n' ' ')}
out=$top/build/logs/kselftest-ab
mkdir -p "$out"

# --table DIR: only judge DIR/{base,patched}.{tap,verdicts} (qemu/selftest.sh);
# --collect DIR: make those from DIR/{base,patched}.out (qemu/test.sh outputs,
# whose "logs:" lines name the boots) and judge.
table_only= collect_only=
case "${1:-}" in
--table) table_only=1; out=${2:?dir} ;;
--collect) collect_only=1; out=${2:?dir} ;;
esac

# collect TREE: TAP of every boot named in $out/TREE.out, each line prefixed
# with its test's name, and report.sh's whole-test verdicts
collect() {
	local tree=$1 l
	: > "$out/$tree.tap"
	sed -n 's/^logs: //p' "$out/$tree.out" | while read -r l; do
		tr -d '\r' < "$top/$l/results.log" | awk '
			$1 == "###" && $2 == "begin" { t = $3; next }
			$1 == "###" && $2 == "end" { t = ""; next }
			t != "" && /^(not )?ok [0-9]+ - / { print t "\t" $0 }'
	done >> "$out/$tree.tap"
	# whole-test verdicts of report.sh: "PASS name (...)" / "FAIL name (...)"
	awk '/^(PASS|FAIL) kselftest-/ { print $2 "\t" $1 }' "$out/$tree.out" > "$out/$tree.verdicts"
}

for tree in base patched; do
	[ -n "$table_only" ] && break
	[ -n "$collect_only" ] && { collect $tree; continue; }
	echo "== kselftest-ab: $tree-$flavour: $tests"
	start=$(date +%s)
	TREE=$tree FLAVOUR=$flavour T="$tests" "$top/qemu/test.sh" > "$out/$tree.out" 2>&1
	rc=$?
	echo "$tree: qemu/test.sh exit $rc in $(( $(date +%s) - start )) s: $(tail -n 1 "$out/$tree.out")"
	echo "$rc" > "$out/$tree.rc"
	collect $tree
done

xfail=${KSELFTEST_XFAIL:-$top/qemu/kselftest-xfail}
awk -v xfail="$xfail" -v basefile="$out/base.tap" '
function parse(line, tree,    t, v, d, dir, k) {
	t = line; sub(/\t.*/, "", t); sub(/^[^\t]*\t/, "", line)
	v = (line ~ /^not ok/) ? "fail" : "pass"
	d = line; sub(/^(not )?ok [0-9]+ - /, "", d)
	dir = ""
	if (match(d, / # (SKIP|TODO|XFAIL)/)) { dir = substr(d, RSTART + 3); d = substr(d, 1, RSTART - 1) }
	if (dir ~ /^SKIP/) { v = "skip"; sub(/^SKIP */, "", dir); why[tree, t "\t" d] = dir }
	else if (dir ~ /^(TODO|XFAIL) known failure/) v = "xfail"
	k = t "\t" d
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	res[tree, k] = v
}
BEGIN {
	while ((getline l < xfail) > 0) {
		if (l ~ /^#/ || l !~ /\t/) continue
		k = l; sub(/\t.*/, "", k); r = l; sub(/^[^\t]*\t+/, "", r); known[k] = r
	}
}
FILENAME == basefile { parse($0, "base"); next }
{ parse($0, "patched") }
END {
	bad = 0
	printf "%-92s %-8s %-8s\n", "subtest", "base", "patched"
	for (i = 1; i <= nk; i++) {
		k = order[i]; t = k; sub(/\t.*/, "", t); d = k; sub(/^[^\t]*\t/, "", d)
		b = (("base", k) in res) ? res["base", k] : "-"
		p = (("patched", k) in res) ? res["patched", k] : "-"
		note = ""
		flaky = (d in known) && known[d] ~ /^flaky/
		kb = (b == "fail" || b == "xfail"); kp = (p == "fail" || p == "xfail")
		if (flaky && (b != "pass" || p != "pass")) note = "listed flaky: not counted"
		else if (b == "pass" && p != "pass") { note = "REGRESSION"; bad++ }
		else if ((d in known) && !flaky && !kb) { note = "STALE xfail entry: does not fail on base"; bad++ }
		else if ((d in known) && !flaky) note = (p == "pass") ? "known failure; passes on patched" : "known failure (listed)"
		else if (kb && kp) { note = "fails on both, not in qemu/kselftest-xfail"; bad++ }
		else if (b == "-") note = "not run on base"
		else if (p == "pass" && b != "pass") note = "passes on patched only"
		else if (kp) { note = "fails on patched"; bad++ }
		printf "%-92s %-8s %-8s %s\n", substr(t ": " d, 1, 92), b, p, note
		n[t, "base", b]++; n[t, "patched", p]++; tests[t] = 1
		if (b == "skip" && p == "skip") both[++nb] = d " -- " why["patched", k]
		if (b == "xfail" || p == "xfail") kf[++nkf] = d " (base " b ", patched " p ")"
	}
	print ""
	printf "%-26s %-28s %-28s\n", "counts", "base pass/fail/xfail/skip", "patched pass/fail/xfail/skip"
	for (t in tests)
		printf "%-26s %-28s %-28s\n", t, \
			(n[t, "base", "pass"] + 0) "/" (n[t, "base", "fail"] + 0) "/" (n[t, "base", "xfail"] + 0) "/" (n[t, "base", "skip"] + 0), \
			(n[t, "patched", "pass"] + 0) "/" (n[t, "patched", "fail"] + 0) "/" (n[t, "patched", "xfail"] + 0) "/" (n[t, "patched", "skip"] + 0)
	print ""
	print "skipped on both kernels (" nb + 0 "):"
	for (i = 1; i <= nb; i++) print "  " both[i]
	print "known failures (qemu/kselftest-xfail) seen (" nkf + 0 "):"
	for (i = 1; i <= nkf; i++) print "  " kf[i]
	print "BAD " bad
}' "$out/base.tap" "$out/patched.tap" > "$out/table.txt"

# whole tests: PASS on base must stay PASS on patched
wt=$(join -t "$(printf '\t')" -a 1 -e - -o 0,1.2,2.2 <(sort "$out/base.verdicts") <(sort "$out/patched.verdicts") |
	awk -F'\t' '{ printf "%-40s %-6s %-6s%s\n", $1 " (whole test)", $2, $3, ($2 == "PASS" && $3 != "PASS") ? " REGRESSION" : "" }')

bad=$(sed -n 's/^BAD //p' "$out/table.txt")
[ -n "$bad" ] || { echo "kselftest-ab: the table could not be made" >&2; bad=1; }
{
	sed '/^BAD /d' "$out/table.txt"
	echo
	echo "whole tests (qemu/report.sh verdict: exit status, plan, kernel splats), base / patched:"
	echo "$wt"
} | tee "$out.txt"
wbad=$(echo "$wt" | grep -c REGRESSION)
# no results at all from one side is a failure too
for tree in base patched; do
	[ -s "$out/$tree.tap" ] || { echo "kselftest-ab: no results from $tree"; bad=$((bad + 1)); }
done
echo "kselftest-ab: $((bad + wbad)) problem(s); table in ${out#"$top"/}.txt; runs in ${out#"$top"/}/{base,patched}.out"
[ "$((bad + wbad))" -eq 0 ]
