#!/usr/bin/python3
"""A run's results as KCIDB JSON (KernelCI's common reporting schema, v4).

kcidb.py RUN_DIR TREE FLAVOUR > RUN_DIR/kcidb.json

RUN_DIR is a run's log directory (qemu/test.sh, qemu/lava-run.sh): its
times.tsv (boot, test, seconds, result: one row per host suite and guest
test) and, per guest boot, LABEL/boot.info and LABEL/results.log. Writes one
checkout (this repository's commit and the mm-patches series), one build
(TREE-FLAVOUR, x86_64), and tests: a "boot" test per guest boot (PASS when
QEMU exited cleanly and the guest reached "### guest done") and one test per
row, path tierswap.NAME (tierswap.host.NAME for host suites), status PASS,
FAIL or SKIP as the lab's judge gave it (ERROR when it gave none).
"""
import hashlib
import json
import os
import subprocess
import sys

ORIGIN = "tierswap"
STATUS = {"PASS": "PASS", "FAIL": "FAIL", "SKIP": "SKIP"}


def git_commit(top):
    try:
        return subprocess.run(["git", "-C", top, "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def series_hash(top):
    """sha256 over the series' patch files, in order (KCIDB patchset_hash)."""
    d = os.path.join(top, "mm-patches")
    h = hashlib.sha256()
    try:
        with open(os.path.join(d, "series"), encoding="utf-8") as f:
            names = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    except OSError:
        return ""
    for n in names:
        with open(os.path.join(d, n), "rb") as f:
            h.update(hashlib.sha256(f.read()).hexdigest().encode() + b"\n")
    return h.hexdigest()


def boot_ok(run, label):
    info, done = {}, False
    try:
        with open(os.path.join(run, label, "boot.info"), encoding="utf-8") as f:
            for kv in f.read().split():
                k, _, v = kv.partition("=")
                info[k] = v
    except OSError:
        pass
    try:
        with open(os.path.join(run, label, "results.log"), encoding="utf-8",
                  errors="replace") as f:
            done = any(l.startswith("### guest done") for l in f)
    except OSError:
        pass
    # lava-run writes no boot.info: the guest's own "done" decides there
    return done and info.get("qemu_rc", "0") == "0"


def main(argv):
    if len(argv) != 4:
        print("usage: kcidb.py RUN_DIR TREE FLAVOUR", file=sys.stderr)
        return 2
    run, tree, flavour = argv[1], argv[2], argv[3]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(run, "times.tsv"), encoding="utf-8") as f:
            rows = [l.rstrip("\n").split("\t") for l in f][1:]
    except OSError as exc:
        print(f"kcidb: {exc}", file=sys.stderr)
        return 2
    commit = git_commit(top)
    runid = os.path.basename(os.path.normpath(run))
    checkout = f"{ORIGIN}:{commit}"
    build = f"{ORIGIN}:{commit}:{tree}-{flavour}"
    tests, boots = [], []
    for row in rows:
        if len(row) < 4:
            continue
        label, name, secs, result = row[:4]
        if label != "host" and label not in boots:
            boots.append(label)
        path = f"{ORIGIN}.host.{name}" if label == "host" else f"{ORIGIN}.{name}"
        test = {
            "id": f"{ORIGIN}:{runid}:{label}:{name}",
            "origin": ORIGIN,
            "build_id": build,
            "path": path,
            "status": STATUS.get(result, "ERROR"),
            "environment": {"comment": "host" if label == "host"
                            else f"QEMU TCG guest, boot {label}"},
        }
        try:
            test["duration"] = float(secs)
        except ValueError:
            pass
        tests.append(test)
    for label in boots:
        tests.append({
            "id": f"{ORIGIN}:{runid}:{label}:boot",
            "origin": ORIGIN,
            "build_id": build,
            "path": "boot",
            "status": "PASS" if boot_ok(run, label) else "FAIL",
            "environment": {"comment": f"QEMU TCG guest, boot {label}"},
        })
    doc = {
        "version": {"major": 4, "minor": 0},
        "checkouts": [{
            "id": checkout,
            "origin": ORIGIN,
            "tree_name": "linux-source-6.12 (Debian)",
            "git_commit_hash": commit,
            "patchset_hash": series_hash(top),
            "comment": "tierswap: mm-patches/series on Debian's linux-source-6.12",
            "valid": True,
        }],
        "builds": [{
            "id": build,
            "origin": ORIGIN,
            "checkout_id": checkout,
            "architecture": "x86_64",
            "config_name": f"{tree}-{flavour}",
            "valid": True,
        }],
        "tests": tests,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
