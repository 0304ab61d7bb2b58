#!/usr/bin/env python3
"""Summary of bwgemm_bench's paired benchmarks (--bwgemm_paired=1), per group, implementation and M.

Reads the JSON that Google Benchmark writes with
    bwgemm_bench --bwgemm_paired=1 --benchmark_filter=paired_ --benchmark_out=paired.json --benchmark_out_format=json
and prints a Markdown table: for every group, implementation and M, over the shapes (N, K and, for GEMM, the
B layout) measured at that M, the geometric mean, minimum and maximum of the `ratio` counter (the median over
alternating rounds of the fastest baseline's sample over the implementation's; above 1 the implementation is
faster) and how many shapes reach 1.00. A shape run several times (--benchmark_repetitions, several files)
counts once, with the median of its runs; skipped runs and Google Benchmark's aggregates are ignored.

--impl, --group and --m keep some implementations, groups and a range of M; --overall adds one line per group and
implementation over every shape kept (the figure quoted for a band of M, with the count below 0.95);
--chart writes a PNG of every shape's ratio against M, one panel per group, the geomean per M as a line
(matplotlib from PyPI: python3 -m pip install matplotlib).

Usage:
    python3 bench/paired_table.py paired.json [more.json ...] [--counter ratio|ratio_of_medians]
                                  [--impl NAME ...] [--group NAME ...] [--m LO:HI] [--overall]
                                  [--chart out.png [--title T]]
"""

import argparse
import math
import os
import statistics
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402  (successful_runs, parse_shape, PAIRED_PREFIX, GROUP_ORDER, pyplot)

COUNTERS = ("ratio", "ratio_of_medians")
PAR = 1.0  # a shape "reaches par" when its ratio is at least this: as fast as the fastest baseline
FLOOR = 0.95  # the least ratio the project's targets allow on any one shape (--overall counts those below)


def parse_m_range(text):
    """'512:16384' -> (512, 16384); '64' -> (64, 64); ':64' / '512:' leave that end open (None)."""
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            return int(text), int(text)
        return (int(lo) if lo else None), (int(hi) if hi else None)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--m takes M or LO:HI (integers), got '{text}'")


def m_in_range(m, m_range):
    lo, hi = m_range if m_range else (None, None)
    return (lo is None or m >= lo) and (hi is None or m <= hi)


def shape_ratios(paths, counter="ratio", impls=None, m_range=None, groups=None):
    """{(group, impl, M): OrderedDict(shape -> median of the counter over its runs)}; impl without the prefix.

    impls, groups: keep only these implementations, groups (None: all); m_range: (lo, hi), either end None
    for open.
    """
    runs = OrderedDict()
    for group, name, shape, b in plot.successful_runs(paths):
        if not name.startswith(plot.PAIRED_PREFIX) or counter not in b:
            continue
        parsed = plot.parse_shape(shape)
        if parsed is None:
            continue
        impl = name[len(plot.PAIRED_PREFIX):]
        if (impls and impl not in impls) or (groups and group not in groups):
            continue
        if not m_in_range(parsed[0], m_range):
            continue
        runs.setdefault((group, impl, parsed[0]), OrderedDict()).setdefault(shape, []).append(b[counter])
    return {key: OrderedDict((shape, statistics.median(v)) for shape, v in shapes.items())
            for key, shapes in runs.items()}


def stats(values):
    """{"shapes", "geomean", "min", "max", "at_par", "below_floor"} of a list of ratios."""
    return {
        "shapes": len(values),
        "geomean": math.exp(sum(math.log(v) for v in values) / len(values)),
        "min": min(values),
        "max": max(values),
        "at_par": sum(1 for v in values if v >= PAR),
        "below_floor": sum(1 for v in values if v < FLOOR),
    }


def group_rank(group):
    rank = {g: i for i, g in enumerate(plot.GROUP_ORDER)}
    return rank.get(group, len(rank)), group


def summarize(paths, counter="ratio", impls=None, m_range=None, groups=None):
    """[(group, impl, M, stats)], by group order, impl, M."""
    rows = [(group, impl, m, stats(list(shapes.values())))
            for (group, impl, m), shapes in shape_ratios(paths, counter, impls, m_range, groups).items()]
    rows.sort(key=lambda r: (group_rank(r[0]), r[1], r[2]))
    return rows


def overall(paths, counter="ratio", impls=None, m_range=None, groups=None):
    """[(group, impl, (least M, greatest M), stats over every shape at every M)], by group order, impl."""
    pooled = OrderedDict()
    for (group, impl, m), shapes in shape_ratios(paths, counter, impls, m_range, groups).items():
        entry = pooled.setdefault((group, impl), {"ms": [], "values": []})
        entry["ms"].append(m)
        entry["values"].extend(shapes.values())
    rows = [(group, impl, (min(e["ms"]), max(e["ms"])), stats(e["values"])) for (group, impl), e in pooled.items()]
    rows.sort(key=lambda r: (group_rank(r[0]), r[1]))
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


def overall_lines(rows, counter="ratio"):
    lines = []
    for group, impl, (lo, hi), s in rows:
        span = f"M = {lo}" if lo == hi else f"M = {lo}..{hi}"
        lines.append(f"{group} {impl}, {span}: {s['shapes']} shapes, geomean {counter} {s['geomean']:.4f}, "
                     f"min {s['min']:.3f}, max {s['max']:.3f}, {s['at_par']} at or above {PAR:.2f}, "
                     f"{s['below_floor']} below {FLOOR:.2f}")
    return "\n".join(lines)


