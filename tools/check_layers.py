#!/usr/bin/env python3
"""Checks that the include graph of include/bwgemm/ runs only downward through the library's layers.

A header may include headers of its own layer directory and of layers of strictly lower rank (LAYERS below,
lowest first). Two directories of the same rank are siblings and may not include each other, nor may the
subdirectories of a layer in SPLIT (kernels/sm100 and kernels/sm90). Every `#include "bwgemm/..."` or
`#include <bwgemm/...>` line counts, inside #if blocks too. A header in a directory the table does not know,
or an include of a path that does not exist, is a violation as well, so the table stays complete.

    check_layers.py [--root include/bwgemm] [--table]

Prints each violation as `path:line: <layer> (rank r) includes <target> (<layer> rank r2): <why>` and a
summary line; exits 1 on any violation, or if no header was found (a wrong root would otherwise pass).
--table prints the layer table instead (docs/architecture.md shows it).
"""
import argparse
import os
import re
import sys

# The layers, lowest first: (rank, directories under include/bwgemm/, what they hold). TOP is the headers
# directly in include/bwgemm/.
TOP = "top-level"
LAYERS = [
    (0, ["base"], "macros, Status, hardware constants, BLayout, integer helpers"),
    (1, ["formats", "isa", "tuning"], "number formats and scale layout; PTX encodings (descriptors, value types); "
                                      "kernel-choice tables (host only)"),
    (2, ["reference", "emu"], "host references; the CPU emulator (the backend the ptx wrappers call in "
                              "emulation builds)"),
    (3, ["ptx"], "the PTX wrappers (the only inline asm)"),
    (4, ["pipeline", "scheduler", "epilogue"], "policies"),
    (5, ["kernels", "host"], "kernel bodies and Configs (kernels/sm100, kernels/sm90); host-side tensor maps "
                             "and launch helpers"),
    (6, ["arguments"], "argument structs and their validation, shared by backends"),
    (7, ["sm100", "sm90"], "per-architecture entry points"),
    (8, [TOP], "top-level headers (include/bwgemm/*.cuh, *.hpp directly in include/bwgemm/)"),
]
RANK = {name: rank for rank, names, _ in LAYERS for name in names}
# Layers whose subdirectories are siblings too: kernels/sm100 and kernels/sm90 may not include each other.
SPLIT = {"kernels"}

HEADER_EXTENSIONS = (".h", ".hpp", ".cuh", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](bwgemm/[^>"]+)[>"]')


def layer_of(rel):
    """(layer, unit) of a path relative to the root: unit is the directory that must not reach its siblings,
    e.g. ("kernels", "kernels/sm100") or ("formats", "formats"); layer TOP for the top-level headers."""
    parts = rel.split("/")
    if len(parts) == 1:
        return TOP, TOP
    layer = parts[0]
    unit = "/".join(parts[:2]) if layer in SPLIT and len(parts) > 2 else layer
    return layer, unit


def verdict(unit, layer, target_unit, target_layer):
    """Why an include from (unit, layer) of `target` is not allowed, or None."""
    if target_layer not in RANK:
        return "not a layer: add its directory to LAYERS in tools/check_layers.py"
    rank, target_rank = RANK[layer], RANK[target_layer]
    if target_rank > rank:
        return "upward include: a layer may include only lower ranks"
    if target_rank == rank and target_layer != layer:
        return "sideways include: layers of the same rank are independent"
    if layer == target_layer and unit != target_unit and unit != layer and target_unit != layer:
        return f"sideways include: {unit}/ and {target_unit}/ are independent"
    return None


def headers(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(HEADER_EXTENSIONS):
                yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def check(root):
    """Violation lines, and the numbers of headers and includes scanned."""
    violations, n_headers, n_includes = [], 0, 0
    for rel in headers(root):
        n_headers += 1
        layer, unit = layer_of(rel)
        path = os.path.join(root, rel)
        if layer not in RANK:
            violations.append(f"{path}:1: {layer} (no rank): not a layer: add its directory to LAYERS in "
                              "tools/check_layers.py")
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            n_includes += 1
            target = m.group(1)
            here = f"{path}:{number}: {unit} (rank {RANK[layer]}) includes {target}"
            target_rel = os.path.normpath(target[len("bwgemm/"):]).replace(os.sep, "/")
            if target_rel.startswith("..") or not os.path.isfile(os.path.join(root, target_rel)):
                violations.append(f"{here} (missing): no such header under {root}")
                continue
            target_layer, target_unit = layer_of(target_rel)
            why = verdict(unit, layer, target_unit, target_layer)
            if why:
                target_rank = RANK.get(target_layer, "none")
                violations.append(f"{here} ({target_unit} rank {target_rank}): {why}")
    return violations, n_headers, n_includes


def print_table():
    for rank, names, what in LAYERS:
        dirs = "  ".join(name if name == TOP else name + "/" for name in names)
        print(f"rank {rank}  {dirs:<32}  {what}")


def main():
    default_root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "bwgemm")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.normpath(default_root), help="the include/bwgemm directory")
    parser.add_argument("--table", action="store_true", help="print the layer table and exit")
    args = parser.parse_args()
    if args.table:
        print_table()
        return 0
    violations, n_headers, n_includes = check(args.root)
    for v in violations:
        print(v)
    print(f"{n_headers} headers, {n_includes} includes, {len(violations)} violations")
    if n_headers == 0:
        print(f"no header under {args.root}")
        return 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
