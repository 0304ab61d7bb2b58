#!/usr/bin/env python3
"""ctest bench.paired_table: bench/paired_table.py, and bench/plot.py on paired names, on a synthetic JSON.

    python3 bench/test_paired_table.py

The fixture (bench/testdata/synthetic_paired.json, hand-written, no measurement) has paired benchmarks of two
groups at several M, a shape with two repetitions, an aggregate and a skipped run (both to be ignored), a
ratio of exactly 1.00, and two ordinary benchmarks that plot.py must keep while leaving the paired ones out.
"""

import io
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import paired_table  # noqa: E402
import plot  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "synthetic_paired.json")
NO_PAIRED = os.path.join(HERE, "testdata", "synthetic_results.json")


def check(condition, message):
    if not condition:
        print(f"FAIL: {message}")
        sys.exit(1)


def close(a, b):
    return abs(a - b) < 1e-9


def check_summary():
    rows = paired_table.summarize([FIXTURE])
    keys = [(g, i, m) for g, i, m, _ in rows]
    # plot.GROUP_ORDER puts dual_bf16 before gemm_bf16; M ascending.
    want = [("dual_bf16", "bwgemm_sm90", 1), ("dual_bf16", "bwgemm_sm90", 256),
            ("gemm_bf16", "bwgemm_sm90", 1), ("gemm_bf16", "bwgemm_sm90", 4096)]
    check(keys == want, f"rows {keys}")
    by_key = {(g, i, m): s for g, i, m, s in rows}
    # (shapes, geomean, min, max, at par) worked out by hand from the fixture.
    expected = {
        ("dual_bf16", "bwgemm_sm90", 1): (1, 1.0, 1.0, 1.0, 1),  # exactly 1.00 counts as at par
        ("dual_bf16", "bwgemm_sm90", 256): (2, 1.0, 0.5, 2.0, 1),
        ("gemm_bf16", "bwgemm_sm90", 1): (2, 1.0, 0.8, 1.25, 1),
        # repetitions 1.0 and 1.2 -> median 1.1; the aggregate (9.0) and the skipped shape ignored
        ("gemm_bf16", "bwgemm_sm90", 4096): (2, 1.1, 1.1, 1.1, 2),
    }
    for key, (shapes, geomean, low, high, at_par) in expected.items():
        s = by_key[key]
        check(s["shapes"] == shapes, f"{key}: {s['shapes']} shapes, want {shapes}")
        check(close(s["geomean"], geomean), f"{key}: geomean {s['geomean']}, want {geomean}")
        check(close(s["min"], low) and close(s["max"], high), f"{key}: min/max {s['min']}/{s['max']}")
        check(s["at_par"] == at_par, f"{key}: {s['at_par']} at par, want {at_par}")
    # The other counter: ratio_of_medians is 1.01 x ratio in the fixture.
    other = {(g, i, m): s for g, i, m, s in paired_table.summarize([FIXTURE], "ratio_of_medians")}
    check(close(other[("gemm_bf16", "bwgemm_sm90", 1)]["geomean"], 1.01), "ratio_of_medians geomean")

    out = io.StringIO()
    with redirect_stdout(out):
        status = paired_table.main([FIXTURE])
    check(status == 0, f"paired_table.py exit status {status}")
    check("| gemm_bf16 | bwgemm_sm90 | 1 | 2 | 1.000 | 0.800 | 1.250 | 1/2 |" in out.getvalue(),
          f"table row missing:\n{out.getvalue()}")
    with redirect_stderr(io.StringIO()):
        check(paired_table.main([NO_PAIRED]) == 1, "a file without paired benchmarks must be refused")


def check_plot_ignores_paired():
    _, groups = plot.load_results([FIXTURE])
    check(list(groups) == ["gemm_bf16"], f"plot.py groups {list(groups)}: the paired-only group must not appear")
    impls = list(groups["gemm_bf16"]["M1_N5120_K4096_Bnk"])
    check(impls == ["cublaslt", "bwgemm_sm90"], f"plot.py implementations {impls}: paired_* must be left out")
    text = plot.table(*plot.load_results([FIXTURE]))
    check("paired_" not in text and "| 1.200x |" in text, f"plot.py table:\n{text}")


