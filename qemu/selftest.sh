#!/bin/bash
# Host-side tests of the test judge (report.sh, tap-verdict.awk): synthetic
# guest logs with known faults must get the verdicts below. TAP on stdout.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../common/ktap.sh
. "$top/common/ktap.sh"

# mk NAME: an empty log dir; results/console lines are appended by the cases.
mk() { mkdir -p "$tmp/$1"; : > "$tmp/$1/results.log"; : > "$tmp/$1/console.log"; echo "$tmp/$1"; }
res() { printf '%s\r\n' "$@" >> "$d/results.log"; }
con() { printf '%s\n' "$@" >> "$d/console.log"; }
judge() { "$top/qemu/report.sh" "$d" "$@" > "$d/out"; }
has() { grep -q -- "$1" "$d/out"; }
last() { [ "$(tail -n 1 "$d/out")" = "$1" ]; }

# The plan is printed at the end (tap_end).

d=$(mk pass)
res "### guest up 3" "### begin a timeout=5" "1..2" "ok 1 - x" "ok 2 - y # SKIP no z" "### end a rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a"
judge a
check "a clean test passes, skips counted" last "RESULT guest 1 0 1"

d=$(mk notok)
res "### begin a timeout=5" "1..2" "ok 1 - x" "not ok 2 - y" "### end a rc=1" "### guest done 4"
judge a
check "a 'not ok' fails the test and shows its TAP" sh -c "grep -q '^FAIL a' $d/out && grep -q 'not ok 2 - y' $d/out"

d=$(mk notokdiag)
res "### begin a timeout=5" "1..3" "# case p: v=1" "ok 1 - x" "# case q: w=0" "ok 2 - y" "not ok 3 - z" "### end a rc=1" "### guest done 4"
judge a
check "a failed check is listed first with the last diagnostic before it" sh -c \
	"sed -n '2,4p' $d/out | tr '\n' '|' | grep -qx '    failed checks.*|    > # case q: w=0|    > not ok 3 - z|'"

d=$(mk noplan)
res "### begin a timeout=5" "ok 1 - x" "### end a rc=0" "### guest done 4"
judge a
check "no plan fails" has "no TAP plan"

d=$(mk short)
res "### begin a timeout=5" "1..3" "ok 1 - x" "### end a rc=0" "### guest done 4"
judge a
check "fewer results than planned fails" has "planned 3 results, got 1"

d=$(mk timeout)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=143" "### guest done 4"
judge a
check "a killed test fails as timed out" has "exit status 143 (timed out)"

d=$(mk splat)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### begin b timeout=5" "1..1" "ok 1 - x" "### end b rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a" "[ 1.2] tierswap: begin b" \
	"[ 1.3] WARNING: CPU: 0 PID: 1 at mm/swapfile.c:1 foo+0x1/0x2" "[ 1.4] tierswap: end b"
judge a b
check "a WARNING fails the test it happened in" sh -c "grep -q '^FAIL b.*kernel splat' $d/out && grep -q 'mm/swapfile.c' $d/out"
check "... and not the test before it" has "^PASS a"

d=$(mk kasan)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] BUG: KASAN: slab-use-after-free in swap_read_folio" "[ 1.4] tierswap: end a"
judge a
check "a KASAN report fails the test" has "^FAIL a.*kernel splat"

d=$(mk lockdep)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] INFO: task kworker/0:1:12 blocked for more than 60 seconds." "[ 1.4] tierswap: end a"
judge a
check "a hung task report fails the test" has "^FAIL a.*kernel splat"

d=$(mk died)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### begin b timeout=5" "1..3" "ok 1 - x"
con "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a" "[ 1.2] tierswap: begin b" "[ 1.3] Kernel panic - not syncing: Fatal exception"
judge a b c
check "a guest that dies fails the running test" sh -c "grep -q '^FAIL b.*guest died' $d/out"
check "... and reports the rest as not run, failed" sh -c "grep -q '^FAIL c.*not run' $d/out && tail -n 1 $d/out | grep -q '^RESULT guest 2 2 0'"

d=$(mk bootsplat)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### guest done 4"
con "[ 0.5] BUG: unable to handle page fault for address: 0" "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a"
judge a
check "a splat during boot fails the run" has "^FAIL boot"

d=$(mk leftover)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### leftover swap: /dev/zram0" "### end a rc=0" "### guest done 4"
judge a
check "a test that leaves swap on fails" has "left behind: leftover swap: /dev/zram0"


# ---- ksft2tap.awk (the guest's converter of kernel selftest output), run with
# busybox awk as in the guest. conv FMT RC XFAIL < output: TAP into $d/out.
awk_bb() { if [ -x /bin/busybox ]; then /bin/busybox awk "$@"; else awk "$@"; fi; }
conv() { awk_bb -v fmt="$1" -v prog=p -v n=0 -v rc="$2" -v xfail="$3" -v state="$d/state" \
	-f "$top/qemu/guest/ksft2tap.awk" > "$d/out"; }
d=$(mk ksft)
printf 'a: b\tnope\np: known\tupstream bug\n' > "$d/xf"
ktap() { printf 'TAP version 13\n1..3\n# [RUN] one ... with swapped out base page\nok 1 No leak from parent into child\n# [RUN] two\nok 2 # SKIP MADV_PAGEOUT did not work\n'; printf '%s\n' "$@"; }
ktap '# [RUN] three' 'ok 3 No leak' '# Totals: pass:2 fail:0' | conv ktap 0 ""
check "ktap: cases named by their [RUN] line, skips kept, completion ok" sh -c \
	"grep -qx 'ok 1 - p: one ... with swapped out base page' $d/out && grep -qx 'ok 2 - p: two # SKIP MADV_PAGEOUT did not work' $d/out && grep -qx 'ok 4 - p: ran to completion' $d/out && [ \"\$(cat $d/state)\" = '4 0' ]"
ktap '# [RUN] three' 'not ok 3 Leak from parent into child' 'Bail out! 1 out of 3 tests failed' | conv ktap 1 ""
check "ktap: a failed case fails under the case's name; its message follows" sh -c \
	"grep -qx 'not ok 3 - p: three' $d/out && grep -qx '# Leak from parent into child' $d/out && grep -qx 'ok 4 - p: ran to completion' $d/out && [ \"\$(cat $d/state)\" = '4 1' ]"
ktap | conv ktap 139 ""
check "ktap: a crash before the plan is complete fails 'ran to completion'" sh -c \
	"grep -q '^not ok 3 - p: ran to completion' $d/out && grep -q 'signal 11' $d/out && grep -q 'planned 3 results, printed 2' $d/out"
