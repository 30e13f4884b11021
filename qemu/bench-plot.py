#!/usr/bin/env python3
"""make bench's pictures: bench-plot.py DIR

DIR is a make bench result directory (build/logs/bench-<time>/) with one
file per boot: base-release.rN.txt and patched-release.rN.txt. Their lines
"BENCH <name> <value> <unit>" are the metrics, "BENCH-TABLE <title>" starts
a table, as qemu/bench-ab.awk reads them. For each table this writes
ab-<slug>.svg (with gnuplot, from ab-<slug>.dat): per metric, a bar for
base and one for patched at the median over the rounds, whiskers from the
smallest to the largest round, everything divided by base's median so
metrics of different units share one axis (1 = base). Each metric's label
says its unit and which way is better (the rule of bench-ab.awk: times
and sizes lower, everything else higher).
Prints one line per picture. Exit 2 on a bad directory, 1 if gnuplot fails.
"""
import os
import re
import statistics
import subprocess
import sys

NUM = re.compile(r"^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$")
LOWER_BETTER = re.compile(r"^((ns|us|ms|s)|(B|KiB|MiB|GiB|kB|KB|MB|GB)(/(slot|page|op))?)$")


def read_rounds(path):
    """{title: {name: (unit, [values])}} and the titles and names in order."""
    tables, order = {}, []
    title = ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == "BENCH-TABLE":
                title = line.split(None, 1)[1].strip()
            elif len(w) >= 4 and w[0] == "BENCH" and NUM.match(w[2]):
                if title not in tables:
                    tables[title] = {}
                    order.append(title)
                unit, vals = tables[title].setdefault(w[1], (w[3], []))
                vals.append(float(w[2]))
    return tables, order


def collect(directory, kernel):
    """Every round of one kernel: {title: {name: (unit, [values])}}, order."""
    files = sorted(f for f in os.listdir(directory)
                   if re.fullmatch(re.escape(kernel) + r"\.r[0-9]+\.txt", f))
    merged, order = {}, []
    for f in files:
        tables, o = read_rounds(os.path.join(directory, f))
        for t in o:
            if t not in merged:
                merged[t] = {}
                order.append(t)
            for name, (unit, vals) in tables[t].items():
                merged[t].setdefault(name, (unit, []))[1].extend(vals)
    return merged, order, len(files)


def slug(title):
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return s[:60] or "bench"


def quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def plot(directory, title, rows, rounds):
    """Write ab-<slug>.dat and .svg for one table; return the svg path."""
    base = os.path.join(directory, "ab-" + slug(title))
    with open(base + ".dat", "w", encoding="utf-8") as f:
        f.write("# metric base_med base_min base_max patched_med patched_min patched_max"
                " (divided by base's median)\n")
        for label, b, p in rows:
            f.write(quote(label) + " " + " ".join("%.6g" % x for x in b + p) + "\n")
    script = "\n".join([
        "set terminal svg size %d,480 dynamic noenhanced font 'sans,11'" % max(640, 140 * len(rows)),
        "set output " + quote(base + ".svg"),
        "set title " + quote("%s: base vs patched, %d round(s); bar = median, whiskers = min..max"
                             % (title or "make bench", rounds)),
        "set ylabel 'relative to base median (1 = base)'",
        "set style data histograms",
        "set style histogram errorbars gap 2 lw 1",
        "set style fill solid 0.6 border -1",
        "set yrange [0:*]",
        "set offsets graph 0, graph 0, graph 0.1, 0",
        "set grid ytics",
        "set xtics rotate by -20",
        "set key top left",
        "plot %s using 2:3:4:xtic(1) title 'base' lc rgb '#4477aa', "
        "'' using 5:6:7 title 'patched' lc rgb '#ee6677', 1 with lines dt 2 lc rgb 'black' notitle"
        % quote(base + ".dat"),
        "",
    ])
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0 or not os.path.exists(base + ".svg"):
        sys.stderr.write("bench-plot: gnuplot failed for %s: %s\n" % (title, r.stderr.strip()))
        return None
    return base + ".svg"


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write("bench-plot: usage: bench-plot.py DIR (a make bench result directory)\n")
        return 2
    d = argv[1]
    base, border, nb = collect(d, "base-release")
    patched, porder, npat = collect(d, "patched-release")
    if not nb or not npat:
        sys.stderr.write("bench-plot: %s has no base-release.rN.txt or patched-release.rN.txt\n" % d)
        return 2
    failed = 0
    for title in border + [t for t in porder if t not in border]:
        rows, left = [], []
        names = list(base.get(title, {})) + [n for n in patched.get(title, {}) if n not in base.get(title, {})]
        for name in names:
            bu, bv = base.get(title, {}).get(name, ("", []))
            pu, pv = patched.get(title, {}).get(name, (bu, []))
            unit = bu or pu
            if not bv or not pv or statistics.median(bv) <= 0:
                left.append(name)
                continue
            m = statistics.median(bv)
            way = "lower" if LOWER_BETTER.match(unit) else "higher"
            rows.append(("%s (%s, %s is better)" % (name, unit, way),
                         [statistics.median(bv) / m, min(bv) / m, max(bv) / m],
                         [statistics.median(pv) / m, min(pv) / m, max(pv) / m]))
        if not rows:
            continue
        svg = plot(d, title, rows, max(nb, npat))
        if svg is None:
            failed = 1
            continue
        print("plot: %s (%d metrics%s)" % (svg, len(rows),
              "; left out, no value on both kernels: " + " ".join(left) if left else ""))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))
