#!/bin/sh
# timeout: 900
# suite: quick
# Virtual swap over two tiers (mm-patches 0014, docs/vswap.md), set up with
# tiers.sh's vswap spec: a small synchronous tierblk0 (priority 20) in
# front of a slow tiernbd over nbd (priority 10).
#  1. bad input refused, nothing changed: a malformed or out-of-range
#     priority, an option remove does not take, a path that is no tier, a
#     device already a tier; tiers lists both, highest priority first;
#  2. 64K mTHP anon paged out over both tiers: folios whose slots are on
#     the synchronous tier come back whole, those on nbd at order 0 (the
#     swap cache bypass is chosen per slot, by its tier); 64K shmem
#     folios on tierblk0 come back whole (0001's bypass);
#  3. spill: anon pages through an 8M memcg fill tierblk0 first and the
#     rest goes to nbd (spilled_pages counts them); every swap PTE holds
#     the virtual device's type; debugfs vswap/memory counts the memory
#     per slot (mm-patches 0017);
#  4. while those pages are out: nbd refused removal while the rest would
#     be smaller than the virtual device (-EBUSY); zram tiers added with
#     the virtual device on (the first listed third by its priority) up to
#     eight, a ninth refused (-ENOSPC), the empty zram tiers removed;
#     (draining a tier that holds pages: vswap-drain)
#  5. a one-shot read error on the slot of one page on each tier (found on
#     the devices by the pages' stamps, page-cluster 0): SIGBUS on exactly
#     those two pages, every other page verified;
#  6. write errors (every write to tierblk0 failing): with no rest each
#     folio fails there once and is rebound to nbd before its next write,
#     never to tierblk0 again; with a rest, new slots avoid tierblk0 after
#     its first failure; every page verified; bad write_error_rest_ms
#     values refused; without the fault tierblk0 takes pages again;
#  7. tiers_down: the virtual device off, both tiers removed (nothing
#     leaked), every swap table freed.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-tiers
FAST=8M
OUT=/tmp/vswap-tiers.out
cluster=$(cat /proc/sys/vm/page-cluster)
sspid=
zdevs=

vswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	[ -w "$V/write_error_rest_ms" ] && echo 1000 > "$V/write_error_rest_ms"
	memcg_destroy "$CG"
	memcg_destroy "$CG-large"
	echo "$cluster" > /proc/sys/vm/page-cluster
	thp_reset
	for z in $zdevs; do
		echo "$z" > "$V/remove" 2>/dev/null
	done
	tiers_down
	for z in $zdevs; do
		zram_dev_down "$z"
	done
}

# tier_line N: the Nth line of the tiers file, "path prio"
tier_line() { awk -v n="$1" 'NR == n { print $1, $5 }' "$V/tiers"; }

plan 40
trap cleanup EXIT
t0=$(swt_tables)
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

rc=0
tiers_up vswap:5K tierblk0:$FAST 2>/tmp/vswap-tiers.err || rc=$?
check "tiers_up vswap:5K: exit 2, nothing set up ($(cat /tmp/vswap-tiers.err))" \
	sh -c "[ $rc = 2 ] && [ \$(tail -n +2 /proc/swaps | wc -l) = 0 ] && [ -z \"\$(cat $V/tiers)\" ]"
tiers_up vswap tierblk0:$FAST:prio=20:sync=1 nbd:64M:prio=10 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"
vtype=$(tier_swap_type vswap)
check_eq "tiers: tierblk0 (priority 20) first, then $NBD_DEV (10)" \
	"/dev/tierblk0 20|$NBD_DEV 10" "$(tier_line 1)|$(tier_line 2)"
check "the virtual device is on with the tiers' size ($(cat "$V/size") bytes), the tiers are no swap of their own" \
	sh -c "[ $(cat "$V/size") = \$(( ($(awk '{ s += $3 } END { print s }' "$V/tiers")) * 1024 )) ] &&
		awk '\$2 == \"tier\" { t++ } \$2 == \"virtual\" { v++ } END { exit !(t == 2 && v == 1) }' /proc/swaps"

