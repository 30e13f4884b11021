#!/bin/sh
# timeout: 1500
# suite: full
# boot: own
# zswap's writeback to the tiers of the virtual device while those tiers
# fail or are slow (issue 17: "with faults on that tier (write errors,
# latency, a one-shot read error during writeback) nothing is lost and the
# counters say what happened"). Its own boot (zswap). Two synchronous 16M
# tierblks behind a 60M virtual device with lazy_bind, tierblk0 first by
# priority; --fill sparse pages go to zswap unbound, then reclaim with
# zswap's shrinker on writes entries back, each bound to a tier at its
# write (mm-patches 0024, 0032):
#  1. every write to tierblk0 fails: writeback's writes fail there
#     (tierblk0 write_errors, the device's write_errors) and tierblk0
#     rests (write_error_rest_ms 60000), so the next writebacks bind to
#     tierblk1; every page verified. (A folio whose writeback write
#     failed goes back to zswap at its next reclaim, unbound: the tier's
#     rest, not the WFAIL mark of 0016, is what keeps it off tierblk0.
#     With no rest, writeback tries tierblk0 again each time and nothing
#     reaches tierblk1: docs/vswap.md.)
#  2. tierblk0 slow (200 us a read or write): writeback's writes wait
#     (tierblk0 delayed_ops), nothing lost;
#  3. a one-shot read error on a page writeback put on tierblk0: the task
#     gets SIGBUS on exactly that page, every other page verified.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-zswap-wbf
OUT=/tmp/vswap-zswap-wbf.out
PM=/tmp/vswap-zswap-wbf.pm
rest0=$(cat "$VSWAP_SYS/write_error_rest_ms" 2>/dev/null)
sspid=

vswap_zswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	zswap_shrinker_restore
	[ -z "$rest0" ] || echo "$rest0" > "$V/write_error_rest_ms"
	memcg_destroy "$CG"
	tiers_down
}

# out SEED [ARGS]: 8M of sparse pages out through a 2M memcg, into zswap
out() {
	memcg_destroy "$CG"
	ss_paged_out "$CG" "$OUT" --size 8M --mem anon --thp never --pageout memcg --memcg-max 2M \
		--fill sparse --seed "$1" --expect-sigbus --pagemap "$PM" ||
		bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
}
# writeback: reclaim with zswap's shrinker on; wb: pages written back
writeback() {
	local wb0
	wb0=$(zswap_stat written_back_pages)
	zswap_shrinker Y || bail "zswap shrinker_enabled"
	echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
	zswap_shrinker N
	wb=$(($(zswap_stat written_back_pages) - wb0))
}
# finish: let swapstress verify and exit
finish() {
	cont_wait sspid
	FIN="$CONT_RC $(kv_get "$OUT" corrupt) $(kv_get "$OUT" sigbus) $(kv_get "$OUT" pages_verified)"
}

plan 6
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
tiers_up zswap vswap:60M:lazy=1 tierblk0:16M:prio=20:sync=1 tierblk1:16M:prio=10:sync=1 ||
	bail "tiers_up"

# 1. writes to tierblk0 fail during writeback; tierblk0 rests
echo 60000 > "$V/write_error_rest_ms" || bail "write_error_rest_ms"
out 31
te0=$(tier_stat tierblk0 write_errors) we0=$(vswap_stat write_errors)
t1=$(tier_used_kb tierblk1)
tier_error_rate tierblk0 write 100% || bail "tier_error_rate"
writeback
wb1=$wb
writeback
tier_faults_off tierblk0 || bail "tier_faults_off"
te=$(($(tier_stat tierblk0 write_errors) - te0)) we=$(($(vswap_stat write_errors) - we0))
t1=$(($(tier_used_kb tierblk1) - t1))
diag "tierblk0 failing: written back $wb1 then $wb; tierblk0 write_errors +$te, device write_errors +$we, tierblk1 +$t1 KiB"
check "writeback's writes failed on tierblk0 (+$te), counted by the device (+$we)" \
	sh -c "[ $te -ge 1 ] && [ $we -ge $te ]"
check "tierblk0 resting, the next writebacks bound to tierblk1 (+$t1 KiB)" [ "$t1" -gt 0 ]
echo 0 > "$V/write_error_rest_ms" || bail "write_error_rest_ms 0"
finish
check_eq "tierblk0 failing writes during writeback: every page verified, none lost" "0 0 0 2048" "$FIN"

# 2. tierblk0 slow during writeback
out 32
d0=$(tierblk_stat 0 delayed_ops)
tier_latency tierblk0 rw 200 || bail "tier_latency"
writeback
tier_faults_off tierblk0 || bail "tier_faults_off"
d=$(($(tierblk_stat 0 delayed_ops) - d0))
check "tierblk0 at 200 us: writeback wrote back ($wb), its I/O waited (delayed_ops +$d)" \
	sh -c "[ $wb -gt 0 ] && [ $d -gt 0 ]"
finish
check_eq "tierblk0 slow during writeback: every page verified" "0 0 0 2048" "$FIN"

# 3. a page writeback put on tierblk0 fails its next read, once
out 33
writeback
set -- $(swap_page_on /dev/tierblk0 $(swapped_pages "$PM" | awk 'NR % 16 == 0' | head -64))
pg=${1:-} slot=${2:-}
[ -n "$slot" ] && tier_fail_slot tierblk0 "$slot" || diag "no written-back page found on tierblk0 (written back $wb)"
finish
tier_faults_off tierblk0
check_eq "a one-shot read error on page ${pg:-?} (tierblk0 slot ${slot:-?}) after writeback: SIGBUS on it alone, the rest verified" \
	"0 0 1 2047 ${pg:-none}" "$FIN $(kv_get "$OUT" sigbus_pages)"
tap_end
