#!/bin/sh
# timeout: 600
# suite: quick
# Error injection through swap on tierblk0: read errors on the swap slots of
# chosen pages must SIGBUS exactly those pages (swapstress --expect-sigbus
# records them and carries on); failing shmem swap-ins surface as EIO from
# pread or SIGBUS on the mapping; a bit flipped in one sector of one slot
# must be reported as corruption of exactly that page at that offset.
. /usr/lib/tierswap/lib.sh

OUT=/tmp/faults.out
PM=/tmp/faults.pm
cleanup() {
	if [ -d "$(tierblk_dir 0)" ]; then
		tierblk_set 0 badblocks clear
		tierblk_set 0 corrupt none
	fi
	swap_all_off
	tierblk_unload
	memcg_cleanup
}

if [ ! -r "$TIERBLK_KO" ]; then
	plan 1
	skip "swap fault injection" "no $TIERBLK_KO"
	exit 0
fi

# start_stopped ARGS...: swapstress ARGS in the background, stopped after
# pageout with its pagemap in $PM; sets $pid.
start_stopped() {
	swapstress --stop-after-pageout --pagemap "$PM" "$@" >"$OUT" 2>&1 &
	pid=$!
	wait_stopped $pid 120 || { kill -9 $pid; wait $pid; return 1; }
}
# finish: continue the stopped run, wait, $rc = its exit status.
finish() {
	kill -CONT $pid
	wait $pid
	rc=$?
}
# slot PAGE: swap offset of PAGE from the pagemap ("" if not swapped).
slot() {
	awk -v p="$1" '$1 == p && $2 != "-" { print $3 }' "$PM"
}

plan 9
trap cleanup EXIT
swap_all_off
tierblk_load size=64M || bail "insmod tierblk failed"
tierblk_swapon 0 || bail "swapon tierblk0 failed"
pass "tierblk0 is the only swap"

# ---- anon: read errors on three slots -> SIGBUS on exactly those pages
if start_stopped --size 4M --mem anon --expect-sigbus --write-pct 0 --seed 5; then
	pages=
	for p in 10 300 700; do
		o=$(slot $p)
		[ -n "$o" ] || continue
		tierblk_set 0 badblocks "+$((o * 8))-$((o * 8 + 7)) read"
		pages="$pages${pages:+,}$p"
	done
	finish
	tierblk_set 0 badblocks clear
	check_eq "anon: the three pages were swapped out" "10,300,700" "$pages"
	if [ $rc -eq 0 ] && [ "$(kv_get $OUT sigbus_pages)" = "$pages" ] &&
		[ "$(kv_get $OUT corrupt)" = 0 ] && [ "$(kv_get $OUT pages_verified)" = 1021 ]; then
		pass "anon: SIGBUS on exactly pages $pages, the other 1021 verify, exit 0"
	else
		fail "anon: SIGBUS on exactly the injected pages" "rc=$rc" "$(cat $OUT)"
	fi
	check "anon: SIGBUS lines name page and address" grep -q "^# SIGBUS page=300 page_addr=0x" $OUT
else
	fail "anon: swapstress did not stop after pageout" "$(cat $OUT)"
	fail "anon: SIGBUS on exactly the injected pages"
	fail "anon: SIGBUS lines"
fi

# ---- anon: one flipped bit in sector 3 of page 77's slot -> corrupt page 77
if start_stopped --size 4M --mem anon --seed 6; then
	o=$(slot 77)
	tierblk_set 0 corrupt "$((o * 8 + 3))-$((o * 8 + 3))"
	finish
	tierblk_set 0 corrupt none
	if [ $rc -eq 1 ] && [ "$(kv_get $OUT corrupt_pages)" = 77 ] &&
		grep -q "^# CORRUPT page=77 page_addr=0x[0-9a-f]* addr=0x[0-9a-f]* offset=1536 " $OUT; then
		pass "anon: corrupted slot reported as page 77, offset 1536, exit 1"
	else
		fail "anon: corrupted slot reported as page 77, offset 1536, exit 1" "rc=$rc" "$(cat $OUT)"
	fi
else
	fail "anon: corruption run did not stop" "$(cat $OUT)"
fi

# ---- shmem: every slot fails; pread gives EIO, the mapping SIGBUS
sectors=$(( $(cat /sys/block/tierblk0/size) - 1 ))
for access in read mmap; do
	if start_stopped --size 2M --mem shmem --access $access --expect-sigbus --write-pct 0; then
		tierblk_set 0 badblocks "+8-$sectors read"
		finish
		tierblk_set 0 badblocks clear
		if [ $access = read ]; then n=$(kv_get $OUT eio); else n=$(kv_get $OUT sigbus); fi
		res=$(kv_get $OUT resident_after_pageout)
		if [ $rc -eq 0 ] && [ "$(kv_get $OUT corrupt)" = 0 ] && [ $((n + res)) -ge 500 ] && [ "$n" -gt 0 ]; then
			pass "shmem $access: $n failed swap-ins recorded, no corruption, exit 0"
		else
			fail "shmem $access: failed swap-ins recorded" "rc=$rc" "$(cat $OUT)"
		fi
	else
		fail "shmem $access: swapstress did not stop" "$(cat $OUT)"
	fi
done

# ---- after the faults, swap still works
check "clean run after the injections" swapstress --size 8M --mem anon --pattern random
# (per-CPU swap slot caches may keep a few slots allocated)
check "tierblk0 swap space released" test "$(tierblk_swap_used 0)" -lt 1024
tap_status
