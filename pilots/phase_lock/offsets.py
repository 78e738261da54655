#!/usr/bin/env python3
"""Exploratory, written after the H100 run of 7 December 02:57 was read (not part of the declared decision):
where a warp's partners stand when its data arrives.

  offsets.py STAMPS_FILE

For W = 256 at 8 warps/SM: around each read arrival a_k of each warp, the arrivals of the other warps of
its SM within +-700 cycles, in 20-cycle bins, for the warp's scheduler mate (%warpid mod 4 equal) and
for the warps of the other schedulers (per warp, so the two rows compare); then the mate's offsets cycle
by cycle within 320 cycles. Under round-robin issue a mate's arrival stamp can fall anywhere in a burst;
under greedy issue (the scheduler stays with the running warp until it stalls) only where the running warp
stalls. Then a load's latency by when the mate's burst started before its issue stamp (cycle by cycle), and the
periods', latencies' and bursts' means and quantiles of every configuration."""
import bisect
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import read_pilot as r  # noqa: E402

F, L = r.FIRST, r.LAST


def offsets(cfg, same, lo=-700, hi=700):
    counts, warps_read = {}, 0
    for warps in r.by_sm(cfg).values():
        for a in warps:
            warps_read += 1
            for b in warps:
                if a is b or (a[1] % 4 == b[1] % 4) != same:
                    continue
                for k in range(F, L + 1):
                    x = a[3][k]
                    p = bisect.bisect_left(b[3], x + lo)
                    while p < len(b[3]) and b[3][p] < x + hi:
                        d = b[3][p] - x
                        counts[d] = counts.get(d, 0) + 1
                        p += 1
    return counts, warps_read


def binned(counts, per, width=20, lo=-700, hi=700):
    bins = {}
    for d, c in counts.items():
        if lo <= d < hi:
            key = d // width * width
            bins[key] = bins.get(key, 0) + c
    return " ".join("%d:%.0f" % (k, bins.get(k, 0) / per) for k in range(lo, hi, width))


def quantiles(xs):
    xs = sorted(xs)
    return "mean %.1f, q10/25/50/75/90/99 %s" % (statistics.fmean(xs), "/".join(
        str(xs[int(p * (len(xs) - 1))]) for p in (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    configs = r.load(sys.argv[1])
    pair = r.find(configs, 256, 8, False)
    for same, name in ((True, "scheduler mate"), (False, "other schedulers' warps")):
        counts, n = offsets(pair, same)
        others = 1 if same else 6
        print("W = 256, 8 warps/SM, %s: arrivals around a warp's own, per 1000 of its arrivals and per warp, "
              "20-cycle bins from -700:" % name)
        print("  " + binned(counts, n * (L - F + 1) * others / 1000))
    counts, _ = offsets(pair, True, -320, 320)
    print("scheduler mate, cycle by cycle within 320 (counts):")
    print("  " + " ".join("%d:%d" % (d, counts[d]) for d in sorted(counts)))
    # A warp's load after its mate took the scheduler: the mate's arrival stamp (its burst's start) 1-12 or
    # 13-60 cycles before this warp's issue stamp (its load comes 4 instructions later), against the rest.
    groups, where = {}, {}
    for wp, o in r.mates(pair):
        for k in range(F, L + 1):
            s = wp[2][k]
            p = bisect.bisect_left(o[3], s - 60)
            d = o[3][p] - s if p < len(o[3]) and o[3][p] < s else None
            g = "1-12" if d is not None and d >= -12 else "13-60" if d is not None else "not within 60"
            if d is not None:
                where[d] = where.get(d, 0) + 1
            groups.setdefault(g, []).append(wp[3][k] - s)
    lone = r.find(configs, 256, 4, False)
    groups["lone warps (4 warps/SM)"] = [wp[3][k] - wp[2][k] for wp in lone.warps for k in range(F, L + 1)]
    total = sum(len(v) for g, v in groups.items() if not g.startswith("lone"))
    print("W = 256, 8 warps/SM: a load's latency (issue stamp to arrival stamp) by when the mate's burst started "
          "before the issue stamp:")
    print("  the mate's burst start, cycles before the issue stamp (loads): " +
          " ".join("%d:%d" % (-d, where[d]) for d in sorted(where, reverse=True)))
    for g in ("1-12", "13-60", "not within 60", "lone warps (4 warps/SM)"):
        v = sorted(groups.get(g, []))
        if v:
            print("  %s: %d loads (%.1f %%), latency %s" % (g, len(v), 100 * len(v) / total if not g.startswith("lone")
                                                          else 100.0, quantiles(v)))
    for c in configs:
        per = [wp[3][k + 1] - wp[3][k] for wp in c.warps for k in range(F, L + 1)]
        lat = [wp[3][k] - wp[2][k] for wp in c.warps for k in range(F, L + 1)]
        bur = [wp[2][k + 1] - wp[3][k] for wp in c.warps for k in range(F, L + 1)]
        print("W = %d, %d warps/SM, stagger %d: period %s; latency %s; burst %s"
              % (c.w, c.warps_per_sm, c.stagger, quantiles(per), quantiles(lat), quantiles(bur)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
