# Guest helpers for the swap table tests (swap-table-alloc-fail,
# swap-table-rotational; mm-patches 0007, 0009, 0010).
#
#   swt_counted              true if /proc/vmstat counts swap tables
#                            (swap_table_alloc, swap_table_free: 0009)
#   swt_tables               the tables in memory: swap_table_alloc -
#                            swap_table_free (a freed page table counts
#                            until its RCU grace period ends)
#   swt_table_bytes          the size of one table: a page, or the
#                            swap_table cache's object size
#   swt_fault_setup          SWT_FS and SWT_KIND: the fault injection that
#                            can fail a table allocation: failslab on the
#                            swap_table cache when tables come from it,
#                            fail_page_alloc when they are pages (0007,
#                            known by the counter); false (SWT_FS empty)
#                            on a kernel without swap tables
#   sym_range NAME...        "start end name" (hex, no 0x) of the first of
#                            the NAMEs that is a text symbol in
#                            /proc/kallsyms (an inlined function has none:
#                            name its caller next); end is the next text
#                            symbol's address
#   swt_inject_on START END [all]
#                            fail every allocation that cannot sleep
#                            (ignore-gfp-wait; with "all", those that may
#                            sleep too) made with a return address in
#                            [START, END) on the stack, and for failslab
#                            only from the swap_table cache; SWT_PERCENT
#                            (100) of them
#   swt_inject_off           no more failures
#   swt_injected             failures injected since swt_inject_on
#   swt_tables_become N      swt_tables reads N within 5 s (a freed page
#                            table counts until its RCU grace period ends)

SWT_SLAB=/sys/kernel/slab/swap_table
SWT_TIMES=1000000

swt_counted() { grep -q '^swap_table_alloc ' /proc/vmstat; }

swt_tables() {
	awk '$1 == "swap_table_alloc" { a = $2 } $1 == "swap_table_free" { f = $2 }
		END { print a - f }' /proc/vmstat
}

swt_table_bytes() {
	# busybox has no getconf: the page size a mapping reports
	if [ -d "$SWT_SLAB" ]; then
		cat "$SWT_SLAB/object_size"
	else
		awk '$1 == "KernelPageSize:" { print $2 * 1024; exit }' /proc/self/smaps
	fi
}

swt_fault_setup() {
	if [ -d "$SWT_SLAB" ]; then
		SWT_FS=/sys/kernel/debug/failslab SWT_KIND="swap_table slab allocation"
	elif swt_counted; then
		SWT_FS=/sys/kernel/debug/fail_page_alloc SWT_KIND="page allocation"
	else
		SWT_FS= SWT_KIND=
		return 1
	fi
}

sym_range() {
	local n
	for n in "$@"; do
		awk '$2 ~ /^[tT]$/ { print $1, $3 }' /proc/kallsyms | sort |
			awk -v n="$n" 'f { print s, $1, n; exit } $2 == n { s = $1; f = 1 }' |
			grep . && return 0
	done
	return 1
}

swt_inject_on() {
	if [ -d "$SWT_SLAB" ]; then
		echo Y > "$SWT_FS/cache-filter" && echo 1 > "$SWT_SLAB/failslab" || return 1
	else
		echo Y > "$SWT_FS/ignore-gfp-highmem" && echo 0 > "$SWT_FS/min-order" || return 1
	fi
	echo "0x$1" > "$SWT_FS/require-start" && echo "0x$2" > "$SWT_FS/require-end" &&
		echo 32 > "$SWT_FS/stacktrace-depth" &&
		echo "$([ "${3:-}" = all ] && echo N || echo Y)" > "$SWT_FS/ignore-gfp-wait" &&
		echo 0 > "$SWT_FS/space" &&
		echo 1 > "$SWT_FS/interval" && echo 0 > "$SWT_FS/verbose" &&
		echo "$SWT_TIMES" > "$SWT_FS/times" && echo "${SWT_PERCENT:-100}" > "$SWT_FS/probability"
}

swt_inject_off() {
	[ -n "${SWT_FS:-}" ] && [ -w "$SWT_FS/probability" ] && echo 0 > "$SWT_FS/probability"
	[ -w "$SWT_SLAB/failslab" ] && echo 0 > "$SWT_SLAB/failslab"
	return 0
}

swt_injected() { echo $((SWT_TIMES - $(cat "$SWT_FS/times"))); }

swt_tables_become() {
	local i=0
	while [ "$(swt_tables)" != "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(swt_tables)" = "$1" ]
}