ktap '# [RUN] three' 'ok 3 fine' | conv ktap 1 ""
check "ktap: exit status 1 with every case passed fails" grep -q '^not ok 4 - p: ran to completion' "$d/out"
printf '1..0 # SKIP zswap is not configured\n' | conv ktap 4 ""
check "ktap: a whole-program skip is one skip line" sh -c "grep -qx 'ok 1 - p: all cases # SKIP zswap is not configured' $d/out && [ \"\$(cat $d/state)\" = '1 0' ]"
printf '1..1\n# [RUN] known\nnot ok 1 Leak\n' | conv ktap 1 "$d/xf"
check "ktap: a listed known failure is 'ok # XFAIL' and not counted failed" sh -c \
	"grep -qx 'ok 1 - p: known # XFAIL known failure: upstream bug' $d/out && [ \"\$(cat $d/state)\" = '2 0' ]"
printf 'Run test: collapse_swapin_single_pte (khugepaged:anon)\nAllocate huge page... \033[32mOK\033[0m\nSwapout one page... \033[32mOK\033[0m\nCollapse with swapping in single PTE entry.... \033[31mFail\033[0m\n' | conv khugepaged 1 ""
check "khugepaged: each check is a line; a Fail fails" sh -c \
	"grep -qx 'ok 2 - p: collapse_swapin_single_pte (khugepaged:anon): Swapout one page' $d/out && grep -qx 'not ok 3 - p: collapse_swapin_single_pte (khugepaged:anon): Collapse with swapping in single PTE entry' $d/out && grep -q '^ok 4 - p: ran to completion' $d/out"
printf 'Run test: x (khugepaged:anon)\nAllocate huge page... \033[32mOK\033[0m\n' | conv khugepaged 1 ""
check "khugepaged: an exit status that disagrees with the checks fails" grep -q '^not ok 2 - p: ran to completion' "$d/out"
printf 'Testing wp-fork on anon... done\nTesting wp-fork on shmem... note\nfailed [reason: lost bit]\nTesting wp-fork on hugetlb... skipped [reason: feature missing]\nUserfaults unit tests: pass=1, skip=1, fail=1 (total=3)\n' | conv uffd 1 ""
check "uffd: done/failed/skipped per case, totals agree" sh -c \
	"grep -qx 'ok 1 - p: wp-fork on anon' $d/out && grep -qx 'not ok 2 - p: wp-fork on shmem' $d/out && grep -qx 'ok 3 - p: wp-fork on hugetlb # SKIP feature missing' $d/out && grep -qx 'ok 4 - p: ran to completion' $d/out"
printf 'Testing wp-fork on anon... done\nTesting wp-fork on shmem... ' | conv uffd 137 ""
check "uffd: a case cut off by a kill fails, and so does completion" sh -c \
	"grep -q '^not ok 2 - p: wp-fork on shmem' $d/out && grep -q '^not ok 3 - p: ran to completion' $d/out"
printf 'zram set disksizes: OK\nFAIL mount /dev/zram1 failed\nzram01 : [PASS]\n' | conv zram 0 ""
check "zram: OK steps pass, a FAIL line fails even when the script says [PASS]" sh -c \
	"grep -qx 'ok 1 - p: zram set disksizes' $d/out && grep -q '^not ok 2 - p: FAIL mount' $d/out && grep -qx 'ok 3 - p: zram01: verdict' $d/out"
printf 'ok 1 test_a\nok 2 # SKIP test_b\nok 1 test_a\nnot ok 3 test_c\nok 2 # SKIP test_b\n' | conv ktap 1 ""
check "ktap: no plan (cgroup tests); lines repeated by forked children are dropped" sh -c \
	"grep -qx 'ok 1 - p: test_a' $d/out && grep -qx 'ok 2 - p: test_b # SKIP skipped' $d/out && grep -qx 'not ok 3 - p: test_c' $d/out && grep -qx 'ok 4 - p: ran to completion' $d/out && [ \"\$(cat $d/state)\" = '4 1' ]"
printf 'nothing recognisable\n' | conv zram 0 ""
check "any format: output with no results fails" grep -q '^not ok 1 - p: ran to completion' "$d/out"

# ---- kselftest-ab.sh --table: the base-vs-patched verdicts on synthetic TAP
d=$(mk ab)
printf 'p: c\tupstream bug\np: fl\tflaky: racy stats\n' > "$d/xf"
abtap() { # tree lines...
	local t=$1; shift
	printf 'kselftest-x\t%s\n' "$@" > "$d/$t.tap"
}
abrun() { KSELFTEST_XFAIL="$d/xf" "$top/qemu/kselftest-ab.sh" --table "$d" > "$d/out" 2>&1; }
printf 'kselftest-x\tPASS\n' > "$d/base.verdicts"; cp "$d/base.verdicts" "$d/patched.verdicts"
abtap base 'ok 1 - p: a' 'ok 2 - p: b' 'ok 3 - p: c # XFAIL known failure: upstream bug' 'ok 4 - p: s # SKIP no gup_test' 'ok 5 - p: fl'
abtap patched 'ok 1 - p: a' 'not ok 2 - p: b' 'ok 3 - p: c # XFAIL known failure: upstream bug' 'ok 4 - p: s # SKIP no gup_test' 'not ok 5 - p: fl # TODO known failure: flaky: racy stats'
abrun; rc=$?
check "ab: pass on base, fail on patched is a REGRESSION and fails the run" sh -c \
	"[ $rc != 0 ] && grep -q 'p: b  *pass  *fail  *REGRESSION' $d/out && grep -q '1 problem' $d/out"
check "ab: a listed flaky case is not counted; skips on both are listed with the reason" sh -c \
	"grep -q 'p: fl .*listed flaky' $d/out && grep -q 'p: s -- no gup_test' $d/out"
abtap patched 'ok 1 - p: a' 'ok 2 - p: b' 'not ok 3 - p: c # TODO known failure: upstream bug' 'ok 4 - p: s # SKIP no gup_test' 'ok 5 - p: fl'
abrun; rc=$?
check "ab: same results on both (known failure failing on both) pass" sh -c "[ $rc = 0 ] && grep -q '0 problem' $d/out"
abtap base 'ok 1 - p: a' 'ok 2 - p: b' 'ok 3 - p: c' 'ok 4 - p: s # SKIP no gup_test' 'ok 5 - p: fl'
cp "$d/base.tap" "$d/patched.tap"
printf 'kselftest-x\tFAIL\n' > "$d/patched.verdicts"
abrun; rc=$?
check "ab: a listed failure that passes on base is stale; a whole test PASS->FAIL fails" sh -c \
	"[ $rc != 0 ] && grep -q 'p: c .*STALE' $d/out && grep -q 'kselftest-x (whole test) *PASS *FAIL *REGRESSION' $d/out"

