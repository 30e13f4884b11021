#!/bin/bash
# The frame's knobs, from their one table (docs/architecture.md, "Knobs").
#   knobs.sh help    the make and guest knobs, a line each (make help)
#   knobs.sh table   every knob the table lists, one name a line
#   knobs.sh read    every variable the frame's scripts read with a
#                    default (an expansion with :- and the like) or the Makefile
#                    gives one (NAME ?= ...), one name a line
#   knobs.sh check   exit 1, naming them, when the two lists differ
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
doc=$top/docs/architecture.md

rows() {
	sed -n '/^<!-- knobs begin -->$/,/^<!-- knobs end -->$/p' "$doc" |
		awk -F' [|] ' '/^[|] `/ { n = $1; gsub(/^[|] `|`$/, "", n); print n "\t" $2 "\t" $5 }' |
		sed 's/ [|]$//'
}

case "${1:-}" in
help)
	rows | awk -F'\t' '$2 == "make" || $2 == "guest" { gsub(/`/, "", $3); printf "  %-24s %-5s %s\n", $1, $2, $3 }'
	;;
table)
	rows | cut -f1 | sort -u
	;;
read)
	cd "$top"
	# standard variables of the shell and of make are not knobs
	{
		grep -ohE '\$\{[A-Z][A-Z0-9_]*(:-|:\?|-|\?|:=|=)' \
			qemu/*.sh qemu/bench/*.sh qemu/guest/*.sh qemu/guest/init \
			qemu/guest/lib/*.sh qemu/tests/*.sh .ci/run 2>/dev/null |
			sed -E 's/^\$\{([A-Z0-9_]*).*/\1/' || true
		sed -nE 's/^([A-Z][A-Z0-9_]*)[[:space:]]*\?=.*/\1/p' Makefile
	} | grep -vxE 'TMPDIR|HOME|PATH|USER|TERM|PWD' | sort -u
	;;
check)
	missing=$(comm -23 <("$0" read) <("$0" table) | tr '\n' ' ')
	stale=$(comm -13 <("$0" read) <("$0" table) | tr '\n' ' ')
	[ -z "$missing" ] || echo "read but not in docs/architecture.md's Knobs table: $missing"
	[ -z "$stale" ] || echo "in the table but read by nothing: $stale"
	[ -z "$missing$stale" ]
	;;
*)
	echo "usage: knobs.sh help|table|read|check" >&2
	exit 2
	;;
esac
