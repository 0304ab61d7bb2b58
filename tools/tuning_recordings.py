#!/usr/bin/env python3
"""The H200 candidate recordings (docs/data/) as a replay dataset, and the built-in H200 table made from it.

  python3 tools/tuning_recordings.py dataset
      reads docs/data/h200_*.json and writes test/replay/data/h200_recordings.json: per recorded shape (one
      file, one run) the candidates that are plans of today's catalogue, each with its time relative to the
      fastest of them and a noise estimate.

  python3 tools/tuning_recordings.py table --rules-plans PLANS.json
      writes include/bwgemm/tuning/builtin_h200.hpp from the dataset and the rules' plan for each shape
      (PLANS.json: written by the replay test's helper `replay_rules_plans PLANS.json`; docs/tuning.md,
      "The built-in H200 table").

  python3 tools/tuning_recordings.py replay --rules-plans PLANS.json
      the replay figures (coverage, geomean loss, worst loss beyond noise) for the rules and for the table, as
      the replay test computes them (the two must agree).

  python3 tools/tuning_recordings.py check --rules-plans-from <build>/test/replay/replay_rules_plans
      regenerates both (the rules' plans from that program) and fails where the files in the repository
      differ, or where that program's replay figures differ from this script's: the dataset and the table
      are what these commands make of docs/data/ and the rules (ctest replay.generated_files_current).

Python 3 standard library only.
"""

import argparse
import glob
import json
import math
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DATASET = "test/replay/data/h200_recordings.json"
HEADER = "include/bwgemm/tuning/builtin_h200.hpp"

# A recording without rounds or repetitions to measure its spread from: this relative noise.
DEFAULT_NOISE = 0.02
# The thresholds of the replay test (test/replay/test_replay.cpp checks the same numbers).
MAX_GEOMEAN_LOSS = 0.01
MAX_LOSS_BEYOND_NOISE = 0.05

# ---- what each recorded candidate ran, as a plan of today's catalogue --------------------------------------
#
# A plan is (Config name, split_k, stream_k); the names are include/bwgemm/sm90's Config aliases, the
# candidates the choice layer (include/bwgemm/sm90/choice.hpp) and the tuning tables name. A recorded name
# maps to a plan where the kernel it ran then is a Config of today's catalogue with the same parameters
# (tile, stages, cluster, scheduler) and its split and stream-K were fixed by the candidate, not by the
# default choice of that date. `files` limits a row to some recordings (None: all); `plan(m)` gives the plan
# for M rows (None: not expressible at that M). Each row names its evidence: the commit that registered the
# candidate (bench/candidates_sm90.cu) and the Config's definition at the recording's date.
#
# Not mapped (dropped, counted in the dataset's "dropped"): the default entry point of that date
# (bwgemm_sm90, _nows: its choice has changed since), the candidates whose kernel or split the choice of
# that date picked (_tiled, _swapab, _swapab_nows, _tsplitS, _swapab32, _swapab_t160, _swapab_t192,
# _swapab_t256, _swapab_t192_def), stream-K launches of another CTA count (_swapab_t192_sk_per2/4), and
# kernels outside today's catalogue (_cluster2 at M <= 256 for the dual GEMM and always for the GEMM,
# _regstore, _tall, _tall_c2n, _wide_c2n, _pp_c2, _pp_wide, _t160, _n128_c2, _n160_s5, _swapsk_r64,
# _swapab32w, _swapab64w, _n64_c2, _n96, _n96_c2, _pp5's 4-stage twin _pp in the dual ping-pong recording).


def fixed(config, split_k=1, stream_k=False):
    return lambda m: (config, split_k, stream_k)


def swap_ab_tile(m):
    # gemm_swap_ab_choice of 2026-12-01 (186b5ed) and of today for M <= 64: the token tile holding M.
    return "GemmSwapAbTokens16" if m <= 16 else "GemmSwapAbTokens32" if m <= 32 else "GemmSwapAbTokens64"


def swap_ab_split(split):
    return lambda m: (swap_ab_tile(m), split, False) if m <= 64 else None