def spread_ticks(ms, log, min_gap=0.025):
    """The Ms to label on an axis: the first, then each at least min_gap of the axis' span from the last
    labelled one (on a log axis in log space), so neighbours such as 128 and 129 do not overprint."""
    pos = [math.log2(m) if log else float(m) for m in ms]
    span = (pos[-1] - pos[0]) or 1.0
    kept, last = [], None
    for m, p in zip(ms, pos):
        if last is None or p - last >= min_gap * span:
            kept.append(m)
            last = p
    return kept


def chart(paths, output, counter="ratio", impls=None, m_range=None, title=None, groups=None):
    """PNG of every shape's ratio against M (one panel per group), the geomean per M as a line. Returns the
    groups drawn; ImportError without matplotlib."""
    plt = plot.pyplot()
    from matplotlib import ticker

    ratios = shape_ratios(paths, counter, impls, m_range, groups)
    groups = sorted({g for g, _, _ in ratios}, key=group_rank)
    if not groups:
        return []
    every_impl = sorted({i for _, i, _ in ratios})
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {impl: palette[i % len(palette)] for i, impl in enumerate(every_impl)}
    markers = {"Bnk": "o", "Bkn": "^", "": "s"}
    fig, axes = plt.subplots(1, len(groups), figsize=(max(7.5, 5.2 * len(groups)), 4.0), squeeze=False, sharey=True)
    for ax, group in zip(axes[0], groups):
        ms = sorted({m for g, _, m in ratios if g == group})
        for impl in every_impl:
            keys = sorted((g, i, m) for g, i, m in ratios if g == group and i == impl)
            if not keys:
                continue
            for layout, marker in markers.items():
                xs, ys = [], []
                for key in keys:
                    for shape, value in ratios[key].items():
                        if plot.parse_shape(shape)[3] == layout:
                            xs.append(key[2])
                            ys.append(value)
                if xs:
                    ax.scatter(xs, ys, s=11, marker=marker, color=colour[impl], alpha=0.45, linewidths=0,
                               label=f"{impl}, one shape" + (f" (B {layout})" if layout else ""))
            geo = [stats(list(ratios[key].values()))["geomean"] for key in keys]
            ax.plot([key[2] for key in keys], geo, color=colour[impl], linewidth=1.8, marker="D", markersize=4,
                    label=f"{impl}, geomean per M")
        ax.axhline(PAR, color="black", linewidth=1.0, linestyle="-")
        ax.axhline(FLOOR, color="grey", linewidth=0.8, linestyle="--")
        if ms[-1] >= 8 * ms[0]:
            ax.set_xscale("log", base=2)
        ax.set_xticks(spread_ticks(ms, log=ms[-1] >= 8 * ms[0]))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.tick_params(axis="x", labelsize=7, labelrotation=90 if len(ax.get_xticks()) > 8 else 0)
        ax.set_xlabel("M (tokens)")
        ax.set_title(group, fontsize=10)
        ax.grid(True, linewidth=0.4, alpha=0.5)
    axes[0][0].set_ylabel(f"{counter}: fastest baseline's time / bwgemm's\n(> 1: bwgemm faster)", fontsize=8)
    handles, labels = [], []
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=min(3, len(labels)), bbox_to_anchor=(0.5, 0.0))
    if title is None:
        every_m = sorted({m for _, _, m in ratios})
        span = f"M = {every_m[0]}" if every_m[0] == every_m[-1] else f"M = {every_m[0]}..{every_m[-1]}"
        device = plot.load_context(paths).get("bwgemm_device", "")
        title = (f"{', '.join(every_impl)}: the fastest baseline's time / its time, {span}"
                 + (f", {device}" if device else ""))
    fig.suptitle(title, fontsize=10)
    rows = (len(labels) + 2) // 3
    fig.tight_layout(rect=(0, 0.04 + 0.045 * rows, 1, 1))
    fig.savefig(output, dpi=110)
    plt.close(fig)
    return groups


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="Google Benchmark JSON output of bwgemm_bench --bwgemm_paired=1")
    parser.add_argument("--counter", choices=COUNTERS, default="ratio")
    parser.add_argument("--impl", action="append", metavar="NAME",
                        help="keep this implementation (without paired_; repeatable; default: all)")
    parser.add_argument("--group", action="append", metavar="NAME",
                        help="keep this group (gemm_bf16, gemm_fp16, dual_bf16, ...; repeatable; default: all)")
    parser.add_argument("--m", type=parse_m_range, metavar="LO:HI", help="keep M in [LO, HI] (or one M)")
    parser.add_argument("--overall", action="store_true",
                        help="also one line per group and implementation over every shape kept")
    parser.add_argument("--chart", metavar="PNG", help="write the ratios against M to this PNG")
    parser.add_argument("--title", help="the chart's title")
    args = parser.parse_args(argv)
    rows = summarize(args.results, args.counter, args.impl, args.m, args.group)
    if not rows:
        filtered = "matching --impl/--group/--m " if args.impl or args.group or args.m else ""
        print("paired_table.py: no successful paired benchmarks (<group>/paired_<impl>/<shape>) " + filtered
              + "in " + ", ".join(args.results), file=sys.stderr)
        return 1
    print(table(rows, args.counter))
    if args.overall:
        print()
        print(overall_lines(overall(args.results, args.counter, args.impl, args.m, args.group), args.counter))
    if args.chart:
        try:
            chart(args.results, args.chart, args.counter, args.impl, args.m, args.title, args.group)
        except ImportError as e:
            print(f"paired_table.py: --chart needs matplotlib ({e}): python3 -m pip install matplotlib",
                  file=sys.stderr)
            return 1
        print(f"wrote {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
