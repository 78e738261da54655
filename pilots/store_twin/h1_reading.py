#!/usr/bin/env python3
"""A reading, not a rule: explain's store cases re-priced with H1 of the store-twin pilot.

usage: h1_reading.py ROUND_DIR BENCH.json R_SAT PILOT.csv CASE[,CASE...]

The kernel model's second implementation (tests/explain/kernel_model_reference.py), with one change:
the loads of a kernel that writes wait at Λ_read(BW) + s (Λ_copy(BW) − Λ_read(BW)), s = min(1,
written / read DRAM bytes), Λ_copy the pilot's copy16 stream (Little's law: in-flight bytes over
its read rate, at its total DRAM rate). Prints each case's coalescing fix price as the round priced
it and under that change. The pilot's figures enter no verdict; this is how docs/explain.md's
"tried as a reading" figures were computed (on the H100 round of 6 December, in-sample).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "explain"))
import kernel_model_reference as R  # noqa: E402


def copy_locus(pilot_csv, sms, clock):
    pts = []
    for line in open(pilot_csv):
        if not line.startswith("stream,copy16,"):
            continue
        _, _, w, s, rb, wb = line.strip().split(",")
        w, s, rb, wb = int(w), float(s), float(rb), float(wb)
        in_flight = sms * w * 32 * 16.0
        pts.append(((rb + wb) / s, in_flight / (rb / s) * clock))
    pts.sort()
    out, top = [], 0.0
    for bw, c in pts:  # non-decreasing, as the read locus
        top = max(top, c)
        out.append((bw, top))
    return out


PLAIN_LAM = R.lam
PLAIN_TIME = R.time_of
H1 = {"on": False}


def time_of(k, g):
    if not H1["on"] or k.get("Bw", 0) <= 0:
        return PLAIN_TIME(k, g)
    s = min(1.0, k["Bw"] / max(k["B"] - k["Bw"], 1e-9))

    def lam(pts, bw):
        if pts is g["locus"]:
            a, b = PLAIN_LAM(pts, bw), PLAIN_LAM(g["copy"], bw)
            return a + s * (b - a)
        return PLAIN_LAM(pts, bw)

    R.lam = lam
    try:
        return PLAIN_TIME(k, g)
    finally:
        R.lam = PLAIN_LAM


R.time_of = time_of


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    bench = json.load(open(argv[2]))
    g = dict(R.gpu_of(bench, argv[3], R.turnover_of(bench)), copy_locus=[])  # the pilot's curve only, below
    sms = g["sms"]
    g["copy"] = copy_locus(argv[4], sms, g["clock"])
    for case in argv[5].split(","):
        records = os.path.join(argv[1], case, "records.jsonl")
        prices = []
        for on in (False, True):
            H1["on"] = on
            k, measured = R.kernel_of(records, sms)  # k["Bw"]: its written DRAM bytes a block
            fitted, _ = R.fit(k, g, measured)
            prices.append(R.time_of(fitted, g) / R.time_of(R.fix(fitted, "coalescing", g), g))
        print(f"{case}: coalescing fix {prices[0]:.3f} as priced, {prices[1]:.3f} under H1")


if __name__ == "__main__":
    main(sys.argv)
