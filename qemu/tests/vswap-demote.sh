#!/bin/sh
# timeout: 1200
# suite: quick
# Demotion on the virtual swap device (mm-patches 0029,
# docs/vswap-plan.md "demotion and promotion"): writing N to a tier's
# /sys/kernel/mm/vswap/tier<type>/demote moves up to N cold slots to the
# tiers of lower priority, page tables untouched. tierblk0 16M prio 20,
# tierblk1 32M prio 10 (the full suite's sizes: see below).
#  1. bad input refused, nothing changed: N of 0, -1, text or above
#     INT_MAX (EINVAL); the lowest tier (ENOSPC: nowhere below); the
#     device off (ENODEV); the directory names the tier, its stats 0;
#  2. cold pages move: 20M of anon through a 4M memcg fills tierblk0;
#     demote 1024 moves exactly 1024 slots (per-tier and global
#     counters), tierblk0 down 4M, tierblk1 up 4M; every page verified;
#  3. the CLOCK (asynchronous tiers, no readahead): pages read back into
#     the swap cache stay (in memory); once reclaimed clean out of it they
#     keep their slots with REF set; then 1024 cold pages go out, and
#     demote 1024 moves the cold ones, not the ones read back: the cold
#     workload's reads come from tierblk1, the others' from tierblk0;
#  4. a read error mid-move: one tier slot unreadable (badblocks, for the
#     demotion): the demotion moves every other slot and leaves that one
#     where it is (demote_read_errors 1, one page left on tierblk0); the
#     tier readable again, the workload reads every page, none lost;
#  5. every write to the tier below fails: demote is EIO, nothing moved,
#     every page verified from its old copy;
#  6. demotion during the workload's faults: demote 128 in a loop while
#     swapstress passes over 12M through a 4M memcg, with one-shot read
#     faults on tierblk0 slots that hold test pages under both (a fault
#     the demotion meets is read again alone and heals; one the workload
#     meets is that page's SIGBUS), the workload run again (3 runs at
#     most) until one fired: no page corrupt, no read error left to a
#     demotion, SIGBUS at most once per fault fired;
#  7. the watermark (0030): bad values refused (EINVAL), "off" the
#     default; with "75 50" on tierblk0, 20M going out through a 4M memcg
#     leave tierblk0 at or under 75% once the work has settled (without
#     it, step 2 filled it), the watermark's counters say it moved slots,
#     every page verified;
#  8. promotion (0031): promote is 0 by default and nothing was promoted
#     in steps 1-7; 2 is EINVAL; with 1, 8M read at random through a 6M
#     memcg on asynchronous tiers, everything demoted to tierblk1 after
#     the pageout: the pages that refault while in the workingset move up
#     to tierblk0 (promoted_pages, the per-tier counters agree, tierblk0
#     written), every page verified. (A sequential pass over more than
#     the memcg holds refaults every page but activates none: nothing in
#     the workingset, nothing promoted; measured 0 of 8133 refaults.)
# The quick suite halves the tiers and the workloads of steps 1-7 (the
# bounds follow: SL0, the pages each workload has); step 8 keeps its size
# (fewer refaults would promote too few pages to tell).
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-demote
OUT=/tmp/vswap-demote.out
OUT2=/tmp/vswap-demote.out2
cluster=$(cat /proc/sys/vm/page-cluster)
sspid=
scpid=

vswap_required || exit 0

