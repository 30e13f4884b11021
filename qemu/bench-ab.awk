# The A/B table of make bench: awk -v base=FILE -f bench-ab.awk FILE PATCHED
# Lines "BENCH <name> <value> <unit>" of the base file and of the patched
# file are paired by name, in the order they first appear. ratio > 1 means
# patched is better: times and sizes are lower-is-better (ratio base/patched),
# everything else (rates, IOPS, ...) higher-is-better (patched/base). A ratio
# needs both values positive numbers; otherwise, and for a missing value, "-".
function num(x) { return x ~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
function lower_better(u) {
	return u ~ /^(ns|us|ms|s)$/ || u ~ /^(B|KiB|MiB|GiB|kB|KB|MB|GB)(\/(slot|page|op))?$/
}
$1 == "BENCH" && NF >= 4 {
	k = (FILENAME == base) ? "base" : "patched"
	v[$2, k] = $3; unit[$2] = $4
	if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
}
END {
	printf "%-44s %12s %12s %8s  %s\n", "metric", "base", "patched", "ratio", "unit"
	for (i = 1; i <= n; i++) {
		m = order[i]
		b = ((m, "base") in v) ? v[m, "base"] : "-"
		p = ((m, "patched") in v) ? v[m, "patched"] : "-"
		r = "-"
		if (num(b) && num(p) && b + 0 > 0 && p + 0 > 0)
			r = sprintf("%.3f", lower_better(unit[m]) ? b / p : p / b)
		printf "%-44s %12s %12s %8s  %s\n", m, b, p, r, unit[m]
	}
	print "(ratio > 1: patched better; times and sizes (ns..s, B, KiB, MiB, B/slot) as base/patched, rates and counts as patched/base; - when a value is missing or not positive)"
}
