#!/bin/sh
# Host-side checks of the workloads: the C unit tests ($UNIT) and
# end-to-end runs of the programs in $BIN that need neither swap nor root
# (--pageout none; shmem truncation stands in for a failing device).
# Prints one KTAP stream (plan at the end); exits 1 on any failure.
set -u
: "${BIN:?BIN=<dir with swapstress and usemem>}"
: "${UNIT:?UNIT=<unit test binary>}"
SS=$BIN/swapstress
UM=$BIN/usemem
SP=$BIN/scprobe
SR=$BIN/swaprace
LR=$BIN/large-entry-race
SF=$BIN/swapin-floor
BR=$BIN/blkrace
T=$(mktemp -d "${TMPDIR:-/tmp}/workloads-check.XXXXXX")
trap 'rm -rf "$T"' EXIT
# pass, fail, check "what" command..., tap_end
. "$(dirname "$0")/../../common/ktap.sh"
kv() { # kv file key -> value of the first key=value line
	sed -n "s/^$2=//p" "$1" | head -n 1
}
# run: run "$@", stdout -> $T/out, stderr -> $T/err, exit code -> $rc
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}
dump() { sed 's/^/#   /' "$T/out" "$T/err" | head -n 80; }
# with_out CMD...: CMD, and on failure the last run's output (check shows it)
with_out() { "$@" || { cat "$T/out" "$T/err"; return 1; }; }

# ---- C unit tests, renumbered into this stream (their own plan dropped)
"$UNIT" >"$T/unit" 2>&1
urc=$?
while IFS= read -r line; do
	case $line in
	"ok "[0-9]*" - "*) rest=${line#ok }; pass "${rest#* - }" ;;
	"not ok "[0-9]*" - "*) rest=${line#not ok }; fail "${rest#* - }" ;;
	"1.."[0-9]* | "KTAP version "*) ;;
	*) echo "$line" ;;
	esac
done <"$T/unit"
[ $urc -eq 0 ] || grep -q "^not ok" "$T/unit" || fail "unit test binary exited $urc"

# ---- swapstress command line
for p in "$SS" "$UM" "$SP" "$SR" "$LR"; do
	run "$p" --help
	check "$(basename "$p") --help exits 0 with usage" \
		sh -c '[ $0 -eq 0 ] && grep -q "^usage:" "$1"' $rc "$T/out"
done
for args in "--size 12Q" "--bogus" "--mem disk" "--access read" "--procs" "--pageout memcg --memcg-name a/b" \
	"--zero-pct 101" "--zero-pct x" "--fill dense" "--stride 16" "--pattern stride --stride 1" \
	"--pattern stride --stride 4097" "--pattern stride --stride x"; do
	# shellcheck disable=SC2086
	run "$SS" $args
	check "swapstress $args: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ] && [ ! -s "$2" ]' $rc "$T/err" "$T/out"
done
for args in "-n 2" "-P 1G" "1Q" "--bogus 1G"; do
	# shellcheck disable=SC2086
	run "$UM" $args
	check "usemem $args: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ]' $rc "$T/err"
done

# ---- --pattern stride: one page in N per pass, every page still verified
run "$SS" --size 1M --pageout none --pattern stride --stride 8 --passes 3 --write-pct 50
check "stride 8 over 256 pages, 3 passes: 96 accesses, 96 + 224 untouched pages verified, none corrupt" \
	sh -c '[ $0 -eq 0 ] && [ "$1 $2 $3 $4 $5" = "stride 8 96 320 0" ]' $rc \
	"$(kv "$T/out" pattern)" "$(kv "$T/out" stride)" "$(kv "$T/out" accesses)" \
	"$(kv "$T/out" pages_verified)" "$(kv "$T/out" corrupt)"
run "$SS" --size 1M --pageout none --pattern stride --stride 10 --threads 2
check "stride 10, 2 threads of 128 pages: 13 accesses each (the last stride short), all 256 pages verified" \
	sh -c '[ $0 -eq 0 ] && [ "$1 $2" = "26 256" ]' $rc \
	"$(kv "$T/out" accesses)" "$(kv "$T/out" pages_verified)"

