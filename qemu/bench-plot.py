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
Two more kinds of line, drawn per table when present:
  "BENCH-CDF <name> <unit> <q>:<value> ..." a distribution as quantiles:
    cdf-<slug>.svg, one curve per name and kernel (base dashed, patched
    solid), the value on a log axis;
  "BENCH-PHASES <name> <unit> <phase>=<value> ..." a cost split in parts:
    phases-<slug>.svg, one stacked bar per name and kernel.
Over several rounds each point is the median of the rounds'.
Prints one line per picture. Exit 2 on a bad directory, 1 if gnuplot fails.
"""
import os
import re
import statistics
import subprocess
import sys

NUM = re.compile(r"^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$")
LOWER_BETTER = re.compile(r"^((ns|us|ms|s)|(B|KiB|MiB|GiB|kB|KB|MB|GB)(/(slot|page|op))?)$")


def pairs(words, sep, quantiles=False):
    """[(key, float)] of the words "key<sep>number"; None if one is not
    (or, with quantiles, if a key is not a number from 0 to 1)."""
    out = []
    for w in words:
        k, _, v = w.partition(sep)
        if not k or not NUM.match(v):
            return None
        if quantiles and not (NUM.match(k) and 0 <= float(k) <= 1):
            return None
        out.append((k, float(v)))
    return out or None


def read_rounds(path, series=None):
    """{title: {name: (unit, [values])}} and the titles and names in order.
    series, if given, is filled with the BENCH-CDF and BENCH-PHASES lines:
    {(kind, title): {name: (unit, [(key, value)...])}}."""
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
            elif len(w) >= 4 and w[0] in ("BENCH-CDF", "BENCH-PHASES") and series is not None:
                kind = "cdf" if w[0] == "BENCH-CDF" else "phases"
                pts = pairs(w[3:], ":" if kind == "cdf" else "=", kind == "cdf")
                if pts is None:
                    sys.stderr.write("bench-plot: %s: a %s line that does not parse: %s\n"
                                     % (path, w[0], line.strip()))
                    continue
                series.setdefault((kind, title), {})[w[1]] = (w[2], pts)
    return tables, order


def merge_series(rounds):
    """The rounds' series of one kernel, each point the median over the
    rounds that have it: {(kind, title): {name: (unit, [(key, value)])}}."""
    out = {}
    for r in rounds:
        for kt, names in r.items():
            for name, (unit, pts) in names.items():
                u, acc = out.setdefault(kt, {}).setdefault(name, (unit, {}))
                for k, v in pts:
                    acc.setdefault(k, []).append(v)
    return {kt: {name: (u, [(k, statistics.median(v)) for k, v in acc.items()])
                 for name, (u, acc) in names.items()}
            for kt, names in out.items()}


def collect(directory, kernel, series=None):
    """Every round of one kernel: {title: {name: (unit, [values])}}, order;
    series, if given, gets the rounds' BENCH-CDF/-PHASES (merge_series)."""
    files = sorted(f for f in os.listdir(directory)
                   if re.fullmatch(re.escape(kernel) + r"\.r[0-9]+\.txt", f))
    merged, order, rounds = {}, [], []
    for f in files:
        rounds.append({})
        tables, o = read_rounds(os.path.join(directory, f), rounds[-1])
        for t in o:
            if t not in merged:
                merged[t] = {}
                order.append(t)
            for name, (unit, vals) in tables[t].items():
                merged[t].setdefault(name, (unit, []))[1].extend(vals)
    if series is not None:
        series.update(merge_series(rounds))
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
    return gnuplot(script, base + ".svg", title)


def gnuplot(script, svg, what):
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode != 0 or not os.path.exists(svg):
        sys.stderr.write("bench-plot: gnuplot failed for %s: %s\n" % (what, r.stderr.strip()))
        return None
    return svg


COLOURS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb",
           "#000000", "#ee7733", "#0077bb"]


def short(name, names):
    """name without the prefix every name of the plot shares."""
    pre = os.path.commonprefix(names)
    pre = pre[:pre.rfind(".") + 1] if "." in pre else ""
    return name[len(pre):] or name


def names_in_order(kernels):
    """The names of every kernel's series, in the order they first appear."""
    names = []
    for k in kernels.values():
        names += [n for n in k if n not in names]
    return names