# ---- bench-ab.awk: make bench's base-vs-patched table
d=$(mk benchab)
printf '%s\r\n' 'plain line' 'BENCH t_ms 200 ms' 'BENCH rate 100 MiB/s' 'BENCH meta 8.0 B/slot' \
	'BENCH total 512 KiB' 'BENCH zero 0 KiB' 'BENCH mbps 50 MB/s' 'BENCH only_base 3 ms' | tr -d '\r' > "$d/base-release.txt"
printf '%s\n' 'BENCH t_ms 100 ms' 'BENCH rate 150 MiB/s' 'BENCH meta 10.0 B/slot' \
	'BENCH total 1024 KiB' 'BENCH zero 4 KiB' 'BENCH mbps 100 MB/s' > "$d/patched-release.txt"
awk -v base="$d/base-release.txt" -f "$top/qemu/bench-ab.awk" "$d/base-release.txt" "$d/patched-release.txt" > "$d/out" 2> "$d/err"
abrc=$?
row() { grep -q "^$1  *$2  *$3  *$4  *$5\$" "$d/out"; }
check "bench-ab: times as base/patched, rates as patched/base" sh -c \
	"$(declare -f row); d=$d; row t_ms 200 100 2.000 ms && row rate 100 150 1.500 MiB/s && row mbps 50 100 2.000 MB/s"
check "bench-ab: sizes (B/slot, KiB) are lower-is-better: base/patched" sh -c \
	"$(declare -f row); d=$d; row meta 8.0 10.0 0.800 B/slot && row total 512 1024 0.500 KiB"
check "bench-ab: a 0 or a missing value gives '-', no error; the legend names sizes" sh -c \
	"$(declare -f row); d=$d; [ $abrc = 0 ] && [ ! -s $d/err ] && row zero 0 4 - KiB && row only_base 3 - - ms && grep -q 'sizes.*base/patched' $d/out"

# BENCH-TABLE lines split the rows into titled tables; a title with no rows prints nothing
printf '%s\n' 'BENCH-TABLE Memory' 'BENCH m1 8 KiB' 'BENCH-TABLE Empty' 'BENCH-TABLE Speed' 'BENCH s1 10 ms' > "$d/base-release.txt"
printf '%s\n' 'BENCH-TABLE Memory' 'BENCH m1 4 KiB' 'BENCH-TABLE Speed' 'BENCH s1 20 ms' 'BENCH s2 5 MiB/s' > "$d/patched-release.txt"
awk -v base="$d/base-release.txt" -f "$top/qemu/bench-ab.awk" "$d/base-release.txt" "$d/patched-release.txt" > "$d/out" 2> "$d/err"
grep -n -e '^-- ' -e '^m1 ' -e '^s[12] ' "$d/out" | cut -d' ' -f1-2 > "$d/got"
printf '%s\n' '1:-- Memory' '3:m1 ' '5:-- Speed' '7:s1 ' '8:s2 ' > "$d/want"
check "bench-ab: BENCH-TABLE titles group rows into tables, empty ones are left out" sh -c \
	"cmp -s $d/got $d/want && ! grep -q Empty $d/out"

# BENCH_ROUNDS > 1: one file holds every round; each side is the median
printf '%s\n' 'BENCH t 30 ms' 'BENCH r 9 MiB/s' 'BENCH t 20 ms' 'BENCH r 7 MiB/s' 'BENCH t 10 ms' 'BENCH r 5 MiB/s' > "$d/base-release.txt"
printf '%s\n' 'BENCH t 10 ms' 'BENCH r 6 MiB/s' 'BENCH t 30 ms' 'BENCH r 8 MiB/s' > "$d/patched-release.txt"
awk -v base="$d/base-release.txt" -f "$top/qemu/bench-ab.awk" "$d/base-release.txt" "$d/patched-release.txt" > "$d/out" 2> "$d/err"
check "bench-ab: a metric repeated over rounds is the median of its values (odd and even counts)" sh -c \
	"$(declare -f row); d=$d; row t 20 20 1.000 ms && row r 7 7 1.000 MiB/s && grep -q 'median over 3 boots' $d/out"

# ---- bench-plot.py: the A/B tables as pictures, spread over rounds
d=$(mk benchplot)
printf '%s\n' 'BENCH-TABLE Memory' 'BENCH m1 8 KiB' 'BENCH only_base 3 ms' 'BENCH-TABLE Speed' 'BENCH s1 10 ms' 'BENCH s2 5 MiB/s' > "$d/base-release.r1.txt"
printf '%s\n' 'BENCH-TABLE Memory' 'BENCH m1 8 KiB' 'BENCH only_base 3 ms' 'BENCH-TABLE Speed' 'BENCH s1 30 ms' 'BENCH s2 7 MiB/s' > "$d/base-release.r2.txt"
printf '%s\n' 'BENCH-TABLE Memory' 'BENCH m1 4 KiB' 'BENCH-TABLE Speed' 'BENCH s1 20 ms' 'BENCH s2 12 MiB/s' > "$d/patched-release.r1.txt"
printf '%s\n' 'BENCH-TABLE Memory' 'BENCH m1 4 KiB' 'BENCH-TABLE Speed' 'BENCH s1 40 ms' 'BENCH s2 12 MiB/s' > "$d/patched-release.r2.txt"
"$top/qemu/bench-plot.py" "$d" > "$d/out" 2> "$d/err"
plotrc=$?
check "bench-plot: one SVG per table, each parses as XML and names its metrics with unit and direction" sh -c \
	"[ $plotrc = 0 ] && [ ! -s $d/err ] && [ \$(grep -c '^plot: ' $d/out) = 2 ] &&
	python3 -c 'import sys, xml.etree.ElementTree as E; [E.parse(f) for f in sys.argv[1:]]' $d/ab-memory.svg $d/ab-speed.svg &&
	grep -q 's1 (ms, lower is better)' $d/ab-speed.svg && grep -q 's2 (MiB/s, higher is better)' $d/ab-speed.svg"
check "bench-plot: bars are medians over rounds and whiskers min..max, divided by base's median" sh -c \
	"grep -qx '\"s1 (ms, lower is better)\" 1 0.5 1.5 1.5 1 2' $d/ab-speed.dat &&
	grep -qx '\"m1 (KiB, lower is better)\" 1 1 1 0.5 0.5 0.5' $d/ab-memory.dat"
check "bench-plot: a metric with no value on one kernel is left out, and said" \
	grep -q 'left out, no value on both kernels: only_base' "$d/out"
"$top/qemu/bench-plot.py" "$d/none" > "$d/out" 2> "$d/err"
plotrc=$?
check "bench-plot: a missing directory exits 2 with one line" sh -c "[ $plotrc = 2 ] && [ \$(wc -l < $d/err) = 1 ] && [ ! -s $d/out ]"