def swap_ab_stream_k(m):
    # bwgemm_sm90_swapsk_r128 (ce51dde): GemmSwapAbStreamKTokens16/32/64 under stream-K, the Configs the
    # default runs with a workspace for the 16-, 32- and 64-token choices.
    return (swap_ab_tile(m), 1, True) if m <= 64 else None


def dual_swap_ab_stream_k(m):
    # dual bwgemm_sm90_swapsk (f213b84): DualGemmSwapAbTokens16 at M <= 16, DualGemmSwapAbTokens64 to 64.
    if m <= 16:
        return ("DualGemmSwapAbTokens16", 1, True)
    return ("DualGemmSwapAbTokens64", 1, True) if m <= 64 else None


def dual_one_cta(m):
    # dual bwgemm_sm90_1cta (52d1c66): DualGemmSmallM (64, 6 stages) for M x batch <= 256, else DualGemmLargeM
    # (128, 4 stages): today's DualGemmTile128x64 and DualGemmTile128x128. Batch is 1 in every recording.
    return ("DualGemmTile128x64", 1, False) if m <= 256 else ("DualGemmTile128x128", 1, False)


def dual_cluster2(m):
    # dual bwgemm_sm90_cluster2 (52d1c66, dual_gemm_cluster2): DualGemmLargeMCluster2 (128, 4 stages, 2 CTAs)
    # above 256 rows = today's DualGemmTile128x128Cluster2; below it the 64-column pair, not in the catalogue.
    return ("DualGemmTile128x128Cluster2", 1, False) if m > 256 else None


GEMM = ("gemm_bf16", "gemm_fp16")
DUAL = ("dual_bf16",)

