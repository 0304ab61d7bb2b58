#!/usr/bin/env python3
"""Charts of bwgemm_bench results, for docs/performance.md.

Reads the JSON that Google Benchmark writes with
    bwgemm_bench --benchmark_out=results.json --benchmark_out_format=json
and writes PNGs:
  - with -o (the default): a bar chart, one panel per group (dual_nvfp4, gemm_nvfp4, gemm_fp16, gemm_bf16, dual_bf16),
    one cluster of bars per shape, one bar per implementation (baselines and bwgemm kernels), each labelled
    with its speedup over the fastest baseline of that shape (the fastest baseline reads 1.00x);
  - with --out DIR: charts against M, one PNG per projection (group, N, K and, for GEMM, the B layout; e.g.
    from --bwgemm_sweep=models), each with panels of time per call, TFLOP/s, GB/s and, when the run has the
    read-bandwidth reference (reference/read_bandwidth/...), the fraction of it (read_bw_frac), on a log2
    M axis, one line per implementation; the reference is a horizontal line.

Usage:
    python3 bench/plot.py results.json -o docs/images/performance.png [--metric tflops|us] [--log]
                          [--groups dual_nvfp4,gemm_bf16]
    python3 bench/plot.py results.json --out charts/   # charts/<group>_N<n>_K<k>[_<layout>].png against M
    python3 bench/plot.py results.json --table        # a Markdown table on stdout (no matplotlib needed)

Needs matplotlib (PyPI): python3 -m pip install matplotlib

Benchmark names are <group>/<implementation>/<shape>[/iterations:1/manual_time...]; the counter
`baseline` (1 or 0) tells baselines from candidates, `us` is the median time per call and
`TFLOP/s` the matching rate. Failed or skipped benchmarks (error_occurred) and negative controls
(no `us`) are left out. With --benchmark_repetitions (and --benchmark_enable_random_interleaving, which
spreads each implementation's runs over the whole benchmark instead of running them after the baselines),
or with several JSON files, an implementation's time is the median of all its runs; the aggregates
Google Benchmark adds are ignored.

The paired benchmarks of --bwgemm_paired=1 (<group>/paired_<impl>/<shape>: an implementation timed in
alternating rounds with the baselines, docs/performance.md) are left out of the charts and the table, which
compare medians of separate benchmarks; bench/paired_table.py summarizes their `ratio` counters.

The bandwidth references (reference/<name>/<size>: counters `us` and `GB/s`) are read apart from the groups.
read_bw_frac is computed here as an implementation's median GB/s over the median GB/s of all runs of the read
reference in the same files (under random interleaving the binary's own read_bw_frac counter uses whichever
reference run came last, like the vs_* counters); without a reference it falls back to the median of the
read_bw_frac counters, if any.
"""

import argparse
import json
import os
import statistics
import sys
from collections import OrderedDict

REFERENCE_GROUP = "reference"  # bwgemm_bench's bandwidth references: reference/<name>/<size>
READ_REFERENCE = "read_bandwidth"
PAIRED_PREFIX = "paired_"  # bwgemm_bench --bwgemm_paired=1: <group>/paired_<impl>/<shape>, see bench/paired_table.py


