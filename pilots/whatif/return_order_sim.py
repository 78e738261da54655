#!/usr/bin/env python3
"""What-if (no verdict reads it): the 16-byte read_independent stream at W = 0, 64, 128, 256 FFMAs a
load, simulated per SM as four schedulers, N one-warp blocks spread over them by slot (slot mod 4),
each warp looping: wait for its load, issue a burst of D instructions, issue its next load. A
scheduler issues one instruction a cycle, shared among its ready warps either round-robin (taken
as equal shares: 'rr') or greedy-then-oldest (the running warp keeps issuing until its burst ends,
then the lowest slot: 'gto'). A load's latency is L plus a Gaussian draw of sigma. Two return
orders:
  independent - a load completes when its own latency is up;
  in order    - it completes no earlier than every older load issued from its scheduler.
Schedulers share nothing in either order, so each is simulated on its own (event by event); an
SM's time is its slowest warp's end (800 iterations each, as the suite's kernel gives every warp
the same work), divided by the iterations, averaged over seeds 1..8 (the least and the most beside
it).

Inputs, all from one committed run (its warpcost.csv and bench.json; pilots/return_order/README.md
says why):
  L     - the lone iteration at W = 0 (4 warps/SM: one a scheduler), in cycles;
  D(W)  - the lone iteration at W minus L (what the burst adds to a lone warp);
  sigma - sqrt(pi) x the probe's loaded_latency_max_excess_w2_cycles at W = 0, 4 warps/SM (the
          expected excess of the slower of two samples over their mean is sigma/sqrt(pi) for a
          Gaussian);
  rise  - with --locus: each point's own probe latency (loaded_latency_cycles) minus the same W's
          at 4 warps/SM, added to L (the loaded latency's rise, read from the point it prices: a
          what-if only).
Prints, per W and warps/SM, the measured cycles an iteration (N * SMs * 512 B * f / bandwidth) and
each simulation's, with its error.

    python3 pilots/whatif/return_order_sim.py RUN_DIR [--locus] [--policy rr|gto] [--wide]

(--wide adds 24, 32, 48 and 64 warps/SM.) docs/models.md ("A scheduler whose loads complete in
order") quotes its output for the H100 run 31f42062 and the H200 run ef58b233 (archived).
"""
import argparse
import csv
import json
import math
import random
import sys

SCHEDULERS = 4


def scheduler_cycles(k, burst, latency, sigma, in_order, policy, seed, iterations=800):
    """Cycles an iteration of k warps sharing one scheduler: the slowest warp's end over the
    iterations, as a launch whose warps each do the same work ends with its slowest warp."""
    rnd = random.Random(seed)
    ready = [0.0] * k          # when each warp's data is back
    left = [float(burst)] * k  # instructions left in its burst
    done = [0] * k
    finish = [0.0] * k
    last_return = -1e18
    current = None
    t = 0.0
    while min(done) < iterations:
        active = [w for w in range(k) if ready[w] <= t and done[w] < iterations]
        waiting = [ready[w] for w in range(k) if ready[w] > t and done[w] < iterations]
        next_return = min(waiting) if waiting else math.inf
        if not active:
            t = next_return
            continue
        if policy == "gto":
            if current not in active:
                current = min(active)
            share = {current: 1.0}
        else:
            share = {w: 1.0 / len(active) for w in active}
        step = min(min(left[w] / r for w, r in share.items()), next_return - t)
        t += step
        for w, r in share.items():
            left[w] -= step * r
        for w in sorted(share, key=lambda w: left[w]):
            if left[w] > 1e-9:
                continue
            left[w] = float(burst)
            done[w] += 1
            back = t + 1 + latency + sigma * rnd.gauss(0.0, 1.0)
            if in_order:
                back = max(back, last_return + 1)
                last_return = back
            ready[w] = back
            if done[w] == iterations:
                finish[w] = back
    return max(finish) / iterations


def sm_cycles(n_warps, burst, latency, sigma, in_order, policy, seed):
    counts = [len(range(s, n_warps, SCHEDULERS)) for s in range(SCHEDULERS)]
    return max(scheduler_cycles(k, burst, latency, sigma, in_order, policy, seed * 10 + s)
               for s, k in enumerate(counts) if k)


def main():
    parser = argparse.ArgumentParser(description="the return-order what-if (docstring above)")
    parser.add_argument("run", help="a run folder holding bench.json and warpcost.csv")
    parser.add_argument("--locus", action="store_true", help="add each point's probe latency rise to L")
    parser.add_argument("--policy", choices=("rr", "gto"), default="rr")
    parser.add_argument("--wide", action="store_true", help="W = 256 to 64 warps/SM too")
    args = parser.parse_args()
    run, locus, wide, policy = args.run, args.locus, args.wide, args.policy
    bench = json.load(open(f"{run}/bench.json"))
    f = next(b["sm_clock_hz"] for b in bench["benchmarks"] if b["name"].startswith("calibration/sm_clock"))
    probe, sigma = {}, None
    for b in bench["benchmarks"]:
        name = b["name"]
        if not name.startswith("streaming/read_independent/load_bytes:16/"):
            continue
        p = dict(x.split(":") for x in name.split("/")[2:5])
        w, n = int(p["alu_per_load"]), int(p["warps_per_sm"])
        if "loaded_latency_cycles" in b:
            probe[(w, n)] = b["loaded_latency_cycles"]
        if w == 0 and n == 4:
            if "loaded_latency_max_excess_w2_cycles" not in b:
                sys.exit(f"{run}: its W = 0, 4 warps/SM point has no loaded_latency_max_excess_w2_cycles "
                         "(runs from 5 December 20:30 UTC on record it)")
            sigma = math.sqrt(math.pi) * b["loaded_latency_max_excess_w2_cycles"]
    measured = {}
    for r in csv.DictReader(open(f"{run}/warpcost.csv")):
        if (r["benchmark"] == "read_independent" and r["load_bytes"] == "16" and
                r["metric"] == "dram__bytes_read.sum.per_second"):
            w, n, sms = int(r["alu_per_load"]), int(r["warps_per_sm"]), int(r["sm_count"])
            measured[(w, n)] = n * sms * 512 * f / float(r["value"])
    latency = measured[(0, 4)]
    print(f"# L = {latency:.0f} cycles, sigma = {sigma:.0f} cycles, f = {f / 1e9:.3f} GHz, policy {policy}, "
          f"locus {'on' if locus else 'off'}; simulated: mean of seeds 1-8 [least, most]")
    print("W,D,warps_per_sm,measured,independent,in_order,independent_error_pct,in_order_error_pct,"
          "independent_range,in_order_range")
    points = (4, 5, 8, 12, 16) + ((24, 32, 48, 64) if wide else ())
    for w in (0, 64, 128, 256):
        burst = max(1, round(measured[(w, 4)] - latency))
        for n in points:
            if wide and n > 16 and w != 256:
                continue
            got = measured[(w, n)]
            lat = latency + ((probe[(w, n)] - probe[(w, 4)]) if locus else 0.0)
            cells = []
            for in_order in (False, True):
                v = [sm_cycles(n, burst, lat, sigma, in_order, policy, seed) for seed in range(1, 9)]
                cells.append((sum(v) / len(v), min(v), max(v)))
            (ind, ilo, ihi), (ino, olo, ohi) = cells
            print(f"{w},{burst},{n},{got:.0f},{ind:.0f},{ino:.0f},{100 * (ind - got) / got:+.1f},"
                  f"{100 * (ino - got) / got:+.1f},{ilo:.0f}-{ihi:.0f},{olo:.0f}-{ohi:.0f}")


if __name__ == "__main__":
    main()
