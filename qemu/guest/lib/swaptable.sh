# Guest helpers for the swap table tests (swap-table-alloc-fail,
# swap-table-rotational; mm-patches 0006, 0008-0010).
#
#   SWT_TABLES, SWT_TABLE_BYTES  debugfs swap/tables (tables allocated and
#                            not yet freed) and swap/table_bytes (a table's
#                            size), from mm-patches 0009
#   swt_fault_setup          SWT_FS and SWT_KIND: the fault injection that
#                            can fail a table allocation: fail_page_alloc
#                            when a table is a page (0008), failslab on the
#                            swap_table cache otherwise; false (SWT_FS
#                            empty) on a kernel without swap tables
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
#   swt_tables_become N      SWT_TABLES reads N within 5 s (a freed page
#                            table counts until its RCU grace period ends)

SWT_SLAB=/sys/kernel/slab/swap_table
SWT_TABLE_BYTES=/sys/kernel/debug/swap/table_bytes
SWT_TABLES=/sys/kernel/debug/swap/tables
SWT_TIMES=1000000

swt_fault_setup() {
	if [ -r "$SWT_TABLE_BYTES" ] && [ "$(cat "$SWT_TABLE_BYTES")" = 4096 ]; then
		SWT_FS=/sys/kernel/debug/fail_page_alloc SWT_KIND="page allocation"
	elif [ -d "$SWT_SLAB" ]; then
		SWT_FS=/sys/kernel/debug/failslab SWT_KIND="swap_table slab allocation"
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
	while [ "$(cat "$SWT_TABLES")" != "$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(cat "$SWT_TABLES")" = "$1" ]
}