# distributions and phases: BENCH-CDF / BENCH-PHASES lines, medians over rounds
d=$(mk benchplot2)
printf '%s\n' 'BENCH-TABLE Cost' 'BENCH-CDF c.a us 0.5:10 1:40' 'BENCH-CDF c.b us 0.5:20 1:50' \
	'BENCH-TABLE Split' 'BENCH-PHASES p.a us io=3 free=2' > "$d/base-release.r1.txt"
printf '%s\n' 'BENCH-TABLE Cost' 'BENCH-CDF c.a us 0.5:30 1:60' 'BENCH-CDF c.b us 0.5:20 1:50' \
	'BENCH-TABLE Split' 'BENCH-PHASES p.a us io=5 free=4' 'BENCH-CDF broken us 0.5:x' 'BENCH-CDF badq us p50:3' > "$d/base-release.r2.txt"
printf '%s\n' 'BENCH-TABLE Cost' 'BENCH-CDF c.a us 0.5:8 1:30' \
	'BENCH-TABLE Split' 'BENCH-PHASES p.a us io=2 free=1 map=1' > "$d/patched-release.r1.txt"
"$top/qemu/bench-plot.py" "$d" > "$d/out" 2> "$d/err"
plotrc=$?
check "bench-plot: a CDF per table of BENCH-CDF lines and a stacked bar chart per table of BENCH-PHASES lines, both SVG that parses" sh -c \
	"[ $plotrc = 0 ] && grep -q '^plot: .*cdf-cost.svg (distributions of 2 series)' $d/out &&
	grep -q '^plot: .*phases-split.svg (phases of 1 series)' $d/out &&
	python3 -c 'import sys, xml.etree.ElementTree as E; [E.parse(f) for f in sys.argv[1:]]' $d/cdf-cost.svg $d/phases-split.svg"
check "bench-plot: a distribution's points are the medians over rounds, one curve per name and kernel (a name on one kernel only: one curve)" sh -c \
	"[ \$(grep -Ec '^# (base|patched)-release ' $d/cdf-cost.dat) = 3 ] &&
	awk '/^# base-release c.a/ { b = 1; next } b && NF == 2 { print; if (++n == 2) exit }' $d/cdf-cost.dat | tr '\\n' ' ' | grep -qx '20 0.5 50 1 '"
check "bench-plot: phases stack per kernel in one order, a phase a kernel lacks counts 0" sh -c \
	"grep -qx 'bar \"io\" \"free\" \"map\"' $d/phases-split.dat &&
	grep -qx '\"a base\" 4 3 0' $d/phases-split.dat && grep -qx '\"a patched\" 2 1 1' $d/phases-split.dat"
check "bench-plot: a BENCH-CDF line that does not parse (a value or a quantile not a number) is named on stderr and left out, the rest drawn" sh -c \
	"[ \$(wc -l < $d/err) = 2 ] && grep -q 'does not parse: BENCH-CDF broken us 0.5:x' $d/err &&
	grep -q 'does not parse: BENCH-CDF badq us p50:3' $d/err"

# ---- the test loop (issue 14): suites, progress, time table, fresh machine
# times.awk: seconds per test from the up= markers; "-" for a test cut off
d=$(mk times)
res "### guest up 17.0" "### begin a timeout=5 up=17.25" "1..1" "ok 1 - x" "### end a rc=0 up=20.75" \
	"### begin b timeout=5 up=20.8" "1..1"
awk -f "$top/qemu/times.awk" "$d/results.log" > "$d/out"
check "times: seconds between a test's begin and end markers; '-' when it never ended" \
	sh -c "printf 'a\t3.5\nb\t-\n' | cmp -s - $d/out"
res "1..1" "ok 1 - y" "### end b rc=0 up=30.4" "### guest done 31.6"
check "times: last=1 gives the boot's guest time (uptime at '### guest done', boot included)" \
	sh -c "[ \"\$(awk -v last=1 -f $top/qemu/times.awk $d/results.log)\" = 32 ]"
: > "$d/results.log"; res "### guest up 17.0" "### begin a timeout=5 up=17.25"
check "times: last=1 of a boot cut off in a test: the last uptime it reported" \
	sh -c "[ \"\$(awk -v last=1 -f $top/qemu/times.awk $d/results.log)\" = 17 ]"

# report.sh --tests-only judges a test while the guest still runs
d=$(mk tonly)
res "### guest up 3" "### begin a timeout=5 up=4" "1..1" "ok 1 - x" "### end a rc=0 up=5"
con "[ 0.5] WARNING: CPU: 0 PID: 1 at init/main.c:1 x" "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a"
"$top/qemu/report.sh" --tests-only "$d" a > "$d/out"
check "report --tests-only: a finished test passes before the guest is done; boot not judged" \
	sh -c "head -n 1 $d/out | grep -q '^PASS a' && tail -n 1 $d/out | grep -qx 'RESULT guest 1 0 0'"
judge a
check "... while the whole report fails the boot splat and the missing shutdown" \
	sh -c "grep -q '^FAIL boot' $d/out && grep -q '^FAIL shutdown' $d/out"

# suite-list.sh: each test's header decides; a test without one is named
mkdir -p "$tmp/suites"
printf '#!/bin/sh\n# timeout: 5\n# suite: quick\n' > "$tmp/suites/q.sh"
printf '#!/bin/sh\n# timeout: 5\n# suite: full\n' > "$tmp/suites/f.sh"
"$top/qemu/suite-list.sh" quick "$tmp/suites" > "$tmp/sq" 2>&1; rq=$?
"$top/qemu/suite-list.sh" full "$tmp/suites" | sort > "$tmp/sf"
check "suite-list: quick lists the quick tests, full lists every test" \
	sh -c "[ $rq = 0 ] && [ \"\$(cat $tmp/sq)\" = q ] && printf 'f\nq\n' | cmp -s - $tmp/sf"
printf '#!/bin/sh\n# timeout: 5\n' > "$tmp/suites/none.sh"
printf '#!/bin/sh\n# suite: quick\n# suite: full\n' > "$tmp/suites/two.sh"
"$top/qemu/suite-list.sh" quick "$tmp/suites" > "$tmp/sq" 2> "$tmp/se"; rq=$?
check "suite-list: a test with no header or two headers fails, named" \
	sh -c "[ $rq = 1 ] && grep -q 'none: needs one header' $tmp/se && grep -q 'two: needs one header' $tmp/se"
check "suite-list: every test of this checkout has one suite header" sh -c "\"$top/qemu/suite-list.sh\" full >/dev/null"
check "suite-list: an unknown suite is refused (exit 2)" sh -c "\"$top/qemu/suite-list.sh\" fast 2>/dev/null; [ \$? = 2 ]"

