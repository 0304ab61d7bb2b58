#!/usr/bin/env python3
"""The hot loops of bwgemm's sm_100a swap-AB kernels, from their SASS (the table in docs/kernels.md, "Hot loops").

For every kernel of the binary whose demangled name matches --kernels (default: the persistent swap-AB kernels,
`*_swap_ab_kernel<`: the NVFP4 dual and GEMM, the 16-bit GEMM and the 16-bit dual, dual_swap_ab_kernel):
  MMA loop   the innermost loop (the shortest backward branch) around the kernel's tensor-core instructions
             (UTC*MMA): one iteration per pipeline stage; its instruction count and the instructions in it
  epilogue   the epilogue warps' tile loop (the shortest backward branch around the tensor-memory loads, LDTM),
             split as the compiler laid it out: the head (from the loop start to the first uniform branch
             after the loads: the accumulator wait, tile coordinates, the loads, the early release), the path
             that branch falls through to (the first functor case of epilogue_tile: the identity functor for
             the GEMMs, both alphas 1 for the dual GEMMs; its stores counted), and the tail (from the branches'
             reconvergence point, BSSY's target, to the back branch); per output = their sum over the
             BlockTokens outputs each thread stores per tile (every token inside M)
These are static counts of straight-line code (the stores are predicated by the token mask, not branched
around, for full tiles), not a simulation; the layout assumptions are checked and a kernel that does not fit
them is reported instead.

    swap_ab_hot_loops.py --binary build/.../kernel_instances --cuobjdump cuobjdump [--kernels REGEX]
"""
import argparse
import collections
import re
import subprocess
import sys

BRANCH = re.compile(r"BRA(?:\.U)? (?:!?U?P\d, )?0x([0-9a-f]+)")


def kernels_of(cuobjdump, binary, arch):
    """{mangled name: [(address, instruction)]} of the binary's `arch` code."""
    sass = subprocess.run([cuobjdump, "-sass", binary], check=True, capture_output=True, text=True).stdout
    out, name, in_arch = {}, None, False
    for line in sass.splitlines():
        m = re.search(r"arch = (\w+)", line)
        if m:
            in_arch, name = m.group(1) == arch, None
            continue
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1) if in_arch else None
            if name:
                out[name] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and name:
            out[name].append((int(m.group(1), 16), m.group(2)))
    return out


def opcode(text):
    parts = text.split()
    return parts[1] if parts[0].startswith("@") else parts[0]


def shortest_loop(ins, lo, hi):
    """(start, back branch) of the shortest backward branch from at or after `hi` to at or before `lo`."""
    best = None
    for a, t in ins:
        m = BRANCH.search(t)
        if m and a >= hi:
            target = int(m.group(1), 16)
            if target <= lo and (best is None or a - target < best[1] - best[0]):
                best = (target, a)
    return best


def mma_loop(ins):
    mmas = [a for a, t in ins if re.match(r"UTC\w*MMA", opcode(t))]
    if not mmas:
        return None
    loop = shortest_loop(ins, mmas[0], mmas[-1])
    body = [t for a, t in ins if loop[0] <= a <= loop[1]]
    return len(body), collections.Counter(opcode(t) for t in body)


def epilogue_path(ins, tokens):
    loads = [a for a, t in ins if opcode(t).startswith("LDTM")]
    loop = shortest_loop(ins, loads[0], loads[-1])
    body = [(a, t) for a, t in ins if loop[0] <= a <= loop[1]]
    reconverge = [int(re.search(r"0x([0-9a-f]+)", t).group(1), 16) for a, t in body
                  if opcode(t).startswith("BSSY")]
    split = [(a, t) for a, t in body if a > loads[-1] and re.match(r"BRA\.U !UP\d", t)]
    if not reconverge or not split:
        return None
    path_end = int(BRANCH.search(split[0][1]).group(1), 16)
    count = lambda lo, hi: sum(1 for a, _ in body if lo <= a < hi)
    head = count(loop[0], split[0][0] + 1)
    path = count(split[0][0] + 1, path_end)
    tail = count(reconverge[0], loop[1] + 1)
    stores = sum(1 for a, t in body if split[0][0] < a < path_end and opcode(t).startswith("STG"))
    return head, path, stores, tail, (head + path + tail) / tokens


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--cuobjdump", required=True)
    ap.add_argument("--arch", default="sm_100a")
    ap.add_argument("--kernels", default=r"_swap_ab_kernel<", help="regex on the demangled kernel name")
    args = ap.parse_args()
    kernels = kernels_of(args.cuobjdump, args.binary, args.arch)
    names = list(kernels)
    pretty = subprocess.run(["c++filt"], input="\n".join(names), check=True, capture_output=True,
                            text=True).stdout.splitlines()
    shown = 0
    for mangled, name in sorted(zip(names, pretty), key=lambda x: x[1]):
        if not re.search(args.kernels, name):
            continue
        m = re.search(r"(\w+_kernel)<bwgemm::sm100::\w+Config<(\d+), (\d+), [^,]+, [^,]+, (\w+)", name)
        if not m:
            continue
        shown += 1
        kernel, tokens, stages, out = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        label = f"{kernel} T{tokens} S{stages} {out}"
        mma = mma_loop(kernels[mangled])
        epi = epilogue_path(kernels[mangled], tokens)
        if mma is None or epi is None:
            print(f"{label}: the loops are not laid out as this script expects")
            continue
        n, ops = mma
        mix = ", ".join(f"{v} {k}" for k, v in ops.most_common() if re.match(r"UTC|SYNCS", k))
        print(f"{label}: MMA loop {n} per stage ({mix}); epilogue head {epi[0]} / path {epi[1]} "
              f"({epi[2]} STG) / tail {epi[3]}: {epi[4]:.2f} per output")
    if shown == 0:
        sys.exit("no kernel matched --kernels")


if __name__ == "__main__":
    main()