def plot_cdf(directory, title, kernels):
    """cdf-<slug>.svg from {kernel: {name: (unit, [(q, v)])}}; its path.
    Points are in quantile order; a value not above 0 has no place on the
    log axis and is left out."""
    base = os.path.join(directory, "cdf-" + slug(title))
    names = names_in_order(kernels)
    units = {u for k in kernels.values() for u, _ in k.values()}
    cmds = []
    with open(base + ".dat", "w", encoding="utf-8") as f:
        f.write("# blocks: kernel name; columns: value fraction\n")
        idx = 0
        for i, name in enumerate(names):
            for kernel, dash in (("base-release", 2), ("patched-release", 1)):
                if name not in kernels.get(kernel, {}):
                    continue
                pts = sorted((float(q), v) for q, v in kernels[kernel][name][1] if v > 0)
                f.write("# %s %s\n" % (kernel, name))
                for q, v in pts:
                    f.write("%.6g %.6g\n" % (v, q))
                f.write("\n\n")
                cmds.append("%s index %d using 1:2 with linespoints dt %d pt 7 ps 0.4 lc rgb '%s' title %s"
                            % (quote(base + ".dat"), idx, dash, COLOURS[i % len(COLOURS)],
                               quote("%s, %s" % (short(name, names), kernel.split("-")[0]))))
                idx += 1
    if not cmds:
        return None
    script = "\n".join([
        "set terminal svg size 900,560 dynamic noenhanced font 'sans,11'",
        "set output " + quote(base + ".svg"),
        "set title " + quote("%s: distribution (base dashed, patched solid)" % (title or "make bench")),
        "set xlabel " + quote("per-item time (%s), log scale" % "/".join(sorted(units))),
        "set ylabel 'fraction at or below'",
        "set logscale x",
        "set yrange [0:1.02]",
        "set grid",
        "set key outside right top",
        "plot " + ", ".join(cmds),
        "",
    ])
    return gnuplot(script, base + ".svg", title)


def plot_phases(directory, title, kernels):
    """phases-<slug>.svg from {kernel: {name: (unit, [(phase, v)])}}."""
    base = os.path.join(directory, "phases-" + slug(title))
    names = names_in_order(kernels)
    phases = []
    for k in kernels.values():
        for _, pts in k.values():
            for ph, _ in pts:
                if ph not in phases:
                    phases.append(ph)
    units = {u for k in kernels.values() for u, _ in k.values()}
    rows = 0
    with open(base + ".dat", "w", encoding="utf-8") as f:
        f.write("bar " + " ".join(quote(p) for p in phases) + "\n")
        for name in names:
            for kernel in ("base-release", "patched-release"):
                if name not in kernels.get(kernel, {}):
                    continue
                d = dict(kernels[kernel][name][1])
                f.write(quote("%s %s" % (short(name, names), kernel.split("-")[0])) + " "
                        + " ".join("%.6g" % d.get(p, 0.0) for p in phases) + "\n")
                rows += 1
    if not rows:
        return None
    script = "\n".join([
        "set terminal svg size %d,520 dynamic noenhanced font 'sans,11'" % max(640, 70 * rows),
        "set output " + quote(base + ".svg"),
        "set title " + quote("%s: cost by phase, base and patched side by side" % (title or "make bench")),
        "set ylabel " + quote("/".join(sorted(units))),
        "set style data histograms",
        "set style histogram rowstacked",
        "set style fill solid 0.7 border -1",
        "set boxwidth 0.7",
        "set yrange [0:*]",
        "set grid ytics",
        "set xtics rotate by -30",
        # the legend top-down as the stack reads, the last phase on top
        "set key outside right top invert",
        "plot for [i=2:%d] %s using i:xtic(1) title columnheader(i) lc rgb word(%s, i - 1)"
        % (len(phases) + 1, quote(base + ".dat"),
           quote(" ".join(COLOURS[j % len(COLOURS)] for j in range(len(phases))))),
        "",
    ])
    return gnuplot(script, base + ".svg", title)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        sys.stderr.write("bench-plot: usage: bench-plot.py DIR (a make bench result directory)\n")
        return 2
    d = argv[1]
    bseries, pseries = {}, {}
    base, border, nb = collect(d, "base-release", bseries)
    patched, porder, npat = collect(d, "patched-release", pseries)
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
    keys = list(bseries) + [k for k in pseries if k not in bseries]
    for kind, title in keys:
        kernels = {"base-release": bseries.get((kind, title), {}),
                   "patched-release": pseries.get((kind, title), {})}
        draw = plot_cdf if kind == "cdf" else plot_phases
        svg = draw(d, title, kernels)
        if svg is None:
            failed = 1
            continue
        print("plot: %s (%s of %d series)" % (svg, "distributions" if kind == "cdf" else "phases",
                                             len(set(kernels["base-release"]) | set(kernels["patched-release"]))))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))