# 1. bad input
tiers0=$(cat "$V/tiers")
check_eq "add with prio=abc: EINVAL" EINVAL "$(vs_try add "/dev/tierblk0 prio=abc")"
check_eq "add with prio=40000 (above 32767): EINVAL" EINVAL "$(vs_try add "/dev/tierblk0 prio=40000")"
check_eq "add with prio=-1: EINVAL" EINVAL "$(vs_try add "/dev/tierblk0 prio=-1")"
check_eq "add with an unknown option: EINVAL" EINVAL "$(vs_try add "/dev/tierblk0 speed=1")"
check_eq "add a device that is a tier already: EBUSY" EBUSY "$(vs_try add "$NBD_DEV prio=1")"
check_eq "remove with a priority: EINVAL" EINVAL "$(vs_try remove "$NBD_DEV prio=10")"
check_eq "remove a path that is no tier: EINVAL" EINVAL "$(vs_try remove /dev/null)"
check_eq "the tiers unchanged after the refusals" "$tiers0" "$(cat "$V/tiers")"

# 2. the swap cache bypass per slot, on empty tiers: 16M of 64K folios
# paged out, about 8M of them on tierblk0, the rest spilled to nbd; the
# swap cache emptied (nbd's writes are asynchronous: MADV_PAGEOUT leaves
# those folios in it); read back, the folios on tierblk0 come back whole,
# those on nbd at order 0 through the swap cache
thp=$(order_setup 64K) || bail "64K mTHP setup"
mkdir -p "$CGROOT/$CG-large" || bail "memcg $CG-large"
r0=$(vmstat_get pswpin)
n0=$(tier_stat nbd reads)
sh -c "echo \$\$ > $CGROOT/$CG-large/cgroup.procs && exec swapstress --size 16M --mem anon \
	--thp $thp --pageout madvise --stop-after-pageout --folio-stats --seed 42" > "$OUT" 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
memcg_drain_swapcache "$CGROOT/$CG-large" >/dev/null || diag "pages left in the swap cache"
fast=$(tier_used_kb tierblk0)
slow=$(tier_used_kb nbd)
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
o=$(kv_get "$OUT" mthp_64kB_swpout)
l=$(kv_get "$OUT" folio_pages_large)
r=$(($(vmstat_get pswpin) - r0))
diag "$(grep -v '^#' "$OUT" | tr '\n' ' ')"
check_eq "64K mTHP anon over both tiers: exit 0, every page verified" "0 0 4096" \
	"$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
check "the 64K folios went out whole (swpout ${o:-0} of 256): ${fast} KiB on tierblk0, ${slow} KiB on nbd" \
	sh -c "[ ${o:-0} -ge 230 ] && [ $fast -ge 6144 ] && [ $slow -ge 6144 ]"
# read back: each page read once from a tier (pswpin), those of tierblk0
# in large folios, nbd's at order 0 (its reads counted by tiernbd)
check "read back from both tiers: pswpin +$r, nbd reads +$(($(tier_stat nbd reads) - n0))" \
	sh -c "[ $r -ge 3900 ] && [ $(($(tier_stat nbd reads) - n0)) -gt 0 ]"
# at most tierblk0's pages, plus those of folios never paged out
max=$((fast / 4 + (256 - ${o:-0}) * 16))
check "the folios on tierblk0 came back whole, nbd's at order 0: ${l:-0} pages in large folios ($((fast / 4 * 9 / 10))..$max)" \
	sh -c "[ ${l:-0} -ge $((fast / 4 * 9 / 10)) ] && [ ${l:-0} -le $max ]"
# shmem too (mm-patches 0001's bypass): 4M of 64K tmpfs folios, on
# tierblk0 alone, come back whole
SS_KEYS='pswpin|pswpout|pages_verified|corrupt|mthp_64kB_swpout|folio_pages_large'
ss "64K mTHP shmem through the virtual device: every page verified" \
	--size 4M --mem shared --thp "$thp" --pageout madvise --folio-stats --seed 43
