#!/bin/bash
# The whole test run behind `make test` (SUITE=quick) and `make test-full`
# (SUITE=full):
#   1. host-side tests of the frame and of each userspace component (TAP);
#   2. the guest suite on one kernel (default: patched, debug flavour): one
#      boot for all tests, plus one boot for each test marked "# boot: own".
# Which guest tests run is decided by each test's own header line
# "# suite: quick" or "# suite: full": quick runs the quick tests, full runs
# every test. T="a b" runs only those guest tests, whatever their suite (and
# skips the host tests). TREE, FLAVOUR pick the kernel.
# Prints "[i/N] name ... PASS|FAIL (seconds)" as each guest test ends, then a
# table of every test's guest seconds (also times.tsv in the run's log
# directory) and "N passed, N failed, N skipped"; exit 1 on any failure.
# RESUME=1 (the suite, not T=): a guest test that passed in an earlier run
# of the same suite on the same tree (run.id: the committed files but docs,
# clean, the kernel source package, TREE-FLAVOUR) is not run again and counts as
# passed, shown as resumed; the other tests of its boot run in a new boot
# of that label. The full suite takes longer than a session: a run cut off
# is finished, not restarted. Earlier runs are build/logs' and the ledgers
# committed in docs/test-ledger (qemu/resume.sh export: another machine's).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${TREE:-patched}
flavour=${FLAVOUR:-debug}
suite=${SUITE:-quick}
tag=$tree-$flavour
only=${T:-}
tp=0 tf=0 ts=0
resume=${RESUME:-}
start=${TEST_START:-$(date +%s)}
# The quick suite's budget of guest seconds (issue 14; docs/architecture.md).
budget=${QUICK_BUDGET_S:-1500}

case "$suite" in
quick | full) ;;
*) echo "test: unknown SUITE '$suite' (quick or full)" >&2; exit 2 ;;
esac
export SUITE=$suite
# boot.sh caps a boot at 70 min so that make test fits CI's 90; the full suite
# is not run by CI and may take longer (every test's own timeout still holds).
[ "$suite" = full ] && export MAX_DEADLINE=${MAX_DEADLINE:-14400}

add() { tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3)); }

# run_id: what a run's results hold for: the committed files that reach a
# test (docs and Markdown do not: commits of notes during a long run keep
# it), the kernel source package, TREE-FLAVOUR, the suite; "dirty" when
# those files have uncommitted changes (nothing may be resumed then).
run_id() {
	local t
	[ -z "$(git -C "$top" status --porcelain --untracked-files=no -- . ':!docs' ':!*.md' 2>/dev/null)" ] &&
		t=$(git -C "$top" ls-tree -r HEAD 2>/dev/null | grep -v -e $'\tdocs/' -e '\.md$' | sha1sum) ||
		{ echo dirty; return; }
	echo "${t%% *} $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo -) $tag $suite"
}
id=$(run_id)
case "$resume" in
'' | 0) resume= ;;
1)
	[ -z "$only" ] || { echo "test: RESUME=1 resumes a suite, not T=" >&2; exit 2; }
	[ "$id" != dirty ] || { echo "test: RESUME=1 needs a checkout without uncommitted changes" >&2; exit 2; }
	;;
*) echo "test: RESUME must be 1 or 0, not '$resume'" >&2; exit 2 ;;
esac

run=$top/build/logs/$(date +%Y%m%d-%H%M%S)-$tag-$suite
mkdir -p "$run"
echo "$id" > "$run/run.id"
# every guest test as it is judged: boot, test, verdict, passed, failed,
# skipped, seconds (what RESUME=1 reads)
judged_tsv=$run/judged.tsv
: > "$judged_tsv"
times=$run/times.tsv
printf 'boot\ttest\tseconds\tresult\n' > "$times"
# Knobs of the kernel selftests' guest tests (docs/kselftests.md) reach the guest.
for v in KSELFTEST_LONG KSELFTEST_SWAP KSELFTEST_LIVE; do
	[ -n "${!v:-}" ] && export GUEST_ENV="${GUEST_ENV:+$GUEST_ENV }$v=${!v}"
done

# host_suite NAME CMD...: run a host-side TAP producer and judge it.
host_suite() {
	local name=$1 log=$top/build/logs/host-$1.tap rc out p f s verdict why t0
	shift
	echo "== host: $name"
	t0=$(date +%s)
	"$@" > "$log" 2> "$log.stderr"
	rc=$?
	out=$(awk -v name="host/$name" -v rc="$rc" -v extra="" -f "$top/qemu/tap-verdict.awk" < "$log")
	read -r _ _ p f s verdict why < <(echo "$out" | tail -n 1)
	printf '%s host/%s (%d passed, %d failed, %d skipped)%s\n' "$verdict" "$name" "$p" "$f" "$s" "${why:+: $why}"
	if [ "$verdict" != PASS ]; then
		echo "$out" | sed '$d'
		sed 's/^/    stderr: /' "$log.stderr" | tail -n 30
	fi
	printf 'host\t%s\t%d\t%s\n' "$name" $(($(date +%s) - t0)) "$verdict" >> "$times"
	add "$p" "$f" "$s"
}

