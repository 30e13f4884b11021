#!/bin/bash
# Progress of a long build: progress.sh LABEL < build output.
# kbuild's quiet lines ("  CC      mm/swapfile.o") are counted, not shown;
# every other line (warnings, errors) passes through. At least every 30 s
# (PROGRESS_INTERVAL) one line says the elapsed time and the last step, so
# a person watching sees the build move.
set -uo pipefail

label=${1:?label}
every=${PROGRESS_INTERVAL:-30}
t0=$SECONDS next=$((SECONDS + every)) steps=0 last="starting"
tick=$((every < 5 ? every : 5))

report() { # final?
	local e=$((SECONDS - t0))
	printf '%s: %dm%02ds, %d steps%s, last: %s\n' "$label" $((e / 60)) $((e % 60)) \
		"$steps" "${1:+, done}" "$last"
}

part=
while :; do
	if IFS= read -r -t "$tick" line; then
		# a read that timed out mid-line left its first part in $part
		line=$part$line part=
		case "$line" in
		"  "[A-Z]*)
			# "  CC      mm/swapfile.o" -> "CC mm/swapfile.o", without a fork
			set -f; set -- $line; set +f
			steps=$((steps + 1)) last="$*" ;;
		"make"*": "*"directory"*) ;;
		*) printf '%s\n' "$line" ;;
		esac
	elif [ $? -gt 128 ]; then
		part=$part$line
	else
		# end of input
		line=$part$line
		[ -n "$line" ] && printf '%s\n' "$line"
		break
	fi
	if [ "$SECONDS" -ge "$next" ]; then
		report
		next=$((SECONDS + every))
	fi
done
report done