check "shmem: 64K folios out whole (swpout $(kv_get "$OUT" mthp_64kB_swpout)) and back whole ($(kv_get "$OUT" folio_pages_large) of 1024 pages in large folios)" \
	[ "$(kv_get "$OUT" mthp_64kB_swpout)" -ge 58 -a "$(kv_get "$OUT" folio_pages_large)" -ge 920 ]
thp_reset
memcg_destroy "$CG-large"
# fresh tiers for the rest: nbd keeps the stale copies of freed slots,
# which ss-locate would find (step 5)
check "tiers_down (the virtual device off, both tiers removed), then the same tiers up again" tiers_down
tiers_up vswap tierblk0:$FAST:prio=20:sync=1 nbd:64M:prio=10 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"

# 3. spill. No readahead: a fault reads only its own slot (step 5).
echo 0 > /proc/sys/vm/page-cluster
s0=$(vswap_stat spilled_pages)
w0=$(tier_stat nbd writes)
vtype=$(tier_swap_type vswap)
ss_paged_out "$CG" "$OUT" --size 20M --mem anon --thp never --pageout memcg --memcg-max 8M \
	--pagemap /tmp/vswap-tiers.pm --expect-sigbus --seed 41 ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
fast=$(tier_used_kb tierblk0)
slow=$(tier_used_kb nbd)
s1=$(vswap_stat spilled_pages)
w1=$(tier_stat nbd writes)
check "tierblk0 filled first (${fast} KiB of 8188), nbd took the rest (${slow} KiB, spilled_pages +$((s1 - s0)), nbd writes +$((w1 - w0)))" \
	sh -c "[ $fast -ge 7000 ] && [ $slow -ge 2048 ] && [ $((s1 - s0)) -ge $((slow / 4)) ] && [ $((w1 - w0)) -gt 0 ]"
diag "tiers: $(tr '\n' ';' < "$V/tiers") stats: $(tr '\n' ' ' < "$V/stats")"
check "every swap PTE holds the virtual device's type ($vtype)" \
	sh -c "[ -s /tmp/vswap-tiers.pm ] && awk -v t=$vtype '\$2 != \"-\" && \$2 != t { exit 1 }' /tmp/vswap-tiers.pm"
# memory per slot (mm-patches 0017): a line per tier and for the virtual
# device, table bytes 4096 a table, forward tables on the virtual device
# alone, at least one per 512 virtual slots in use, the sum per slot in use
M=/sys/kernel/debug/vswap/memory
diag "memory: $(tr '\n' ';' < "$M" 2>/dev/null)"
check "debugfs vswap/memory: tierblk0, nbd, the virtual device (its slots in use, a forward table per cluster in use) and the sum per virtual slot" \
	awk -v nbd="$NBD_DEV" '
		NR > 1 && NF == 9 {
			n[$1] = 1
			if ($7 != ($4 + $5) * 4096 || $2 < 1) bad = 1
			if ($1 != "[vswap]" && $5 != 0) bad = 1
			if ($1 == "[vswap]" && ($3 < 1024 || $5 < int(($3 + 511) / 512) || $4 < 1)) bad = 1
		}
		/^per virtual slot in use: virtual [0-9.]+ tiers [0-9.]+ all [0-9.]+$/ { sum = 1 }
		END { exit !(n["/dev/tierblk0"] && n[nbd] && n["[vswap]"] && sum && !bad) }' "$M"

# 4. tiers come and go while the virtual device is on: a 64M zram tier
# (room enough that only its pages keep tierblk0), then five 1M ones up
# to the most there can be
# zram_tier SIZE PRIO: a new zram device (in zdevs) added as a tier; ZT_R
# is "ok" or the errno name of the refusal
zram_tier() {
	local z
	ZT_R=setup
	z=$(zram_dev_up "$1") && mkswap "$z" >/dev/null || return 1
	zdevs="$zdevs $z"
	ZT_R=$(vs_try add "$z prio=$2")
}
check_eq "remove nbd while on, the rest too small for the virtual device: EBUSY" EBUSY \
	"$(vs_try remove "$NBD_DEV")"