if [ -z "$only" ]; then
	# tiernbd's libFuzzer run is time-bounded: a short run gates every change,
	# the full suite fuzzes longer.
	if [ "$suite" = full ]; then export FUZZ_SECONDS=${FUZZ_SECONDS:-60}; else export FUZZ_SECONDS=${FUZZ_SECONDS:-5}; fi
	host_suite frame "$top/qemu/selftest.sh"
	for comp in $(cat "$top/qemu/components"); do
		[ -f "$top/$comp/Makefile" ] || continue
		host_suite "$(basename "$comp")" make -s -C "$top/$comp" check O="$top/build/host/$(basename "$comp")"
	done
	# Tests write their scratch files (fio's verify state...) outside the checkout.
	left=$(find "$top" \( -path "$top/build" -o -path "$top/.git" \) -prune -o -name '*.state' -print)
	if [ -n "$left" ]; then
		echo "FAIL host/clean: the host suites left files in the checkout:" $left
		tf=$((tf + 1))
	fi
fi

if [ -n "$only" ]; then
	names=$only
else
	# Each test's "# suite:" header decides (qemu/suite-list.sh).
	names=$("$top/qemu/suite-list.sh" "$suite" 2> "$run/suite-list.err")
	if [ -s "$run/suite-list.err" ]; then
		sed 's/^/FAIL /' "$run/suite-list.err"
		tf=$((tf + $(wc -l < "$run/suite-list.err")))
	fi
fi

# Which boots run which tests (qemu/boot-plan.sh: "# boot: own" and, in the
# full suite, "# also-flavour: F" headers); a line per boot.
mapfile -t boots < <([ -n "$names" ] && "$top/qemu/boot-plan.sh" "$suite" $names)

# RESUME=1: the tests that passed on this tree in earlier runs, newest run
# first, a line each (boot, test, passed, failed, skipped, seconds, run);
# their boots keep only the others, a boot left with none is not booted.
resumed=$run/resumed.tsv
# committed ledgers of earlier machines' runs (qemu/resume.sh export)
ledger=$top/docs/test-ledger
: > "$resumed"
if [ -n "$resume" ]; then
	"$top/qemu/resume.sh" passed "$top/build/logs" "$id" "$tag-$suite" "$ledger" > "$resumed"
	mapfile -t boots < <(printf '%s\n' "${boots[@]}" | "$top/qemu/resume.sh" keep "$resumed")
	if [ -s "$resumed" ]; then
		echo "== resumed: $(wc -l < "$resumed") guest tests passed on this tree in earlier runs ($(cut -f7 "$resumed" | sort -u | tr '\n' ' '| sed 's/ $//'))"
		awk -F'\t' '{ printf "PASS %s (%d passed, %d failed, %d skipped; boot %s, %s s, %s)\n", $2, $3, $4, $5, $1, $6, $7 }' "$resumed"
		add "$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$resumed")" 0 \
			"$(awk -F'\t' '{ n += $5 } END { print n + 0 }' "$resumed")"
	else
		echo "== resumed: no earlier run of this tree ($id) has a passed guest test"
	fi
