#!/bin/bash
# The time table's rows of one judged boot: boot-rows.sh LOGDIR LABEL REPORT
# REPORT is the file holding qemu/report.sh's output for that boot. Prints
# "LABEL<TAB>TEST<TAB>SECONDS<TAB>VERDICT" per test that began (seconds of
# guest uptime from qemu/times.awk, verdict PASS/FAIL as report.sh gave it,
# "?" if none): the rows of times.tsv (qemu/test.sh, qemu/lava-run.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:?logdir} label=${2:?label} report=${3:?report}
awk -f "$top/qemu/times.awk" "$logs/results.log" | while IFS=$'\t' read -r t secs; do
	v=$(awk -v t="$t" '($1 == "PASS" || $1 == "FAIL") && $2 == t { print $1; exit }' "$report")
	printf '%s\t%s\t%s\t%s\n' "$label" "$t" "$secs" "${v:-?}"
done
