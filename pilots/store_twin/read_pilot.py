#!/usr/bin/env python3
"""Reads the store-twin pilot's CSV (store_twin_pilot.cu's output) and decides its hypotheses as
README.md declares them, before any of its data existed.

Usage: read_pilot.py PILOT.csv BENCH.json RECORDS.jsonl R_SAT

BENCH.json: the suite run of the same GPU (its locus, turnover sweep, SM count and clock);
RECORDS.jsonl: a gather_stride session of explain's proof round (the twin's instructions a block,
which the pilot does not count); R_SAT: the run's saturated_issue_rate row. Prints each row's figures,
then G (what the twin's time holds beyond the kernel model with U = 0) and each hypothesis' quantity
with its verdict: explains (at least 75 % of G), ruled out (under 25 %) or undecided.
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "explain"))
import kernel_model_reference as R  # noqa: E402

TWIN_THREADS = 16 * 2**20


def interpolate(points, x):
    """Linear between (x, y) points, clamped at the ends: the reference's locus interpolation."""
    return R.lam(sorted(points), x)


def verdict(quantity, gap):
    return "explains" if quantity >= 0.75 * gap else "ruled out" if quantity < 0.25 * gap else "undecided"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().splitlines()
    header = next(l for l in lines if l.startswith("# ") and "SMs" in l)
    clock = float(next(l for l in lines if l.startswith("# clock_hz")).split(",")[1])
    rows = {(r["kind"], r["name"], int(r["warps_per_sm"])): r for r in csv.DictReader(l for l in lines if l and not l.startswith("#"))}
    bench = json.load(open(sys.argv[2]))
    gpu = bench["context"].get("gpu_name", bench["context"].get("device_name", ""))
    if gpu and gpu not in header:
        sys.exit(f"the pilot ran on '{header[2:]}', the run on '{gpu}': price the pilot from a run of its own GPU")
    pts, sms, run_clock, ctx = R.locus_points(bench)
    g = dict(locus=pts, sms=sms, clock=run_clock, rsat=float(sys.argv[4]), turnover=R.turnover_of(bench),
             max_blocks=float(ctx["max_blocks_per_sm"]), max_warps=float(ctx["max_warps_per_sm"]))
    print(f"pilot: {header[2:]}; run: locus {pts[0][1]:.0f} cycles unloaded, ceiling {pts[-1][0] / 1e12:.3f} TB/s")
    blocks_of = {"copy": TWIN_THREADS / 256, "load_warp_store": TWIN_THREADS / 256, "store_only": TWIN_THREADS / 256,
                 "turnover": TWIN_THREADS / 256, "copy_block32": TWIN_THREADS / 32,
                 "load_warp_store_block32": TWIN_THREADS / 32, "opt16_read": TWIN_THREADS / 256,
                 "opt16_copy": TWIN_THREADS / 256}
    per_sm = {}
    for (kind, name, wps), r in sorted(rows.items()):
        if kind != "twin":
            continue
        s, rb, wb = float(r["seconds"]), float(r["read_bytes"]), float(r["write_bytes"])
        # copy_resident: the resident grid, every block alive the whole launch; no per-block figure.
        cyc = f"{s / (blocks_of[name] / sms) * clock:7.1f} cycles a block an SM" if name in blocks_of else "(resident grid)"
        if name in blocks_of:
            per_sm[name] = s / (blocks_of[name] / sms) * clock
        print(f"twin {name:26s} {s * 1e6:8.1f} us  read {rb / s / 1e12:5.2f}  write {wb / s / 1e12:5.2f} TB/s  {cyc}")
    read16 = [(float(r["read_bytes"]) / float(r["seconds"]), sms * w * 512.0 / (float(r["read_bytes"]) / float(r["seconds"])) * clock)
              for (kind, name, w), r in rows.items() if kind == "stream" and name == "read16"]
    copy16 = []
    for (kind, name, w), r in sorted(rows.items()):
        if kind != "stream":
            continue
        s, rb, wb = float(r["seconds"]), float(r["read_bytes"]), float(r["write_bytes"])
        lat = sms * w * 512.0 / (rb / s) * clock
        if name == "copy16":
            copy16.append(((rb + wb) / s, lat))
        print(f"{name:7s} W={w:3d}  read {rb / s / 1e12:5.3f}  total {(rb + wb) / s / 1e12:5.3f} TB/s  Little {lat:6.0f} cycles"
              f"  suite locus at read {R.lam(pts, rb / s):6.0f}")
    # G: the twin's measured time against the kernel model with U = 0 (the coalesced re-solve of a
    # gather session: the twin's blocks, instructions and bytes).
    k, _ = R.kernel_of(sys.argv[3], sms)
    twin = R.fix(dict(k, m=1.0, u_mem=0.0, u_iss=0.0, sec0=k["sec"], ipw0=k["ipw"]), "coalescing", g)
    model = R.time_of(twin, g)
    measured = float(rows[("twin", "copy", 64)]["seconds"])
    lo, hi = 0.0, 1e5
    for _ in range(100):
        mid = (lo + hi) / 2
        (lo, hi) = (mid, hi) if R.time_of(dict(twin, u_iss=mid), g) < measured else (lo, mid)
    gap_delay = hi
    gap_sm = (measured - model) / (twin["G"] / sms) * clock
    print(f"\nG: the twin {measured * 1e6:.1f} us against the model's {model * 1e6:.1f} us with U = 0: {gap_sm:.0f} cycles a block"
          f" an SM, or {gap_delay:.0f} cycles of delay a block")
    # H1: the copy stream's loaded latency over the read stream's at the twin's total DRAM rate.
    total = twin["B"] * twin["G"] / measured
    h1 = interpolate(copy16, total) - interpolate(read16, total)
    print(f"H1 (a stream that writes waits longer): copy16 {interpolate(copy16, total):.0f} against read16 "
          f"{interpolate(read16, total):.0f} cycles at {total / 1e12:.2f} TB/s total: {h1:+.0f} cycles against "
          f"{gap_delay:.0f}: {verdict(h1, gap_delay)}")
    # H2: the same twin with each word stored against one word a warp.
    h2 = per_sm["copy"] - per_sm["load_warp_store"]
    print(f"H2 (full-line stores hold the block): copy {per_sm['copy']:.1f} against load_warp_store "
          f"{per_sm['load_warp_store']:.1f} cycles a block an SM: {h2:+.1f} against {gap_sm:.0f}: {verdict(h2, gap_sm)}")
    print("H3 (a block waits for its slowest warp): not decided here (the suite's locus points record the spread, "
          "loaded_latency_max_excess_w*_cycles); for reading only: opt16_copy - opt16_read "
          f"{per_sm['opt16_copy'] - per_sm['opt16_read']:+.1f} cycles a block an SM")


if __name__ == "__main__":
    main()