# ---- clean runs
for args in "--mem anon --pattern seq" \
	"--mem anon --pattern random --passes 2 --thp always" \
	"--mem anon --pattern zipf --procs 2 --threads 2 --thp never" \
	"--mem shmem --access mmap --pattern random --procs 3" \
	"--mem shmem --access read --pattern zipf --threads 3 --write-pct 100"; do
	# shellcheck disable=SC2086
	run "$SS" --size 4M --pageout none $args
	if [ $rc -eq 0 ] && [ "$(kv "$T/out" corrupt)" = 0 ] && [ "$(kv "$T/out" result)" = pass ] &&
		[ "$(kv "$T/out" pages_verified)" -ge 1024 ] && [ -n "$(kv "$T/out" p99_us)" ]; then
		pass "swapstress $args: clean run verifies every page"
	else
		fail "swapstress $args: clean run verifies every page (rc=$rc)"
		dump
	fi
done

# ---- --zero-pct: a seeded share of the pages holds zeroes in every generation
for args in "--mem anon --pattern random --passes 2 --write-pct 100" \
	"--mem shmem --access read --pattern zipf --threads 2 --write-pct 50"; do
	# shellcheck disable=SC2086
	run "$SS" --size 4M --pageout none --zero-pct 30 $args
	z=$(kv "$T/out" zero_pages)
	check "swapstress --zero-pct 30 $args: every page verified, ${z:-?} of 1024 pages zero" \
		sh -c '[ $0 -eq 0 ] && [ "$1" = 0 ] && [ "$2" -ge 1024 ] && [ "$3" -ge 250 ] && [ "$3" -le 370 ]' \
		$rc "$(kv "$T/out" corrupt)" "$(kv "$T/out" pages_verified)" "${z:-0}"
done
run "$SS" --size 4M --pageout none --fill sparse --zero-pct 10 --write-pct 100 --passes 2 --pattern random
check "swapstress --fill sparse --zero-pct 10: every page verified" \
	sh -c '[ $0 -eq 0 ] && grep -q "^corrupt=0$" "$1" && grep -q "^fill=sparse$" "$1"' $rc "$T/out"
run "$SS" --size 4M --pageout none --zero-pct 0
check "swapstress without --zero-pct: zero_pages=0" sh -c '[ $0 -eq 0 ] && [ "$1" = 0 ]' $rc "$(kv "$T/out" zero_pages)"
run "$SS" --size 4M --pageout none --zero-pct 100 --inject-corrupt 5
check "--zero-pct 100: a byte flipped in zero page 5 is reported (exit 1, expected 0)" \
	sh -c '[ $0 -eq 1 ] && grep -q "^corrupt_pages=5$" "$1" && grep -q "^zero_pages=1024$" "$1" &&
	       grep "^# CORRUPT" "$1" | grep -q "expected=0x0* "' $rc "$T/out"

run "$SS" --size 4M --pageout none --mode swapin-timer --mem shmem
check "swapstress swapin-timer (no pageout) reports swapin_ms and verifies" \
	sh -c '[ $0 -eq 0 ] && grep -q "^swapin_ms=" "$1" && grep -q "^pages_verified=1024$" "$1"' $rc "$T/out"
check "swapstress swapin-timer on a memfd times no unmap (the memfd keeps its pages)" \
	sh -c '! grep -q "^swapin_unmap_ms=" "$0"' "$T/out"
run "$SS" --size 4M --pageout none --mode swapin-timer --mem anon
check "swapstress swapin-timer on anon also times the unmap after the read-back (swapin_unmap_ms > 0)" \
	sh -c '[ $0 -eq 0 ] && awk -F= "\$1 == \"swapin_unmap_ms\" && \$2 > 0 { ok = 1 } END { exit !ok }" "$1"' $rc "$T/out"
check "swapstress swapin-timer without --fault-times prints no per-page distribution" \
	sh -c '[ $0 -eq 0 ] && grep -q "^swapin_ms=" "$1" && ! grep -q "^swapin_cdf_ns=" "$1"' $rc "$T/out"