# kselftest-parts.sh: make test builds only the selftest parts its tests run
kq=$("$top/qemu/kselftest-parts.sh" quick) kf=$("$top/qemu/kselftest-parts.sh" full)
check "kselftest-parts: the quick suite needs zram's scripts only, the full suite every part" \
	[ "$kq|$kf" = "zram|cgroup mm zram" ]
kn=$("$top/qemu/kselftest-parts.sh" quick tiers-mix kselftest-mm-cow) k0=$("$top/qemu/kselftest-parts.sh" quick tiers-mix)
check "kselftest-parts: named tests decide, whatever their suite; none when no selftest runs" \
	[ "$kn|$k0" = "mm|none" ]
check "kselftest-parts: an unknown test is refused (exit 2)" \
	sh -c "\"$top/qemu/kselftest-parts.sh\" quick no-such-test 2>/dev/null; [ \$? = 2 ]"
bad=
for f in "$top"/qemu/tests/*.sh; do
	used=$(grep -o 'KSFT_DIR"*/\(mm\|cgroup\|zram\)/' "$f" | sed 's|.*/\([a-z]*\)/$|\1|' | sort -u | tr '\n' ' ')
	said=$(sed -n 's/^# kselftest: *//p' "$f" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
	[ "$used" = "$said" ] || bad="$bad $(basename "$f") (uses '$used', header '$said')"
done
check "kselftest-parts: every guest test's '# kselftest:' header names exactly the parts it runs${bad:+:$bad}" [ -z "$bad" ]

# boot-plan.sh: which boots run which tests, from the tests' headers
mkdir -p "$tmp/bp"
printf '#!/bin/sh\n# suite: quick\n' > "$tmp/bp/a.sh"
printf '#!/bin/sh\n# suite: quick\n# boot: own\n' > "$tmp/bp/b.sh"
printf '#!/bin/sh\n# suite: full\n# also-flavour: debug-x\n' > "$tmp/bp/c.sh"
bpq=$(BOOT_PLAN_TESTS=$tmp/bp "$top/qemu/boot-plan.sh" quick a b c | tr '\n' '|')
bpf=$(BOOT_PLAN_TESTS=$tmp/bp "$top/qemu/boot-plan.sh" full a b c | tr '\n' '|')
check "boot-plan: one shared boot, a boot per '# boot: own' test, '# also-flavour' boots in the full suite only" \
	[ "$bpq#$bpf" = "shared - a c|b - b|#shared - a c|b - b|c@debug-x debug-x c|" ]
printf '#!/bin/sh\n# suite: quick\n# also-vswap: yes\n' > "$tmp/bp/d.sh"
printf '#!/bin/sh\n# suite: full\n# boot: own\n# also-vswap: yes\n' > "$tmp/bp/e.sh"
bpq=$(BOOT_PLAN_TESTS=$tmp/bp "$top/qemu/boot-plan.sh" quick a d e | tr '\n' '|')
bpf=$(BOOT_PLAN_TESTS=$tmp/bp "$top/qemu/boot-plan.sh" full a d e | tr '\n' '|')
check "boot-plan: '# also-vswap: yes' tests run once more in one 'vswap' boot, in the full suite only" \
	[ "$bpq#$bpf" = "shared - a d|e - e|#shared - a d|e - e|vswap - d e|" ]
check "boot-plan --env: the vswap boot's guest gets TIERSWAP_VSWAP=1, other boots nothing" \
	[ "$("$top/qemu/boot-plan.sh" --env vswap)|$("$top/qemu/boot-plan.sh" --env shared)" = "TIERSWAP_VSWAP=1|" ]
check "boot-plan: an unknown suite is refused (exit 2)" \
	sh -c "\"$top/qemu/boot-plan.sh\" fast a 2>/dev/null; [ \$? = 2 ]"

# resume.sh (make test RESUME=1): what passed on this tree before, and
# the boots that are left
rl=$tmp/resume
mkdir -p "$rl/20261201-100000-p-d-full" "$rl/20261202-100000-p-d-full" "$rl/20261203-100000-p-d-full" "$rl/20261204-100000-p-d-quick"
echo "T1 full" > "$rl/20261201-100000-p-d-full/run.id"
printf 'shared\ta\tPASS\t3\t0\t1\t10\nshared\tb\tFAIL\t1\t1\t0\t20\nvswap\ta\tPASS\t3\t0\t0\t11\n' > "$rl/20261201-100000-p-d-full/judged.tsv"
echo "T1 full" > "$rl/20261202-100000-p-d-full/run.id"
printf 'shared\ta\tPASS\t4\t0\t0\t12\nown-c\tc\tPASS\t2\t0\t0\t5\n' > "$rl/20261202-100000-p-d-full/judged.tsv"
echo "T2 full" > "$rl/20261203-100000-p-d-full/run.id"
printf 'shared\tb\tPASS\t2\t0\t0\t20\n' > "$rl/20261203-100000-p-d-full/judged.tsv"
echo "T1 full" > "$rl/20261204-100000-p-d-quick/run.id"
printf 'shared\tb\tPASS\t2\t0\t0\t20\n' > "$rl/20261204-100000-p-d-quick/judged.tsv"
"$top/qemu/resume.sh" passed "$rl" "T1 full" p-d-full > "$tmp/resumed.tsv"
check "resume: the passed tests of the same tree's runs, newest first, a test once; failures, other trees and suites left" \
	[ "$(cut -f1,2,3,7 "$tmp/resumed.tsv" | tr '\t\n' ' |')" = "shared a 4 20261202-100000-p-d-full|own-c c 2 20261202-100000-p-d-full|vswap a 3 20261201-100000-p-d-full|" ]
# ledgers: another machine's runs, committed (resume.sh export)
lg=$tmp/ledger
"$top/qemu/resume.sh" export "$rl/20261202-100000-p-d-full" "$lg" > /dev/null
check "resume export: the run's run.id first, then its judged lines" \
	[ "$(head -n 1 "$lg/20261202-100000-p-d-full.tsv")|$(sed 1d "$lg/20261202-100000-p-d-full.tsv" | cut -f2 | tr '\n' ' ')" = "# run.id T1 full|a c " ]
echo dirty > "$tmp/dirty-run.id"
mkdir -p "$rl/x-dirty" && cp "$tmp/dirty-run.id" "$rl/x-dirty/run.id" && : > "$rl/x-dirty/judged.tsv"
check "resume export: a run on uncommitted changes or no run at all is refused (exit 2), no ledger written" \
	sh -c "\"$top/qemu/resume.sh\" export \"$rl/x-dirty\" \"$lg\" 2>/dev/null; a=\$?; \"$top/qemu/resume.sh\" export \"$tmp/none\" \"$lg\" 2>/dev/null; [ \$a\$? = 22 ] && [ ! -e \"$lg/x-dirty.tsv\" ]"
rm -r "$rl/x-dirty"
# the same run in build/logs and in a ledger (its failure there is the run's, not the ledger's)
printf '# run.id T1 full\nshared\ta\tPASS\t9\t0\t0\t12\nown-c\tc\tPASS\t9\t0\t0\t5\nshared\td\tPASS\t9\t0\t0\t1\n' > "$lg/20261202-100000-p-d-full.tsv"
printf '# run.id T1 full\nshared\tb\tPASS\t5\t0\t0\t21\nvswap\ta\tFAIL\t2\t1\t0\t9\n' > "$lg/20261205-100000-p-d-full.tsv"
printf '# run.id T2 full\nshared\te\tPASS\t5\t0\t0\t21\n' > "$lg/20261206-100000-p-d-full.tsv"
"$top/qemu/resume.sh" passed "$rl" "T1 full" p-d-full "$lg" > "$tmp/resumed-lg.tsv"
check "resume: a ledger of the same tree counts like a run (newest first), another tree's does not; a run in both is read from build/logs" \
	[ "$(cut -f1,2,3,7 "$tmp/resumed-lg.tsv" | tr '\t\n' ' |')" = "shared b 5 20261205-100000-p-d-full|shared a 4 20261202-100000-p-d-full|own-c c 2 20261202-100000-p-d-full|vswap a 3 20261201-100000-p-d-full|" ]
kept=$(printf 'shared - a b d\nown-c - c\nvswap - a b\nown-e - e\n' | "$top/qemu/resume.sh" keep "$tmp/resumed.tsv" | tr '\n' '|')
check "resume: a boot keeps the tests not passed in that boot; a boot with none left is dropped" \
	[ "$kept" = "shared - b d|vswap - b|own-e - e|" ]
kept=$(printf 'shared - a b\n' | "$top/qemu/resume.sh" keep /dev/null | tr '\n' '|')
check "resume: nothing passed before, every boot kept" [ "$kept" = "shared - a b|" ]
check "resume: bad usage exits 2" sh -c "\"$top/qemu/resume.sh\" passed x 2>/dev/null; [ \$? = 2 ]"
check "make test RESUME=2 and RESUME=1 with T= are refused (exit 2) before anything runs" \
	sh -c "RESUME=2 \"$top/qemu/test.sh\" >/dev/null 2>&1; a=\$?; RESUME=1 T=x \"$top/qemu/test.sh\" >/dev/null 2>&1; [ \$a\$? = 22 ]"

# lava-jobs.sh (make lava-jobs; LAVA's own schema check needs lava-common,
# which make test does not install): a job per boot of both suites and of
# the bench, each naming the tests its boot runs
"$top/qemu/lava-jobs.sh" "$tmp/lava" > /dev/null 2>&1
nb=$(( $("$top/qemu/boot-plan.sh" quick $("$top/qemu/suite-list.sh" quick) | wc -l) +
	$("$top/qemu/boot-plan.sh" full $("$top/qemu/suite-list.sh" full) | wc -l) + 2 ))
qs=$("$top/qemu/boot-plan.sh" quick $("$top/qemu/suite-list.sh" quick) | sed -n 's/^shared - //p' | tr ' ' ',')
check "lava-jobs: one job per boot of make test, make test-full and make bench ($nb)" \
	[ "$(ls "$tmp"/lava/*.yaml 2>/dev/null | wc -l)" = "$nb" ]
check "lava-jobs: the quick shared job boots with the tests of the quick shared boot, results on the console" \
	grep -q "tierswap.tests=$qs tierswap.suite=quick tierswap.results=console\"'\$" "$tmp/lava/test-quick-shared.yaml"
check "lava-jobs: the full suite's vswap job boots with TIERSWAP_VSWAP=1" \
	sh -c "[ -z \"\$(grep -l '^# also-vswap: yes' \"$top\"/qemu/tests/*.sh)\" ] ||
		grep -q 'tierswap.env.TIERSWAP_VSWAP=1' \"$tmp/lava/test-full-vswap.yaml\""

# LAVA_SPLIT=K: each suite's shared boot as K jobs that hold its tests
# once each; by LAVA_TIMES the longest test's job takes nothing else while
# the rest outweigh it; bad values are refused (exit 2) and write nothing
tests_of() { sed -n 's/^  tierswap.tests: "\(.*\)"$/\1/p' "$@" | tr ' ' '\n' | sed '/^$/d' | sort; }
fs=$("$top/qemu/boot-plan.sh" full $("$top/qemu/suite-list.sh" full) | sed -n 's/^shared - //p')
big=$(echo $fs | awk '{ print $2 }')
printf 'boot\ttest\tseconds\tresult\n' > "$tmp/split-times"
for t in $fs; do printf 'shared\t%s\t%s\tPASS\n' "$t" "$([ "$t" = "$big" ] && echo 5000 || echo 10)" >> "$tmp/split-times"; done
LAVA_SPLIT=3 LAVA_TIMES=$tmp/split-times "$top/qemu/lava-jobs.sh" "$tmp/lava3" > /dev/null 2>&1
check "lava-jobs: LAVA_SPLIT=3 makes each shared boot 3 jobs ($((nb + 4)) in all) that hold its tests once each" \
	sh -c "[ \$(ls $tmp/lava3/*.yaml | wc -l) = $((nb + 4)) ] && [ ! -e $tmp/lava3/test-full-shared.yaml ] &&
		[ \"\$(cat $tmp/lava3/test-full-shared-[123].yaml | sed -n 's/^  tierswap.tests: \"\(.*\)\"\$/\1/p' | tr ' ' '\n' | sort)\" = \"\$(echo $fs | tr ' ' '\n' | sort)\" ]"
bigjob=$(for f in "$tmp"/lava3/test-full-shared-*.yaml; do tests_of "$f" | grep -qx -- "$big" && echo "$f"; done)
check "lava-jobs: LAVA_TIMES balances the split: the longest test ($big) has its job to itself" \
	[ "$(tests_of $bigjob | tr '\n' ' ')" = "$big " ]
LAVA_SPLIT=0 "$top/qemu/lava-jobs.sh" "$tmp/lava3" > /dev/null 2>&1; r1=$?
LAVA_SPLIT=2 LAVA_TIMES=$tmp/nonesuch "$top/qemu/lava-jobs.sh" "$tmp/lava3" > /dev/null 2>&1; r2=$?
check "lava-jobs: LAVA_SPLIT=0 and an unreadable LAVA_TIMES are refused (exit 2), the jobs written before stay" \
	sh -c "[ $r1 = 2 ] && [ $r2 = 2 ] && [ \$(ls $tmp/lava3/*.yaml | wc -l) = $((nb + 4)) ]"

# kcidb.py: a run's times.tsv and boots as KCIDB JSON
mkdir -p "$tmp/kc/shared" "$tmp/kc/own"
printf 'boot\ttest\tseconds\tresult\nhost\tframe\t3\tPASS\nshared\ta\t1.5\tPASS\nshared\tb\t2\tFAIL\nown\tc\t-\t?\n' > "$tmp/kc/times.tsv"
printf 'qemu_rc=0 wall_s=9\n' > "$tmp/kc/shared/boot.info"
printf '### guest up 1\n### guest done 9\n' > "$tmp/kc/shared/results.log"
printf 'qemu_rc=124 wall_s=9\n' > "$tmp/kc/own/boot.info"
printf '### guest up 1\n' > "$tmp/kc/own/results.log"
kc=$("$top/qemu/kcidb.py" "$tmp/kc" patched debug | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["version"]["major"], d["builds"][0]["config_name"], d["builds"][0]["checkout_id"] == d["checkouts"][0]["id"],
      " ".join(t["path"] + "=" + t["status"] for t in d["tests"]))')
check "kcidb: one build, a test per row (host, PASS, FAIL, ERROR) and a boot test per guest boot (killed: FAIL)" \
	[ "$kc" = "4 patched-debug True tierswap.host.frame=PASS tierswap.a=PASS tierswap.b=FAIL tierswap.c=ERROR boot=PASS boot=FAIL" ]

# config-final.awk: what build-kernel.sh checks after kconfig is each
# option's last setting over the flavour's fragments
printf 'CONFIG_A=y\nCONFIG_B=y\n# note\n' > "$tmp/frag1"
printf '# CONFIG_A is not set\nCONFIG_C=m\n' > "$tmp/frag2"
check "config-final: a later fragment overrides an earlier one, options in first-seen order" \
	[ "$(cat "$tmp/frag1" "$tmp/frag2" | awk -f "$top/qemu/config-final.awk" | tr '\n' '|')" = "# CONFIG_A is not set|CONFIG_B=y|CONFIG_C=m|" ]
nothp=$(cat "$top/qemu/kernel.config" "$top/qemu/debug.config" "$top/qemu/nothp.config" |
	awk -f "$top/qemu/config-final.awk" | grep -E '^(# )?CONFIG_(TRANSPARENT_HUGEPAGE|TRANSPARENT_HUGEPAGE_MADVISE|THP_SWAP)[ =]' | tr '\n' '|')
check "config-final: the debug-nothp flavour ends with THP and THP_SWAP off" \
	[ "$nothp" = "# CONFIG_TRANSPARENT_HUGEPAGE is not set|# CONFIG_TRANSPARENT_HUGEPAGE_MADVISE is not set|# CONFIG_THP_SWAP is not set|" ]
bad=
for f in $(grep -l '^# also-flavour:' "$top"/qemu/tests/*.sh); do
	fl=$(sed -n 's/^# also-flavour: *//p' "$f")
	grep -q "^$fl) frags=" "$top/qemu/build-kernel.sh" || bad="$bad $(basename "$f") ($fl)"
done
check "also-flavour: every flavour a guest test asks for is one build-kernel.sh builds${bad:+:$bad}" [ -z "$bad" ]

# series-check.sh: a bad FIRST is refused (exit 2, one line) before
# anything is built or checked out
for bad in x 0 07 -1; do
	check "series-check: FIRST '$bad' refused with exit 2" sh -c \
		"'$top/qemu/series-check.sh' debug '$bad' >/dev/null 2>$tmp/sc.err; [ \$? = 2 ] && [ \$(wc -l < $tmp/sc.err) = 1 ] && grep -q 'FIRST' $tmp/sc.err"
done

# coverage-check.sh: this checkout passes; each kind of gap fails
check "coverage: docs/test-coverage.md holds for this checkout's series and tests" "$top/qemu/coverage-check.sh"
cov() { # name: a copy of the coverage inputs in $tmp/cov-NAME, echoes it
	local c=$tmp/cov-$1
	mkdir -p "$c/tests"
	printf '0001-a.patch\n0002-b.patch\n' > "$c/series"
	printf 'workloads\n' > "$c/components"
	printf '#!/bin/sh\n# suite: quick\n' > "$c/tests/qt.sh"
	printf '#!/bin/sh\n# suite: full\n' > "$c/tests/ft.sh"
	printf '%s\n' '| item | what | quick tests | full tests |' '| --- | --- | --- | --- |' \
		'| `0001-a.patch` | a | qt | ft |' '| `0002-b.patch` | b | qt, host/workloads | |' > "$c/doc"
	echo "$c"
}
covrun() { "$top/qemu/coverage-check.sh" "$1/doc" "$1/series" "$1/tests" "$1/components" > "$1/out"; }
c=$(cov good); covrun "$c"
check "coverage: a complete synthetic table passes" test $? = 0
c=$(cov noquick); sed -i 's/| `0002-b.patch` | b | qt, host\/workloads | |/| `0002-b.patch` | b | | ft |/' "$c/doc"; covrun "$c"
check "coverage: a patch with no quick test fails" sh -c "[ $? = 1 ] && grep -q '0002-b.patch: no quick test' $c/out"
c=$(cov norow); printf '0003-c.patch\n' >> "$c/series"; covrun "$c"
check "coverage: a patch of the series with no row fails" sh -c "[ $? = 1 ] && grep -q '0003-c.patch: a patch of the series with no row' $c/out"
c=$(cov wrongsuite); sed -i 's/| a | qt | ft |/| a | ft | qt |/' "$c/doc"; covrun "$c"
check "coverage: a full test listed as quick (and the reverse) fails" \
	sh -c "[ $? = 1 ] && grep -q 'ft is listed as quick' $c/out && grep -q 'qt is listed as full' $c/out"
c=$(cov unlisted); printf '#!/bin/sh\n# suite: full\n' > "$c/tests/new.sh"; covrun "$c"
check "coverage: a guest test in no row fails" sh -c "[ $? = 1 ] && grep -q 'new: a guest test in no row' $c/out"
c=$(cov nosuch); sed -i 's/| a | qt | ft |/| a | qt, gone | ft |/' "$c/doc"; covrun "$c"
check "coverage: a test that does not exist fails" sh -c "[ $? = 1 ] && grep -q 'gone: no such test' $c/out"

# progress.sh: kbuild step lines become a line every interval; warnings pass
( for i in 1 2 3; do echo "  CC      mm/f$i.o"; sleep 1; done; echo "mm/f.c:1:2: warning: w"; echo "  LD      vmlinux" ) |
	PROGRESS_INTERVAL=1 "$top/qemu/progress.sh" "build" > "$tmp/prog"
check "progress: a line per interval with elapsed time and the last step; warnings shown; a final line" \
	sh -c "grep -q '^build: 0m0[0-4]s, [0-9] steps, last: CC mm/f[0-9].o' $tmp/prog && grep -qx 'mm/f.c:1:2: warning: w' $tmp/prog &&
		tail -n 1 $tmp/prog | grep -q '^build: .*, 4 steps, done, last: LD vmlinux'"
( sleep 3; echo "  CC      x.o" ) | PROGRESS_INTERVAL=1 "$top/qemu/progress.sh" "silent" > "$tmp/prog"
check "progress: a silent build still gets its line every interval" sh -c "[ \$(grep -c '^silent: .*0 steps, last: starting' $tmp/prog) -ge 2 ]"

# make test and make lava-run judge the same boot alike. A boot's output
# both ways: make test's two files (TAP on results.log, kernel log on
# console.log) and the one serial stream of a LAVA job (tierswap.results=
# console: both interleaved, each line a lava-run record, plus LAVA's own
# records around them). lava-log.py splits the LAVA log, report.sh judges
# both, and the verdicts and totals must be equal; the pass case must
# pass and the fail case (a failed check, a test killed mid-run) fail.
# The real runs both ways are in docs/lava.md.
lava_log() { # DIR: DIR/lava.log from DIR/results.log and DIR/console.log
	python3 - "$1" <<'PY'
import json, sys
d = sys.argv[1]
res = open(d + "/results.log").read().replace("\r", "").splitlines()
con = open(d + "/console.log").read().splitlines()
rec = lambda lvl, msg: "- " + json.dumps({"dt": "2026-12-06T00:00:00", "lvl": lvl, "msg": msg})
out = [rec("info", "start: 0 validate"), "a stray line lava-run printed"]
# kernel lines between TAP lines, as they meet on one port
for i in range(max(len(res), len(con))):
    if i < len(con):
        out.append(rec("target", con[i] + "\r"))
    if i < len(res):
        out.append(rec("target", res[i]))
out.append(rec("results", {"definition": "lava", "case": "job", "result": "pass"}))
open(d + "/lava.log", "w").write("\n".join(out) + "\n")
PY
}
verdicts() { # DIR NAME...: the verdict lines and the totals report.sh prints
	local dir=$1
	shift
	"$top/qemu/report.sh" "$dir" "$@" | grep -E '^(PASS|FAIL|SKIP|ERROR) |^RESULT '
}
d=$(mk vpass)
res "### guest up 3" "### begin a timeout=5" "1..2" "ok 1 - x" "ok 2 - y # SKIP no z" "### end a rc=0" \
	"### lava a pass" "### guest done 9" "### lava done"
con "[ 1.0] tierswap: begin a" "[ 1.5] tierblk: loaded" "[ 1.9] tierswap: end a"
d=$(mk vfail)
res "### guest up 3" "### begin a timeout=5" "1..2" "ok 1 - x" "not ok 2 - y" "### end a rc=1" "### lava a fail" \
	"### begin b timeout=5" "1..3" "ok 1 - p"
con "[ 1.0] tierswap: begin a" "[ 1.9] tierswap: end a" "[ 2.0] tierswap: begin b"
for c in vpass vfail; do
	d=$tmp/$c
	names=a
	[ "$c" = vfail ] && names="a b"
	lava_log "$d"
	mkdir -p "$d/lava"
	"$top/qemu/lava-log.py" "$d/lava.log" "$d/lava" > "$d/job" 2>&1
	verdicts "$d" $names > "$d/mt"
	verdicts "$d/lava" $names > "$d/lv"
	read -r _ _ _ vf _ < <(tail -n 1 "$d/mt")
	if [ "$c" = vpass ]; then want="[ ${vf:-1} = 0 ]"; else want="[ ${vf:-0} -ge 2 ]"; fi
	check "verdicts ($c): make test's two files and the LAVA log give the same verdicts ($(tail -n 1 "$d/mt"))" \
		sh -c "$want && [ \"\$(cat $d/job)\" = pass ] && cmp -s $d/mt $d/lv"
	cmp -s "$d/mt" "$d/lv" || diff "$d/mt" "$d/lv" | sed 's/^/# /'
done

# The knobs table (docs/architecture.md, "Knobs") lists exactly what the
# frame reads; a variable read and not listed, or listed and not read, fails.
check "knobs: the table lists every variable the frame reads, and nothing else" "$top/qemu/knobs.sh" check
kd=$tmp/knobs
mkdir -p "$kd/qemu/tests" "$kd/qemu/guest/lib" "$kd/qemu/bench" "$kd/docs" "$kd/.ci"
cp "$top/qemu/knobs.sh" "$kd/qemu/"
printf 'A ?= 1\n' > "$kd/Makefile"
printf '<!-- knobs begin -->\n| knob | where | read by | default | what |\n| --- | --- | --- | --- | --- |\n| `A` | make | Makefile | 1 | a |\n| `OLD` | guest | tests/x | | gone |\n<!-- knobs end -->\n' > "$kd/docs/architecture.md"
# (split, or this file would read the knob itself)
printf 'x=$%s\n' '{NEW_KNOB:-3}' > "$kd/qemu/tests/x.sh"
"$kd/qemu/knobs.sh" check > "$tmp/knobs.out" 2>&1; krc=$?
check "knobs: a new variable and a stale row are both named, exit 1" \
	sh -c "[ $krc = 1 ] && grep -q 'not in .*: NEW_KNOB' $tmp/knobs.out && grep -q 'read by nothing: OLD' $tmp/knobs.out"
check "knobs: make help prints the make and guest knobs" sh -c \
	"make -s -C '$top' help | grep -q '^  GUEST_ENV  *make ' && make -s -C '$top' help | grep -q '^  VSWAP_BENCH_SIZE  *guest ' && ! make -s -C '$top' help | grep -q '^  TIERS_LIST '"

# A fresh machine: nothing outside the checkout exists yet. The Makefile's
# set-up steps (deps, the build lock under ~/.cache) and a locked build step
# must work with an empty HOME.
mkdir -p "$tmp/home"
HOME=$tmp/home make -s -C "$top" deps userspace > "$tmp/fresh" 2>&1; rf=$?
check "fresh HOME: make deps userspace works with an empty HOME and creates its lock" \
	sh -c "[ $rf = 0 ] && [ -f $tmp/home/.cache/tierswap-build.lock ]"
[ "$rf" = 0 ] || sed 's/^/# /' "$tmp/fresh" | tail -n 10

tap_end
