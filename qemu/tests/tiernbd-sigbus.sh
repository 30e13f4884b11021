#!/bin/sh
# timeout: 300
# suite: full
# A read error injected by tiernbd on one swapped-out page: the owner
# gets SIGBUS for that page, every other page verifies.
. /usr/lib/tierswap/lib.sh

plan 7
pc=
ss=
cleanup() {
	[ -n "$ss" ] && kill -CONT "$ss" 2>/dev/null && kill -9 "$ss" 2>/dev/null
	nbd_ctl error clear >/dev/null 2>&1
	nbd_tier_down
	[ -n "$pc" ] && echo "$pc" > /proc/sys/vm/page-cluster
}
trap cleanup EXIT

nbd_tier_up 64M || bail "no nbd tier: $(tail -5 "$NBD_LOG")"
nbd_swapon || bail "swapon $NBD_DEV failed"
# no swap readahead: only the faulting page's slot is read
pc=$(cat /proc/sys/vm/page-cluster)
echo 0 > /proc/sys/vm/page-cluster

cg=/sys/fs/cgroup/tnbd-sigbus
swapstress --size 8M --mem anon --pageout memcg --memcg-max 4M --memcg-name tnbd-sigbus \
	--pagemap /tmp/pm.txt --stop-after-pageout --expect-sigbus --seed 21 > /tmp/ss-sigbus.txt 2>&1 &
ss=$!
i=0
until [ "$(awk '{ print $3 }' /proc/$ss/stat 2>/dev/null)" = T ] || [ $i -ge 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "swapstress paged out and stopped itself" [ "$(awk '{ print $3 }' /proc/$ss/stat 2>/dev/null)" = T ]
# written-back pages may still sit in the swap cache, and a fault there
# reads nothing: reclaim the memcg so that the slot has to be read
echo 64M > "$cg/memory.reclaim" 2>/dev/null

# the 100th page that is a swap entry; its slot on the device
set -- $(awk '$2 != "-"' /tmp/pm.txt | sed -n '100p')
page=${1:-} type=${2:-} off=${3:-}
check "pagemap names a swapped page ($page: type $type offset $off)" [ -n "$off" ]
out=$(nbd_ctl error add read $((off * 4096))+4096 errno=EIO)
check "error range on its slot: $((off * 4096))+4096 ($out)" [ -n "$out" ]

kill -CONT "$ss"
wait "$ss"
rc=$?
ss=
res=$(grep -v '^#' /tmp/ss-sigbus.txt | tr '\n' ' ')
check_eq "swapstress --expect-sigbus exit 0 (no corruption)" 0 "$rc"
[ $rc = 0 ] || diag "$res"
sb=$(sed -n 's/^sigbus_pages=//p' /tmp/ss-sigbus.txt | tr ',' ' ')
hit=no
for p in $sb; do [ "$p" = "$page" ] && hit=yes; done
check_eq "SIGBUS on page $page (sigbus_pages=$sb)" yes "$hit"
check_eq "no page corrupt" 0 "$(sed -n 's/^corrupt=//p' /tmp/ss-sigbus.txt)"
e=$(nbd_stat read injected_errors)
check "tiernbd counted the injected read error ($e)" [ "${e:-0}" -ge 1 ]
tap_status
