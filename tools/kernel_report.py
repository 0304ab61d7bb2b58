#!/usr/bin/env python3
"""Compile report of bwgemm's shipped sm_100a kernels.

Joins the resource usage ptxas gave each kernel (cuobjdump -res-usage on the compiled binary) with the
Config constants the binary itself prints, then either checks the limits (--check: no spills, no stack,
registers within the launch bounds) or writes the table into docs/kernels.md between the markers
<!-- kernel-report:begin --> and <!-- kernel-report:end --> (--write).

    kernel_report.py --binary build/.../kernel_instances --cuobjdump cuobjdump [--check] [--write docs/kernels.md]
                     [--arch sm_100a]
"""
import argparse
import re
import subprocess
import sys

MAX_REGISTERS = 255  # __launch_bounds__(<= 256 threads, 1): 65536 registers / 256 threads, capped at 255 per thread
BEGIN, END = "<!-- kernel-report:begin -->", "<!-- kernel-report:end -->"


def resource_usage(cuobjdump, binary, arch):
    """Registers, stack, shared and local memory of every kernel in the binary's `arch` code (a binary built
    for several architectures, e.g. "90a;100a", has each kernel once per architecture; only `arch` counts)."""
    out = subprocess.run([cuobjdump, "-res-usage", binary], check=True, capture_output=True, text=True).stdout
    usage, name, in_arch = {}, None, False
    for line in out.splitlines():
        m = re.search(r"arch = (\w+)", line)
        if m:
            in_arch, name = m.group(1) == arch, None
            continue
        m = re.search(r"Function (\S+):", line)
        if m:
            name = m.group(1) if in_arch else None
            continue
        m = re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", line)
        if m and name:
            usage[name] = dict(zip(("reg", "stack", "shared", "local"), map(int, m.groups())))
            name = None
    names = list(usage)
    demangled = subprocess.run(["c++filt"], input="\n".join(names), check=True, capture_output=True,
                               text=True).stdout.splitlines()
    keyed = {}
    for mangled, pretty in zip(names, demangled):
        shipped_epilogue = {"nvfp4_dual_gemm_kernel": "SiluMul", "gemm_kernel": "LinearCombination",
                            "nvfp4_gemm_kernel": "LinearCombination", "dual_gemm_kernel": "SiluMul",
                            "nvfp4_dual_swap_ab_kernel": "SiluMul", "gemm_swap_ab_kernel": "LinearCombination",
                            "nvfp4_dual_swap_ab_split_kernel": "SiluMul",
                            "gemm_swap_ab_split_kernel": "LinearCombination",
                            "nvfp4_gemm_swap_ab_kernel": "LinearCombination",
                            "nvfp4_gemm_swap_ab_split_kernel": "LinearCombination",
                            "dual_swap_ab_kernel": "SiluMul", "dual_swap_ab_split_kernel": "SiluMul"}
        # The tiled kernels and their grouped (mixture-of-experts) kernels, grouped_*: the same Configs.
        m = re.search(r"\b((?:grouped_)?(?:nvfp4_dual_gemm_kernel|nvfp4_gemm_kernel|dual_gemm_kernel|gemm_kernel))"
                      r"<bwgemm::sm100::(?:Nvfp4Dual|Nvfp4|Dual)?GemmConfig<(\d+), (\d+), (\d+), "
                      r"bwgemm::sched::(\w+), bwgemm::epi::(\w+), (?:bwgemm::)?(\w+)[,>]", pretty)
        if m:
            if m.group(6) != shipped_epilogue[m.group(1).removeprefix("grouped_")]:
                continue  # test-only instantiations (other epilogues) are not shipped kernels
            keyed[(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5), m.group(7))] = usage[mangled]
            continue
        # The small-M (swap-AB) kernels and their split-K kernels: <BlockTokens, Stages, Scheduler, Epilogue,
        # Out>, cta_group::1 MMAs (CTA group 1).
        m = re.search(r"\b((?:nvfp4_dual|nvfp4_gemm|gemm|dual)_swap_ab(?:_split)?_kernel)<bwgemm::sm100::"
                      r"(?:Nvfp4DualSwapAb|Nvfp4GemmSwapAb|GemmSwapAb|DualSwapAb)"
                      r"Config<(\d+), (\d+), bwgemm::sched::(\w+), bwgemm::epi::(\w+), (\w+)[,>]", pretty)
        if not m or m.group(5) != shipped_epilogue[m.group(1)]:
            continue
        keyed[(m.group(1), m.group(2), m.group(3), "1", m.group(4), m.group(6))] = usage[mangled]
    return keyed


def configs(binary):
    rows = []
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split("|")
        fields = dict(p.split("=") for p in parts[6:])
        rows.append((tuple(parts[:6]), {k: int(v) for k, v in fields.items()}))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--cuobjdump", required=True)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write")
    ap.add_argument("--arch", default="sm_100a", help="the architecture whose code is reported")
    args = ap.parse_args()

    usage = resource_usage(args.cuobjdump, args.binary, args.arch)
    rows = configs(args.binary)
    problems, table = [], []
    table.append("| kernel | BlockN | stages | CTA group | scheduler | out | registers | spills/stack | "
                 "shared memory (B) | TMEM columns | acc stages |")
    table.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, c in rows:
        u = usage.get(key)
        if u is None:
            problems.append(f"no resource usage found for {key}")
            continue
        if u["local"] or u["stack"]:
            problems.append(f"{key}: {u['local']} bytes of local memory, {u['stack']} bytes of stack (spills)")
        if u["reg"] > MAX_REGISTERS:
            problems.append(f"{key}: {u['reg']} registers > {MAX_REGISTERS}")
        if c["smem"] > 232448:
            problems.append(f"{key}: {c['smem']} bytes of shared memory > 232448")
        stages = str(c["stages"]) if key[2] != "0" else f"{c['stages']} (max)"
        table.append(f"| {key[0]} | {key[1]} | {stages} | {key[3]} | {key[4]} | {key[5]} | {u['reg']} | "
                     f"{u['local'] + u['stack']} | {c['smem']} | {c['tmem']} | {c['acc_stages']} |")
    print("\n".join(table))
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    if args.write:
        with open(args.write) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{args.write} has no {BEGIN} ... {END} markers")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(args.write, "w") as f:
            f.write(head + BEGIN + "\n" + "\n".join(table) + "\n" + END + tail)
        print(f"wrote the table into {args.write}")
    if args.check:
        if problems:
            sys.exit(1)
        print(f"{len(rows)} shipped kernels: no spills, no stack, registers <= {MAX_REGISTERS}")


if __name__ == "__main__":
    main()
