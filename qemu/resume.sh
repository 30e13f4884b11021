#!/bin/bash
# The two steps of make test's RESUME=1 (qemu/test.sh), a script of their
# own so that the frame's selftest checks them on synthetic runs:
#   resume.sh passed LOGS ID SUFFIX [LEDGER]   the guest tests that passed
#       in the runs LOGS/*-SUFFIX whose run.id is ID, and in the ledgers
#       LEDGER/*-SUFFIX.tsv of that ID, the newest run first, a test once:
#       "boot test passed failed skipped seconds run", tab-separated
#   resume.sh export RUN LEDGER   RUN's run.id and judged.tsv as the ledger
#       LEDGER/<run>.tsv: a machine's build/ does not outlive its session,
#       a committed ledger (docs/test-ledger) does, and a later session's
#       RESUME=1 on the same tree reads it
#   resume.sh keep RESUMED            boot lines of boot-plan.sh ("label
#       flavour test...") on stdin, without the tests RESUMED lists for
#       that label; a boot left with no test is dropped
set -uo pipefail

case "${1:-}" in
passed)
	[ $# = 4 ] || [ $# = 5 ] || { echo "resume.sh: usage: resume.sh passed LOGS ID SUFFIX [LEDGER]" >&2; exit 2; }
	logs=$2 id=$3 suffix=$4 ledger=${5:-}
	# a run and its ledger name the same run: one source each, the run first
	{
		for d in "$logs"/*-"$suffix"; do
			[ -f "$d/judged.tsv" ] && [ "$(cat "$d/run.id" 2>/dev/null)" = "$id" ] || continue
			printf '%s\t%s\n' "${d##*/}" "$d/judged.tsv"
		done
		[ -n "$ledger" ] && for f in "$ledger"/*-"$suffix".tsv; do
			[ -f "$f" ] && [ "$(head -n 1 "$f")" = "# run.id $id" ] || continue
			r=${f##*/}
			printf '%s\t%s\n' "${r%.tsv}" "$f"
		done
	} | sort -t "$(printf '\t')" -k1,1r -s | awk -F'\t' '!seen[$1]++' |
		while IFS=$'\t' read -r r f; do
			awk -F'\t' -v OFS='\t' -v r="$r" '!/^#/ && $3 == "PASS" { print $1, $2, $4, $5, $6, $7, r }' "$f"
		done | awk -F'\t' '!seen[$1 "/" $2]++'
	;;
export)
	[ $# = 3 ] || { echo "resume.sh: usage: resume.sh export RUN LEDGER" >&2; exit 2; }
	run=${2%/} ledger=$3
	[ -f "$run/run.id" ] && [ -f "$run/judged.tsv" ] || { echo "resume.sh: $run: not a test run (no run.id, judged.tsv)" >&2; exit 2; }
	case "$(cat "$run/run.id")" in
	dirty) echo "resume.sh: $run ran on uncommitted changes: nothing to resume from" >&2; exit 2 ;;
	esac
	mkdir -p "$ledger" || exit 2
	{ echo "# run.id $(cat "$run/run.id")"; cat "$run/judged.tsv"; } > "$ledger/${run##*/}.tsv" || exit 2
	echo "$ledger/${run##*/}.tsv: $(grep -c $'\tPASS\t' "$run/judged.tsv") passed, $(grep -vc -e $'\tPASS\t' -e '^$' "$run/judged.tsv") not"
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
	echo "resume.sh: usage: resume.sh passed LOGS ID SUFFIX [LEDGER] | export RUN LEDGER | keep RESUMED" >&2
	exit 2
	;;
esac
