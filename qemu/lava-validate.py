#!/usr/bin/python3
"""Validate LAVA job definitions with LAVA's own schema (lava-common).

lava-validate.py JOB.yaml... prints TAP, one result per job: LAVA's
lava_common.schemas.validate() in strict mode, the check lava-server runs
on submission. Exit 1 if a job is invalid, 2 if lava-common is missing.
Debian's /usr/bin/python3 is named on purpose: it is the one that sees
Debian's python3-lava-common.
"""
import sys

try:
    import yaml
    from lava_common.schemas import validate
except ImportError as exc:
    print(f"lava-validate: {exc}: apt-get install lava-common", file=sys.stderr)
    sys.exit(2)


def check(path):
    """None if the job at path is valid, else the reason."""
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
        validate(data, strict=True)
    except Exception as exc:  # voluptuous.Invalid, yaml.YAMLError, OSError
        return f"{type(exc).__name__}: {exc}"
    return None


def main(paths):
    if not paths:
        print("usage: lava-validate.py JOB.yaml...", file=sys.stderr)
        return 2
    print("KTAP version 1")
    print(f"1..{len(paths)}")
    bad = 0
    for i, path in enumerate(paths, 1):
        why = check(path)
        if why is None:
            print(f"ok {i} - {path}: valid LAVA job")
        else:
            bad += 1
            print(f"not ok {i} - {path}: {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