cleanup() {
	echo 0 > "$V/promote" 2>/dev/null
	kill_bg "$sspid"
	kill_bg "$scpid"
	tierblk_set 0 badblocks clear 2>/dev/null
	tier_faults_off tierblk0 2>/dev/null
	tier_faults_off tierblk1 2>/dev/null
	memcg_destroy "$CG"
	memcg_destroy "$CG-cold"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

# tdir NAME: the tier's directory under $V, by its swap type in $V/tiers
tdir() { awk -v d="$(tier_dev "$1")" -v v="$V" '$1 == d { print v "/tier" $2 }' "$V/tiers"; }
tstat() { awk -v k="$2" '$1 == k { print $2 }' "$(tdir "$1")/stats"; }
pages() { echo $(($(tier_used_kb "$1") / 4)); }
rbytes() { tierblk_stat "${1#tierblk}" read_bytes; }
demote() { vs_try "$(tdir "$1" | sed "s|^$V/||")/demote" "$2"; }
# mib_pages SIZE: the pages of SIZE in MiB ("12M")
mib_pages() { echo $((${1%M} * 256)); }

T0=$(by_suite 8M 16M)
T1=$(by_suite 16M 32M)
S2=$(by_suite 12M 20M)
S3=$(by_suite 2M 4M)
S5=$(by_suite 8M 12M)
S7=$(by_suite 14M 24M)
P3=$(mib_pages "$S3")
N2=$(by_suite 512 1024)

plan 36
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"

tiers_up vswap tierblk0:$T0:prio=20:sync=1 tierblk1:$T1:prio=10:sync=1 || bail "tiers_up failed"
# tierblk0's slots (4095 in 16M: the header page takes one)
SL0=$(($(tier_size_kb tierblk0) / 4))
D0=$(tdir tierblk0)
D1=$(tdir tierblk1)
if [ ! -w "$D0/demote" ]; then
	for i in $(seq 36); do skip "no $V/tier<type>/demote (mm-patches 0029)"; done
	exit 0
fi

# 1. bad input
check_eq "path names the tier; stats start at 0" "/dev/tierblk0 0 0 0" \
	"$(cat "$D0/path") $(tstat tierblk0 demoted_out_pages) $(tstat tierblk0 demoted_in_pages) $(tstat tierblk0 demote_read_errors)"
check_eq "demote 0, -1, 1x, 2147483648: EINVAL each" "EINVAL EINVAL EINVAL EINVAL" \
	"$(demote tierblk0 0) $(demote tierblk0 -1) $(demote tierblk0 1x) $(demote tierblk0 2147483648)"
check_eq "demote on the lowest tier: ENOSPC (no tier below)" ENOSPC "$(demote tierblk1 8)"
T=$(cat "$V/size")
echo 0 > "$V/size" || bail "size 0"
check_eq "demote with the device off: ENODEV; on again" "ENODEV ok" \
	"$(demote tierblk0 8) $(vs_try size "$T")"
check_eq "nothing counted by refused writes" "0 0" \
	"$(tstat tierblk0 demoted_out_pages) $(vswap_stat demoted_pages)"

# 2. cold pages move
# (a 4M memcg keeps about 800 pages resident: $S2 puts more than
# tierblk0's $SL0 slots out)
ss_paged_out "$CG" "$OUT" --size $S2 --mem anon --thp never --pageout memcg --memcg-max 4M \
	--lock-self --seed 11 || bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
a0=$(pages tierblk0)
b0=$(pages tierblk1)
g0=$(vswap_stat demoted_pages)
r=$(demote tierblk0 $N2)
a1=$(pages tierblk0)
b1=$(pages tierblk1)
diag "demote $N2: $r; tierblk0 $a0 -> $a1 pages, tierblk1 $b0 -> $b1"
check_eq "tierblk0 full before ($a0 of $SL0 pages in use)" 1 "$([ "$a0" -ge $((SL0 - 95)) ] && echo 1)"
check_eq "demote $N2: ok, $N2 out of tierblk0, $N2 into tierblk1, demoted_pages +$N2" \
	"ok $N2 $N2 $N2" \
	"$r $(tstat tierblk0 demoted_out_pages) $(tstat tierblk1 demoted_in_pages) $(($(vswap_stat demoted_pages) - g0))"
check_eq "the slots moved: tierblk0 -$N2, tierblk1 +$N2 pages" "$N2 $N2" "$((a0 - a1)) $((b1 - b0))"
cont_wait sspid
rc=$CONT_RC
check_eq "every page verified" "0 0 $(mib_pages "$S2")" "$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
memcg_destroy "$CG"

# 3. the CLOCK: asynchronous tiers keep read pages in the swap cache
tiers_down || bail "tiers_down"
tiers_up vswap tierblk0:$T0:prio=20:sync=0 tierblk1:$T1:prio=10:sync=0 ||
	bail "tiers_up (asynchronous)"
D0=$(tdir tierblk0)
echo 0 > /proc/sys/vm/page-cluster || bail "page-cluster 0"
memcg_create "$CG" max || bail "memcg $CG"
in_memcg_bg "$CGROOT/$CG" scprobe rewrite --size $S3 --thp never --memcg "$CGROOT/$CG" \
	--stop-reread > "$OUT2" 2>&1
scpid=$BGPID
wait_stopped "$scpid" 300 || bail "scprobe did not stop after its read back: $(cat "$OUT2")"
sc=$(kv_get "$OUT2" reread_swapcache)
o0=$(tstat tierblk0 demoted_out_pages)
r=$(demote tierblk0 $((P3 * 4)))
od=$(($(tstat tierblk0 demoted_out_pages) - o0))
diag "read back: ${sc:-?} pages in the swap cache; demote $((P3 * 4)): $r, $od moved; tierblk0 $(pages tierblk0) pages"
# (scprobe's own anonymous pages share the memcg: a few dozen go out too)
check "pages in the swap cache stay: ${sc:-?} there, $od of tierblk0's slots moved, $(pages tierblk0) left" \
	sh -c "[ ${sc:-0} -ge $((P3 * 9 / 10)) ] && [ $od -le 96 ] && [ $(pages tierblk0) -ge $((P3 * 9 / 10)) ]"
w0=$(tierblk_stat 0 write_bytes)
memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || bail "scprobe's pages stay in the swap cache"
wd=$(($(tierblk_stat 0 write_bytes) - w0))
p0=$(pages tierblk0)
check "reclaimed clean out of the swap cache: no write ($wd bytes), the slots kept ($p0 pages)" \
	sh -c "[ $wd -le $((96 * 4096)) ] && [ $p0 -ge $((P3 * 9 / 10)) ]"
# in a memcg of its own, drained: written out and gone from the swap
# cache, never faulted (no REF); --lock-self: only its test pages go out
memcg_create "$CG-cold" max || bail "memcg $CG-cold"
in_memcg_bg "$CGROOT/$CG-cold" swapstress --size $S3 --mem anon --thp never --pageout madvise \
	--lock-self --seed 21 --stop-after-pageout > "$OUT" 2>&1
sspid=$BGPID
wait_stopped "$sspid" 300 || bail "swapstress did not stop: $(cat "$OUT")"
memcg_drain_swapcache "$CGROOT/$CG-cold" >/dev/null || bail "the cold pages stay in the swap cache"
p1=$(pages tierblk0)
o0=$(tstat tierblk0 demoted_out_pages)
r=$(demote tierblk0 $P3)
od=$(($(tstat tierblk0 demoted_out_pages) - o0))
p2=$(pages tierblk0)
diag "tierblk0 $p0 -> $p1 (cold out) -> $p2 (demote $P3: $r, $od moved)"
check_eq "demote $P3 after $P3 cold pages went out: ok, $P3 moved" "ok $P3" "$r $od"
r0=$(rbytes tierblk0)
r1=$(rbytes tierblk1)
cont_wait sspid
rc=$CONT_RC
ra=$(($(rbytes tierblk0) - r0))
rb=$(($(rbytes tierblk1) - r1))
diag "the cold workload read $ra bytes from tierblk0, $rb from tierblk1"
check "the cold pages were the ones moved: their reads came from tierblk1 ($rb bytes), not tierblk0 ($ra)" \
	sh -c "[ $rb -ge $((P3 * 9 / 10 * 4096)) ] && [ $ra -le $((104 * 4096)) ]"
check_eq "the cold workload: every page verified" "0 0 $P3" \
	"$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
memcg_destroy "$CG-cold"
r0=$(rbytes tierblk0)
cont_wait scpid
rc=$CONT_RC
ra=$(($(rbytes tierblk0) - r0))
check "the pages read back before stayed on tierblk0: read from there again ($ra bytes)" \
	sh -c "[ $ra -ge $((P3 * 9 / 10 * 4096)) ]"
check_eq "scprobe: exit 0, no page corrupt" "0 0 0" \
	"$rc $(kv_get "$OUT2" corrupt_reread) $(kv_get "$OUT2" corrupt_final)"
memcg_destroy "$CG"
echo "$cluster" > /proc/sys/vm/page-cluster

# 4. a read error mid-move
tiers_down || bail "tiers_down"
tiers_up vswap tierblk0:$T0:prio=20:sync=1 tierblk1:$T1:prio=10:sync=1 || bail "tiers_up"
D0=$(tdir tierblk0)
swapstress --size $T0 --mem anon --thp never --pageout madvise --seed 31 --lock-self \
	--stop-after-pageout > "$OUT" 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop: $(cat "$OUT")"
a0=$(pages tierblk0)
tierblk_set 0 badblocks "+100p+1p read" || bail "badblocks"
r=$(demote tierblk0 8192)
tierblk_set 0 badblocks clear
diag "tierblk0 $a0 -> $(pages tierblk0) pages; demote: $r; $(tr '\n' ' ' < "$D0/stats")"
check_eq "demote every slot with slot 100 unreadable: ok, $((a0 - 1)) moved, 1 read error, that one left on tierblk0" \
	"ok $((a0 - 1)) 1 1" \
	"$r $(tstat tierblk0 demoted_out_pages) $(tstat tierblk0 demote_read_errors) $(pages tierblk0)"
cont_wait sspid
rc=$CONT_RC
check_eq "the tier readable again: every page verified, none lost" "0 0 0 $(mib_pages "$T0")" \
	"$rc $(kv_get "$OUT" sigbus) $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
check_eq "nothing leaked: the device turns off" ok "$(vs_try size 0)"
echo "$T" > "$V/size" || bail "size $T"

# 5. every write to the tier below fails
ss_paged_out "$CG" "$OUT" --size $S5 --mem anon --thp never --pageout memcg --memcg-max 4M \
	--lock-self --seed 41 || bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
a0=$(pages tierblk0)
o0=$(tstat tierblk0 demoted_out_pages)
e0=$(tier_stat tierblk1 write_errors)
ve0=$(vswap_stat write_errors)
tier_error_rate tierblk1 write 100% || bail "tierblk1 write errors"
r=$(demote tierblk0 256)
tier_faults_off tierblk1
ed=$(($(tier_stat tierblk1 write_errors) - e0))
ved=$(($(vswap_stat write_errors) - ve0))
check_eq "demote with every write to tierblk1 failing: EIO, nothing moved, tierblk0 as it was" \
	"EIO 0 $a0" "$r $(($(tstat tierblk0 demoted_out_pages) - o0)) $(pages tierblk0)"
check "the failed writes counted by tierblk1 (+$ed) and by the virtual device (+$ved)" \
	sh -c "[ $ed -ge 1 ] && [ $ved -ge 1 ]"
cont_wait sspid
rc=$CONT_RC
check_eq "every page verified from its old copy" "0 0 $(mib_pages "$S5")" \
	"$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
memcg_destroy "$CG"

# 6. demotions during the workload's faults, read faults under the moves
g0=$(vswap_stat demoted_pages)
l0=$(tstat tierblk0 demote_read_errors)
f0=$(tierblk_stat 0 one_shot_errors)
# arm_live_slot K: a one-shot read fault on the Kth (mod their number) of
# the tierblk0 slots that hold a test page now, so that the workload or a
# demotion reads it soon (a low slot picked blindly was often free: the
# demotions empty tierblk0). ss-locate reads the device: nothing armed.
arm_live_slot() {
	local s
	tierblk_set 0 one_shot_read_sector none
	s=$(ss-locate --all /dev/tierblk0 "$SL0" 2>/dev/null |
		awk -v k="$1" '{ a[NR] = $1 } END { if (NR) print a[k % NR + 1] }')
	[ -z "$s" ] || tier_fail_slot tierblk0 "$s" 2>/dev/null
}
n=0
errs=
rc=0
corrupt=0
sb=0
# A round is a whole workload; another (at most 3 in all) while no fault
# fired, so that "faults fired" is certain rather than likely.
for round in 1 2 3; do
	swapstress --size $S5 --mem anon --thp never --pageout memcg --memcg-max 4M --memcg-name "$CG" \
		--pattern random --passes $(by_suite 3 6) --write-pct 25 --seed $((50 + round)) --expect-sigbus \
		--lock-self > "$OUT" 2>&1 &
	sspid=$!
	armed=0
	while kill -0 "$sspid" 2>/dev/null; do
		# re-armed once it fired, or after 3 demote writes pending
		if [ "$(tierblk_get 0 one_shot_read_sector)" = none ] || [ $armed -ge 3 ]; then
			arm_live_slot $n
			armed=0
		fi
		armed=$((armed + 1))
		r=$(demote tierblk0 128)
		case "$r" in ok | ENOSPC) ;; *) errs="$errs $r" ;; esac
		n=$((n + 1))
		sleep 0.2
	done
	wait "$sspid" || rc=$?
	sspid=
	tierblk_set 0 one_shot_read_sector none
	v=$(kv_get "$OUT" corrupt)
	corrupt=$((corrupt + ${v:-99}))
	v=$(kv_get "$OUT" sigbus)
	sb=$((sb + ${v:-99}))
	[ $(($(tierblk_stat 0 one_shot_errors) - f0)) -ge 1 ] && break
	memcg_destroy "$CG"