run "$SS" --size 4M --pageout none --mode swapin-timer --mem anon --fault-times
check "swapstress --fault-times: 18 quantile:ns points, quantiles rising to 1 and times never falling, p50 and max among them, one group a page" \
	sh -c '[ $0 -eq 0 ] && awk -F= "
		\$1 == \"swapin_cdf_ns\" { n = split(\$2, pt, \",\"); pq = -1; pv = -1; ok = n == 18
			for (i = 1; i <= n; i++) { split(pt[i], a, \":\"); if (a[1] + 0 <= pq || a[2] + 0 < pv) ok = 0; pq = a[1] + 0; pv = a[2] + 0
				if (a[1] == \"0.5\") med = a[2]; if (a[1] == \"1\") top = a[2] } }
		\$1 == \"swapin_p50_ns\" { p50 = \$2 } \$1 == \"swapin_max_ns\" { mx = \$2 }
		\$1 == \"swapin_groups_timed\" { g = \$2 }
		END { exit !(ok && pq == 1 && med == p50 && top == mx && mx > 0 && g == 1024) }" "$1"' $rc "$T/out"
run "$SS" --size 4M --pageout none --mode swapin-timer --mem anon --threads 3 --fault-times --fault-group 16
check "swapstress --fault-group 16 over 3 threads: a group never spans two threads' ranges or a 16-page boundary (64 or more groups, at most 66)" \
	sh -c '[ $0 -eq 0 ] && g=$(sed -n "s/^swapin_groups_timed=//p" "$1") && [ "$g" -ge 64 ] && [ "$g" -le 66 ] &&
	       grep -q "^swapin_fault_group=16$" "$1"' $rc "$T/out"
run "$SS" --size 4M --pageout none --fault-times
check "swapstress --fault-times outside swapin-timer: exit 2, one line naming the mode" \
	sh -c '[ $0 -eq 2 ] && [ $(wc -l < "$1") -le 1 ] && grep -q "needs --mode swapin-timer" "$1"' $rc "$T/err"
for bad in "--fault-group 16" "--fault-times --fault-group 0" "--fault-times --fault-group 513"; do
	# shellcheck disable=SC2086
	run "$SS" --size 4M --pageout none --mode swapin-timer $bad
	check "swapstress swapin-timer $bad: exit 2, one line" sh -c '[ $0 -eq 2 ] && [ $(wc -l < "$1") -eq 1 ]' $rc "$T/err"
done

run "$SS" --size 2M --pageout none --json --pattern random
check "swapstress --json prints one parseable JSON object" \
	sh -c '[ $0 -eq 0 ] && [ $(wc -l <"$1") -eq 1 ] && grep -q "\"corrupt\":0," "$1" &&
	       { ! command -v python3 >/dev/null || python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"; }' \
	$rc "$T/out"

# ---- a deliberately corrupted page is reported with the right address
run "$SS" --size 4M --pageout none --mem anon --inject-corrupt 300 --pagemap "$T/pm"
line=$(grep "^# CORRUPT" "$T/out" | head -n 1)
paddr=$(echo "$line" | sed -n 's/.* page_addr=\(0x[0-9a-f]*\).*/\1/p')
addr=$(echo "$line" | sed -n 's/.* addr=\(0x[0-9a-f]*\).*/\1/p')
if [ $rc -eq 1 ] && [ "$(kv "$T/out" corrupt)" = 1 ] && [ "$(kv "$T/out" corrupt_pages)" = 300 ] &&
	[ "$(kv "$T/out" first_corrupt_addr)" = "$addr" ] && [ -n "$paddr" ] &&
	[ $((addr - paddr)) -eq 96 ] && [ $((paddr % 4096)) -eq 0 ] &&
	echo "$line" | grep -q "found_page=300 "; then
	pass "anon: corrupted page 300 reported at page_addr+96 with expected/found, exit 1"
else
	fail "anon: corrupted page 300 reported at page_addr+96 with expected/found, exit 1 (rc=$rc)"
	dump
fi
check "--pagemap writes one line per page ('- -' when not swapped)" \
	sh -c '[ $(wc -l <"$0") -eq 1024 ] && [ "$(sed -n 301p "$0")" = "300 - -" ]' "$T/pm"

run "$SS" --size 4M --pageout none --mem shmem --access read --procs 2 --inject-corrupt 700
line=$(grep "^# CORRUPT" "$T/out" | head -n 1)
# page 700 is page 188 of the second process's memfd: offset 188*4096+96
check "shmem read: corrupted page reported with its memfd offset" \
	sh -c '[ $0 -eq 1 ] && echo "$1" | grep -q "page=700 file_offset=0xbc000 addr=0xbc060 "' $rc "$line"

run "$SS" --size 4M --pageout none --mem shmem --inject-corrupt 5 --pattern zipf --passes 3
check "shmem mmap, zipf: the corrupted page is still found (final sweep)" \
	sh -c '[ $0 -eq 1 ] && grep -q "^corrupt_pages=5$" "$1"' $rc "$T/out"

# ---- SIGBUS / EIO recording (truncated memfd stands in for a failing device)
run "$SS" --size 4M --pageout none --mem shmem --procs 2 --inject-truncate 1020 --expect-sigbus
check "--expect-sigbus: SIGBUS pages recorded, run continues, exit 0" \
	sh -c '[ $0 -eq 0 ] && grep -q "^sigbus=4$" "$1" && grep -q "^sigbus_pages=1020,1021,1022,1023$" "$1" &&
	       grep -q "^pages_verified=1020$" "$1" && grep -q "^# SIGBUS page=1020 page_addr=0x[0-9a-f]* si_addr=0x" "$1"' \
	$rc "$T/out"
run "$SS" --size 4M --pageout none --mem shmem --inject-truncate 1022 --threads 2 --write-pct 100
check "SIGBUS without --expect-sigbus fails the run (exit 1)" \
	sh -c '[ $0 -eq 1 ] && grep -q "^sigbus_pages=1022,1023$" "$1"' $rc "$T/out"
run "$SS" --size 4M --pageout none --mem shmem --access read --inject-truncate 1021 --expect-sigbus
check "--access read: failing preads recorded as eio_pages" \
	sh -c '[ $0 -eq 0 ] && grep -q "^eio_pages=1021,1022,1023$" "$1" && grep -q "^sigbus=0$" "$1"' $rc "$T/out"

# ---- --stop-after-pageout: stops itself, continues on SIGCONT
# wait_stop PID: stopped=1 once PID is stopped (10 s at most), else 0
wait_stop() {
	stopped=0
	i=0
	while [ $i -lt 100 ]; do
		if grep -q '^State:.*T' /proc/$1/status 2>/dev/null; then stopped=1; break; fi
		sleep 0.1
		i=$((i + 1))
	done
}
"$SS" --size 4M --pageout none --stop-after-pageout >"$T/out" 2>"$T/err" &
pid=$!
wait_stop $pid
kill -CONT $pid 2>/dev/null
wait $pid
rc=$?
check "--stop-after-pageout: process stops, resumes on SIGCONT, passes" \
	sh -c '[ $0 -eq 1 ] && [ $1 -eq 0 ] && grep -q "^# stopping after pageout: pid=" "$2"' $stopped $rc "$T/out"

# ---- --lock-self: each process's own pages locked, the memory under test not
# (smaps_rollup's Locked: resident pages of locked mappings, shared ones
# in proportion). Locking more than RLIMIT_MEMLOCK needs root.
if [ "$(id -u)" != 0 ] && [ "$(ulimit -l)" != unlimited ]; then
	skip "--lock-self" "needs root (or ulimit -l unlimited)"
else
	"$SS" --size 8M --pageout none --threads 2 --lock-self --stop-after-pageout >"$T/out" 2>"$T/err" &
	pid=$!
	wait_stop $pid
	plk=$(awk '$1 == "Locked:" { print $2 }' /proc/$pid/smaps_rollup 2>/dev/null)
	w=$(cat /proc/$pid/task/*/children 2>/dev/null | tr -d " ")
	wlk=$(awk '$1 == "Locked:" { print $2 }' /proc/$w/smaps_rollup 2>/dev/null)
	wrss=$(awk '$1 == "Rss:" { print $2 }' /proc/$w/smaps_rollup 2>/dev/null)
	kill -CONT $pid 2>/dev/null
	wait $pid
	rc=$?
	check "--lock-self: parent (${plk:-?} KiB) and worker (${wlk:-?} KiB) locked, the worker's 8M under test not (Rss ${wrss:-?} KiB); the run passes" \
		sh -c '[ $0 -eq 1 ] && [ $1 -eq 0 ] && [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] &&
		       [ "${3:-0}" -lt 4096 ] && [ "${4:-0}" -ge 8192 ]' $stopped $rc "$plk" "$wlk" "$wrss"
fi

# ---- usemem
run "$UM" --init-time -O -y -x -n 2 4M
check "usemem -O -y -x -n 2: upstream lines and key=value summary" \
	sh -c '[ $0 -eq 0 ] && [ $(grep -c "bytes / [0-9]* usecs = [0-9]* KB/s$" "$1") -eq 2 ] &&
	       [ $(grep -c "usecs to free memory$" "$1") -eq 2 ] && grep -q "^the initialization time is" "$1" &&
	       grep -q "^throughput_sum_kbps=[1-9]" "$1" && grep -q "^free_latency_max_us=" "$1" &&
	       grep -q "^result=pass$" "$1"' $rc "$T/out"
# A repeat's progress dot (upstream usemem prints one) may start the line of
# another task's "read again": count the phrases, not the lines.
run "$UM" -n 2 -t 2 -r 2 -Z 2M
check "usemem threads, repeat and read-again verify the data" \
	sh -c '[ $0 -eq 0 ] && grep -q "^usemem_done=4$" "$1" && grep -q "^corrupt=0$" "$1" &&
	       [ $(grep -o "read again [0-9]* bytes" "$1" | wc -l) -eq 4 ]' $rc "$T/out"
run "$UM" -R -O --punch-holes 1M
check "usemem random access and punch holes" \
	sh -c '[ $0 -eq 0 ] && grep -q "^punch holes done$" "$1"' $rc "$T/out"

# ---- scprobe, swaprace (no swap here: --pageout none, --reclaim none)
for args in "split --mem shmem" "fork --size 3M" "bogus" "mincore --thp sometimes" "mincore --mem file" "" "fork mincore" \
	"rewrite --mem shmem" "rewrite --stop=1" "rewrite --stop-reread=1"; do
	# shellcheck disable=SC2086
	run "$SP" $args
	check "scprobe $args: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ] && [ ! -s "$2" ]' $rc "$T/err" "$T/out"
done
for args in "" "--mode fork --workers 1" "--mode threads --reclaim memcg" "--mode shmem --size 1M" "--mode x" "--mode threads --thp sometimes"; do
	# shellcheck disable=SC2086
	run "$SR" $args
	check "swaprace $args: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ] && [ ! -s "$2" ]' $rc "$T/err" "$T/out"
done
# --stop-reread: stopped after the read back, the rewrite after SIGCONT
"$SP" rewrite --pageout none --stop-reread >"$T/out" 2>"$T/err" &
pid=$!
stopped=no
for _ in $(seq 1 100); do
	grep -q '^State:[[:space:]]*T' "/proc/$pid/status" 2>/dev/null && { stopped=yes; break; }
	sleep 0.05
done
kill -CONT $pid 2>/dev/null
wait $pid
rc=$?
check "scprobe rewrite --stop-reread: stops after the read back, verifies after SIGCONT" \
	sh -c '[ $0 = yes ] && [ $1 -eq 0 ] && grep -q "^corrupt_final=0$" "$2" && grep -q "^reread_present=" "$2"' \
	$stopped $rc "$T/out"
run "$SP" rewrite --pageout none
check "scprobe rewrite: every page read, half rewritten as zeroes and half as the next generation, verified" \
	sh -c '[ $0 -eq 0 ] && grep -q "^rewritten_zero=1024$" "$1" && grep -q "^rewritten_data=1024$" "$1" &&
	       grep -q "^corrupt_reread=0$" "$1" && grep -q "^corrupt_final=0$" "$1" &&
	       grep -q "^pages_verified=4096$" "$1" && grep -q "^result=pass$" "$1"' $rc "$T/out"
run "$SP" fork --pageout none
check "scprobe fork: child and parent verify, the child's COW copies too" \
	sh -c '[ $0 -eq 0 ] && grep -q "^child_verified=2048$" "$1" && grep -q "^child_verified_roundtrip=2048$" "$1" &&
	       grep -q "^pages_verified=10240$" "$1" && grep -q "^corrupt=0$" "$1" && grep -q "^result=pass$" "$1"' \
	$rc "$T/out"
for mem in anon shmem shared; do
	run "$SP" mincore --mem $mem --pageout none
	check "scprobe mincore --mem $mem: resident throughout without pageout" \
		sh -c '[ $0 -eq 0 ] && grep -q "^resident_after_pageout=2048$" "$1" &&
		       grep -q "^resident_after_reread=2048$" "$1" && grep -q "^corrupt=0$" "$1"' $rc "$T/out"
done
for mode in fork threads shmem shared; do
	run "$SR" --mode $mode --reclaim none --rounds 4 --workers 3
	# 3 workers x (4 rounds + the final pass) x 2048 pages; half of the pages rewritten a round
	check "swaprace --mode $mode: rounds verify every page, writes land" \
		sh -c '[ $0 -eq 0 ] && grep -q "^rounds=4$" "$1" && grep -q "^pages_verified=30720$" "$1" &&
		       grep -q "^writes=4096$" "$1" && grep -q "^corrupt=0$" "$1" && [ $(grep -c "^# round " "$1") -eq 4 ]' \
		$rc "$T/out"
done
run "$SR" --mode shared --reclaim none --rounds 3 --inject-corrupt 6
check "swaprace: a flipped byte is reported with its page, exit 1" \
	sh -c '[ $0 -eq 1 ] && grep -q "^first_corrupt_page=6$" "$1" && grep -q "^# CORRUPT worker=[0-9] page=6 .* offset=96 " "$1"' \
	$rc "$T/out"
"$SR" --mode threads --reclaim none --until-signal >"$T/sig.out" 2>"$T/err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q "^# round 2 " "$T/sig.out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -USR1 $pid
wait $pid
rc=$?
check "swaprace --until-signal: runs rounds until SIGUSR1, then passes" \
	sh -c '[ $0 -eq 0 ] && grep -q "^stopped_by_signal=1$" "$1" && grep -q "^result=pass$" "$1"' $rc "$T/sig.out"

# ---- fio job files (host: a temporary file stands in for the device)
JOBS=$(dirname "$0")/../fio
if command -v fio >/dev/null; then
	truncate -s 16M "$T/dev.img"
	for j in "$JOBS"/*.fio; do
		check "fio job $(basename "$j") parses with DEV set" \
			sh -c 'DEV="$1" fio --parse-only "$0" >/dev/null 2>&1' "$j" "$T/dev.img"
	done
	check "fio job without DEV fails (the device is never implicit)" \
		sh -c '! env -u DEV fio --parse-only "$0" >/dev/null 2>&1' "$JOBS/randread-4k-psync.fio"
	DEV=$T/dev.img fio --aux-path="$T" "$JOBS/verify-4k-psync.fio" >"$T/out" 2>&1
	rc=$?
	printf 'XXXX' | dd of="$T/dev.img" bs=1 seek=$((4096 * 3 + 100)) conv=notrunc 2>/dev/null
	DEV=$T/dev.img fio --aux-path="$T" --verify_only "$JOBS/verify-4k-psync.fio" >"$T/out" 2>&1
	check "verify-4k-psync writes and verifies, then catches a corrupted block" \
		sh -c '[ $0 -eq 0 ] && grep -q "verify failed at file .* offset 12288" "$1"' $rc "$T/out"
else
	skip "fio job files" "fio not installed"
fi

# ss-locate: pages of a dumped swapstress region are found at their slot.
if command -v python3 >/dev/null; then
	# slot k holds the pattern of page 3k (word 0 = magic | page), slot 0 zeros
	python3 -c 'import struct,sys
with open(sys.argv[1], "wb") as f:
    for i in range(200):
        f.write(struct.pack("<Q", (0x7453 << 48 | 3 * i) if i else 0) + bytes(4088))' "$T/slots.img"
	check "ss-locate finds page 300 at slot 100" sh -c '[ "$("$0" "$1" 300)" = 100 ]' "$BIN/ss-locate" "$T/slots.img"
	check "ss-locate: a page not there exits 1" sh -c '"$0" "$1" 301; [ $? -eq 1 ]' "$BIN/ss-locate" "$T/slots.img"
	check "ss-locate: MAXSLOTS bounds the search" sh -c '"$0" "$1" 300 100; [ $? -eq 1 ]' "$BIN/ss-locate" "$T/slots.img"
	check "ss-locate --all: every slot with a page, as SLOT PAGE (slot 0 holds none)" \
		sh -c '"$0" --all "$1" > "$2" && [ $(wc -l < "$2") = 199 ] && [ "$(head -n 1 "$2")" = "1 3" ] &&
		       [ "$(tail -n 1 "$2")" = "199 597" ]' "$BIN/ss-locate" "$T/slots.img" "$T/all"
	check "ss-locate --all DEV MAXSLOTS: the first MAXSLOTS slots only" \
		sh -c '[ "$("$0" --all "$1" 3 | tr "\n" ,)" = "1 3,2 6," ]' "$BIN/ss-locate" "$T/slots.img"
fi
# ---- large-entry-race (no swap here: the race reads resident pages; the
# program's own logic: B's three operations, the final sweep, the counts)
for args in "" "--size 3K" "--size 64K --b-op peek" "--size 64K --b-page 16" "--size 64K --b-page 0" \
	"--size 64K --a-page 16" "--size 64K --a-page x" \
	"--size 64K --b-delay-ms x" "--size 64K --bogus" "--size 64K extra"; do
	# shellcheck disable=SC2086
	run "$LR" $args
	check "large-entry-race $args: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ] && [ ! -s "$2" ]' $rc "$T/err" "$T/out"
done
if [ -r /proc/self/map_files ] && ls /proc/self/map_files/ >/dev/null 2>&1; then
	for op in fault read; do
		run "$LR" --size 64K --b-op $op --b-delay-ms 5
		check "large-entry-race --b-op $op: both threads and every page verify; 16 pages in the file" \
			with_out sh -c '[ $0 -eq 0 ] && grep -qx a=ok "$1" && grep -qx b=ok "$1" && grep -qx pages_ok=16 "$1" &&
				grep -qx file_pages=16 "$1" && grep -qx pages_corrupt=0 "$1"' $rc "$T/out"
	done
	run "$LR" --size 64K --a-page 3 --b-delay-ms 5
	check "large-entry-race --a-page 3: A on page 3, every page verifies; 16 pages in the file" \
		with_out sh -c '[ $0 -eq 0 ] && grep -qx a=ok "$1" && grep -qx b=ok "$1" && grep -qx pages_ok=16 "$1" &&
			grep -qx file_pages=16 "$1"' $rc "$T/out"
	run "$LR" --size 64K --b-op truncate --b-page 5 --b-delay-ms 5
	check "large-entry-race --b-op truncate: pages past the new size SIGBUS, 5 left in the file" \
		with_out sh -c '[ $0 -eq 0 ] && grep -qx b=truncated "$1" && grep -qx pages_ok=5 "$1" &&
			grep -qx pages_past_eof=11 "$1" && grep -qx file_pages=5 "$1"' $rc "$T/out"
else
	skip "large-entry-race end to end" "/proc/self/map_files needs CAP_SYS_ADMIN"
fi

# ---- swapin-floor: the floor a swap-in is compared with (issue 19)
for args in "--size 3M" "--size 0" "--rounds 0" "--rounds x" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	run "$SF" $args
	check "swapin-floor $args: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ] && [ ! -s "$2" ]' $rc "$T/err" "$T/out"
done
run "$SF" --size 2M --rounds 3
check "swapin-floor: copies, a minor fault and a 4K read() measured, a 2M copy slower than a 4K one, one fault per page or fewer" \
	with_out awk -v rc=$rc -F= '{ v[$1] = $2 } END {
		exit !(rc == 0 && v["rounds"] == 3 && v["copy_4k_ns"] > 0 && v["copy_64k_ns"] > 0 &&
			v["copy_2m_ns"] > v["copy_4k_ns"] && v["minor_fault_ns"] > 0 &&
			v["minor_faults_per_page"] > 0 && v["minor_faults_per_page"] <= 1 && v["read_4k_ns"] > 0) }' "$T/out"

# ---- blkrace: readers racing discards and rewrites (on a file here:
# fallocate(PUNCH_HOLE) is the discard, buffered I/O)
for args in "" "--dev" "--dev $T/br --pages 0" "--dev $T/br --seconds 0" "--dev $T/br --readers 33" \
	"--dev $T/br --readers 0" "--dev $T/br --pages 1 --writers 2" "--dev $T/br --writers 0 --inject-foreign" \
	"--dev $T/br --shared --inject-foreign" "--dev $T/br --shared --inject-stale" "--dev $T/br --writers 0 --inject-stale" \
	"--dev $T/br --bogus" "--dev $T/br extra"; do
	# shellcheck disable=SC2086
	run "$BR" $args
	check "blkrace ${args:-(no arguments)}: exit 2, one-line message" \
		sh -c '[ $0 -eq 2 ] && [ $(wc -l <"$1") -eq 1 ] && [ ! -s "$2" ]' $rc "$T/err" "$T/out"
done
: > "$T/br"
run "$BR" --dev "$T/none/br" --no-direct
check "blkrace on a path that cannot be opened: exit 3, one line" sh -c '[ $0 -eq 3 ] && [ $(wc -l <"$1") -eq 1 ]' $rc "$T/err"
run "$BR" --dev "$T/br" --pages 64 --seconds 2 --readers 2 --writers 2 --no-direct
check "blkrace on a file: reads, whole and one-sector writes and discards raced, no bad word, every page as its writer left it, exit 0" \
	with_out awk -v rc=$rc -F= '{ v[$1] = $2 } END {
		exit !(rc == 0 && v["reads"] > 0 && v["writes"] > v["partial_writes"] && v["partial_writes"] > 0 &&
			v["discards"] == v["writes"] && v["zero_words"] > 0 && v["bad_words"] == 0 &&
			v["final_bad_words"] == 0 && v["nonzero_pages"] > 0 && v["result"] == "pass") }' "$T/out"
run "$BR" --dev "$T/br" --pages 8 --seconds 2 --readers 2 --writers 3 --shared --no-direct
check "blkrace --shared on a file: writers race on the same pages, discards apart, no bad word, exit 0" \
	with_out awk -v rc=$rc -F= '{ v[$1] = $2 } END {
		exit !(rc == 0 && v["shared"] == "yes" && v["writes"] > v["partial_writes"] && v["partial_writes"] > 0 &&
			v["discards"] > 0 && v["discards"] < v["writes"] && v["bad_words"] == 0 &&
			v["final_bad_words"] == 0 && v["result"] == "pass") }' "$T/out"
run "$BR" --dev "$T/br" --pages 64 --seconds 1 --no-direct --inject-stale
check "blkrace --inject-stale: the last pass reports a page that does not hold what its writer left (exit 1, a page of bad words)" \
	with_out awk -v rc=$rc -F= '{ v[$1] = $2 } END { exit !(rc == 1 && v["final_bad_words"] == 512 && v["result"] == "fail") }' "$T/out"
"$BR" --dev "$T/br" --pages 64 --seconds 3600 --writers 0 --no-direct > "$T/out" 2> "$T/err" &
brpid=$!
sleep 1
kill -TERM $brpid
wait $brpid
rc=$?
check "blkrace ended by SIGTERM: exit 0 with its results" \
	with_out awk -v rc=$rc -F= '{ v[$1] = $2 } END { exit !(rc == 0 && v["reads"] > 0 && v["elapsed_ms"] < 60000 && v["result"] == "pass") }' "$T/out"
before=$(cksum < "$T/br")
run "$BR" --dev "$T/br" --pages 64 --seconds 1 --writers 0 --no-direct
check "blkrace --writers 0: reads only, the file unchanged (no discard, no write)" \
	with_out sh -c '[ $0 -eq 0 ] && [ "$(cksum < "$1")" = "$3" ] && grep -q "^writes=0$" "$2" && grep -q "^discards=0$" "$2" &&
		awk -F= "\$1 == \"reads\" && \$2 > 0 { ok = 1 } END { exit !ok }" "$2"' $rc "$T/br" "$T/out" "$before"
run "$BR" --dev "$T/br" --pages 8 --seconds 2 --readers 2 --no-direct --inject-foreign
check "blkrace --inject-foreign: a page holding another place's words is reported (exit 1, bad words in whole sectors)" \
	with_out awk -v rc=$rc -F= '{ v[$1] = $2 } END {
		exit !(rc == 1 && v["bad_reads"] > 0 && v["bad_words"] % 64 == 0 && v["first_bad_word"] != "" &&
			v["result"] == "fail") }' "$T/out"

check "ss-locate: a bad page number exits 2" sh -c '"$0" /dev/null x 2>/dev/null; [ $? -eq 2 ]' "$BIN/ss-locate"
check "ss-locate --all without a device, or with a bad MAXSLOTS: exit 2" \
	sh -c '"$0" --all 2>/dev/null; a=$?; "$0" --all /dev/null 0 2>/dev/null; b=$?; [ $a -eq 2 ] && [ $b -eq 2 ]' "$BIN/ss-locate"

tap_end
