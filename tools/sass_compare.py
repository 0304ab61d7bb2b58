#!/usr/bin/env python3
"""Compares the SASS of two builds kernel by kernel, ignoring the kernels' names.

A refactoring that renames Configs, moves code between headers or shares role loops should leave the
machine code of every kernel unchanged. This tool dumps both binaries with `cuobjdump -sass`, normalizes
each kernel's body (instruction addresses and symbol names removed, the encodings kept), and matches the
bodies of BEFORE with those of AFTER as multisets: every kernel of one must have an identical body in the
other. Kernels without a match are listed with their demangled names and the number of differing lines
against the closest body of the other build.

    sass_compare.py --cuobjdump cuobjdump BEFORE AFTER [--arch sm_100a] [--show-diff N]
                    [--rename OLD=NEW ...] [--histogram]

--histogram pairs the unmatched kernels by name instead (their demangled names after the --rename
substitutions, e.g. --rename dual_gemm_kernel=nvfp4_dual_gemm_kernel) and prints, per pair, the instruction
count before and after and the opcodes whose counts changed: a refactoring that reorders code shows only
integer and branch opcodes there, a change of substance shows its memory, MMA or barrier instructions.

Exit status: 0 when every body has its twin (same count of kernels), 1 otherwise.
"""
import argparse
import collections
import difflib
import re
import subprocess
import sys


def kernels(cuobjdump, binary, arch):
    """{mangled name: [normalized SASS lines]} for the functions of `arch` in `binary`."""
    out = subprocess.run([cuobjdump, "-sass", binary], check=True, capture_output=True, text=True).stdout
    result, name, in_arch, body = {}, None, arch is None, []
    for line in out.splitlines():
        m = re.search(r"arch = (\w+)", line)
        if m:
            in_arch = arch is None or m.group(1) == arch
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            if name is not None and in_arch_of_name:
                result[name] = body
            name, body, in_arch_of_name = m.group(1), [], in_arch
            continue
        if name is None:
            continue
        # "        /*0010*/                   MOV R1, c[0x0][0x28] ;   /* 0x00000a0000017a02 */"
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*$", line)
        if m:
            text = re.sub(r"`\([^)]*\)", "`(sym)", m.group(1))  # symbol references (e.g. the kernel's own name)
            body.append(text)
        else:
            m = re.match(r"\s*/\* (0x[0-9a-f]+) \*/\s*$", line)  # the second encoding word of an instruction
            if m:
                body.append(m.group(1))
    if name is not None and in_arch_of_name:
        result[name] = body
    return result


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), check=True, capture_output=True,
                         text=True).stdout.splitlines()
    return dict(zip(names, out))


def opcode_histogram(body):
    """Counts of each opcode (the mnemonic without its modifiers) in a normalized body."""
    counts = collections.Counter()
    for line in body:
        tokens = line.split()
        if not tokens or tokens[0].startswith("0x"):
            continue
        op = tokens[1] if tokens[0].startswith("@") and len(tokens) > 1 else tokens[0]
        counts[op.rstrip(";").split(".")[0]] += 1
    return counts


def report_histograms(before, after, unmatched_before, unmatched_after, pretty, renames):
    def key(name):
        text = pretty.get(name, name)
        for old, new in renames:
            text = text.replace(old, new)
        return text
    after_by_key = {key(n): n for n in unmatched_after}
    for name in unmatched_before:
        other = after_by_key.get(key(name))
        if other is None:
            print(f"no counterpart after: {pretty.get(name, name)}")
            continue
        hb, ha = opcode_histogram(before[name]), opcode_histogram(after[other])
        changed = {op: ha[op] - hb[op] for op in sorted(set(hb) | set(ha)) if ha[op] != hb[op]}
        print(f"{sum(hb.values())} -> {sum(ha.values())} instructions: {pretty.get(other, other)}")
        print("    " + (", ".join(f"{op} {d:+d}" for op, d in changed.items()) or "same opcode counts"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--arch", default=None, help="compare only this architecture's code (e.g. sm_100a)")
    ap.add_argument("--show-diff", type=int, default=0, help="print up to N differing lines per unmatched kernel")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                    help="with --histogram: a substitution that maps a kernel's old name to its new one")
    ap.add_argument("--histogram", action="store_true",
                    help="pair unmatched kernels by name and compare their opcode counts")
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args()

    before = kernels(args.cuobjdump, args.before, args.arch)
    after = kernels(args.cuobjdump, args.after, args.arch)
    key = lambda body: "\n".join(body)
    pool = collections.Counter(key(b) for b in after.values())
    unmatched_before = []
    for name, body in before.items():
        k = key(body)
        if pool[k] > 0:
            pool[k] -= 1
        else:
            unmatched_before.append(name)
    pool = collections.Counter(key(b) for b in before.values())
    unmatched_after = []
    for name, body in after.items():
        k = key(body)
        if pool[k] > 0:
            pool[k] -= 1
        else:
            unmatched_after.append(name)

    pretty = demangle(list(before) + list(after))
    print(f"kernels: {len(before)} before, {len(after)} after; identical bodies: "
          f"{len(before) - len(unmatched_before)}")

    def report(names, mine, other, label):
        for name in names:
            body = mine[name]
            best, best_name = None, None
            for oname, obody in other.items():
                ratio = difflib.SequenceMatcher(None, body, obody, autojunk=False).quick_ratio()
                if best is None or ratio > best:
                    best, best_name = ratio, oname
            diff = [] if best_name is None else [
                l for l in difflib.unified_diff(body, other[best_name], lineterm="", n=0)
                if l[:1] in "+-" and not l.startswith(("+++", "---"))]
            print(f"{label}: {pretty.get(name, name)}")
            print(f"    {len(body)} lines; closest: {pretty.get(best_name, best_name)} ({len(diff)} lines differ)")
            for l in diff[:args.show_diff]:
                print("      " + l)

    if args.histogram:
        renames = [tuple(r.split("=", 1)) for r in args.rename]
        report_histograms(before, after, unmatched_before, unmatched_after, pretty, renames)
    else:
        report(unmatched_before, before, after, "only before")
        report(unmatched_after, after, before, "only after")
    return 0 if not unmatched_before and not unmatched_after else 1


if __name__ == "__main__":
    sys.exit(main())