done
tier_faults_off tierblk0
gd=$(($(vswap_stat demoted_pages) - g0))
ld=$(($(tstat tierblk0 demote_read_errors) - l0))
fd=$(($(tierblk_stat 0 one_shot_errors) - f0))
diag "$round workload round(s), $n demote writes, $gd slots moved, $ld read errors left; refusals:${errs:- none}; $fd one-shot faults fired, SIGBUS $sb"
check "demotions ran during the workload ($n writes, $gd slots moved), none refused but for ENOSPC" \
	sh -c "[ $n -ge 3 ] && [ $gd -ge 1 ] && [ -z '$errs' ]"
check "faults fired ($fd); no page corrupt ($corrupt, exit $rc), no read error left to a demotion ($ld), SIGBUS $sb at most once per fault fired" \
	sh -c "[ $fd -ge 1 ] && [ $rc = 0 ] && [ $corrupt = 0 ] && [ $ld = 0 ] && [ $sb -le $fd ]"
check_eq "nothing leaked: the device turns off" ok "$(vs_try size 0)"

# 7. the watermark
memcg_destroy "$CG"
wm() { vs_try "$(tdir tierblk0 | sed "s|^$V/||")/watermark" "$1"; }
check_eq "watermark off by default; 0 0, 90 90, 101 5, 90, '90 70 1', x: EINVAL each, still off" \
	"off EINVAL EINVAL EINVAL EINVAL EINVAL EINVAL off" \
	"$(cat "$D0/watermark") $(wm "0 0") $(wm "90 90") $(wm "101 5") $(wm 90) $(wm "90 70 1") $(wm x) $(cat "$D0/watermark")"