def successful_runs(paths):
    """Yields (group, name, shape, record) for every timed, non-aggregate benchmark run in the JSON files."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            if b.get("error_occurred") or "us" not in b:  # skipped, or a negative control (never timed)
                continue
            if b.get("run_type") == "aggregate":
                continue
            parts = b.get("run_name", b["name"]).split("/")
            if len(parts) < 3:
                continue
            yield parts[0], parts[1], parts[2], b


def load_context(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            context = json.load(f).get("context", {})
        if context:
            return context
    return {}


def median_of(records, counter):
    """Median of a counter over the records that have it (None when none has)."""
    values = [r[counter] for r in records if counter in r]
    return statistics.median(values) if values else None


def load_references(paths):
    """{reference name: {"size", "us", "gbps", "runs"}} for the bandwidth references, medians of all runs."""
    runs = OrderedDict()
    for group, name, size, b in successful_runs(paths):
        if group == REFERENCE_GROUP:
            runs.setdefault(name, []).append(b)
    refs = OrderedDict()
    for name, records in runs.items():
        size = records[0].get("run_name", records[0]["name"]).split("/")[2]
        refs[name] = {"size": size, "us": median_of(records, "us"), "gbps": median_of(records, "GB/s"),
                      "runs": len(records)}
    return refs


def load_results(paths):
    """Returns (context, {group: OrderedDict(shape -> OrderedDict(impl -> record))}); no references, no paired."""
    context = load_context(paths)
    runs = OrderedDict()  # (group, impl, shape) -> list of records
    for group, impl, shape, b in successful_runs(paths):
        if group != REFERENCE_GROUP and not impl.startswith(PAIRED_PREFIX):
            runs.setdefault((group, impl, shape), []).append(b)
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
            "gbps": median_of(records, "GB/s"),  # None in files without the counter
            "read_bw_frac": median_of(records, "read_bw_frac"),  # the binary's counters; see read_fraction
        }
        groups.setdefault(group, OrderedDict()).setdefault(shape, OrderedDict())[impl] = record
    return context, groups


GROUP_ORDER = ("dual_nvfp4", "gemm_nvfp4", "dual_bf16", "gemm_bf16", "gemm_fp16")


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


def table(context, groups, references=None):
    """Markdown table: every implementation of every shape with its median, spread and speedup."""
    lines = [
        f"bwgemm_bench on {context.get('bwgemm_device', 'unknown device')}; speedup = the fastest baseline's "
        "median / this median",
        "",
    ]
    for name, ref in (references or {}).items():
        lines.append(f"reference {name}/{ref['size']}: {ref['gbps']:.0f} GB/s, {ref['us']:.1f} us per call "
                     f"(median of {ref['runs']} run{'' if ref['runs'] == 1 else 's'})")
    if references:
        lines.append("")
    lines += [
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


def pyplot():
    """matplotlib.pyplot on the Agg backend (PNG files, no display); ImportError when matplotlib is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def implementation_colours(plt, groups):
    """One colour per implementation across all panels and charts, in order of first appearance."""
    every_impl = []
    for shapes in groups.values():
        for results in shapes.values():
            every_impl.extend(i for i in results if i not in every_impl)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {impl: palette[i % len(palette)] for i, impl in enumerate(every_impl)}


def plot(context, groups, metric, log_scale, output):
    plt = pyplot()

    names = list(groups)
    widest = max(len(groups[g]) for g in names)
    fig, axes = plt.subplots(len(names), 1, figsize=(max(9.0, 1.9 * widest + 4), 3.8 * len(names)), squeeze=False)
    ylabel = "median time per call (us, lower is better)" if metric == "us" else "TFLOP/s (higher is better)"
    colour = implementation_colours(plt, groups)
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


def parse_shape(shape):
    """M4096_N5120_K4096_Bnk -> (4096, 5120, 4096, 'Bnk'); dual shapes have no layout (''). None if not a shape."""
    parts = shape.split("_")
    if len(parts) < 3 or [p[:1] for p in parts[:3]] != ["M", "N", "K"] or not all(p[1:].isdigit() for p in parts[:3]):
        return None
    return int(parts[0][1:]), int(parts[1][1:]), int(parts[2][1:]), "_".join(parts[3:])


def read_fraction(record, references):
    """The record's GB/s over the read reference's median GB/s; else its read_bw_frac counters; else None."""
    ref = (references or {}).get(READ_REFERENCE)
    if ref and ref["gbps"] and record.get("gbps") is not None:
        return record["gbps"] / ref["gbps"]
    return record.get("read_bw_frac")


def projections(groups, references=None):
    """OrderedDict((group, N, K, layout) -> OrderedDict(impl -> [(M, record), ...] by M)).

    A projection is one (N, K) weight of one group (and one B layout for GEMM) at every M the run measured;
    each record gains "read_bw_frac" from read_fraction.
    """
    out = OrderedDict()
    for group, shapes in groups.items():
        keyed = []
        for shape, results in shapes.items():
            parsed = parse_shape(shape)
            if parsed is not None:
                keyed.append((parsed, results))
        keyed.sort(key=lambda item: (item[0][1], item[0][2], item[0][3], item[0][0]))
        for (m, n, k, layout), results in keyed:
            lines = out.setdefault((group, n, k, layout), OrderedDict())
            for impl, record in results.items():
                record = dict(record, read_bw_frac=read_fraction(record, references))
                lines.setdefault(impl, []).append((m, record))
    return out


def projection_filename(group, n, k, layout):
    return f"{group}_N{n}_K{k}" + (f"_{layout}" if layout else "") + ".png"


