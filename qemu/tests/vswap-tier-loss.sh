#!/bin/sh
# timeout: 600
# suite: full
# A tier whose device goes away behind the virtual swap device (issue 16,
# item 5): tiernbd (priority 20, so it takes the pages) in front of a
# 32M tierblk0 (10), a 24M virtual device. A 1M tmpfs file written from a
# memcg is reclaimed from it to nbd; then tiernbd is killed (kill -9).
#  1. reads of the file's first pages fault the dead tier directly: EIO
#     at once, none hangs; then remove nbd: the drain cannot read its
#     slots either, so each becomes an error entry (drain_lost_pages),
#     and the remove finishes within a bound, without hanging;
#  2. reading the file: EIO on every page, the drain's lost slots and the
#     pages whose direct read failed (shmem poisons those and frees their
#     slots), at once, no other error;
#  3. tierblk0 keeps working: a workload through it verifies;
#  4. tiers_down: nothing leaked.
. /usr/lib/tierswap/lib.sh

V=$VSWAP_SYS
CG=vswap-tier-loss
OUT=/tmp/vswap-tier-loss.out
MNT=/tmp/vswap-tier-loss
PAGES=256
cluster=$(cat /proc/sys/vm/page-cluster)

vswap_required || exit 0

cleanup() {
	umount "$MNT" 2>/dev/null
	memcg_destroy "$CG"
	echo "$cluster" > /proc/sys/vm/page-cluster
	tiers_down
}


plan 8
trap cleanup EXIT
diag "kernel: ${TIERSWAP_TREE:-?}-${TIERSWAP_FLAVOUR:-?}"
# a short nbd timeout: a request the dead server never answers fails
# within it
NBD_TIMEOUT=5
tiers_up vswap:24M nbd:64M:prio=20 tierblk0:32M:prio=10:sync=1 ||
	bail "tiers_up failed: $(tail -5 "$NBD_LOG" 2>/dev/null)"
# no readahead: a fault reads its own slot only
echo 0 > /proc/sys/vm/page-cluster
# The pages that die with nbd are a tmpfs file's, reclaimed from a memcg
# whose writer has exited: a workload's own memory in that memcg would go
# to nbd too, and die with it (seen: swapstress killed by SIGBUS).
mkdir -p "$MNT" "$CGROOT/$CG" || bail "memcg $CG"
mount -t tmpfs -o size=8M tierloss "$MNT" || bail "tmpfs"
sh -c "echo \$\$ > $CGROOT/$CG/cgroup.procs && exec dd if=/dev/urandom of=$MNT/f bs=4k count=$PAGES 2>/dev/null" ||
	bail "writing $MNT/f failed"
# out to swap, then out of the swap cache (nbd's writes are asynchronous)
echo 4M > "$CGROOT/$CG/memory.reclaim" 2>/dev/null
memcg_drain_swapcache "$CGROOT/$CG" >/dev/null || diag "pages left in the swap cache"
slow=$(tier_used_kb nbd)
fast=$(tier_used_kb tierblk0)
check "the file's pages went out to nbd: ${slow} KiB on nbd, ${fast} KiB on tierblk0" \
	[ "$slow" -ge $((PAGES * 4 * 9 / 10)) ]

# 1. the server dies. Reads of the file's first pages go to the dead tier
# and fail at once (EIO), none hangs; then removing the tier turns its
# slots into error entries
kill -9 "$(nbd_server_pid)" || bail "no tiernbd to kill"
sleep 1
# eio_pages FROM N: reads page by page; eio and bad (other errors) counts
eio_pages() {
	local i=$1
	eio=0 bad=0
	while [ $i -lt $(($1 + $2)) ]; do
		out=$(dd if="$MNT/f" of=/dev/null bs=4k skip=$i count=1 2>&1) ||
			case "$(errno_name "$out")" in EIO) eio=$((eio + 1)) ;; *) bad=$((bad + 1)) ;; esac
		i=$((i + 1))
	done
}
t0=$(uptime_s)
eio_pages 0 32
t1=$(uptime_s)
check "the dead tier read directly: EIO on each of the first 32 pages ($eio, $bad other errors), in $((t1 - t0)) s (no read waits out the ${NBD_TIMEOUT} s timeout twice)" \
	[ "$eio" = 32 -a "$bad" = 0 -a $((t1 - t0)) -le $((32 + 2 * NBD_TIMEOUT)) ]
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
check "each slot the file had on nbd is an error entry now (drain_lost_pages +$lost of $((slow / 4)) in use, the slots caches aside)" \
	[ "$lost" -ge $((slow / 4 - 64 * $(nproc))) -a "$lost" -le $((slow / 4)) ]

# 2. reading the file: EIO on each lost page, at once, the rest reads
t0=$(uptime_s)
eio_pages 0 $PAGES
t1=$(uptime_s)
diag "the file after the loss: $eio of $PAGES pages EIO, $bad other errors, in $((t1 - t0)) s"
# the 32 pages read in step 1 are shmem's own: a failed swapin poisons
# the page in the file and frees its slot (shmem_set_folio_swapin_error),
# so the drain found the other slots only
check_eq "reading the file: EIO on every page, the drain's lost slots ($lost) and the 32 poisoned by the first reads, no other error" \
	"$((lost + 32)) 0" "$eio $bad"
umount "$MNT"
memcg_destroy "$CG"

# 3. the remaining tier works
SS_KEYS='pswpin|pswpout|pages_verified|corrupt'
ss "tierblk0 alone takes a new workload through the virtual device: every page verified" \
	--size 12M --mem anon --thp never --pageout memcg --memcg-name "$CG" --memcg-max 6M --seed 62
memcg_destroy "$CG"
echo "$cluster" > /proc/sys/vm/page-cluster

check "tiers_down: the virtual device off, tierblk0 removed (nothing leaked)" tiers_down
tap_status