check_eq "watermark 75 50 set, read back; on the lowest tier accepted too (no effect)" "ok 75 50 ok" \
	"$(wm "75 50") $(cat "$D0/watermark") $(vs_try "$(tdir tierblk1 | sed "s|^$V/||")/watermark" "75 50")"
echo 0 > "$V/size" && echo "$T" > "$V/size" || bail "off and on again"
w0=$(tstat tierblk0 watermark_demoted_pages)
n0=$(tstat tierblk0 watermark_runs)
ss_paged_out "$CG" "$OUT" --size $S7 --mem anon --thp never --pageout memcg --memcg-max 4M \
	--seed 61 || bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
# the work's last batches (it may rest a second between them): up to a
# minute for tierblk0 to be under its high mark
i=0
while [ "$(pages tierblk0)" -gt $((SL0 * 3 / 4)) ] && [ $i -lt 120 ]; do
	sleep 0.5
	i=$((i + 1))
done
a=$(pages tierblk0)
b=$(pages tierblk1)
wd=$(($(tstat tierblk0 watermark_demoted_pages) - w0))
nd=$(($(tstat tierblk0 watermark_runs) - n0))
diag "tierblk0 $a pages, tierblk1 $b; watermark moved $wd in $nd runs, stops $(tstat tierblk0 watermark_stops)"
# (a 4M memcg keeps up to 1024 pages: the rest, less some slack, went out)
check "tierblk0 at or under 75% of $SL0 slots once settled ($a pages; the rest on tierblk1: $b)" \
	sh -c "[ $a -le $((SL0 * 3 / 4)) ] && [ $((a + b)) -ge $(($(mib_pages "$S7") - 1344)) ]"
