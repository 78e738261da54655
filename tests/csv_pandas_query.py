#!/usr/bin/env python3
"""Runs the pandas query that docs/csv.md shows (the python block after "<!-- tested -->") on the CSV
warpcost-analyze writes from a fixture run, and checks its answer against the same CSV read with the
csv module. The fixture's git revision is set to digits only first: pandas must still read it as text.

    csv_pandas_query.py WARPCOST_ANALYZE FIXTURE_JSON DOCS_CSV_MD

Exit 77 (ctest: skipped) with the reason when python3 has no pandas.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pandas_python import ensure_pandas  # noqa: E402


def main(analyze, fixture, doc):
    reason = ensure_pandas()
    if reason:
        print("skipped: " + reason + "; the query in docs/csv.md is run where it is installed")
        return 77
    text = open(doc).read()
    found = re.search(r"<!-- tested -->\s*```python\n(.*?)```", text, re.S)
    if not found:
        print("docs/csv.md has no python block after <!-- tested -->")
        return 1
    query = found.group(1)
    with tempfile.TemporaryDirectory() as tmp:
        run = os.path.join(tmp, "results", "fixture", "run")
        os.makedirs(run)
        data = json.load(open(fixture))
        data["context"]["git_rev"] = "1823362"
        json.dump(data, open(os.path.join(run, "bench.json"), "w"))
        csv_path = os.path.join(tmp, "results", "warpcost.csv")
        subprocess.run([analyze, "--quiet", "--csv", csv_path, os.path.join(tmp, "results")], check=True)
        cwd = os.getcwd()
        os.chdir(tmp)  # the doc reads results/warpcost.csv
        try:
            scope = {}
            exec(query, scope)
        finally:
            os.chdir(cwd)
        df, bw = scope["df"], scope["bw"]
        # git_rev is text, never the number 1823362.
        assert all(isinstance(v, str) for v in df["git_rev"]), df["git_rev"].head()
        assert set(df["git_rev"]) == {"g1823362"}, set(df["git_rev"])
        # The answer, worked out independently from the CSV text.
        expected = {}
        with open(csv_path, newline="") as f:
            for r in csv.DictReader(f):
                if (r["benchmark"] == "read_independent" and r["metric"] == "dram__bytes_read.sum.per_second"
                        and r["alu_per_load"] == "0" and r["load_bytes"] == "16"
                        and r["run_status"] == "current"):
                    params = dict(p.split("=", 1) for p in r["params"].split(";"))
                    expected[int(params["warps_per_sm"])] = float(r["value"])
        got = {int(w): float(v) for w, v in zip(bw["warps_per_sm"], bw["value"])}
        assert len(expected) >= 3, expected
        assert got == expected, (got, expected)
        assert list(bw["warps_per_sm"]) == sorted(got), list(bw["warps_per_sm"])
        assert str(bw["warps_per_sm"].dtype).lower().startswith("int"), bw["warps_per_sm"].dtype
    print("docs/csv.md's query gives bandwidth for warps_per_sm", sorted(got))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
