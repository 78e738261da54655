#!/usr/bin/env python3
"""Reads the store-twin pilot's CSV (store_twin_pilot.cu's output) beside a suite run's locus.

Usage: read_pilot.py PILOT.csv BENCH.json

Prints, for each twin variant, its time, DRAM rates and nanoseconds a block an SM; for each stream
point, the loaded latency by Little's law (one 16-byte load of 32 lanes in flight a warp: 512 B) and
the suite's read locus at the point's read rate and at its total (read + write) rate. Hypotheses and
what decides between them: README.md beside this file.
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "explain"))
import kernel_model_reference as R  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().splitlines()
    clock = float(next(l for l in lines if l.startswith("# clock_hz")).split(",")[1])
    rows = list(csv.DictReader(l for l in lines if l and not l.startswith("#")))
    pts, sms, _, _ = R.locus_points(json.load(open(sys.argv[2])))
    print(f"pilot clock {clock / 1e6:.0f} MHz, {int(sms)} SMs; suite locus {pts[0][1]:.0f} cycles unloaded, ceiling {pts[-1][0] / 1e12:.3f} TB/s")
    for r in rows:
        if r["kind"] != "twin":
            continue
        s, rb, wb = float(r["seconds"]), float(r["read_bytes"]), float(r["write_bytes"])
        blocks = 16 * 2**20 / (32 if "block32" in r["name"] else 256)
        print(f"twin {r['name']:26s} {s * 1e6:8.1f} us  read {rb / s / 1e12:5.2f}  write {wb / s / 1e12:5.2f} TB/s"
              f"  {s / (blocks / sms) * clock:7.1f} cycles a block an SM")
    for r in rows:
        if r["kind"] != "stream":
            continue
        s, rb, wb, w = float(r["seconds"]), float(r["read_bytes"]), float(r["write_bytes"]), int(r["warps_per_sm"])
        lat = sms * w * 512.0 / (rb / s) * clock
        tot = (rb + wb) / s
        print(f"{r['name']:7s} W={w:3d}  read {rb / s / 1e12:5.3f}  total {tot / 1e12:5.3f} TB/s  Little {lat:6.0f} cycles"
              f"  locus at read {R.lam(pts, rb / s):6.0f}  at total {R.lam(pts, tot):6.0f}")


if __name__ == "__main__":
    main()
