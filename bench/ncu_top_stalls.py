#!/usr/bin/env python3
"""Top stall locations of an Nsight Compute source page (bench/profile_sm90.sh with PROFILE_SOURCE=1).

    ncu --import report.ncu-rep --page source --csv --print-source sass > source.csv
    python3 bench/ncu_top_stalls.py source.csv [count]

Prints the SASS instructions with the most warp-stall samples, with their share of all samples and the
stall-reason columns that are non-zero for them.
"""
import csv
import sys


def main(argv):
    path = argv[0]
    count = int(argv[1]) if len(argv) > 1 else 25
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"Address"') or line.startswith('"#"')), 0)
    rows = list(csv.DictReader(lines[start:]))
    if not rows:
        print("no rows in " + path)
        return 1
    sample_key = next((k for k in rows[0] if k.startswith("Warp Stall Sampling (All")), None)
    if sample_key is None:
        print("columns: " + ", ".join(rows[0]))
        return 1

    def number(value):
        try:
            return float(str(value).replace(",", ""))
        except ValueError:
            return 0.0

    total = sum(number(r[sample_key]) for r in rows) or 1.0
    print(f"{len(rows)} SASS lines, {total:.0f} stall samples; top {count}:")
    reason_keys = [k for k in rows[0] if k.startswith("stall_") or "Stall" in k and k != sample_key]
    for r in sorted(rows, key=lambda r: -number(r[sample_key]))[:count]:
        reasons = ", ".join(f"{k}={r[k]}" for k in reason_keys if number(r.get(k, 0)) > 0)[:160]
        print(f"{100 * number(r[sample_key]) / total:5.1f}%  {r.get('Address', '')}  {r.get('Source', '')[:70]}  {reasons}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
