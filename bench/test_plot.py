#!/usr/bin/env python3
"""ctest bench.plot_against_m: bench/plot.py's charts against M on a synthetic JSON, no GPU needed.

    python3 bench/test_plot.py [--out DIR]

Checks, with any python3: the bandwidth references are read apart from the groups (the read reference's
GB/s is the median of its two runs), the projections (group, N, K, B layout) and their M points, and
read_bw_frac computed from that median rather than from the per-entry counters (which use the latest
run). Then, if matplotlib is installed, that plot.py --out writes one PNG per projection and that the bar
chart still works with reference entries in the file; without matplotlib it exits 77, which CTest reports
as skipped (SKIP_RETURN_CODE).
"""

import argparse
import io
import os
import sys
import tempfile
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plot  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "synthetic_sweep.json")
SKIP = 77
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def check(condition, message):
    if not condition:
        print(f"FAIL: {message}")
        sys.exit(1)


def check_data():
    refs = plot.load_references([FIXTURE])
    check(list(refs) == ["read_bandwidth", "copy_bandwidth"], f"references {list(refs)}")
    check(refs["read_bandwidth"]["gbps"] == 4000.0 and refs["read_bandwidth"]["runs"] == 2,
          f"read reference {refs['read_bandwidth']}: want the median of 3900 and 4100 GB/s over 2 runs")
    check(refs["read_bandwidth"]["size"] == "2GiB", "read reference size")

    _, groups = plot.load_results([FIXTURE])
    check(plot.REFERENCE_GROUP not in groups, "the references must not be a group")
    projections = plot.projections(groups, refs)
    want = [("dual_bf16", 14336, 4096, ""), ("gemm_bf16", 5120, 4096, "Bnk"), ("gemm_bf16", 6144, 4096, "Bkn")]
    check(list(projections) == want, f"projections {list(projections)}")
    gemm = projections[("gemm_bf16", 5120, 4096, "Bnk")]
    check(list(gemm) == ["cublaslt", "bwgemm_sm90"], f"implementations {list(gemm)}")
    check([m for m, _ in gemm["bwgemm_sm90"]] == [1, 4, 16, 64, 256], "M points, ascending")
    check(list(projections[("gemm_bf16", 6144, 4096, "Bkn")]) == ["cublaslt"], "the failed run is left out")
    for impl, want_frac in (("cublaslt", 0.75), ("bwgemm_sm90", 0.85)):  # fixture: 3000 and 3400 GB/s
        for m, record in gemm[impl]:
            frac = record["read_bw_frac"]
            check(abs(frac - want_frac) < 1e-3, f"{impl} M={m}: read_bw_frac {frac}, want {want_frac}")
    # Without the reference in the file, the counters (against the latest run, 4100 GB/s) are used.
    m1 = groups["gemm_bf16"]["M1_N5120_K4096_Bnk"]["cublaslt"]
    check(abs(plot.read_fraction(m1, {}) - 3000.0 / 4100.0) < 1e-3, "fallback to the read_bw_frac counter")
    check(plot.projection_filename("dual_bf16", 14336, 4096, "") == "dual_bf16_N14336_K4096.png", "file name")

    text = plot.table(*plot.load_results([FIXTURE]), refs)
    check("reference read_bandwidth/2GiB: 4000 GB/s" in text, "the table names the read reference")
    return want


def check_charts(out_dir, projections):
    names = [plot.projection_filename(*p) for p in projections] + ["bars.png"]
    for name in names:  # none left from an earlier run
        if os.path.exists(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    out = io.StringIO()
    with redirect_stdout(out):
        status = plot.main([FIXTURE, "--out", out_dir, "-o", os.path.join(out_dir, "bars.png")])
    check(status == 0, f"plot.py exit status {status}")
    for name in names:
        path = os.path.join(out_dir, name)
        check(os.path.isfile(path), f"{path} missing; plot.py printed:\n{out.getvalue()}")
        with open(path, "rb") as f:
            check(f.read(8) == PNG_MAGIC, f"{path} is not a PNG")
        print(f"ok {path} ({os.path.getsize(path)} bytes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="directory for the PNGs (default: a temporary one)")
    args = parser.parse_args()
    projections = check_data()
    print("ok references, projections, read_bw_frac")
    try:
        plot.pyplot()
    except ImportError as e:
        print(f"SKIP: the chart part needs matplotlib ({e}): python3 -m pip install matplotlib")
        return SKIP
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        check_charts(args.out, projections)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            check_charts(tmp, projections)
    print("bench.plot_against_m: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
