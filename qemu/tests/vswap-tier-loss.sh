#!/bin/sh
# timeout: 600
# suite: full
# A tier whose device goes away behind the virtual swap device (issue 16,
# item 5): tiernbd (priority 20, so it takes the pages) in front of a
# 32M tierblk0 (10), a 24M virtual device. 20M of anon go out through an
# 8M memcg, most of it to nbd; then tiernbd is killed (kill -9).
#  1. the workload, still stopped, holds swap entries on nbd; remove nbd:
#     the drain cannot read them (EIO at once, the server is gone), so
#     each becomes an error entry (drain_lost_pages), and the remove
#     finishes within a bound, without hanging;
#  2. the workload goes on: SIGBUS on exactly the pages that were on nbd
#     (as many as drain_lost_pages), every other page verified, no
#     fault hangs;
#  3. tierblk0 keeps working: a new workload through it verifies;
#  4. tiers_down: nothing leaked.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-tier-loss
OUT=/tmp/vswap-tier-loss.out
PM=/tmp/vswap-tier-loss.pm
cluster=$(cat /proc/sys/vm/page-cluster)
sspid=

vswap_required || exit 0

cleanup() {
	kill_bg "$sspid"
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}

vs_try() { tierblk_try_file "$V/$1" "$2"; }
vswap_stat() { awk -v k="$1" '$1 == k { print $2 }' "$V/stats"; }

plan 7
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
# a short nbd timeout: a request the dead server never answers fails
# within it
NBD_TIMEOUT=5
tiers_up vswap:24M nbd:64M:prio=20 tierblk0:32M:prio=10:sync=1 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"
# no readahead: a fault reads its own slot only
echo 0 > /proc/sys/vm/page-cluster
ss_paged_out "$CG" "$OUT" --size 20M --mem anon --thp never --pageout memcg --memcg-max 8M \
	--pagemap "$PM" --expect-sigbus --seed 61 ||
	bail "swapstress did not stop after its pages went out: $(cat "$OUT")"
slow=$(tier_used_kb nbd)
fast=$(tier_used_kb tierblk0)
check "the pages went out to nbd first: ${slow} KiB on nbd, ${fast} KiB on tierblk0" \
	[ "$slow" -ge 4096 ]

# 1. the server dies; removing its tier turns its slots into error entries
kill -9 "$(nbd_server_pid)" || bail "no tiernbd to kill"
sleep 1
l0=$(vswap_stat drain_lost_pages)
d0=$(vswap_stat drained_pages)
t0=$(uptime_s)
rc=$(vs_try remove "$NBD_DEV")
t1=$(uptime_s)
lost=$(($(vswap_stat drain_lost_pages) - l0))
diag "remove of the dead nbd tier: $rc in $((t1 - t0)) s; drain_lost_pages +$lost, drained_pages +$(($(vswap_stat drained_pages) - d0)); tiers: $(tr '\n' ';' < "$V/tiers")"
check_eq "remove the dead nbd tier: done, tierblk0 alone is left" "ok /dev/tierblk0" \
	"$rc $(awk '{ printf "%s", $1 }' "$V/tiers")"
# at most two reads a slot, each failing at once or within the timeout
check "the drain did not hang: $((t1 - t0)) s for $((slow / 4)) slots" \
	[ $((t1 - t0)) -le $((2 * NBD_TIMEOUT + 60)) ]
check "each slot the workload had on nbd is an error entry now (drain_lost_pages +$lost of $((slow / 4)) in use, the slots caches aside)" \
	[ "$lost" -ge $((slow / 4 - 64 * $(nproc))) -a "$lost" -le $((slow / 4)) ]

# 2. the workload faults them
t0=$(uptime_s)
kill -CONT "$sspid"
wait "$sspid"
rc=$?
sspid=
t1=$(uptime_s)
nsb=$(kv_get "$OUT" sigbus_pages | tr ',' '\n' | grep -c .)
diag "swapstress after the loss: rc $rc in $((t1 - t0)) s, $nsb SIGBUS pages, corrupt $(kv_get "$OUT" corrupt)"
check_eq "the workload went on: exit 0, no page corrupt, SIGBUS on as many pages as slots were lost ($lost)" \
	"0 0 $lost" "$rc $(kv_get "$OUT" corrupt) $nsb"
memcg_destroy "$CG"

# 3. the remaining tier works
SS_KEYS='pswpin|pswpout|pages_verified|corrupt'
ss "tierblk0 alone takes a new workload through the virtual device: every page verified" \
	--size 12M --mem anon --thp never --pageout memcg --memcg-name "$CG" --memcg-max 6M --seed 62
memcg_destroy "$CG"
echo "$cluster" > /proc/sys/vm/page-cluster

check "tiers_down: the virtual device off, tierblk0 removed (nothing leaked)" tiers_down
tap_status
