#!/usr/bin/python3
"""Split a standalone lava-run's log for the lab's judge (qemu/report.sh).

lava-log.py LAVA_LOG OUTDIR writes, from the records lava-run prints, one
YAML flow mapping per line ({"dt": ..., "lvl": ..., "msg": ...}):
  OUTDIR/console.log  every line the device printed (lvl target): the
                      kernel console and, with tierswap.results=console,
                      the tests' output, as report.sh reads them
  OUTDIR/results.log  a link to console.log (report.sh finds its ###
                      markers there)
  OUTDIR/lava-results.tsv  LAVA's own view: one line per LAVA test case
                      (lvl results): suite, case, result
and prints LAVA's job result (the "job" case of the lava suite) or
"unknown". Exit 2 if the log cannot be read.
"""
import os
import sys

import yaml


def records(path):
    """The log's records; a line that is not one (a stray print) is skipped."""
    recs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("- "):
                line = line[2:]
            if not line.startswith("{"):
                continue
            try:
                rec = yaml.safe_load(line)
            except yaml.YAMLError:
                continue
            if isinstance(rec, dict):
                recs.append(rec)
    return recs


def main(argv):
    if len(argv) != 3:
        print("usage: lava-log.py LAVA_LOG OUTDIR", file=sys.stderr)
        return 2
    try:
        recs = records(argv[1])
    except (OSError, yaml.YAMLError) as exc:
        print(f"lava-log: {argv[1]}: {exc}", file=sys.stderr)
        return 2
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    lines, results, job = [], [], "unknown"
    for r in recs:
        if not isinstance(r, dict):
            continue
        msg = r.get("msg")
        if r.get("lvl") == "target" and isinstance(msg, str):
            lines.append(msg.rstrip("\r\n"))
        elif r.get("lvl") == "results" and isinstance(msg, dict):
            results.append((str(msg.get("definition", "")), str(msg.get("case", "")),
                            str(msg.get("result", ""))))
            if msg.get("definition") == "lava" and msg.get("case") == "job":
                job = str(msg.get("result"))
    with open(os.path.join(out, "console.log"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    # one serial port: report.sh's results.log is the same stream
    res_log = os.path.join(out, "results.log")
    if os.path.lexists(res_log):
        os.remove(res_log)
    os.symlink("console.log", res_log)
    with open(os.path.join(out, "lava-results.tsv"), "w", encoding="utf-8") as f:
        for row in results:
            f.write("\t".join(row) + "\n")
    print(job)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