check "the watermark moved slots ($wd in $nd runs), counted in demoted_out_pages too" \
	sh -c "[ $wd -ge 256 ] && [ $nd -ge 1 ] && [ $(tstat tierblk0 demoted_out_pages) -ge $wd ]"
cont_wait sspid
rc=$CONT_RC
check_eq "every page verified" "0 0 $(mib_pages "$S7")" "$rc $(kv_get "$OUT" corrupt) $(kv_get "$OUT" pages_verified)"
check_eq "watermark off again; nothing leaked: the device turns off" "ok off ok" \
	"$(wm off) $(cat "$D0/watermark") $(vs_try size 0)"

# 8. promotion
check_eq "promote 0 by default, nothing promoted so far; promote=2: EINVAL, still 0" "0 0 EINVAL 0" \
	"$(cat "$V/promote") $(vswap_stat promoted_pages) $(vs_try promote 2) $(cat "$V/promote")"
tiers_down || bail "tiers_down"
tiers_up vswap tierblk0:16M:prio=20:sync=0 tierblk1:32M:prio=10:sync=0 ||
	bail "tiers_up (asynchronous)"
D0=$(tdir tierblk0)
memcg_destroy "$CG"
swapstress --size 8M --mem anon --thp never --pageout memcg --memcg-max 6M --memcg-name "$CG" \
	--passes 6 --pattern random --write-pct 0 --seed 81 --lock-self --stop-after-pageout \
	> "$OUT" 2>&1 &