MAPPING = [
    # (groups, recorded name, files (None: all), plan, evidence)
    (GEMM, "bwgemm_sm90_1cta", None, fixed("GemmTile128x256"),
     "52d1c66: sm90::GemmLarge (256 columns, 4 stages, 1 CTA) at every recording = GemmTile128x256"),
    (GEMM, "bwgemm_sm90_n128", None, fixed("GemmTile128x128"),
     "a04a7f0: GemmConfig<128, 6, 1> = GemmTile128x128"),
    (GEMM, "bwgemm_sm90_n192", None, fixed("GemmTile128x192"),
     "a04a7f0: GemmConfig<192, 5, 1> = GemmTile128x192"),
    (GEMM, "bwgemm_sm90_n128_s2", None, fixed("GemmTile128x128", 2), "5cc2347: GemmSmall (128, 6) split 2"),
    (GEMM, "bwgemm_sm90_n128_s4", None, fixed("GemmTile128x128", 4), "5cc2347: GemmSmall (128, 6) split 4"),
    (GEMM, "bwgemm_sm90_n192_s2", None, fixed("GemmTile128x192", 2), "5cc2347: GemmMedium (192, 5) split 2"),
    (GEMM, "bwgemm_sm90_n192_s4", None, fixed("GemmTile128x192", 4), "5cc2347: GemmMedium (192, 5) split 4"),
    (GEMM, "bwgemm_sm90_n256_s2", None, fixed("GemmTile128x256", 2), "5cc2347: GemmLarge (256, 4) split 2"),
    (GEMM, "bwgemm_sm90_n256_s4", None, fixed("GemmTile128x256", 4), "5cc2347: GemmLarge (256, 4) split 4"),
    (GEMM, "bwgemm_sm90_n160_s4", ("h200_2026-12-02_paired_medium160_candidates.json",),
     fixed("GemmTile128x160"),
     "d479148: _n160_s4 = GemmMedium160 with 4 stages (the suffix named stages then) = GemmTile128x160"),
    (GEMM, "bwgemm_sm90_n160", ("h200_2026-12-02_paired_medium160_stages.json",), fixed("GemmTile128x160"),
     "9482c03: GemmMedium160 at 4 stages (the recording's README row: _n160 (4 stages)) = GemmTile128x160"),
    (GEMM, "bwgemm_sm90_pp", None, fixed("GemmPingPong128x128"),
     "8c47fd2: GemmPingPong (128 columns, 6 stages, ping-pong) = GemmPingPong128x128"),
    (GEMM, "bwgemm_sm90_pp160", None, fixed("GemmPingPong128x160"),
     "ed2efb3: GemmPingPong160 (160 columns, 4 stages, ping-pong) = GemmPingPong128x160"),
    (GEMM, "bwgemm_sm90_sk", None, fixed("GemmStreamK128x256", 1, True),
     "0b802e3: GemmStreamK (256 columns, 4 stages, stream-K) with the bench's workspace = GemmStreamK128x256"),
    (GEMM, "bwgemm_sm90_swapab_split1", ("h200_2026-12-01_paired_decode_candidates.json",), swap_ab_split(1),
     "b1d653e: gemm_swap_ab with the split forced; the token tile of gemm_swap_ab_choice at 186b5ed"),
    (GEMM, "bwgemm_sm90_swapab_split2", ("h200_2026-12-01_paired_decode_candidates.json",), swap_ab_split(2),
     "b1d653e (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_split4", ("h200_2026-12-01_paired_decode_candidates.json",), swap_ab_split(4),
     "b1d653e (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_split8", ("h200_2026-12-01_paired_decode_candidates.json",), swap_ab_split(8),
     "b1d653e (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_split1", ("h200_2026-12-03_paired_gemm_tokens160_splits.json",),
     fixed("GemmSwapAbTokens160", 1), "8872738: gemm_swap_ab at 128 < M <= 160 runs GemmSwapAb160, split forced"),
    (GEMM, "bwgemm_sm90_swapab_split2", ("h200_2026-12-03_paired_gemm_tokens160_splits.json",),
     fixed("GemmSwapAbTokens160", 2), "8872738 (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_split4", ("h200_2026-12-03_paired_gemm_tokens160_splits.json",),
     fixed("GemmSwapAbTokens160", 4), "8872738 (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_split8", ("h200_2026-12-03_paired_gemm_tokens160_splits.json",),
     fixed("GemmSwapAbTokens160", 8), "8872738 (as split1)"),
    (GEMM, "bwgemm_sm90_swapsk_r128", None, swap_ab_stream_k,
     "ce51dde: GemmSwapAbStreamK16/32/64 (128 weight rows) under stream-K = the stream-K plans of "
     "GemmSwapAbTokens16/32/64"),
    (GEMM, "bwgemm_sm90_swapab_t160_sk", None, fixed("GemmSwapAbTokens160", 1, True),
     "43b1f87: GemmSwapAb160 run_stream_k"),
    (GEMM, "bwgemm_sm90_swapab_t192_split1", None, fixed("GemmSwapAbTokens192", 1),
     "1281a7c: GemmSwapAb192 (192 tokens, 5 stages) split forced"),
    (GEMM, "bwgemm_sm90_swapab_t192_split2", None, fixed("GemmSwapAbTokens192", 2), "1281a7c (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_t192_split4", None, fixed("GemmSwapAbTokens192", 4), "1281a7c (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_t192_split8", None, fixed("GemmSwapAbTokens192", 8), "1281a7c (as split1)"),
    (GEMM, "bwgemm_sm90_swapab_t192_sk", None, fixed("GemmSwapAbTokens192", 1, True),
     "1281a7c: GemmSwapAb192 run_stream_k (the default launch)"),
    (DUAL, "bwgemm_sm90_1cta", None, dual_one_cta, "52d1c66: DualGemmSmallM / DualGemmLargeM by M x batch"),
    (DUAL, "bwgemm_sm90_cluster2", None, dual_cluster2, "52d1c66: dual_gemm_cluster2"),
    (DUAL, "bwgemm_sm90_n64", None, fixed("DualGemmTile128x64"),
     "a04a7f0: DualGemmSmallM (64, 6 stages, 1 CTA) = DualGemmTile128x64"),
    (DUAL, "bwgemm_sm90_pp5", ("h200_2026-12-02_paired_dual_pingpong.json",), fixed("DualGemmPingPong64x128"),
     "be2cf2a: DualGemmPingPong at 5 stages, folded into _pp by 7bf23a0 = DualGemmPingPong64x128"),
    (DUAL, "bwgemm_sm90_pp", ("h200_2026-12-02_paired_dual96_candidates.json",
                              "h200_2026-12-02_paired_pp160_sweep_run3.json",
                              "h200_2026-12-02_paired_pp160_validation.json",
                              "h200_2026-12-02_paired_ragged_m_candidates.json"),
     fixed("DualGemmPingPong64x128"), "7bf23a0: DualGemmPingPong at 5 stages = DualGemmPingPong64x128"),
    (DUAL, "bwgemm_sm90_pp96", None, fixed("DualGemmPingPong64x96"),
     "ed2efb3: DualGemmPingPong96 (96 columns, 6 stages, ping-pong) = DualGemmPingPong64x96"),
    (DUAL, "bwgemm_sm90_swapsk", None, dual_swap_ab_stream_k, "f213b84: the 64-row dual swap-AB pairs, stream-K"),
    (DUAL, "bwgemm_sm90_t160_split1", None, fixed("DualGemmSwapAbTokens160", 1),
     "bddb7c3: DualGemmSwapAb160 split forced"),
    (DUAL, "bwgemm_sm90_t160_split2", None, fixed("DualGemmSwapAbTokens160", 2), "bddb7c3 (as split1)"),
    (DUAL, "bwgemm_sm90_t160_split4", None, fixed("DualGemmSwapAbTokens160", 4), "bddb7c3 (as split1)"),
    (DUAL, "bwgemm_sm90_t160_sk", None, fixed("DualGemmSwapAbTokens160", 1, True),
     "bddb7c3: DualGemmSwapAb160 run_stream_k"),
]