fi
total=0
for b in "${boots[@]}"; do set -- $b; total=$((total + $# - 2)); done
done_n=0

# progress LOGS LABEL NAME...: a line for each test that ended since the last
# call (judged alone by report.sh --tests-only); JUDGED keeps what was shown.
progress() {
	local logs=$1 label=$2 t line secs
	shift 2
	for t in "$@"; do
		case " $judged " in *" $label/$t "*) continue ;; esac
		[ -f "$logs/results.log" ] && tr -d '\r' < "$logs/results.log" | grep -q "^### end $t rc=" || continue
		judged="$judged $label/$t"
		done_n=$((done_n + 1))
		line=$("$top/qemu/report.sh" --tests-only "$logs" "$t" | head -n 1)
		secs=$(awk -f "$top/qemu/times.awk" "$logs/results.log" | awk -F'\t' -v t="$t" '$1 == t { print $2 }')
		printf '[%d/%d] %s ... %s (%s s)\n' "$done_n" "$total" "$t" "${line%% *}" "${secs:--}"
		echo "$line" | sed -n 's/^\([A-Z]*\) [^ ]* (\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped).*/\1 \2 \3 \4/p' |
			while read -r v p f s; do
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$t" "$v" "$p" "$f" "$s" "${secs:--}"
			done >> "$judged_tsv"
	done
}
judged=

# Another flavour's kernel is built just before its first boot, with no
# guest running (one builder, one guest): a run cut off before that boot
# (the full suite is longer than a session) has not spent the build's time.
unbuilt= built=
build_flavour() {
	[[ " $built $unbuilt " == *" $1 "* ]] && return
	echo "== build: $tree-$1 guest image"
	if make -s -C "$top" guest-image TREE="$tree" FLAVOUR="$1" KSELFTEST_PARTS=none; then
		built="$built $1"
	else
		unbuilt="$unbuilt $1"
	fi
}

# guest_boot LABEL NAME...: one boot of the guest running those tests, judged.
# GUEST_TAG: another kernel than TREE-FLAVOUR.
guest_boot() {
	local label=$1 logs=$run/$1 out p f s pid rc=0 env
	shift
	# what this boot's guest gets on top of GUEST_ENV (boot-plan.sh --env)
	env=$("$top/qemu/boot-plan.sh" --env "$label")
	GUEST_ENV="${GUEST_ENV:-}${env:+ $env}" BOOT_LOGS=$logs \
		"$top/qemu/boot.sh" test "${GUEST_TAG:-$tag}" "$@" > /dev/null &
	pid=$!
	while kill -0 "$pid" 2> /dev/null; do
		progress "$logs" "$label" "$@"
		sleep 5
	done
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ] || [ ! -f "$logs/results.log" ]; then
		echo "FAIL guest: could not boot (boot.sh exit $rc)"
		tf=$((tf + 1))
		return
	fi
	progress "$logs" "$label" "$@"
	out=$("$top/qemu/report.sh" "$logs" "$@")
	# PASS lines were shown as progress; failures come with their details.
	echo "$out" | sed '$d' | grep -v '^PASS '
	read -r _ _ p f s < <(echo "$out" | tail -n 1)
	add "$p" "$f" "$s"
	# The time table: each test's seconds and the verdict report.sh gave it.
	echo "$out" > "$logs/report.txt"
	"$top/qemu/boot-rows.sh" "$logs" "$label" "$logs/report.txt" >> "$times"
	awk '/^### guest up/ { print "guest: first test at " $4 " s of guest uptime" }' "$logs/results.log" | tr -d '\r'
	cat "$logs/boot.info"
	echo "logs: ${logs#"$top"/}"
}

for b in "${boots[@]}"; do
	set -- $b
	label=$1 fl=$2
	shift 2
	if [ "$label" = shared ]; then
		echo "== guest: $tag, suite $suite ($# tests in one boot)"
		guest_boot shared "$@"
	elif [ "$label" = vswap ]; then
		echo "== guest: $tag, tierblk swap behind the virtual swap device ($# tests in one boot)"
		guest_boot "$label" "$@"
	elif [ "$fl" = - ]; then
		echo "== guest: $tag (own boot: $1)"
		guest_boot "$label" "$@"
	else
		build_flavour "$fl"
		echo "== guest: $tree-$fl (own boot: $1)"
		if [[ " $unbuilt " == *" $fl "* ]]; then
			echo "FAIL guest: could not build the $tree-$fl guest image for $1"
			tf=$((tf + 1))
			continue
		fi
		GUEST_TAG=$tree-$fl guest_boot "$label" "$@"
	fi
done

# The budget, seen every run: every test's seconds, longest first; per boot.
if [ -n "$names" ]; then
	echo "== time per guest test (seconds of guest uptime; ${times#"$top"/})"
	printf '%9s  %-6s %-24s %s\n' seconds result boot test
	awk -F'\t' 'NR > 1 && $1 != "host" { printf "%9s  %-6s %-24s %s\n", $3, $4, $1, $2 }' "$times" | sort -rn
	# A boot's guest time is its uptime at the end: boot and tests.
	guest_s=0
	for b in $(awk -F'\t' 'NR > 1 && $1 != "host" && !seen[$1]++ { print $1 }' "$times"); do
		up=$(awk -v last=1 -f "$top/qemu/times.awk" "$run/$b/results.log")
		awk -F'\t' -v b="$b" -v up="$up" '$1 == b { n++; s += $3 }
			END { printf "boot %s: %d tests, %.0f s in tests, %s s of guest uptime with the boot\n", b, n, s, up }' "$times"
		guest_s=$((guest_s + up))
	done
	echo "guest time: $guest_s s in all"
	[ "$suite" = quick ] && [ -z "$only" ] &&
		echo "quick suite: $guest_s s of guest time, budget $budget s$([ "$guest_s" -gt "$budget" ] && echo ': OVER BUDGET')"
fi
# KernelCI's format too (qemu/kcidb.py), for dashboards that read it.
"$top/qemu/kcidb.py" "$run" "$tree" "$flavour" > "$run/kcidb.json" &&
	echo "results: ${run#"$top"/}/times.tsv, kcidb.json"
echo "wall: $(($(date +%s) - start)) s"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
