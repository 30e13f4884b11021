#!/bin/bash
# Host-side tests of the test judge (report.sh, tap-verdict.awk): synthetic
# guest logs with known faults must get the verdicts below. TAP on stdout.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # desc cmd...
	local desc=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; failed=$((failed + 1)); fi
}

# mk NAME: an empty log dir; results/console lines are appended by the cases.
mk() { mkdir -p "$tmp/$1"; : > "$tmp/$1/results.log"; : > "$tmp/$1/console.log"; echo "$tmp/$1"; }
res() { printf '%s\r\n' "$@" >> "$d/results.log"; }
con() { printf '%s\n' "$@" >> "$d/console.log"; }
judge() { "$top/qemu/report.sh" "$d" "$@" > "$d/out"; }
has() { grep -q -- "$1" "$d/out"; }
last() { [ "$(tail -n 1 "$d/out")" = "$1" ]; }

echo "1..13"

d=$(mk pass)
res "### guest up 3" "### begin a timeout=5" "1..2" "ok 1 - x" "ok 2 - y # SKIP no z" "### end a rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a"
judge a
ok "a clean test passes, skips counted" last "RESULT guest 1 0 1"

d=$(mk notok)
res "### begin a timeout=5" "1..2" "ok 1 - x" "not ok 2 - y" "### end a rc=1" "### guest done 4"
judge a
ok "a 'not ok' fails the test and shows its TAP" sh -c "grep -q '^FAIL a' $d/out && grep -q 'not ok 2 - y' $d/out"

d=$(mk noplan)
res "### begin a timeout=5" "ok 1 - x" "### end a rc=0" "### guest done 4"
judge a
ok "no plan fails" has "no TAP plan"

d=$(mk short)
res "### begin a timeout=5" "1..3" "ok 1 - x" "### end a rc=0" "### guest done 4"
judge a
ok "fewer results than planned fails" has "planned 3 results, got 1"

d=$(mk timeout)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=143" "### guest done 4"
judge a
ok "a killed test fails as timed out" has "exit status 143 (timed out)"

d=$(mk splat)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### begin b timeout=5" "1..1" "ok 1 - x" "### end b rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a" "[ 1.2] tierswap: begin b" \
	"[ 1.3] WARNING: CPU: 0 PID: 1 at mm/swapfile.c:1 foo+0x1/0x2" "[ 1.4] tierswap: end b"
judge a b
ok "a WARNING fails the test it happened in" sh -c "grep -q '^FAIL b.*kernel splat' $d/out && grep -q 'mm/swapfile.c' $d/out"
ok "... and not the test before it" has "^PASS a"

d=$(mk kasan)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] BUG: KASAN: slab-use-after-free in swap_read_folio" "[ 1.4] tierswap: end a"
judge a
ok "a KASAN report fails the test" has "^FAIL a.*kernel splat"

d=$(mk lockdep)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### guest done 4"
con "[ 1.0] tierswap: begin a" "[ 1.1] INFO: task kworker/0:1:12 blocked for more than 60 seconds." "[ 1.4] tierswap: end a"
judge a
ok "a hung task report fails the test" has "^FAIL a.*kernel splat"

d=$(mk died)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### begin b timeout=5" "1..3" "ok 1 - x"
con "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a" "[ 1.2] tierswap: begin b" "[ 1.3] Kernel panic - not syncing: Fatal exception"
judge a b c
ok "a guest that dies fails the running test" sh -c "grep -q '^FAIL b.*guest died' $d/out"
ok "... and reports the rest as not run, failed" sh -c "grep -q '^FAIL c.*not run' $d/out && tail -n 1 $d/out | grep -q '^RESULT guest 2 2 0'"

d=$(mk bootsplat)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### end a rc=0" "### guest done 4"
con "[ 0.5] BUG: unable to handle page fault for address: 0" "[ 1.0] tierswap: begin a" "[ 1.1] tierswap: end a"
judge a
ok "a splat during boot fails the run" has "^FAIL boot"

d=$(mk leftover)
res "### begin a timeout=5" "1..1" "ok 1 - x" "### leftover swap: /dev/zram0" "### end a rc=0" "### guest done 4"
judge a
ok "a test that leaves swap on fails" has "left behind: leftover swap: /dev/zram0"

echo "# $((n - failed)) of $n passed"
[ "$failed" -eq 0 ]
