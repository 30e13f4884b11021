#!/bin/bash
# The two steps of make test's RESUME=1 (qemu/test.sh), a script of their
# own so that the frame's selftest checks them on synthetic runs:
#   resume.sh passed LOGS ID SUFFIX   the guest tests that passed in the
#       runs LOGS/*-SUFFIX whose run.id is ID, the newest run first, a test
#       once: "boot test passed failed skipped seconds run", tab-separated
#   resume.sh keep RESUMED            boot lines of boot-plan.sh ("label
#       flavour test...") on stdin, without the tests RESUMED lists for
#       that label; a boot left with no test is dropped
set -uo pipefail

case "${1:-}" in
passed)
	[ $# = 4 ] || { echo "resume.sh: usage: resume.sh passed LOGS ID SUFFIX" >&2; exit 2; }
	logs=$2 id=$3 suffix=$4
	for d in $(ls -d "$logs"/*-"$suffix" 2>/dev/null | sort -r); do
		[ -f "$d/judged.tsv" ] && [ "$(cat "$d/run.id" 2>/dev/null)" = "$id" ] || continue
		awk -F'\t' -v OFS='\t' -v r="${d##*/}" '$3 == "PASS" { print $1, $2, $4, $5, $6, $7, r }' "$d/judged.tsv"
	done | awk -F'\t' '!seen[$1 "/" $2]++'
	;;
keep)
	[ $# = 2 ] || { echo "resume.sh: usage: resume.sh keep RESUMED < boots" >&2; exit 2; }
	awk -F'\t' 'FILENAME == ARGV[1] { if (NF >= 2) done[$1 "/" $2] = 1; next }
		{
			split($0, w, " ")
			line = w[1] " " w[2]
			n = 0
			for (i = 3; i in w; i++)
				if (!((w[1] "/" w[i]) in done)) { line = line " " w[i]; n++ }
			if (n) print line
		}' "$2" -
	;;
*)
	echo "resume.sh: usage: resume.sh passed LOGS ID SUFFIX | resume.sh keep RESUMED" >&2
	exit 2
	;;
esac
