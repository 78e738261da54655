#!/usr/bin/env python3
"""What-if (no verdict reads it): the 16-byte read_independent stream at W = 0, 64, 128, 256 FFMAs a
load, simulated per SM as four schedulers, N one-warp blocks spread over them by slot (slot mod 4),
each warp looping: wait for its load, issue a burst of D instructions (one a cycle a scheduler,
shared round-robin among its ready warps), issue its next load. A load's latency is L plus a
Gaussian draw of sigma. Two return orders:
  independent - a load completes when its own latency is up;
  in order    - it completes no earlier than every older load issued from its scheduler.
Inputs, all from one committed run (its warpcost.csv and bench.json; pilots/return_order/README.md
says why):
  L     - the lone iteration at W = 0 (4 warps/SM: one a scheduler), in cycles;
  D(W)  - the lone iteration at W minus L (what the burst adds to a lone warp);
  sigma - sqrt(pi) x the probe's loaded_latency_max_excess_w2_cycles at W = 0, 4 warps/SM (the
          expected excess of the slower of two samples over their mean is sigma/sqrt(pi) for a
          Gaussian).
The latency's rise with load (the locus) is left out: the W = 0 rows show what that leaves.
Prints, per W and warps/SM, the measured cycles an iteration (N * SMs * 512 B * f / bandwidth) and
each simulation's (the slowest warp's, iterations 50..300, seed 1).

    python3 pilots/whatif/return_order_sim.py RUN_DIR   # a folder with warpcost.csv and bench.json

On 6 December 2026 (written after reading the data: a what-if, not a rule), H200 ef58b233
(archived; L = 846, sigma = 157) and H100 31f42062 (L = 870, sigma = 138): see the printout quoted
in docs/models.md, "The two streaming misses left".
"""
import json
import math
import random
import sys

SCHEDULERS = 4


def iteration_cycles(n_warps, burst, latency, sigma, in_order, iterations=300, warm=50, seed=1):
    rnd = random.Random(seed)
    ready = [0.0] * n_warps
    left = [burst] * n_warps
    done = [0] * n_warps
    mark = [0.0] * n_warps
    finish = [0.0] * n_warps
    turn = [0] * SCHEDULERS
    last_return = [-1e18] * SCHEDULERS
    warps_of = [list(range(s, n_warps, SCHEDULERS)) for s in range(SCHEDULERS)]
    t = 0
    while min(done) < iterations:
        for s in range(SCHEDULERS):
            mine = warps_of[s]
            if not mine:
                continue
            m = len(mine)
            best = None
            for j in range(m):
                w = mine[(turn[s] + j) % m]
                if done[w] < iterations and ready[w] <= t:
                    best = w
                    turn[s] = (turn[s] + j + 1) % m
                    break
            if best is None:
                continue
            w = best
            left[w] -= 1
            if left[w] > 0:
                continue
            left[w] = burst
            done[w] += 1
            back = t + 1 + latency + sigma * rnd.gauss(0.0, 1.0)
            if in_order:
                back = max(back, last_return[s] + 1)
                last_return[s] = back
            ready[w] = back
            if done[w] == warm:
                mark[w] = back
            if done[w] == iterations:
                finish[w] = back
        t += 1
    return max((finish[w] - mark[w]) / (iterations - warm) for w in range(n_warps))


def main():
    import csv
    run = sys.argv[1]
    bench = json.load(open(f"{run}/bench.json"))
    f = next(b["sm_clock_hz"] for b in bench["benchmarks"] if b["name"].startswith("calibration/sm_clock"))
    sigma = next(math.sqrt(math.pi) * b["loaded_latency_max_excess_w2_cycles"] for b in bench["benchmarks"]
                 if b["name"].startswith("streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:4/"))
    measured = {}
    for r in csv.DictReader(open(f"{run}/warpcost.csv")):
        if (r["benchmark"] == "read_independent" and r["load_bytes"] == "16" and
                r["metric"] == "dram__bytes_read.sum.per_second"):
            w, n, sms = int(r["alu_per_load"]), int(r["warps_per_sm"]), int(r["sm_count"])
            measured[(w, n)] = n * sms * 512 * f / float(r["value"])
    latency = measured[(0, 4)]
    print(f"# L = {latency:.0f} cycles, sigma = {sigma:.0f} cycles, f = {f / 1e9:.3f} GHz")
    print("W,D,warps_per_sm,measured,independent,in_order,independent_error_pct,in_order_error_pct")
    for w in (0, 64, 128, 256):
        burst = max(1, round(measured[(w, 4)] - latency))
        for n in (4, 5, 8, 12, 16):
            got = measured[(w, n)]
            ind = iteration_cycles(n, burst, latency, sigma, False)
            ino = iteration_cycles(n, burst, latency, sigma, True)
            print(f"{w},{burst},{n},{got:.0f},{ind:.0f},{ino:.0f},{100 * (ind - got) / got:+.1f},{100 * (ino - got) / got:+.1f}")


if __name__ == "__main__":
    main()