def plot_against_m(context, groups, references, out_dir):
    """One PNG per projection in out_dir: us, TFLOP/s, GB/s (and read_bw_frac) against M. Returns the paths."""
    plt = pyplot()
    from matplotlib import ticker
    os.makedirs(out_dir, exist_ok=True)
    colour = implementation_colours(plt, groups)
    read_ref = (references or {}).get(READ_REFERENCE)
    copy_ref = (references or {}).get("copy_bandwidth")
    device = context.get("bwgemm_device", "unknown device")
    written = []
    for (group, n, k, layout), lines in projections(groups, references).items():
        has_fraction = any(r["read_bw_frac"] is not None for points in lines.values() for _, r in points)
        has_gbps = any(r["gbps"] is not None for points in lines.values() for _, r in points)
        panels = [("us", "median time per call (us)", True), ("tflops", "TFLOP/s", False)]
        if has_gbps:
            panels.append(("gbps", "GB/s (fewest bytes a call must move / time)", False))
        if has_fraction:
            panels.append(("read_bw_frac", "GB/s / read-bandwidth reference", False))
        every_m = sorted({m for points in lines.values() for m, _ in points})
        fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels), 4.2), squeeze=False)
        for ax, (metric, ylabel, log_y) in zip(axes[0], panels):
            for impl, points in lines.items():
                xs = [m for m, r in points if r.get(metric) is not None]
                ys = [r[metric] for m, r in points if r.get(metric) is not None]
                if not xs:
                    continue
                baseline = points[0][1]["baseline"]
                ax.plot(xs, ys, marker="o" if baseline else "s", markersize=3.5, linewidth=1.2,
                        linestyle="--" if baseline else "-", color=colour[impl], label=impl)
            read_label = f"read reference ({read_ref['gbps']:.0f} GB/s)" if read_ref and read_ref["gbps"] else None
            if metric == "gbps" and read_label:
                ax.axhline(read_ref["gbps"], color="black", linewidth=1, linestyle=":", label=read_label)
            if metric == "gbps" and copy_ref and copy_ref["gbps"]:
                ax.axhline(copy_ref["gbps"], color="grey", linewidth=1, linestyle="-.",
                           label=f"copy reference, read + write ({copy_ref['gbps']:.0f} GB/s)")
            if metric == "read_bw_frac":
                ax.axhline(1.0, color="black", linewidth=1, linestyle=":", label=read_label or "read reference")
            ax.set_xscale("log", base=2)
            ax.set_xticks(every_m)
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_locator(ticker.NullLocator())
            ax.tick_params(axis="x", labelsize=7, labelrotation=90 if len(every_m) > 8 else 0)
            values = [r[metric] for points in lines.values() for _, r in points if r.get(metric)]
            if log_y and values and max(values) > 10 * min(values):  # times spanning decades
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.yaxis.set_minor_formatter(ticker.NullFormatter())
            else:
                ax.set_ylim(bottom=0)  # rates and fractions from zero
            ax.set_xlabel("M (tokens)")
            ax.set_ylabel(ylabel, fontsize=8)
            ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
        handles, labels = [], []
        for ax in axes[0]:  # every line once (the reference lines live on their own panels)
            for handle, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=min(4, len(labels)),
                   bbox_to_anchor=(0.5, 0.0))
        what = f"N = {n}, K = {k}" + (f", B {layout}" if layout else "")
        fig.suptitle(f"{group}: {what} against M; bwgemm_bench on {device}", fontsize=10)
        rows = (len(labels) + 3) // 4
        fig.tight_layout(rect=(0, 0.05 + 0.04 * rows, 1, 1))
        path = os.path.join(out_dir, projection_filename(group, n, k, layout))
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="Google Benchmark JSON output of bwgemm_bench")
    parser.add_argument("-o", "--output", help="PNG to write (default bwgemm_bench.png unless --table)")
    parser.add_argument("--table", action="store_true", help="print a Markdown table of the results")
    parser.add_argument("--metric", choices=("tflops", "us"), default="tflops")
    parser.add_argument("--log", action="store_true", help="logarithmic y axis")
    parser.add_argument("--groups", help="comma-separated groups to plot (default: all present)")
    parser.add_argument("--out", metavar="DIR",
                        help="write charts against M into DIR, one PNG per projection (group, N, K, B layout)")
    args = parser.parse_args(argv)

    context, groups = load_results(args.results)
    references = load_references(args.results)
    if args.groups:
        wanted = args.groups.split(",")
        groups = OrderedDict((g, groups[g]) for g in wanted if g in groups)
    if not groups:
        print("plot.py: no successful benchmarks in " + ", ".join(args.results), file=sys.stderr)
        return 1
    if args.table:
        print(table(context, groups, references))
    # The bar chart: with -o, or by default when neither --table nor --out asks for something else.
    output = args.output or (None if args.table or args.out else "bwgemm_bench.png")
    try:
        if output:
            plot(context, groups, args.metric, args.log, output)
            print(f"wrote {output}")
        if args.out:
            for path in plot_against_m(context, groups, references, args.out):
                print(f"wrote {path}")
    except ImportError as e:
        print(f"plot.py: the charts need matplotlib ({e}): python3 -m pip install matplotlib", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