def check_filters_and_overall():
    # --m, --group, --impl keep what they name (the 4096 rows, the dual group, every row).
    keys = [(g, i, m) for g, i, m, _ in paired_table.summarize([FIXTURE], m_range=(1, 256))]
    check(keys == [("dual_bf16", "bwgemm_sm90", 1), ("dual_bf16", "bwgemm_sm90", 256),
                   ("gemm_bf16", "bwgemm_sm90", 1)], f"--m 1:256 rows {keys}")
    keys = [(g, i, m) for g, i, m, _ in paired_table.summarize([FIXTURE], groups=["gemm_bf16"], m_range=(2, None))]
    check(keys == [("gemm_bf16", "bwgemm_sm90", 4096)], f"--group gemm_bf16 --m 2: rows {keys}")
    check(paired_table.summarize([FIXTURE], impls=["bwgemm_sm90_other"]) == [], "--impl of an absent kernel")
    check(paired_table.parse_m_range(":64") == (None, 64) and paired_table.parse_m_range("512:") == (512, None)
          and paired_table.parse_m_range("64") == (64, 64), "parse_m_range")
    # Over every M: gemm 1.25, 0.8, 1.1 (median of 1.0 and 1.2), 1.1 -> geomean sqrt(1.1), 3 at par, 1 below
    # 0.95; dual 1.0, 0.5, 2.0 -> geomean 1.0, 2 at par, 1 below 0.95.
    pooled = {(g, i): (ms, s) for g, i, ms, s in paired_table.overall([FIXTURE])}
    ms, s = pooled[("gemm_bf16", "bwgemm_sm90")]
    check(ms == (1, 4096) and s["shapes"] == 4 and close(s["geomean"], 1.1 ** 0.5), f"gemm overall {ms} {s}")
    check(s["at_par"] == 3 and s["below_floor"] == 1 and close(s["min"], 0.8), f"gemm overall counts {s}")
    ms, s = pooled[("dual_bf16", "bwgemm_sm90")]
    check(ms == (1, 256) and s["shapes"] == 3 and close(s["geomean"], 1.0), f"dual overall {ms} {s}")
    check(s["at_par"] == 2 and s["below_floor"] == 1, f"dual overall counts {s}")
    out = io.StringIO()
    with redirect_stdout(out):
        status = paired_table.main([FIXTURE, "--overall", "--m", "2:"])
    check(status == 0, f"--overall exit status {status}")
    check("gemm_bf16 bwgemm_sm90, M = 4096: 2 shapes, geomean ratio 1.1000" in out.getvalue(),
          f"--overall line missing:\n{out.getvalue()}")
    with redirect_stderr(io.StringIO()):
        check(paired_table.main([FIXTURE, "--impl", "bwgemm_sm90_other"]) == 1, "nothing kept must be refused")
    # Chart ticks: neighbours closer than the gap are not both labelled.
    check(paired_table.spread_ticks([128, 129, 136, 256], log=False) == [128, 136, 256], "spread_ticks")


def check_chart():
    try:
        plot.pyplot()
    except ImportError:
        print("skipped the --chart check: no matplotlib")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ratios.png")
        with redirect_stdout(io.StringIO()):
            status = paired_table.main([FIXTURE, "--chart", path, "--title", "synthetic"])
        check(status == 0, f"--chart exit status {status}")
        with open(path, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
        groups = paired_table.chart([FIXTURE], path, groups=["dual_bf16"])
        check(groups == ["dual_bf16"], f"chart groups {groups}")


def main():
    check_summary()
    check_filters_and_overall()
    check_chart()
    check_plot_ignores_paired()
    print("bench.paired_table: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
