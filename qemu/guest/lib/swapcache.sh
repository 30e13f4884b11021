# Guest helpers for the swap cache tests (swapcache-semantics,
# swapcache-race, swap-workingset; docs/swap-cache-tests.md).
#
#   in_memcg DIR CMD...      run CMD inside the cgroup directory DIR
#   in_memcg_bg DIR CMD...   the same in the background; BGPID is CMD's pid
#                            (not a subshell's: wait_stopped and kill need it)
#   kv_load FILE             every key=value line of FILE (a program's
#                            summary) as shell variable kv_KEY, in one sed;
#                            the variables of the previous kv_load are unset
#                            first, so a value never outlives its run
#   ge VALUE MIN             VALUE is a number >= MIN (empty: false)
#   kv_line KEY...           "KEY=$kv_KEY ..." for a diag line
#   uptime_s                 seconds of uptime (builtins only)
# Forks cost ~50 ms and execs ~100 ms in the TCG debug guest: the checks
# read kv_* variables instead of running sed per key.
#   swap_ra_save / swap_ra_on / swap_ra_restore
#                            swap readahead knobs: vm.page-cluster and
#                            /sys/kernel/mm/swap/vma_ra_enabled; _on sets
#                            the kernel defaults (3, true) explicitly
#   tierblk_swap_sync S      swapoff tierblk0 if on, synchronous=S, swapon
#   count_lines FILE RE      lines of FILE matching RE (0 when none)
#   swapcache_setup NAME     a fresh memcg $CGROOT/NAME, tierblk
#                            loaded (256M, anything left over unloaded
#                            first), readahead knobs saved and set on,
#                            khugepaged parked (its collapses replace swap
#                            cache folios); bails out of the test when one
#                            fails
#   swapcache_teardown NAME  undoes it (and resets THP)

in_memcg() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

in_memcg_bg() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@" &
	BGPID=$!
}

kv_load() {
	local k
	for k in $_kv_names; do
		unset "kv_$k"
	done
	_kv_names=
	eval "$(sed -n 's/^\([a-z][a-z0-9_]*\)=\([-A-Za-z0-9_.,:/]*\)$/kv_\1='"'"'\2'"'"'; _kv_names="$_kv_names \1"/p' "$1")"
}

kv_line() {
	local k v out=
	for k in "$@"; do
		eval "v=\${kv_$k-}"
		out="$out $k=$v"
	done
	echo "${out# }"
}

uptime_s() {
	local u _
	read -r u _ < /proc/uptime
	echo "${u%.*}"
}

_SC_PC=/proc/sys/vm/page-cluster
_SC_VRA=/sys/kernel/mm/swap/vma_ra_enabled

swap_ra_save() {
	cat "$_SC_PC" > /tmp/.sc-page-cluster 2>/dev/null
	cat "$_SC_VRA" > /tmp/.sc-vma-ra 2>/dev/null
	return 0
}

swap_ra_on() {
	echo 3 > "$_SC_PC" && echo true > "$_SC_VRA"
}

swap_ra_restore() {
	[ -s /tmp/.sc-page-cluster ] && cat /tmp/.sc-page-cluster > "$_SC_PC"
	[ -s /tmp/.sc-vma-ra ] && cat /tmp/.sc-vma-ra > "$_SC_VRA"
	rm -f /tmp/.sc-page-cluster /tmp/.sc-vma-ra
	return 0
}

tierblk_swap_sync() {
	if grep -q '^/dev/tierblk0 ' /proc/swaps; then
		tierblk_swapoff 0 || return 1
	fi
	tierblk_set 0 synchronous "$1" && tierblk_swapon 0
}

count_lines() {
	local n
	n=$(grep -c "$2" "$1" 2>/dev/null)
	echo "${n:-0}"
}

swapcache_setup() {
	memcg_destroy "$1" 2>/dev/null
	tierblk_unload 2>/dev/null
	mkdir "$CGROOT/$1" || bail "no memcg $CGROOT/$1"
	tierblk_load size=256M >/dev/null || bail "insmod tierblk failed"
	swap_ra_save
	swap_ra_on || bail "cannot set the swap readahead knobs"
	khugepaged_park || bail "cannot park khugepaged"
}

swapcache_teardown() {
	memcg_destroy "$1"
	thp_reset
	swap_ra_restore
	khugepaged_restore
	tierblk_unload 2>/dev/null
}