zram_tier 64M 5
check_eq "add a 64M zram tier with priority 5 while on" ok "$ZT_R"
z3=${zdevs# }
check_eq "it is listed third" "$z3 5" "$(tier_line 3)"
n=0
for i in 1 2 3 4 5; do
	zram_tier 1M 1
	[ "$ZT_R" = ok ] && n=$((n + 1))
done
check_eq "five more zram tiers while on: 8 tiers" "5 8" "$n $(wc -l < "$V/tiers")"
zram_tier 1M 1
check_eq "a ninth tier: ENOSPC" ENOSPC "$ZT_R"
check_eq "tierblk0 and nbd are still the first tiers" "/dev/tierblk0 20|$NBD_DEV 10" \
	"$(tier_line 1)|$(tier_line 2)"
n=0
for z in $zdevs; do
	[ "$(vs_try remove "$z")" = ok ] && n=$((n + 1))
	zram_dev_down "$z"
done
zdevs=
check_eq "the empty zram tiers removed while on: tierblk0 and nbd left" "6 2" "$n $(wc -l < "$V/tiers")"

# 5. one read error on each tier: on tierblk0 one of the first pages out
# (low addresses), on nbd one of the last (high addresses), found on the
# devices by their stamps
set -- $(swap_page_on /dev/tierblk0 $(swapped_pages /tmp/vswap-tiers.pm | awk 'NR % 50 == 0' | head -10))
pf=${1:-} of=${2:-}
set -- $(swap_page_on "$NBD_DEV" $(swapped_pages /tmp/vswap-tiers.pm | sort -rn | awk 'NR % 50 == 1' | head -5))
ps=${1:-} os=${2:-}
inj=no
[ -n "$of" ] && [ -n "$os" ] && tier_fail_slot tierblk0 "$of" && tier_fail_slot nbd "$os" && inj=yes
check_eq "page $pf on tierblk0 (slot ${of:-?}), page $ps on nbd (slot ${os:-?}): a read fault on each" yes "$inj"
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
check_eq "swapstress --expect-sigbus: exit 0, no page corrupt" "0 0" "$rc $(kv_get "$OUT" corrupt)"
sb=$(kv_get "$OUT" sigbus_pages | tr ',' '\n' | sort -n | tr '\n' ' ')
want=$(printf '%s\n%s\n' "$pf" "$ps" | sort -n | tr '\n' ' ')
check_eq "SIGBUS on exactly those two pages" "$want" "$sb"
check_eq "each tier failed one read" "1 1" "$(tier_stat tierblk0 read_errors) $(tier_stat nbd read_errors)"
tier_faults_off tierblk0 && tier_faults_off nbd || bail "tier_faults_off failed"
echo "$cluster" > /proc/sys/vm/page-cluster

# 6. write errors (mm-patches 0016): every write to tierblk0 fails.
#  a. no rest (write_error_rest_ms 0): each folio goes to tierblk0 first,
#     its write fails, and before its next write it is rebound to nbd,
#     never to tierblk0 again;
#  b. a minute's rest: after the first failure new slots go to nbd;
#  c. the fault gone, no rest: tierblk0 takes pages again.
R=$V/write_error_rest_ms
check_eq "write_error_rest_ms: abc, -1 and 600001 refused (EINVAL), 1000 kept" "EINVAL EINVAL EINVAL 1000" \
	"$(vs_try write_error_rest_ms abc) $(vs_try write_error_rest_ms -1) $(vs_try write_error_rest_ms 600001) $(cat "$R")"
# werr_run REST SIZE MEMCG SEED: swapstress out with every tierblk0 write
# failing; sets te (failed tierblk0 writes), we and rt (the stats'
# write_errors and retargeted_pages), fast0/fast and slow0/slow (KiB used)
werr_run() {
	local we0 rt0 te0 tw0
	echo "$1" > "$R"
	we0=$(vswap_stat write_errors) rt0=$(vswap_stat retargeted_pages)
	te0=$(tier_stat tierblk0 write_errors) tw0=$(tier_stat tierblk0 writes)
	fast0=$(tier_used_kb tierblk0) slow0=$(tier_used_kb nbd)
	tier_error_rate tierblk0 write 1000000 || bail "tier_error_rate failed"
	ss_paged_out "$CG" "$OUT" --size "$2" --mem anon --thp never --pageout memcg --memcg-max "$3" --seed "$4" ||
		bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
	fast=$(tier_used_kb tierblk0) slow=$(tier_used_kb nbd)
	we=$(($(vswap_stat write_errors) - we0)) rt=$(($(vswap_stat retargeted_pages) - rt0))
	te=$(($(tier_stat tierblk0 write_errors) - te0))
	tier_faults_off tierblk0 || bail "tier_faults_off failed"
	diag "rest $1 ms: tierblk0 $te failed writes of $(($(tier_stat tierblk0 writes) - tw0)); stats write_errors +$we retargeted_pages +$rt; tierblk0 ${fast0}->${fast} KiB, nbd ${slow0}->${slow} KiB; tiers: $(tr '\n' ';' < "$V/tiers")"
}
# ss_finish: let the stopped swapstress verify and exit; rc
ss_finish() {
	kill -CONT "$sspid"
	wait "$sspid"
	rc=$?
	sspid=
}
werr_run 0 8M 4M 45
check "no rest: every page failed on tierblk0 first ($te writes, write_errors +$we, the tiers line's $(awk 'NR == 1 { print $6 }' "$V/tiers")), then was rebound (retargeted_pages +$rt)" \
	sh -c "[ $te -ge 512 ] && [ $we -ge $te ] && [ $rt -ge 512 ] && [ $(awk 'NR == 1 { print $6 }' "$V/tiers") -ge $we ]"
# left on tierblk0: folios whose write just failed, dirty in memory until
# their next write (seen: 7 pages)
check "nbd took the pages (${slow0} -> ${slow} KiB); on tierblk0 at most a reclaim batch of failed folios waits in memory (${fast0} -> ${fast} KiB)" \
	sh -c "[ $((slow - slow0)) -ge 2048 ] && [ $((fast - fast0)) -le 128 ]"
ss_finish
check_eq "swapstress: exit 0, every page verified, none corrupt" "0 0 2048" \
	"$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
werr_run 60000 4M 2M 46
check "a minute's rest: tierblk0 failed $te writes (at most a reclaim batch), nbd took the pages (${slow0} -> ${slow} KiB), none left on tierblk0" \
	sh -c "[ $te -ge 1 ] && [ $te -le 32 ] && [ $fast -le $fast0 ] && [ $((slow - slow0)) -ge 1024 ]"
ss_finish
r1=$rc c1=$(kv_get "$OUT" corrupt)
echo 0 > "$R"
ss_paged_out "$CG" "$OUT" --size 4M --mem anon --thp never --pageout memcg --memcg-max 2M --seed 47 ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
fast=$(tier_used_kb tierblk0)
ss_finish
check "the fault gone, the rest set to 0 (it ends the running one): tierblk0 takes pages again (${fast} KiB), every page verified in both runs" \
	sh -c "[ $fast -ge 512 ] && [ $r1 = 0 ] && [ $c1 = 0 ] && [ $rc = 0 ] && [ $(kv_get "$OUT" corrupt) = 0 ]"
echo 1000 > "$R"

check "tiers_down: the virtual device off, both tiers removed" tiers_down
check "no swap left, no tier listed, every swap table freed (tables back to $t0)" \
	sh -c "[ \$(tail -n +2 /proc/swaps | wc -l) = 0 ] && [ -z \"\$(cat $V/tiers)\" ] && . /usr/lib/tierswap/lib.sh && swt_tables_become $t0"
tap_status