sspid=$!
wait_stopped "$sspid" 300 || bail "swapstress did not stop: $(cat "$OUT")"
memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || bail "pages stay in the swap cache"
r=$(demote tierblk0 8192)
a=$(pages tierblk0)
# (freed slots waiting in the slots caches keep theirs: up to 64 a CPU)
check "after the pageout everything demoted to tierblk1: $r, tierblk0 $a pages" \
	sh -c "[ $r = ok ] && [ $a -le $((64 * $(nproc))) ]"
echo 1 > "$V/promote" || bail "promote 1"
p0=$(vswap_stat promoted_pages)
w0=$(tierblk_stat 0 write_bytes)
cont_wait sspid
rc=$CONT_RC
echo 0 > "$V/promote"
pd=$(($(vswap_stat promoted_pages) - p0))
wd=$(($(tierblk_stat 0 write_bytes) - w0))
po=$(tstat tierblk1 promoted_out_pages)
pi=$(tstat tierblk0 promoted_in_pages)
diag "promoted $pd (tierblk1 out $po, tierblk0 in $pi); tierblk0 written $wd bytes; workingset_restore_anon $(vmstat_get workingset_restore_anon); $(tr '\n' ' ' < "$V/tiers")"
check "refaulting pages moved up: promoted_pages +$pd, tierblk1 out $po = tierblk0 in $pi, tierblk0 written since ($wd bytes)" \
	sh -c "[ $pd -ge 64 ] && [ $po = $pd ] && [ $pi = $pd ] && [ $wd -ge 4096 ]"
v=$(kv_get "$OUT" pages_verified)
check_eq "every access verified (6 random passes over 2048 pages: $v)" "0 0 1" \
	"$rc $(kv_get "$OUT" corrupt) $([ "${v:-0}" -ge $((6 * 2048)) ] && echo 1)"
memcg_destroy "$CG"
check_eq "nothing leaked: the device turns off" ok "$(vs_try size 0)"
