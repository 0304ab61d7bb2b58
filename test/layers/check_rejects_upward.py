#!/usr/bin/env python3
"""Proves that tools/check_layers.py fails on a deliberately upward and a deliberately sideways include.

Copies include/bwgemm to a scratch directory, runs the checker on the copy, then appends to the copy an upward
include (formats/ -> host/), a sideways one (isa/ -> formats/) and two legal ones (downward, same layer), and
runs it again. Passes only if the second run exits non-zero and reports exactly the two illegal includes on
top of whatever the first run reported (the real tree may have violations of its own while headers move).

    check_rejects_upward.py --checker tools/check_layers.py --root include/bwgemm --scratch DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# (header of the copy, appended include, the violation's layers as the checker names them, or None: legal)
INJECTED = [
    ("formats/bits.cuh", "bwgemm/host/launch.hpp", "formats (rank 1) includes bwgemm/host/launch.hpp (host rank 5)"),
    ("formats/bits.cuh", "bwgemm/base/macros.hpp", None),
    ("isa/types.hpp", "bwgemm/formats/bits.cuh", "isa (rank 1) includes bwgemm/formats/bits.cuh (formats rank 1)"),
    ("isa/types.hpp", "bwgemm/isa/descriptors.hpp", None),
]
VIOLATION = re.compile(r"^(\S+):(\d+): ")


def run(checker, root):
    out = subprocess.run([sys.executable, checker, "--root", root], capture_output=True, text=True)
    print(out.stdout + out.stderr, end="")
    return out.returncode, {line for line in out.stdout.splitlines() if VIOLATION.match(line)}


def append_include(path, target):
    """Appends `#include "target"` to the header; returns the line number it lands on."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        text += "\n"
    text += f'#include "{target}"\n'
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return text.count("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checker", required=True)
    parser.add_argument("--root", required=True, help="the real include/bwgemm")
    parser.add_argument("--scratch", required=True, help="a directory to copy it to (replaced)")
    args = parser.parse_args()
    shutil.rmtree(args.scratch, ignore_errors=True)
    shutil.copytree(args.root, args.scratch)

    print("== the unmodified copy")
    _, before = run(args.checker, args.scratch)
    expected, legal = set(), []
    for header, target, layers in INJECTED:
        path = os.path.join(args.scratch, header)
        if not os.path.isfile(path):
            print(f"FAIL: {header} is not in the tree any more: update INJECTED in {__file__}")
            return 1
        line = append_include(path, target)
        if layers is None:
            legal.append(f"{path}:{line}:")
        else:
            expected.add(f"{path}:{line}: {layers}: ")

    print("== the copy with the injected includes")
    rc, after = run(args.checker, args.scratch)
    new = sorted(after - before)
    failures = []
    if rc == 0:
        failures.append("the checker exited 0")
    for want in sorted(expected):
        if not any(line.startswith(want) for line in new):
            failures.append(f"not reported: {want}")
    for line in new:
        if not any(line.startswith(want) for want in expected):
            failures.append(f"reported, but not injected as a violation: {line}")
    if len(new) != len(expected):
        failures.append(f"{len(new)} new violations, expected {len(expected)}")
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print(f"ok: the checker rejects the {len(expected)} injected includes and accepts the {len(legal)} legal ones")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
