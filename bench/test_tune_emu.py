#!/usr/bin/env python3
"""bwgemm-tune end to end in the CPU emulator (ctest bench.tune_emu_end_to_end): mechanics, not speed.

Tunes a tiny shape list of the GEMM (bf16, B N x K; twice), the dual GEMM (bf16) and the NVFP4 GEMM (fp16 out)
on the emulated compute capability 10.0 device, then checks what a user of the tuner relies on: exit status 0, a summary line
per shape, the file's form and metadata (the emulated device, the stream launch mode, cold-L2), one entry per
shape at its M bucket with the rules' Config recorded and measured, every name one of the sm_100a candidates;
--resume skipping every tuned shape; --compare counting the entries of the two runs; a file for another
device refused when a run would --update it.

    test_tune_emu.py BWGEMM_TUNE_EMU WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

GEMM_NAMES = {"GemmSwapAbTokens16", "GemmSwapAbTokens32", "GemmSwapAbTokens64", "GemmSmallM", "GemmMediumM",
              "GemmLargeM"}
DUAL_NAMES = {"DualGemmSwapAbTokens16", "DualGemmSwapAbTokens32", "DualGemmSwapAbTokens64", "DualGemmSmallM",
              "DualGemmMediumM", "DualGemmLargeM"}
NVFP4_GEMM_NAMES = {"Nvfp4GemmSwapAbTokens16", "Nvfp4GemmSwapAbTokens32", "Nvfp4GemmSwapAbTokens64",
                    "Nvfp4GemmSmallM", "Nvfp4GemmLargeM"}
# Fast settings: the emulator's times mean nothing, two rounds show the interleaving.
FAST = ["--mode=stream", "--rounds=2", "--warmup_ms=0", "--min_sample_ms=0.001"]
# M = 12 falls in the bucket of bound 12, M = 100 in the bucket of bound 112 (measured there).
# op: (shapes, the M buckets they fall in, the candidates' names, runs (the GEMM twice, for --compare), in, out)
SHAPES = {"gemm": ("12x256x128,100x256x128", {12, 112}, GEMM_NAMES, 2, "bf16", "bf16"),
          "dual_gemm": ("16x128x128", {16}, DUAL_NAMES, 1, "bf16", "bf16"),
          "nvfp4_gemm": ("16x128x256", {16}, NVFP4_GEMM_NAMES, 1, "nvfp4", "fp16")}

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED: " + what)


def run(tool, args):
    p = subprocess.run([tool] + args, capture_output=True, text=True)
    print("$ bwgemm-tune-emu " + " ".join(args) + f"  -> exit status {p.returncode}")
    print(p.stdout.rstrip())
    print(p.stderr.rstrip())
    return p


def check_file(path, op, buckets, names, in_type, out_type):
    with open(path) as f:
        doc = json.load(f)
    check(doc.get("format") == "bwgemm-tuning" and doc.get("version") == 1, f"{path}: format and version")
    md = doc.get("metadata", {})
    check(md.get("gpu") == "bwgemm CPU emulator (sm_100a)", f"{path}: metadata.gpu is the emulated device")
    check(md.get("compute_capability") == "10.0", f"{path}: compute capability 10.0")
    check(md.get("launch") == "stream" and md.get("l2") == "cold-l2", f"{path}: launch stream, cold-l2")
    check(re.fullmatch(r"\d{4}-\d{2}-\d{2}", md.get("date", "")) is not None, f"{path}: a date")
    check("--op=" + op in md.get("command", ""), f"{path}: the command recorded")
    entries = doc.get("entries", [])
    check(sorted(e.get("m") for e in entries) == sorted(buckets), f"{path}: one entry per M bucket {buckets}")
    for e in entries:
        where = f"{path}: entry m={e.get('m')}"
        check(e.get("op") == op and e.get("in") == in_type and e.get("out") == out_type, where + ": op and types")
        check(e.get("b_layout") == "nk", where + ": B N x K")
        check(e.get("config") in names, where + f": config {e.get('config')} is a candidate")
        check(e.get("rules") in names, where + ": the rules' Config recorded")
        measured = e.get("measured", [])
        check(len(measured) >= 2, where + ": at least two candidates measured")
        check(any(x.get("config") == e.get("rules") for x in measured), where + ": the rules' Config measured")
        check(all(x.get("config") in names and x.get("median_us", -1) > 0 and x.get("noise_us", -1) >= 0
                  for x in measured), where + ": every measurement a candidate with a positive median")
    return doc


def main():
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    for op, (shapes, buckets, names, runs, in_type, out_type) in SHAPES.items():
        first, second = os.path.join(work, op + "_1.json"), os.path.join(work, op + "_2.json")
        for path in (first, second)[:runs]:
            if os.path.exists(path):
                os.remove(path)
            p = run(tool, [f"--op={op}", f"--in_type={in_type}", f"--shapes={shapes}", f"--output={path}"] + FAST)
            check(p.returncode == 0, f"{op}: tune exit status 0")
            summary = [l for l in p.stdout.splitlines() if re.search(r"built-in \w+ .* us", l)]
            check(len(summary) == len(buckets), f"{op}: a summary line per shape")
            check_file(path, op, buckets, names, in_type, out_type)
        p = run(tool, [f"--op={op}", f"--in_type={in_type}", f"--shapes={shapes}", f"--output={first}", "--resume"] +
                FAST)
        check(p.returncode == 0 and f"{len(buckets)} of {len(buckets)} shapes are in" in p.stderr,
              f"{op}: --resume skips every tuned shape")
        if runs < 2:
            continue
        p = run(tool, [f"--compare={first}", second])
        check(p.returncode == 0 and re.search(rf"\b{len(buckets)} entries in both, \d+ differ", p.stdout) is not None,
              f"{op}: --compare counts the entries in both")
    # A file measured on another GPU is not updated.
    other = os.path.join(work, "other_gpu.json")
    with open(os.path.join(work, "gemm_1.json")) as f:
        doc = json.load(f)
    doc["metadata"]["gpu"] = "NVIDIA H200"
    with open(other, "w") as f:
        json.dump(doc, f)
    p = run(tool, ["--op=gemm", "--in_type=bf16", "--shapes=12x256x128", f"--output={other}", "--update"] + FAST)
    check(p.returncode != 0 and "NVIDIA H200" in p.stdout + p.stderr, "--update refuses another GPU's file")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
