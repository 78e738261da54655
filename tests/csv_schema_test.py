#!/usr/bin/env python3
"""The tidy CSV against analysis/csv-schema.json, on every committed run (git's list, never what a
user has in results/).

    csv_schema_test.py schema REPO_ROOT
        docs/csv.md's tables equal the schema's; every committed warpcost.csv validates
        (scripts/csv_schema.py) and reads with the declared dtypes without a warning; copies with a
        planted fault are rejected; every committed report.md is under 1 MB; the `headline` filter
        gives the committed summary's headline table.
    csv_schema_test.py dashboard REPO_ROOT DUCKDB_MODULES_DIR
        docs/csv.md's three dashboard queries, in pandas and in DuckDB SQL, on the committed H200
        run's CSV, against values read off its rows by hand (below).

Exit 77 (ctest: skipped) with the reason where no python has pandas; the DuckDB half is skipped,
saying why, where node or @duckdb/node-api is missing (the pandas half still runs).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pandas_python import ensure_pandas  # noqa: E402

COMMITTED_RUN = "results/nvidia-h200/20261130T145749Z-47c57c98"
MB = 1_000_000


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def committed(root, pattern):
    out = subprocess.run(["git", "-C", root, "ls-files", "--", pattern], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return [os.path.join(root, p) for p in out.stdout.split()]


def load_validator(root):
    sys.path.insert(0, os.path.join(root, "scripts"))
    import csv_schema
    return csv_schema


def planted(src, tmp, name, edit):
    """A copy of src with one fault planted by edit(header, rows) -> (header, rows)."""
    import csv
    with open(src, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    header, rows = edit(header, rows)
    path = os.path.join(tmp, name + ".csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return path


def schema_test(root):
    cs = load_validator(root)
    schema = cs.load_schema(os.path.join(root, "analysis", "csv-schema.json"))
    if cs.check_docs(os.path.join(root, "docs", "csv.md"), schema) != 0:
        fail("docs/csv.md's tables are not the schema's")
    csvs = committed(root, "results/*warpcost.csv")
    if csvs is None:
        print("skipped: not a git checkout, so there is no list of committed runs")
        return 77
    if not csvs:
        fail("git lists no committed results/**/warpcost.csv")
    for path in csvs:
        found = cs.problems(path, schema)
        if found:
            fail("\n".join(found))
        print(f"{os.path.relpath(path, root)}: conforms, read with the declared dtypes without a warning")
    # No text in a numeric column: every integer/number column read as a numeric dtype.
    df = cs.read_csv(csvs[0], schema)
    for f in schema["fields"]:
        if f["name"] in df and f["type"] != "string":
            if str(df[f["name"]].dtype) not in ("Int64", "float64"):
                fail(f"{f['name']} read as {df[f['name']].dtype}")
    # Planted faults, each of which the validator must name.
    with tempfile.TemporaryDirectory(prefix=f"warpcost-csv-schema-{os.getpid()}-") as tmp:
        src = os.path.join(root, COMMITTED_RUN, "warpcost.csv")

        def at(header, name):
            return header.index(name)

        def range_in_block_threads(h, rows):
            rows[0][at(h, "block_threads")] = "1..32"
            return h, rows

        def model_met(h, rows):
            r = next(r for r in rows if r[at(h, "kind")] == "model")
            r[at(h, "verdict")] = "met"
            return h, rows

        def bad_unit(h, rows):
            rows[0][at(h, "unit")] = "furlongs"
            return h, rows

        def unknown_column(h, rows):
            return h + ["zzz_unknown"], [r + ["1"] for r in rows]

        def fixed_order(h, rows):
            i, j = at(h, "gpu"), at(h, "utc")
            for r in [h] + rows:
                r[i], r[j] = r[j], r[i]
            return h, rows

        def removed_holds_per_warp(h, rows):
            rows[0][at(h, "verdict")] = "holds-per-warp"
            return h, rows

        for name, edit, needle in [("range", range_in_block_threads, "dtypes do not read it"),
                                   ("model-met", model_met, "kind 'model' read 'met'"),
                                   ("unit", bad_unit, "furlongs"),
                                   ("column", unknown_column, "zzz_unknown"),
                                   ("order", fixed_order, "fixed columns"),
                                   ("holds-per-warp", removed_holds_per_warp, "holds-per-warp")]:
            found = cs.problems(planted(src, tmp, name, edit), schema)
            if not any(needle in p for p in found):
                fail(f"planted fault '{name}' not reported as '{needle}': {found}")
            print(f"planted fault '{name}' rejected: {found[0][:140]}")
    # Size: every committed report.md under 1 MB.
    for path in committed(root, "results/*report.md"):
        size = os.path.getsize(path)
        if size >= MB:
            fail(f"{os.path.relpath(path, root)} is {size} bytes; a report stays under 1 MB")
    print("every committed report.md is under 1 MB")
    return headline_test(root, cs, schema)


def headline_test(root, cs, schema):
    """One filter on the committed run's CSV gives the committed summary's headline table."""
    df = cs.read_csv(os.path.join(root, COMMITTED_RUN, "warpcost.csv"), schema)
    heads = df[df.headline.notna()]
    summary = open(os.path.join(root, "results", "report.md"), encoding="utf-8").read()
    table = summary[summary.index("## Headline figures per GPU"):]
    # One row per GPU, named by its UUID's first 8 characters, which the run folder ends in.
    gpu = "| NVIDIA H200 (GPU-" + COMMITTED_RUN.rsplit("-", 1)[1] + ")"
    lines = [line for line in table.splitlines() if line.startswith(gpu)]
    if len(lines) != 1:
        fail(f"the summary has {len(lines)} rows '{gpu}' in its headline table")
    cells = [c.strip() for c in lines[0].strip("|").split(" | ")]
    columns = ["dram_latency", "best_read", "divergence_20_12", "staircase", "knee"]
    if sorted(heads.headline) != sorted(columns):
        fail(f"headline rows {sorted(heads.headline)}; one each of {columns}")
    # How the summary prints each figure's value (headlines.cpp), written again here.
    shown = {"dram_latency": lambda v: f"{v:.0f} cycles",
             "best_read": lambda v: f"{v / 1e12:.3f} TB/s",
             "divergence_20_12": lambda v: f"{v:.3f}×",
             "staircase": lambda v: f"largest spread {100 * v:.2f}%",
             "knee": lambda v: f"{v:.0f} warps/SM"}
    for _, r in heads.iterrows():
        cell = cells[2 + columns.index(r.headline)]
        if shown[r.headline](r.value) not in cell or not cell.endswith(f"({r.verdict})"):
            fail(f"{r.headline}: the row says {r.value} ({r.verdict}), the summary '{cell}'")
        print(f"headline {r.headline}: {shown[r.headline](r.value)} ({r.verdict}) as in the summary")
    # The same value never appears twice with different kinds (the best read was once two rows).
    best = heads[heads.headline == "best_read"].iloc[0]
    same = df[(df.metric == best.metric) & (df.value == best.value)]
    if len(same) != 1:
        fail(f"the best read's value is on {len(same)} rows")
    return 0


# Values read off the committed run's CSV rows by hand (grep of the file), not from the queries.
HAND = {
    "best_read": {"gpu": "NVIDIA H200", "benchmark": "read_peak",
                  "params": "loads_per_thread=8;block_threads=512", "tb_per_s": 4.610866981, "verdict": "missed"},
    # split_low, if_trips = else_trips = 384, 4 warps/SM: k = 0..31, 32 rows.
    "divergence": {"rows": 32, "k": {0: 1.000047633, 1: 1.999371243, 20: 1.999333136}},
    # staircase useful_fraction: 179 block sizes.
    "staircase": {"rows": 179, "block_threads": {1: 0.03148316472, 48: 0.7536786283, 100: 0.7810965964}},
}


def check_answers(name, rows, engine):
    """rows: a list of dicts from either engine."""
    def close(a, b):
        return abs(float(a) - b) <= 1e-9 * max(1.0, abs(b))
    h = HAND[name]
    if name == "best_read":
        if len(rows) != 1:
            fail(f"{engine} best_read: {len(rows)} rows, one GPU committed")
        r = rows[0]
        for k in ("gpu", "benchmark", "params", "verdict"):
            if r[k] != h[k]:
                fail(f"{engine} best_read {k}: {r[k]} != {h[k]}")
        if not close(r["tb_per_s"], h["tb_per_s"]):
            fail(f"{engine} best_read: {r['tb_per_s']} TB/s != {h['tb_per_s']}")
    else:
        key = "k" if name == "divergence" else "block_threads"
        if len(rows) != h["rows"]:
            fail(f"{engine} {name}: {len(rows)} rows, {h['rows']} by hand")
        got = {int(r[key]): r["value"] for r in rows}
        if sorted(got) != [int(r[key]) for r in rows]:
            fail(f"{engine} {name}: not sorted by {key}")
        for k, v in h[key].items():
            if not close(got[k], v):
                fail(f"{engine} {name} {key}={k}: {got[k]} != {v}")
    print(f"{engine} {name}: {len(rows)} row(s), matches the hand values")


def dashboard_test(root, duckdb_dir):
    cs = load_validator(root)
    schema = cs.load_schema(os.path.join(root, "analysis", "csv-schema.json"))
    doc = open(os.path.join(root, "docs", "csv.md"), encoding="utf-8").read()
    csv_path = os.path.join(root, COMMITTED_RUN, "warpcost.csv")
    if committed(root, COMMITTED_RUN + "/warpcost.csv") != [csv_path]:
        print(f"skipped: {COMMITTED_RUN}/warpcost.csv is not in git's list here")
        return 77
    df = cs.read_csv(csv_path, schema)
    outputs = {"best_read": "best", "divergence": "div", "staircase": "stairs"}
    for name, var in outputs.items():
        block = re.search(rf"<!-- query {name} pandas -->\s*```python\n(.*?)```", doc, re.S)
        if not block:
            fail(f"docs/csv.md has no pandas block for {name}")
        scope = {"df": df}
        exec(block.group(1), scope)
        check_answers(name, scope[var].to_dict("records"), "pandas")
    node = shutil.which("node")
    modules = os.path.join(duckdb_dir, "node_modules", "@duckdb", "node-api")
    if node is None or not os.path.isdir(modules):
        print(f"DuckDB half skipped: {'node is not installed' if node is None else modules + ' is missing'} "
              f"(.ci/run installs @duckdb/node-api there with npm)")
        return 0
    csvs = committed(root, "results/*warpcost.csv")
    csvs.remove(csv_path)
    out = subprocess.run([node, os.path.join(root, "tests", "csv_duckdb.cjs"), duckdb_dir,
                          os.path.join(root, "analysis", "csv-schema.json"), os.path.join(root, "docs", "csv.md"),
                          csv_path] + csvs, capture_output=True, text=True)
    if out.returncode != 0:
        fail("DuckDB: " + out.stderr)
    result = json.loads(out.stdout)
    for path, n in result["rows"].items():
        if n != len(cs.read_csv(path, schema)):
            fail(f"DuckDB reads {n} rows of {path}, pandas {len(df)}")
        print(f"DuckDB read_csv with the declared types loads {os.path.relpath(path, root)}: {n} rows")
    # Negative control: the pre-schema CSV's "1..32" in block_threads does not load as BIGINT.
    with tempfile.TemporaryDirectory(prefix=f"warpcost-csv-duckdb-{os.getpid()}-") as tmp:
        def range_in_block_threads(h, rows):
            next(r for r in rows if r[h.index("block_threads")])[h.index("block_threads")] = "1..32"
            return h, rows
        bad = planted(csv_path, tmp, "range", range_in_block_threads)
        refused = subprocess.run([node, os.path.join(root, "tests", "csv_duckdb.cjs"), duckdb_dir,
                                  os.path.join(root, "analysis", "csv-schema.json"),
                                  os.path.join(root, "docs", "csv.md"), bad], capture_output=True, text=True)
        if refused.returncode == 0 or "1..32" not in refused.stderr:
            fail(f"DuckDB loaded '1..32' as an integer: {refused.stderr[:300]}")
        print("DuckDB refuses '1..32' in block_threads: " + refused.stderr.strip().splitlines()[0][:120])
    for name in outputs:
        if name not in result["queries"]:
            fail(f"docs/csv.md has no sql block for {name}")
        check_answers(name, result["queries"][name], "DuckDB")
    return 0


def main(argv):
    reason = ensure_pandas()
    if reason:
        print("skipped: " + reason)
        return 77
    if len(argv) == 2 and argv[0] == "schema":
        return schema_test(os.path.abspath(argv[1]))
    if len(argv) == 3 and argv[0] == "dashboard":
        return dashboard_test(os.path.abspath(argv[1]), argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
