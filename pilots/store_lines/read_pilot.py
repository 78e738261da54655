#!/usr/bin/env python3
"""Reads pilots/store_lines' CSV and prints each declared decision (README.md beside this file).

usage: read_pilot.py pilot.csv [bench.json]

bench.json (a suite run of the same GPU), when given, adds the check of the pilot's a0/a1/a8/a16
against the suite's load_dram/store_dram points of the same shape (reading only).
"""
import csv
import json
import sys

EXPLAINS, RULED_OUT = 0.75, 0.25


def verdict(share):
    if share is None:
        return "undecidable (no gap to explain)"
    if share >= EXPLAINS:
        return "explains"
    if share < RULED_OUT:
        return "ruled out"
    return "undecided"


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(line for line in open(argv[1]) if not line.startswith("#"))]
    t = {(r["op"], r["level"], r["pattern"]): float(r["seconds"]) for r in rows}

    def gap(op, level, p):
        return t[(op, level, p)] / t[(op, level, "a0")] - 1

    def share(num, den):
        return None if den <= 0.05 else num / den

    print("gaps (time / a0's - 1), per op and level:")
    for op in ("store", "load"):
        for level in ("dram", "l2"):
            ps = [k[2] for k in t if k[0] == op and k[1] == level and k[2] != "a0"]
            print(f"  {op:5} {level:4} " + "  ".join(f"{p} {gap(op, level, p):+.3f}" for p in ps))
    print("\nHS1 (stores): does the offset's cost live in the request path (the same gap inside the L2)?")
    for p in ("a8", "a1"):
        s = share(gap("store", "l2", p), gap("store", "dram", p))
        print(f"  {p}: L2 gap / DRAM gap = {'n/a' if s is None else f'{s:.2f}'} -> request path {verdict(s)}")
    print("HS2 (stores): is it the request straddling two lines (c*, whose neighbours complete every")
    print("      sector and granule, pay as much) rather than what is left half-covered?")
    for c, a in (("c8", "a8"), ("c1", "a1")):
        s = share(gap("store", "dram", c), gap("store", "dram", a))
        print(f"  {c} / {a} DRAM gap = {'n/a' if s is None else f'{s:.2f}'} -> per-request straddle {verdict(s)}")
    print("HL1 (loads offset 16): request path?")
    s = share(gap("load", "l2", "a16"), gap("load", "dram", "a16"))
    print(f"  a16: L2 gap / DRAM gap = {'n/a' if s is None else f'{s:.2f}'} -> request path {verdict(s)}")
    s = share(gap("load", "dram", "c16"), gap("load", "dram", "a16"))
    print(f"  c16 / a16 DRAM gap = {'n/a' if s is None else f'{s:.2f}'} -> per-request straddle {verdict(s)}")
    print("HL2 (block_2d): does a request's line count price the far halves and quarters?")
    a16 = gap("load", "dram", "a16")
    h2 = gap("load", "dram", "h2")
    h4 = gap("load", "dram", "h4")
    if a16 > 0.05:
        r = h2 / a16
        print(f"  h2 / a16 DRAM gap = {r:.2f} -> {'same two-line cost' if 0.75 <= r <= 1.33 else 'not the line count alone'}")
    else:
        print("  a16 has no DRAM gap: undecidable")
    if h2 > 0.05:
        r = h4 / (3 * h2)
        print(f"  h4 / (3 x h2) DRAM gap = {r:.2f} -> {'cost a line beyond the first' if 0.75 <= r <= 1.33 else 'not linear in lines'}")
    else:
        print("  h2 has no DRAM gap: undecidable")
    if len(argv) == 3:
        bench = json.load(open(argv[2]))["benchmarks"]
        by = {b["name"].split("/iterations")[0]: b for b in bench}
        print("\nreading only: the pilot's DRAM times against the suite's points of the same shape")
        for op, kind in (("load", "load_dram"), ("store", "store_dram")):
            for p, off in (("a0", 0), ("a1", 1), ("a8", 8), ("a16", 16)):
                b = by.get(f"coalescing/{kind}/elem_bytes:4/stride:1/offset:{off}")
                if b is None or (op, "dram", p) not in t:
                    continue
                unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "us")]
                per_req_suite = b["real_time"] * unit / b["warp_requests"]
                per_req_pilot = t[(op, "dram", p)] / float(next(r["requests"] for r in rows if r["pattern"] == p))
                print(f"  {op} {p}: pilot {per_req_pilot * 1e12:.2f} ps a request, suite {per_req_suite * 1e12:.2f}")


if __name__ == "__main__":
    main(sys.argv)