SHAPE = re.compile(r"^M(\d+)_N(\d+)_K(\d+)(?:_B(nk|kn))?$")


def find_mapping(group, name, file):
    for groups, recorded, files, plan, _ in MAPPING:
        if group in groups and recorded == name and (files is None or file in files):
            return plan
    return None


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def read_recording(path):
    """{(group, shape): {name: (relative cost, noise)}} for one file; the cost is proportional to the time
    within one shape of the file (1 / ratio for paired files, the median us otherwise)."""
    data = json.load(open(path))
    if "benchmarks" not in data:  # not a bwgemm_bench recording (a tuning file bwgemm-tune wrote)
        return {}
    benchmarks = data["benchmarks"]
    samples = {}
    for b in benchmarks:
        parts = b["name"].split("/")
        if len(parts) < 3 or parts[0] not in GEMM + DUAL or b.get("aggregate_name") not in (None, "median"):
            continue
        name = parts[1]
        paired = name.startswith("paired_")
        if paired:
            name = name[len("paired_"):]
        # A candidate that refused the shape (or failed) has no time.
        if not name.startswith("bwgemm_sm90") or ("ratio" if paired else "us") not in b:
            continue
        samples.setdefault((parts[0], parts[2], name), []).append((paired, b))
    out = {}
    for (group, shape, name), entries in samples.items():
        paired = entries[0][0]
        if paired:
            b = entries[0][1]
            cost = 1.0 / b["ratio"]
            noise = (b["ratio_max"] - b["ratio_min"]) / (2 * b["ratio"]) if "ratio_max" in b else DEFAULT_NOISE
        else:
            us = [b["us"] for _, b in entries]
            cost = median(us)
            # Several repetitions in the file: half their range; a median of repetitions alone: the default.
            noise = (max(us) - min(us)) / (2 * cost) if len(us) >= 3 else DEFAULT_NOISE
        out.setdefault((group, shape), {})[name] = (cost, noise)
    return out


