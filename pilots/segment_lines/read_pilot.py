#!/usr/bin/env python3
"""Reads pilots/segment_lines' CSV and prints each declared decision (README.md beside this file).

usage: read_pilot.py pilot.csv [bench.json]

bench.json (a suite run of the same call) adds HB4: the p32 in-flight curve against Little's law
with that run's loaded-latency locus (the 16-byte W = 0 read_independent sweep).
"""
import csv
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "explain"))
import kernel_model_reference as reference  # noqa: E402


def rate(r):
    return float(r["useful_bytes"]) / float(r["seconds"])


def in_flight_bytes(r):
    """Bytes an SM keeps in flight: its blocks (those launched an SM, at most the occupancy API's
    resident count) x threads x element x segments in flight."""
    blocks = min(int(r["blocks_per_sm"]), int(r["resident_blocks_per_sm"]))
    return blocks * int(r["threads"]) * int(r["elem_bytes"]) * int(r["in_flight"])


def decide(x, explains_at, ruled_out_at):
    if x <= explains_at:
        return "explains"
    if x >= ruled_out_at:
        return "ruled out"
    return "undecided"


def locus_of(bench):
    """The run's loaded-latency locus as the analysis builds it (explain's second implementation,
    tests/explain/kernel_model_reference.py: the 16-byte W = 0 read_independent sweep, throttled
    points left out, made non-decreasing): S, f, Λ(BW) and the ceiling."""
    pts, sms, clock, _ = reference.locus_points(bench)
    return sms, clock, lambda bw: reference.lam(pts, bw), pts[-1][0]


def little(sms, clock, cycles, ceiling, bytes_per_sm):
    if sms * clock * bytes_per_sm / cycles(ceiling) >= ceiling:
        return ceiling
    lo, hi = 0.0, ceiling
    for _ in range(200):
        mid = (lo + hi) / 2
        if sms * clock * bytes_per_sm / cycles(mid) > mid:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    lines = open(argv[1]).read().splitlines()
    if "# output checks failed: 0" not in lines:
        sys.exit(f"{argv[1]}: no '# output checks failed: 0' line: the run's outputs were wrong or it did not finish")
    rows = {r["config"]: r for r in csv.DictReader(line for line in lines if not line.startswith("#"))}
    print("config        in flight/SM  rate (TB/s)")
    for name, r in rows.items():
        print(f"  {name:14} {in_flight_bytes(r) / 1024:7.1f} KiB  {rate(r) / 1e12:6.3f}")
    q1 = rate(rows["p16_pitch256"]) / rate(rows["p16"])
    print(f"\nHB1 neighbour completes the line: p16_pitch256 / p16 = {q1:.3f} -> {decide(q1, 0.80, 0.95)}"
          f" (p16_pitch128 / p16 = {rate(rows['p16_pitch128']) / rate(rows['p16']):.3f}, read only)")
    q2 = rate(rows["p32_private"]) / rate(rows["p32"])
    print(f"HB2 grid-wide front: p32_private / p32 = {q2:.3f} -> {decide(q2, 0.85, 0.95)}"
          f" (p16_private / p16 = {rate(rows['p16_private']) / rate(rows['p16']):.3f}, read only)")
    q3 = rate(rows["p32_e16_u1"]) / rate(rows["p32"])
    print(f"HB3 bytes decide: p32_e16_u1 / p32 = {q3:.3f} -> " + ("bytes decide" if 0.95 <= q3 <= 1.05 else "not bytes alone"))
    if len(argv) == 3:
        sms, clock, cycles, ceiling = locus_of(json.load(open(argv[2])))
        within = 0
        names = ["p32_b8", "p32_b16", "p32_u1", "p32_u2", "p32", "p32_u8"]  # the README's HB4 points
        print(f"HB4 the locus prices the segment kernel (ceiling {ceiling / 1e12:.3f} TB/s):")
        for name in names:
            r = rows[name]
            pred = little(sms, clock, cycles, ceiling, in_flight_bytes(r))
            err = rate(r) / pred - 1
            within += abs(err) <= 0.05
            print(f"  {name:11} {in_flight_bytes(r) / 1024:6.1f} KiB  measured {rate(r) / 1e12:.3f}  Little {pred / 1e12:.3f}  {err:+.1%}")
        print(f"  {within} of {len(names)} within 5 % -> " + ("prices it" if within == len(names) else "does not price it"))


if __name__ == "__main__":
    main(sys.argv)
