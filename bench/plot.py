#!/usr/bin/env python3
"""Bar chart of bwgemm_bench results, for docs/performance.md.

Reads the JSON that Google Benchmark writes with
    bwgemm_bench --benchmark_out=results.json --benchmark_out_format=json
and writes a PNG: one panel per group (dual_nvfp4, gemm_fp16, gemm_bf16, dual_bf16), one cluster
of bars per shape, one bar per implementation (baselines and bwgemm kernels), each labelled with
its speedup over the fastest baseline of that shape (the fastest baseline reads 1.00x).

Usage:
    python3 bench/plot.py results.json -o docs/images/performance.png [--metric tflops|us] [--log]
                          [--groups dual_nvfp4,gemm_bf16]
    python3 bench/plot.py results.json --table        # a Markdown table on stdout (no matplotlib needed)

Needs matplotlib (PyPI): python3 -m pip install matplotlib

Benchmark names are <group>/<implementation>/<shape>[/iterations:1/manual_time...]; the counter
`baseline` (1 or 0) tells baselines from candidates, `us` is the median time per call and
`TFLOP/s` the matching rate. Failed or skipped benchmarks (error_occurred) and negative controls
(no `us`) are left out. With --benchmark_repetitions (and --benchmark_enable_random_interleaving, which
spreads each implementation's runs over the whole session instead of running them after the baselines),
or with several JSON files, an implementation's time is the median of all its runs; the aggregates
Google Benchmark adds are ignored.
"""

import argparse
import json
import statistics
import sys
from collections import OrderedDict


def load_results(paths):
    """Returns (context, {group: OrderedDict(shape -> OrderedDict(impl -> record))})."""
    context = {}
    runs = OrderedDict()  # (group, impl, shape) -> list of records
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        context = context or data.get("context", {})
        for b in data.get("benchmarks", []):
            if b.get("error_occurred") or "us" not in b:  # skipped, or a negative control (never timed)
                continue
            parts = b.get("run_name", b["name"]).split("/")
            if len(parts) < 3:
                continue
            key = (parts[0], parts[1], parts[2])
            if b.get("run_type") == "aggregate":
                continue
            runs.setdefault(key, []).append(b)
    groups = OrderedDict()
    # Runs may come in any order (random interleaving): groups, shapes and implementations are sorted.
    for key, records in sorted(runs.items(), key=lambda item: sort_key(*item[0], item[1])):
        group, impl, shape = key
        record = {
            "us": statistics.median(r["us"] for r in records),
            "tflops": statistics.median(r["TFLOP/s"] for r in records),
            "runs": len(records),
            "us_min": min(r["us"] for r in records),
            "us_max": max(r["us"] for r in records),
            "baseline": records[0].get("baseline", 0) >= 0.5,
        }
        groups.setdefault(group, OrderedDict()).setdefault(shape, OrderedDict())[impl] = record
    return context, groups


GROUP_ORDER = ("dual_nvfp4", "dual_bf16", "gemm_bf16", "gemm_fp16")


def shape_numbers(shape):
    """M4096_N5120_K4096_Bnk -> (4096, 5120, 4096, 'Bnk'): shapes sort by size, not as text."""
    parts = shape.split("_")
    return tuple(int(p[1:]) if p[1:].isdigit() else 0 for p in parts[:3]) + tuple(parts[3:])


def sort_key(group, impl, shape, records):
    """Groups in GROUP_ORDER, shapes by size, baselines first, then bwgemm's default, then the rest."""
    baseline = records[0].get("baseline", 0) >= 0.5
    rank = GROUP_ORDER.index(group) if group in GROUP_ORDER else len(GROUP_ORDER)
    return (rank, group, shape_numbers(shape), 0 if baseline else 1, len(impl.split("_")), impl)


def speedups(shape_results):
    """impl -> fastest baseline's us / impl's us (None when the shape has no baseline)."""
    baseline_us = [r["us"] for r in shape_results.values() if r["baseline"]]
    best = min(baseline_us) if baseline_us else None
    return {impl: (best / r["us"] if best else None) for impl, r in shape_results.items()}


def is_baseline(shapes, impl):
    return any(results[impl]["baseline"] for results in shapes.values() if impl in results)


