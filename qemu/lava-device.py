#!/usr/bin/python3
"""Render a LAVA device dictionary for one job, as lava-server does.

lava-device.py DICT.jinja2 JOB.yaml TEMPLATE_DIR... > DEVICE.yaml

lava-server renders a device's dictionary (a jinja2 file extending a
device-type template) with the job's context as variables, in a sandboxed
environment with trim_blocks, and hands the result to the dispatcher. A
standalone lava-run takes the rendered YAML: this does that step.
"""
import os
import sys

import yaml
from jinja2 import FileSystemLoader
from jinja2.sandbox import SandboxedEnvironment


def main(argv):
    if len(argv) < 4:
        print("usage: lava-device.py DICT.jinja2 JOB.yaml TEMPLATE_DIR...", file=sys.stderr)
        return 2
    dict_path, job_path, dirs = argv[1], argv[2], argv[3:]
    with open(job_path, encoding="utf-8") as f:
        context = (yaml.safe_load(f) or {}).get("context", {})
    env = SandboxedEnvironment(
        loader=FileSystemLoader([os.path.dirname(os.path.abspath(dict_path))] + dirs),
        autoescape=False,
        trim_blocks=True,
    )
    text = env.get_template(os.path.basename(dict_path)).render(**context)
    yaml.safe_load(text)  # the dispatcher needs valid YAML: fail here if not
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
