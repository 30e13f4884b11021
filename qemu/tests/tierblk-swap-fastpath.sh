#!/bin/sh
# timeout: 600
# suite: quick
# tierblk: swap takes the SWP_SYNCHRONOUS_IO fast path on synchronous=1 and
# not on synchronous=0.  A shell in a memcg holds 4M of single-mapped anon
# memory (a variable), memory.reclaim pushes it to tierblk0, the shell reads
# the variable back without forking, and, while it still lives:
#   synchronous=1: pswpin counts the reads, SwapCached stays near 0 and the
#                  swap slots are freed at once (slot_free_notify);
#   synchronous=0: the swapped-in pages stay in the swap cache.
# The data read back must match what was written.  SwapCached is the
# memcg's (memory.stat swapcached).
. /usr/lib/tierswap/lib.sh

CG=/sys/fs/cgroup/tierblk-fastpath
SIZE=4194304
cluster=$(cat /proc/sys/vm/page-cluster)

cleanup() {
	[ -n "$holder" ] && kill -9 "$holder" 2>/dev/null
	wait 2>/dev/null
	rmdir "$CG" 2>/dev/null
	rm -f /tmp/fp.*
	echo "$cluster" > /proc/sys/vm/page-cluster
	tierblk_unload 2>/dev/null
}

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# the memcg's swap cache, KiB
swapcached_kb() { awk '$1 == "swapcached" { print int($2 / 1024) }' "$CG/memory.stat"; }

# wait_line FILE TEXT: until FILE holds a line TEXT, 60 s at most.
wait_line() {
	local i=0
	while [ $i -lt 600 ]; do
		grep -qx "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# The holder: joins the memcg, fills $v, reports, waits for "in", reads $v
# back into a file (a builtin: no fork shares its pages), reports, waits.
holder_script='
	echo $$ > '"$CG"'/cgroup.procs
	v=$(yes tierblk-fastpath-0123456789abcdefghijklmnopqrstuvwxyz | head -c '"$SIZE"')
	echo filled >> /tmp/fp.state
	while [ ! -e /tmp/fp.go ]; do sleep 0.1; done
	printf %s "$v" > /tmp/fp.data
	echo read >> /tmp/fp.state
	while [ ! -e /tmp/fp.end ]; do sleep 0.1; done
'

# one_mode SYNC: runs the scenario, sets in_kb, out_pages, cached_kb, freed.
one_mode() {
	local i p0 o0 r0
	tierblk_set 0 synchronous "$1"
	tierblk_swapon 0 || return 1
	echo 1 > "$(tierblk_dir 0)/reset_stats"
	rm -f /tmp/fp.*
	sh -c "$holder_script" &
	holder=$!
	wait_line /tmp/fp.state filled || { echo "holder did not fill"; return 1; }
	o0=$(vmstat pswpout)
	# Reclaim until the memory is out and no longer in the swap cache
	# (asynchronous writeback leaves pages there until a later pass).
	i=0
	while [ $i -lt 20 ]; do
		echo 16M > "$CG/memory.reclaim" 2>/dev/null
		[ $(($(vmstat pswpout) - o0)) -ge 900 ] && [ "$(swapcached_kb)" -lt 64 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	out_pages=$(($(vmstat pswpout) - o0))
	p0=$(vmstat pswpin)
	c0=$(swapcached_kb)
	r0=$(tierblk_stat 0 reads)
	touch /tmp/fp.go
	wait_line /tmp/fp.state read || { echo "holder did not read"; return 1; }
	in_pages=$(($(vmstat pswpin) - p0))
	cached_kb=$(($(swapcached_kb) - c0))
	dev_reads=$(($(tierblk_stat 0 reads) - r0))
	freed=$(tierblk_stat 0 slot_free_notify)
	touch /tmp/fp.end
	wait "$holder"
	holder=
	tierblk_swapoff 0
	diag "synchronous=$1: pswpout +$out_pages, pswpin +$in_pages, device reads +$dev_reads," \
		"SwapCached +${cached_kb} kB, slot_free_notify $freed (while the owner lives)"
}

data_ok() {
	[ "$(wc -c < /tmp/fp.data)" = "$SIZE" ] &&
		[ "$(md5sum < /tmp/fp.data)" = "$(yes tierblk-fastpath-0123456789abcdefghijklmnopqrstuvwxyz | head -c $SIZE | md5sum)" ]
}

plan 8
trap cleanup EXIT
tierblk_load size=64M || bail "insmod tierblk failed"
mkdir -p "$CG" || bail "no memcg"
echo 0 > /proc/sys/vm/page-cluster

if one_mode 1; then
	check "synchronous=1: data read back intact" data_ok
	check "synchronous=1: >= 900 pages swapped out and in (pswpin)" \
		test "$out_pages" -ge 900 -a "$in_pages" -ge 900
	check "synchronous=1: SwapCached grew < 10% of the swapped-in size" \
		test "$cached_kb" -lt $((in_pages * 4 / 10))
	check "synchronous=1: swap slots freed at swapin" test "$freed" -ge $((in_pages * 9 / 10))
else
	fail "synchronous=1 scenario ran"; skip a x; skip b x; skip c x
fi
rm -f /tmp/fp.*

if one_mode 0; then
	check "synchronous=0: data read back intact" data_ok
	check "synchronous=0: >= 900 pages swapped out and in (pswpin)" \
		test "$out_pages" -ge 900 -a "$in_pages" -ge 900
	check "synchronous=0: the swapped-in pages stay in the swap cache" \
		test "$cached_kb" -ge $((in_pages * 4 / 2))
	check "synchronous=0: no slot freed while the owner lives" test "$freed" -lt $((in_pages / 10))
else
	fail "synchronous=0 scenario ran"; skip a x; skip b x; skip c x
fi
tap_status