def table(context, groups):
    """Markdown table: every implementation of every shape with its median, spread and speedup."""
    lines = [
        f"bwgemm_bench on {context.get('bwgemm_device', 'unknown device')}; speedup = the fastest baseline's "
        "median / this median",
        "",
        "| group | shape | implementation | runs | median us (min-max) | TFLOP/s | vs fastest baseline |",
        "|---|---|---|---|---|---|---|",
    ]
    for group, shapes in groups.items():
        for shape, results in shapes.items():
            ratios = speedups(results)
            for impl, r in results.items():
                ratio = ratios[impl]
                name = impl if r["baseline"] else f"**{impl}**"
                spread = f"{r['us']:.1f} ({r['us_min']:.1f}-{r['us_max']:.1f})"
                shown = "baseline" if r["baseline"] and ratio == 1.0 else (f"{ratio:.3f}x" if ratio else "-")
                lines.append(f"| {group} | {shape} | {name} | {r['runs']} | {spread} | {r['tflops']:.0f} | {shown} |")
    return "\n".join(lines)


def plot(context, groups, metric, log_scale, output):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(groups)
    widest = max(len(groups[g]) for g in names)
    fig, axes = plt.subplots(len(names), 1, figsize=(max(9.0, 1.9 * widest + 4), 3.8 * len(names)), squeeze=False)
    ylabel = "median time per call (us, lower is better)" if metric == "us" else "TFLOP/s (higher is better)"
    # One colour per implementation across all panels.
    every_impl = []
    for shapes in groups.values():
        for results in shapes.values():
            every_impl.extend(i for i in results if i not in every_impl)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {impl: palette[i % len(palette)] for i, impl in enumerate(every_impl)}
    for ax, group in zip(axes[:, 0], names):
        shapes = groups[group]
        impls = []
        for results in shapes.values():
            impls.extend(i for i in results if i not in impls)
        width = 0.8 / len(impls)
        for index, impl in enumerate(impls):
            xs, heights, labels = [], [], []
            for x, (shape, results) in enumerate(shapes.items()):
                if impl not in results:
                    continue
                ratio = speedups(results)[impl]
                xs.append(x - 0.4 + width * (index + 0.5))
                heights.append(results[impl][metric])
                labels.append(f"{ratio:.2f}x" if ratio is not None else "")
            bars = ax.bar(xs, heights, width, label=impl, color=colour[impl],
                          hatch="" if is_baseline(shapes, impl) else "//")
            ax.bar_label(bars, labels=labels, fontsize=6.5, padding=2, rotation=90)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels([s.replace("_", "\n") for s in shapes], fontsize=8)
        ax.set_title(group)
        ax.set_ylabel(ylabel, fontsize=8)
        if log_scale:
            ax.set_yscale("log")
        ax.margins(y=0.18)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    device = context.get("bwgemm_device", "unknown device")
    fig.suptitle(
        f"bwgemm_bench on {device}\nbar labels: speedup over the fastest baseline of the shape (hatched: bwgemm)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="Google Benchmark JSON output of bwgemm_bench")
    parser.add_argument("-o", "--output", help="PNG to write (default bwgemm_bench.png unless --table)")
    parser.add_argument("--table", action="store_true", help="print a Markdown table of the results")
    parser.add_argument("--metric", choices=("tflops", "us"), default="tflops")
    parser.add_argument("--log", action="store_true", help="logarithmic y axis")
    parser.add_argument("--groups", help="comma-separated groups to plot (default: all present)")
    args = parser.parse_args(argv)

    context, groups = load_results(args.results)
    if args.groups:
        wanted = args.groups.split(",")
        groups = OrderedDict((g, groups[g]) for g in wanted if g in groups)
    if not groups:
        print("plot.py: no successful benchmarks in " + ", ".join(args.results), file=sys.stderr)
        return 1
    if args.table:
        print(table(context, groups))
        if not args.output:
            return 0
    output = args.output or "bwgemm_bench.png"
    try:
        plot(context, groups, args.metric, args.log, output)
    except ImportError:
        print("plot.py: needs matplotlib: python3 -m pip install matplotlib", file=sys.stderr)
        return 1
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
