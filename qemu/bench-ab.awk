# The A/B tables of make bench: awk -v base=FILE -f bench-ab.awk FILE PATCHED
# Lines "BENCH <name> <value> <unit>" of the base file and of the patched
# file are paired by name, in the order they first appear. A line
# "BENCH-TABLE <title>" starts a new table: the metrics that first appear
# after it are printed under that title (without one, a single table).
# ratio > 1 means patched is better: times and sizes are lower-is-better
# (ratio base/patched), everything else (rates, IOPS, ...) higher-is-better
# (patched/base). A ratio needs both values positive numbers; otherwise,
# and for a missing value, "-". A name given more than once in a file
# (make bench with BENCH_ROUNDS > 1 appends one boot per round) is the
# median of its values (the mean of the middle two for an even count).
function num(x) { return x ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
# median of the numbers in the SUBSEP-joined string l, as written when it
# is one of them ("-" if none is a number)
function median(l,    a, x, m, i, j, t, c) {
	m = split(l, a, SUBSEP)
	c = 0
	for (i = 1; i <= m; i++)
		if (num(a[i]) || (a[i] ~ /^-/ && num(substr(a[i], 2))))
			x[++c] = a[i]
	if (!c)
		return "-"
	for (i = 2; i <= c; i++)
		for (j = i; j > 1 && x[j - 1] + 0 > x[j] + 0; j--) {
			t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
		}
	return c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2
}
function lower_better(u) {
	return u ~ /^(ns|us|ms|s)$/ || u ~ /^(B|KiB|MiB|GiB|kB|KB|MB|GB)(\/(slot|page|op))?$/
}
FNR == 1 { title = "" }
$1 == "BENCH-TABLE" && NF >= 2 {
	title = $0
	sub(/^BENCH-TABLE[ \t]+/, "", title)
	sub(/[ \t\r]+$/, "", title)
	if (!(title in tseen)) { tseen[title] = 1; torder[++nt] = title }
}
$1 == "BENCH" && NF >= 4 {
	k = (FILENAME == base) ? "base" : "patched"
	v[$2, k] = (($2, k) in v) ? v[$2, k] SUBSEP $3 : $3
	nv[$2, k]++; unit[$2] = $4
	if (nv[$2, k] > rounds)
		rounds = nv[$2, k]
	if (!($2 in seen)) {
		seen[$2] = 1; order[++n] = $2; table[$2] = title; rows[title]++
		if (!(title in tseen)) { tseen[title] = 1; torder[++nt] = title }
	}
}
END {
	for (t = 1; t <= nt; t++) {
		if (!rows[torder[t]])
			continue
		if (printed++)
			print ""
		if (torder[t] != "")
			print "-- " torder[t]
		printf "%-44s %12s %12s %8s  %s\n", "metric", "base", "patched", "ratio", "unit"
		for (i = 1; i <= n; i++) {
			m = order[i]
			if (table[m] != torder[t])
				continue
			b = ((m, "base") in v) ? median(v[m, "base"]) : "-"
			p = ((m, "patched") in v) ? median(v[m, "patched"]) : "-"
			r = "-"
			if (num(b) && num(p) && b + 0 > 0 && p + 0 > 0)
				r = sprintf("%.3f", lower_better(unit[m]) ? b / p : p / b)
			printf "%-44s %12s %12s %8s  %s\n", m, b, p, r, unit[m]
		}
	}
	if (rounds > 1)
		print "(each value: the median over " rounds " boots of that kernel, booted in turn with the other)"
	print "(ratio > 1: patched better; times and sizes (ns..s, B, KiB, MiB, B/slot) as base/patched, rates and counts as patched/base; - when a value is missing or not positive)"
}
