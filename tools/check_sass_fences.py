#!/usr/bin/env python3
"""Checks that bwgemm's kernels carry no GPU-scope memory fence beyond the ones their cluster barriers need.

A GPU-scope fence (SASS MEMBAR.*.GPU) waits until every memory operation of the thread is visible to the
whole GPU. The only places a bwgemm kernel needs one are the cluster barriers at its start and before it
exits (barrier.cluster.arrive has .release semantics); one in a mainloop stalls the warps that hit it on
every K block. ptxas emits one for every mbarrier arrive with .release.cluster semantics, which the Hopper
cluster kernels once paid twice per K block (ptx/mbarrier.cuh, mbarrier_arrive_cluster).

    check_sass_fences.py --cuobjdump cuobjdump --binary FILE [--binary FILE ...] [--max 2] [--kernels REGEX]

Prints every matching kernel with its fence count; exits 1 if one has more than --max, or if no kernel
matched (a binary without kernels would otherwise pass unchecked).
"""
import argparse
import re
import subprocess
import sys

FENCE = re.compile(r"\bMEMBAR\.[A-Z.]*GPU\b")


def fences_per_kernel(cuobjdump, binary, kernels):
    sass = subprocess.run([cuobjdump, "-sass", binary], check=True, capture_output=True, text=True).stdout
    counts, name, arch = {}, None, ""
    for line in sass.splitlines():
        m = re.search(r"arch = (\w+)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = (arch, m.group(1)) if kernels.search(m.group(1)) else None
            if name:
                counts[name] = 0
            continue
        if name and FENCE.search(line):
            counts[name] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--binary", action="append", required=True)
    parser.add_argument("--max", type=int, default=2, help="GPU-scope fences allowed per kernel")
    parser.add_argument("--kernels", default=r"gemm_kernel", help="regex on the mangled kernel names")
    args = parser.parse_args()
    kernels = re.compile(args.kernels)
    failed, checked = False, 0
    for binary in args.binary:
        for (arch, name), count in sorted(fences_per_kernel(args.cuobjdump, binary, kernels).items()):
            demangled = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name
            verdict = "ok" if count <= args.max else f"FAIL (more than {args.max})"
            print(f"{count} GPU-scope fences  {arch}  {demangled[:160]}  {verdict}")
            failed |= count > args.max
            checked += 1
    if checked == 0:
        print(f"no kernel matching '{args.kernels}' in {args.binary}")
        return 1
    print(f"{checked} kernels checked")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
