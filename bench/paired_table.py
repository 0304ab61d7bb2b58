#!/usr/bin/env python3
"""Summary of bwgemm_bench's paired benchmarks (--bwgemm_paired=1), per group, implementation and M.

Reads the JSON that Google Benchmark writes with
    bwgemm_bench --bwgemm_paired=1 --benchmark_filter=paired_ --benchmark_out=paired.json --benchmark_out_format=json
and prints a Markdown table: for every group, implementation and M, over the shapes (N, K and, for GEMM, the
B layout) measured at that M, the geometric mean, minimum and maximum of the `ratio` counter (the median over
alternating rounds of the fastest baseline's sample over the implementation's; above 1 the implementation is
faster) and how many shapes reach 1.00. A shape run several times (--benchmark_repetitions, several files)
counts once, with the median of its runs; skipped runs and Google Benchmark's aggregates are ignored.

Usage:
    python3 bench/paired_table.py paired.json [more.json ...] [--counter ratio|ratio_of_medians]
"""

import argparse
import math
import os
import statistics
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402  (successful_runs, parse_shape, PAIRED_PREFIX, GROUP_ORDER)

COUNTERS = ("ratio", "ratio_of_medians")
PAR = 1.0  # a shape "reaches par" when its ratio is at least this: as fast as the fastest baseline


def shape_ratios(paths, counter="ratio"):
    """{(group, impl, M): OrderedDict(shape -> median of the counter over its runs)}; impl without the prefix."""
    runs = OrderedDict()
    for group, name, shape, b in plot.successful_runs(paths):
        if not name.startswith(plot.PAIRED_PREFIX) or counter not in b:
            continue
        parsed = plot.parse_shape(shape)
        if parsed is None:
            continue
        impl = name[len(plot.PAIRED_PREFIX):]
        runs.setdefault((group, impl, parsed[0]), OrderedDict()).setdefault(shape, []).append(b[counter])
    return {key: OrderedDict((shape, statistics.median(v)) for shape, v in shapes.items())
            for key, shapes in runs.items()}


def summarize(paths, counter="ratio"):
    """[(group, impl, M, {"shapes", "geomean", "min", "max", "at_par"})], by group order, impl, M."""
    rows = []
    for (group, impl, m), shapes in shape_ratios(paths, counter).items():
        values = list(shapes.values())
        rows.append((group, impl, m, {
            "shapes": len(values),
            "geomean": math.exp(sum(math.log(v) for v in values) / len(values)),
            "min": min(values),
            "max": max(values),
            "at_par": sum(1 for v in values if v >= PAR),
        }))
    rank = {g: i for i, g in enumerate(plot.GROUP_ORDER)}
    rows.sort(key=lambda r: (rank.get(r[0], len(rank)), r[0], r[1], r[2]))
    return rows


def table(rows, counter="ratio"):
    lines = [
        f"paired benchmarks: `{counter}` = the fastest baseline's time / the implementation's, over the shapes "
        "at each M",
        "",
        f"| group | implementation | M | shapes | geomean {counter} | min | max | >= {PAR:.2f} |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for group, impl, m, s in rows:
        lines.append(f"| {group} | {impl} | {m} | {s['shapes']} | {s['geomean']:.3f} | {s['min']:.3f} | "
                     f"{s['max']:.3f} | {s['at_par']}/{s['shapes']} |")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="Google Benchmark JSON output of bwgemm_bench --bwgemm_paired=1")
    parser.add_argument("--counter", choices=COUNTERS, default="ratio")
    args = parser.parse_args(argv)
    rows = summarize(args.results, args.counter)
    if not rows:
        print("paired_table.py: no successful paired benchmarks (<group>/paired_<impl>/<shape>) in "
              + ", ".join(args.results), file=sys.stderr)
        return 1
    print(table(rows, args.counter))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
