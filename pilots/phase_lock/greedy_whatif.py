#!/usr/bin/env python3
"""What-if, written after the H100 run of 7 December 02:57 was read (no rule, no verdict): do a scheduler's
warps, issuing their bursts greedily (the scheduler stays with the running warp until it stalls, as the
offsets show), price the 8 and 16 warps/SM periods from what the lone warps measured?

  greedy_whatif.py STAMPS_FILE [SEEDS]

Inputs, none read from the points priced: the lone warp's burst S (W = 256, 4 warps/SM: every warp alone on
its scheduler, if a scheduler is %warpid mod 4), its latencies (the same run's every read latency, drawn at
random, independently), and the memory's own step (the W = 0 runs' mean latency at 8 less at 4 warps/SM,
added to every draw at 8; at 16, twice it, an extrapolation). A scheduler's k warps each wait for their data,
then take the scheduler for S cycles (when it is free: the longest-waiting ready warp first), then load again.
Beside it: greedy, handing over before the load at every chance (greedy_handover); round-robin (k warps in
their bursts share the scheduler evenly and continuously, the lone burst's few non-issue cycles shared too,
which overstates its cost a little). A warp's mean period is the time between its first and its last burst
start over the bursts between, averaged over the warps; 4000 iterations a warp (round-robin 1000), the mean of
SEEDS seeds (default 8)."""
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import read_pilot as r  # noqa: E402

F, L = r.FIRST, r.LAST
# the tail: from the handover to the load. The loop's SASS after its last FFMA: IADD3, BRA, S2UR (the issue
# stamp), NOP, LEA, LEA.HI.X, LDG: 7 instructions, 4 from the stamp on (the two ISETPs sit 20-24 FFMAs
# earlier). 4, 9 and 20 cycles.
TAILS = (4, 9, 20)


def mean_period(starts):
    """Each warp's (last burst start - first) / (bursts - 1), averaged over the warps."""
    return statistics.fmean((s[-1] - s[0]) / (len(s) - 1) for s in starts if len(s) > 1)


def greedy(k, S, draw, iterations, rng):
    ready = [draw(rng) for _ in range(k)]  # a common start: every warp's first load issued at 0
    free, done, starts = 0.0, [0] * k, [[] for _ in range(k)]
    while min(done) < iterations:
        w = min((i for i in range(k) if done[i] < iterations), key=lambda i: ready[i])
        start = max(ready[w], free)
        starts[w].append(start)
        free = start + S
        ready[w] = free + draw(rng)
        done[w] += 1
    return mean_period(starts)


def greedy_handover(k, S, tail, draw, iterations, rng):
    """Greedy, handing over before the load: a warp's burst (S - tail cycles) and then its tail (the loop's
    end, the issue stamp and the load: `tail` cycles) are two tasks; when the scheduler comes free it takes
    the task that has waited longest, so a warp whose data came in during another's burst runs its burst
    before that warp's tail, whose load then waits a whole burst."""
    ready = [(draw(rng), 0, i) for i in range(k)]  # (ready time, 0 burst / 1 tail, warp)
    free, done, starts = 0.0, [0] * k, [[] for _ in range(k)]
    while ready:
        ready.sort()
        t, kind, w = ready.pop(0)
        start = max(t, free)
        if kind == 0:
            starts[w].append(start)
            free = start + (S - tail)
            ready.append((free, 1, w))
        else:
            free = start + tail
            done[w] += 1
            if done[w] < iterations:
                ready.append((free + draw(rng), 0, w))
    return mean_period(starts)


def round_robin(k, S, draw, iterations, rng):
    """Warps in their bursts share the scheduler evenly and continuously (event to event)."""
    t = 0.0
    ready = [draw(rng) for _ in range(k)]
    left = [None] * k  # burst cycles left, None while waiting for data
    done, starts = [0] * k, [[] for _ in range(k)]
    while min(done) < iterations:
        bursting = [i for i in range(k) if left[i] is not None]
        if not bursting:
            t = min(ready[i] for i in range(k) if done[i] < iterations)
            for i in range(k):
                if left[i] is None and ready[i] <= t and done[i] < iterations:
                    left[i] = float(S)
                    starts[i].append(t)
            continue
        # the next event: a burst ends or a warp's data arrives
        share = 1.0 / len(bursting)
        t_end = t + min(left[i] for i in bursting) / share
        waiting = [ready[i] for i in range(k) if left[i] is None and done[i] < iterations and ready[i] > t]
        t_next = min([t_end] + waiting)
        for i in bursting:
            left[i] -= (t_next - t) * share
        t = t_next
        for i in range(k):
            if left[i] is not None and left[i] <= 1e-9:
                left[i] = None
                done[i] += 1
                ready[i] = t + draw(rng)
            elif left[i] is None and ready[i] <= t and done[i] < iterations:
                left[i] = float(S)
                starts[i].append(t)
    return mean_period(starts)


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    seeds = int(sys.argv[2]) if len(sys.argv) == 3 else 8
    configs = r.load(sys.argv[1])
    lone = r.find(configs, 256, 4, False)
    z4, z8 = r.find(configs, 0, 4, False), r.find(configs, 0, 8, False)
    lat = lambda c: [wp[3][k] - wp[2][k] for wp in c.warps for k in range(F, L + 1)]
    per = lambda c: statistics.fmean(wp[3][k + 1] - wp[3][k] for wp in c.warps for k in range(F, L + 1))
    S = statistics.median(wp[2][k + 1] - wp[3][k] for wp in lone.warps for k in range(F, L + 1))
    pool = lat(lone)
    step = statistics.fmean(lat(z8)) - statistics.fmean(lat(z4))
    print("inputs: S %.0f cycles; %d lone latencies, mean %.1f; memory step %.1f cycles (W = 0, 4 -> 8 warps/SM)"
          % (S, len(pool), statistics.fmean(pool), step))
    print("lone warp: measured mean period %.1f; greedy with k = 1 %.1f" % (
        per(lone), statistics.fmean(greedy(1, S, lambda g: g.choice(pool), 4000, random.Random(s)) for s in range(seeds))))
    for n, extra in ((8, step), (16, 2 * step)):
        c = r.find(configs, 256, n, False)
        k = n // 4
        draw = lambda g, extra=extra: g.choice(pool) + extra
        gr = [greedy(k, S, draw, 4000, random.Random(s)) for s in range(seeds)]
        rr = [round_robin(k, S, draw, 1000, random.Random(s)) for s in range(seeds)]
        m = per(c)
        print("%d warps/SM (%d a scheduler): measured mean period %.1f; greedy %.1f (%+.1f %%, seeds %.1f-%.1f); "
              "round-robin %.1f (%+.1f %%)" % (n, k, m, statistics.fmean(gr), 100 * (statistics.fmean(gr) / m - 1),
                                               min(gr), max(gr), statistics.fmean(rr), 100 * (statistics.fmean(rr) / m - 1)))
        for tail in TAILS:
            gh = [greedy_handover(k, S, tail, draw, 4000, random.Random(s)) for s in range(seeds)]
            print("   greedy handing over %d cycles before the load: %.1f (%+.1f %%)"
                  % (tail, statistics.fmean(gh), 100 * (statistics.fmean(gh) / m - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
