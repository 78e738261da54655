#!/usr/bin/env python3
"""warpcost's counters beside Nsight Compute's for the same benchmark (see ncu-crosscheck.sh).

--metrics RUN.warpcost.json   prints the Nsight Compute metric names warpcost collected, comma-joined
--table A.warpcost.json ...   prints a markdown table: each metric, warpcost's value, ncu's value
                              (from the A.ncu.csv beside it), their ratio and whether they agree
                              within 1 %
"""
import csv
import json
import sys
from pathlib import Path

TOLERANCE = 0.01


def warpcost_counters(path):
    """The first benchmark row's counters whose names are Nsight Compute metrics (a__b.c)."""
    runs = json.loads(Path(path).read_text())["benchmarks"]
    if not runs:
        sys.exit(f"ncu_compare: {path} has no benchmark")
    row = runs[0]
    return row["run_name"], {k: float(v) for k, v in row.items() if "__" in k and isinstance(v, (int, float))}


def ncu_values(path):
    """The first profiled kernel's metrics from `ncu --csv --page raw` (header, units, rows)."""
    lines = [l for l in Path(path).read_text().splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        sys.exit(f"ncu_compare: {path} holds no profiled kernel (see the .ncu.log beside it)")
    header, data = rows[0], rows[2]
    values = {}
    for name, text in zip(header, data):
        try:
            values[name] = float(text.replace(",", ""))
        except ValueError:
            pass
    return values


def main(argv):
    if len(argv) >= 2 and argv[0] == "--metrics":
        print(",".join(sorted(warpcost_counters(argv[1])[1])))
        return 0
    if not argv or argv[0] != "--table":
        sys.exit(__doc__)
    print("| benchmark | metric | warpcost | ncu | ratio | within 1 % |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for path in argv[1:]:
        name, mine = warpcost_counters(path)
        theirs = ncu_values(path.replace(".warpcost.json", ".ncu.csv"))
        for metric in sorted(mine):
            if metric not in theirs:
                print(f"| {name} | `{metric}` | {mine[metric]:.6g} | missing | | no |")
                continue
            a, b = mine[metric], theirs[metric]
            ratio = a / b if b else (1.0 if a == 0 else float("inf"))
            worst = max(worst, abs(ratio - 1))
            ok = "yes" if abs(ratio - 1) <= TOLERANCE else "no"
            print(f"| {name} | `{metric}` | {a:.6g} | {b:.6g} | {ratio:.4f} | {ok} |")
    print(f"\nlargest difference: {100 * worst:.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
