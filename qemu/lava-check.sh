#!/bin/bash
# make lava-jobs: write the LAVA jobs (qemu/lava-jobs.sh) into OUTDIR and
# hold each to LAVA's own schema (qemu/lava-validate.py, lava-common), then
# show that the validator refuses broken jobs, so a pass means something.
# KTAP on stdout; exit 1 on any failure. lava-check.sh OUTDIR
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: lava-check.sh OUTDIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "KTAP version 1"
"$top/qemu/lava-jobs.sh" "$out" >&2 || { echo "Bail out! lava-jobs.sh failed"; exit 1; }
jobs=("$out"/*.yaml)
"$top/qemu/lava-validate.py" "${jobs[@]}" > "$tmp/valid"
rc=$?
[ "$rc" = 2 ] && { echo "Bail out! no lava-common (make lava-jobs installs it)"; exit 1; }
# the validator's results, then three broken copies of the first job
n=${#jobs[@]}
failed=$(grep -c '^not ok' "$tmp/valid")
grep -E '^(ok|not ok) ' "$tmp/valid"
one=${jobs[0]}
sed '/^visibility:/d' "$one" > "$tmp/no-visibility.yaml"
sed 's/^    method: qemu$/    method: qemu-nonesuch/' "$one" > "$tmp/bad-method.yaml"
sed 's/^    - name: tierswap-\(.*\)$/    - name: "tierswap \1"/' "$one" > "$tmp/bad-monitor.yaml"
for b in no-visibility bad-method bad-monitor; do
	n=$((n + 1))
	if cmp -s "$one" "$tmp/$b.yaml"; then
		echo "not ok $n - broken job $b: the edit did not apply"
		failed=$((failed + 1))
	elif "$top/qemu/lava-validate.py" "$tmp/$b.yaml" > "$tmp/out" 2>&1; then
		echo "not ok $n - broken job $b: LAVA's schema accepted it"
		failed=$((failed + 1))
	else
		echo "ok $n - broken job $b refused: $(sed -n 's/^not ok 1 - [^:]*: //p' "$tmp/out")"
	fi
done
echo "1..$n"
echo "# $((n - failed)) of $n passed; jobs in ${out#"$top"/}"
[ "$failed" = 0 ]