def build_dataset():
    records, dropped, mapped = [], {}, {}
    files = sorted(glob.glob(os.path.join(ROOT, "docs/data/h200_*.json")))
    for path in files:
        file = os.path.basename(path)
        for (group, shape), cands in sorted(read_recording(path).items()):
            mm = SHAPE.match(shape)
            m, n, k = int(mm.group(1)), int(mm.group(2)), int(mm.group(3))
            layout = mm.group(4) or "nk"
            plans = {}
            for name, (cost, noise) in sorted(cands.items()):
                plan_of = find_mapping(group, name, file)
                plan = plan_of(m) if plan_of else None
                if plan is None:
                    dropped[name] = dropped.get(name, 0) + 1
                    continue
                mapped[name] = mapped.get(name, 0) + 1
                # Two recorded names of one plan in one run: the geometric mean of their costs.
                prev = plans.get(plan)
                if prev is None:
                    plans[plan] = (cost, noise, [name])
                else:
                    plans[plan] = (math.sqrt(prev[0] * cost), max(prev[1], noise), prev[2] + [name])
            if len(plans) < 2:
                continue
            best = min(c for c, _, _ in plans.values())
            ttype = group.split("_")[1]
            records.append({
                "file": file,
                "op": "dual_gemm" if group.startswith("dual") else "gemm",
                "in": ttype, "out": ttype, "layout": layout,
                "m": m, "n": n, "k": k, "batch": 1,
                # The bench gives its candidates a workspace; a shape counts as called with one where a
                # stream-K plan was recorded (the other plans run the same with or without).
                "has_workspace": any(p[2] for p in plans),
                "candidates": [
                    {"config": p[0], "split_k": p[1], "stream_k": p[2], "recorded_as": names,
                     "time": round(c / best, 5), "noise": round(nz, 5)}
                    for p, (c, nz, names) in sorted(plans.items(), key=lambda kv: kv[1][0])
                ],
            })
    return {
        "generated_by": "python3 tools/tuning_recordings.py dataset",
        "source": "docs/data/h200_*.json (docs/data/README.md)",
        "device": {"gpu": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132},
        "default_noise": DEFAULT_NOISE,
        "time": "relative to the fastest recorded candidate of the shape in the same file",
        "noise": "half the range of the paired rounds' ratios (or of the repetitions), relative; "
                 "default_noise where the file keeps only a median",
        "mapped_measurements": dict(sorted(mapped.items())),
        "dropped_measurements": dict(sorted(dropped.items())),
        "records": records,
    }


# ---- the replay math (test/replay/test_replay.cpp computes the same) ---------------------------------------

def plan_key(p):
    return (p["config"], int(p["split_k"]), bool(p["stream_k"]))


def evaluate(records, plans):
    """plans[i]: the plan chosen for records[i] (a dict). Coverage, geomean loss over the covered shapes,
    the worst loss beyond noise and its shape."""
    covered, log_sum, worst, worst_at = 0, 0.0, -1.0, None
    for r, p in zip(records, plans):
        c = next((c for c in r["candidates"] if plan_key(c) == plan_key(p)), None)
        if c is None:
            continue
        covered += 1
        log_sum += math.log(c["time"])
        best = min(r["candidates"], key=lambda x: x["time"])
        beyond = c["time"] - 1.0 - max(c["noise"], best["noise"])
        if beyond > worst:
            worst, worst_at = beyond, r
    geomean = math.exp(log_sum / covered) - 1.0 if covered else 0.0
    return {"records": len(records), "covered": covered, "geomean_loss": geomean,
            "worst_beyond_noise": max(worst, 0.0), "worst_at": worst_at}


def table_key(r):
    return (r["op"], r["in"], r["out"], r["layout"], r["n"], r["k"], r["batch"], m_bucket_bound(r["m"]))


