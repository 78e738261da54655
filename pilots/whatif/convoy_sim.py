#!/usr/bin/env python3
"""What-if (no verdict reads it): k warps on one scheduler, each iteration a load latency Z (with a
relative Gaussian jitter) then a burst of D issue cycles, one instruction a cycle shared among the
ready warps either round-robin ('rr') or greedy-then-oldest ('gto'). Prints the cycles an iteration
of the slowest warp, for k = 1..4, warps launched together, as the least and the most over six
jitter seeds. The jitter is not measured: it is the what-if's free parameter. docs/models.md ("The
two streaming misses left") quotes it for D = 263, Z = 871 (the H100 run
20261206T150548Z-31f42062's W = 256 burst and W = 0 lone iteration).

    python3 pilots/whatif/convoy_sim.py [D Z iterations]
"""
import random
import sys


def iteration_cycles(k, burst, latency, iterations, policy, jitter, seed=1):
    rnd = random.Random(seed)
    left = [burst] * k
    ready = [0.0] * k
    done = [0] * k
    finish = [0.0] * k
    t, turn, current = 0, 0, None
    while min(done) < iterations:
        candidates = [i for i in range(k) if done[i] < iterations and ready[i] <= t]
        if candidates:
            if policy == "rr":
                i = min(candidates, key=lambda j: (j - turn) % k)
                turn = (i + 1) % k
            else:
                i = current if current in candidates else min(candidates)
            current = i
            left[i] -= 1
            if left[i] <= 0:
                done[i] += 1
                left[i] = burst
                ready[i] = t + 1 + latency * (1 + jitter * rnd.gauss(0, 1))
                if done[i] == iterations:
                    finish[i] = ready[i]
        t += 1
    return max(finish) / iterations


def main():
    burst = int(sys.argv[1]) if len(sys.argv) > 1 else 263
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 871.0
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    print("jitter,policy,k=1,k=2,k=3,k=4 (least..most over seeds 1-6)")
    for jitter in (0.0, 0.02, 0.05, 0.10):
        for policy in ("rr", "gto"):
            cells = []
            for k in (1, 2, 3, 4):
                got = [iteration_cycles(k, burst, latency, iterations, policy, jitter, seed) for seed in range(1, 7)]
                cells.append(f"{round(min(got))}..{round(max(got))}")
            print(f"{jitter},{policy}," + ",".join(cells))


if __name__ == "__main__":
    main()
