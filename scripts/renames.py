#!/usr/bin/env python3
"""The renames of warpcost schema 2 applied to analysis output written before them, so
check-analysis-unchanged.sh can require the rest to be identical. One place states the map:

    partial_warp/staircase   threads -> block_threads   (block size P)
    partial_warp/grid_tail   block   -> block_threads   (block size P)
                             threads -> total_threads   (the grid's N)
    partial_warp/staircase_step (analysis rows)  warps -> warps_per_block, threads -> block_threads

Usage: renames.py FILE...  (each a tidy CSV, *.csv, or a markdown report; rewritten in place).
CSV parameter columns are rebuilt as warpcost-analyze builds them: the sorted union of every row's
parameter names, after the fixed columns (a name clashing with a fixed column gets "param_")."""
import csv
import io
import os
import re
import sys

# The one key=value;... parser the plots use (analysis/plot_support.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from plot_support import params_of  # noqa: E402

FIXED = ["schema_version", "run_id", "utc", "gpu", "cc", "sm_count", "driver", "cuda_runtime",
         "git_rev", "family", "benchmark", "params", "metric", "value", "unit", "model", "predicted",
         "rel_error", "kind", "verdict", "run_status"]

TEXT = [
    (re.compile(r"(grid_tail[/ |]+)block=(\d+);threads=(\d+)"), r"\1block_threads=\2;total_threads=\3"),
    (re.compile(r"(staircase[/ |]+)threads=(\d+)"), r"\1block_threads=\2"),
    (re.compile(r"(staircase_step[/ |]+)warps=(\d+);threads=(\d+\.\.\d+)"),
     r"\1warps_per_block=\2;block_threads=\3"),
    # Run names (warpcost-bench --benchmark_list_tests): key:value.
    (re.compile(r"(partial_warp/grid_tail/)block:(\d+)/threads:(\d+)"), r"\1block_threads:\2/total_threads:\3"),
    (re.compile(r"(partial_warp/staircase/)threads:(\d+)"), r"\1block_threads:\2"),
]


def rename_text(text):
    for pattern, replacement in TEXT:
        text = pattern.sub(replacement, text)
    return text


def rename_params(benchmark, params):
    return rename_text(benchmark + "|" + params).split("|", 1)[1]


def rewrite_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    n = len(FIXED)
    assert header[:n] == FIXED, path + ": not a warpcost tidy CSV"
    fam, bench, par = FIXED.index("family"), FIXED.index("benchmark"), FIXED.index("params")
    keys = set()
    for r in body:
        if r[fam] == "partial_warp":
            r[par] = rename_params(r[bench], r[par])
        keys.update(params_of(r[par]))
    keys = sorted(keys)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(FIXED + [("param_" + k if k in FIXED else k) for k in keys])
    for r in body:
        values = params_of(r[par])
        w.writerow(r[:n] + [values.get(k, "") for k in keys])
    with open(path, "w", newline="") as f:
        f.write(out.getvalue())


def main(paths):
    for path in paths:
        if path.endswith(".csv"):
            rewrite_csv(path)
        else:
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(rename_text(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