def m_bucket_bound(m):
    # include/bwgemm/tuning/key.hpp: M = 1..8 each a bucket, then four per octave up to 16384.
    if m <= 8:
        return m
    if m > 16384:
        return 16384
    base = 8
    while 2 * base < m:
        base *= 2
    step = base // 4
    return base + ((m - base + step - 1) // step) * step


def build_table(data, rules):
    """Per table key, the candidate of lowest geomean time over the key's shapes (recorded on all of them),
    unless the rules' plan is within noise of it: over the shapes that recorded both, the rules' geomean time
    over that candidate's exceeds 1 by no more than the mean of the two plans' noise together (their sum per
    shape, as tuning::select_candidate weighs a tuner's measurements). No
    entry where no shape of the key recorded the rules' plan (no evidence against the rules), where the
    candidate is the rules' plan on every shape, or for a stream-K plan where some shape had no workspace.
    Returns {key: plan}."""
    groups = {}
    for r, p in zip(data["records"], rules):
        groups.setdefault(table_key(r), []).append((r, p))
    table = {}
    for key, items in sorted(groups.items()):
        common = None
        for r, _ in items:
            ks = {plan_key(c) for c in r["candidates"]}
            common = ks if common is None else common & ks
        if not common:
            continue

        def time_of(r, pk):
            return next((c for c in r["candidates"] if plan_key(c) == pk), None)

        def geo(pk):
            return sum(math.log(time_of(r, pk)["time"]) for r, _ in items) / len(items)

        best = min(sorted(common), key=geo)
        if all(plan_key(p) == best for _, p in items):
            continue
        if best[2] and not all(r["has_workspace"] for r, _ in items):
            continue
        logs, noises = [], []
        for r, p in items:
            rc, bc = time_of(r, plan_key(p)), time_of(r, best)
            if rc is None:
                continue
            logs.append(math.log(rc["time"] / bc["time"]))
            noises.append(rc["noise"] + bc["noise"])
        if not logs:
            continue
        if math.exp(sum(logs) / len(logs)) - 1.0 > sum(noises) / len(noises):
            table[key] = best
    return table


def table_plan(table, r, rule_plan):
    e = table.get(table_key(r))
    if e is None:
        return rule_plan
    return {"config": e[0], "split_k": e[1], "stream_k": e[2]}


ELEMENT = {"fp16": "kFp16", "bf16": "kBf16", "fp32": "kFp32"}
OPERATION = {"gemm": "kGemm", "dual_gemm": "kDualGemm"}
LAYOUT = {"kn": "BLayout::kRowMajorKxN", "nk": "BLayout::kColumnMajorKxN"}


def header_text(table):
    rows = []
    for (op, tin, tout, layout, n, k, batch, m), (config, split, sk) in sorted(table.items()):
        rows.append(f"    {{Operation::{OPERATION[op]}, Element::{ELEMENT[tin]}, Element::{ELEMENT[tout]}, "
                    f"{LAYOUT[layout]}, {n}, {k}, {batch}, {m},\n"
                    f"     \"{config}\", {split}, StreamK::{'kOn' if sk else 'kOff'}}},")
    if rows:
        entries = ("inline constexpr BuiltinEntry kBuiltinH200Entries[] = {\n" + "\n".join(rows) + "\n};\n"
                   "inline constexpr size_t kBuiltinH200EntryCount = sizeof(kBuiltinH200Entries) / sizeof(kBuiltinH200Entries[0]);")
    else:
        entries = ("// No recorded candidate beat the rules beyond the noise: no entries.\n"
                   "inline constexpr const BuiltinEntry* kBuiltinH200Entries = nullptr;\n"
                   "inline constexpr size_t kBuiltinH200EntryCount = 0;")
    text = """// Generated by tools/tuning_recordings.py from the H200 recordings in docs/data/; do not edit.
//   python3 tools/tuning_recordings.py dataset
//   <build>/test/replay/replay_rules_plans rules_plans.json
//   python3 tools/tuning_recordings.py table --rules-plans rules_plans.json
// One entry per key (operation, types, B layout, N, K, batch, M bucket) where a recorded candidate beat the
// built-in rules' plan by more than the recording's noise on every recorded shape of the key
// (docs/tuning.md, "The built-in H200 table"). Host C++17.
#pragma once

#include <cstddef>

#include "bwgemm/tuning/table.hpp"

namespace bwgemm::tuning {

@ENTRIES@

// The table: GPU name, compute capability 9.0 and 132 SMs as the recordings' H200.
inline constexpr BuiltinTable kBuiltinH200{
    "h200", "NVIDIA H200", 9, 0, 132, kBuiltinH200Entries, kBuiltinH200EntryCount};

}  // namespace bwgemm::tuning
""".replace("@ENTRIES@", entries)
    return text


def write_header(table, path):
    with open(path, "w") as f:
        f.write(header_text(table))


def dataset_text(data):
    # One record a line: small enough to diff and to read.
    records = data["records"]
    head = {k: v for k, v in data.items() if k != "records"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "records": [\n'
    return text + ",\n".join(json.dumps(r, separators=(",", ":")) for r in records) + "\n ]\n}\n"


def check(program):
    import subprocess
    import tempfile
    failures = []
    data = build_dataset()
    if open(os.path.join(ROOT, DATASET)).read() != dataset_text(data):
        failures.append(f"{DATASET} differs from what `tuning_recordings.py dataset` makes of docs/data/")
    with tempfile.TemporaryDirectory() as tmp:
        plans_path = os.path.join(tmp, "rules_plans.json")
        subprocess.run([program, plans_path, os.path.join(ROOT, DATASET)], check=True, stdout=subprocess.DEVNULL)
        rules = load_rules(plans_path, data)
        theirs = json.load(open(plans_path))["figures"]
        table = build_table(data, rules)
    # The C++ replay (test/replay/replay.hpp) and this script's must give the same figures.
    records = data["records"]
    ours = {"rules": evaluate(records, rules),
            "table": evaluate(records, [table_plan(table, r, p) for r, p in zip(records, rules)])}
    for name, e in ours.items():
        t = theirs[name]
        if (t["covered"] != e["covered"] or abs(t["geomean_loss"] - e["geomean_loss"]) > 1e-9 or
                abs(t["worst_beyond_noise"] - e["worst_beyond_noise"]) > 1e-9):
            failures.append(f"the figures of the {name} differ: C++ {t}, Python {describe(name, e)}")
    if open(os.path.join(ROOT, HEADER)).read() != header_text(table):
        failures.append(f"{HEADER} differs from what `tuning_recordings.py table` makes of the dataset and the "
                        "rules' plans")
    for f in failures:
        print("FAIL:", f)
    if failures:
        if any(" differs from " in f for f in failures):
            print("regenerate: docs/tuning.md, 'The built-in H200 table'")
        sys.exit(1)
    print(f"{DATASET} and {HEADER} are current ({len(data['records'])} shapes, {len(table)} entries)")


def load_rules(path, data):
    rules = json.load(open(path))["plans"]
    if len(rules) != len(data["records"]):
        sys.exit(f"{path}: {len(rules)} plans for {len(data['records'])} records (rebuild the dataset first)")
    return rules


def describe(tag, e):
    at = e["worst_at"]
    where = (f" ({at['op']} {at['in']} B {at['layout']} {at['m']} x {at['n']} x {at['k']}, {at['file']})"
             if at else "")
    return (f"{tag}: {e['covered']} of {e['records']} shapes covered, geomean loss "
            f"{100 * e['geomean_loss']:.2f}%, worst loss beyond noise {100 * e['worst_beyond_noise']:.2f}%{where}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["dataset", "table", "replay", "check"])
    ap.add_argument("--rules-plans-from", help="check: the replay_rules_plans program")
    ap.add_argument("--rules-plans", help="the rules' plan per record (replay_rules_plans)")
    ap.add_argument("--out", help="output path (default: the repository's)")
    args = ap.parse_args()
    if args.command == "dataset":
        data = build_dataset()
        out = args.out or os.path.join(ROOT, DATASET)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            f.write(dataset_text(data))
        kept = sum(data["mapped_measurements"].values())
        gone = sum(data["dropped_measurements"].values())
        print(f"{out}: {len(data['records'])} shapes; {kept} measurements mapped, {gone} dropped")
        return
    if args.command == "check":
        return check(args.rules_plans_from)
    if not args.rules_plans:
        sys.exit("--rules-plans is required")
    data = json.load(open(os.path.join(ROOT, DATASET)))
    rules = load_rules(args.rules_plans, data)
    table = build_table(data, rules)
    if args.command == "table":
        out = args.out or os.path.join(ROOT, HEADER)
        write_header(table, out)
        print(f"{out}: {len(table)} entries")
        return
    records = data["records"]
    r = evaluate(records, rules)
    t = evaluate(records, [table_plan(table, rec, p) for rec, p in zip(records, rules)])
    print(describe("rules", r))
    print(describe("table", t))


if __name__ == "__main__":
    main()
