#!/usr/bin/env python3
"""Applies the phase_lock pilot's decision (pilots/phase_lock/README.md, HA8) to its stamps file.

  read_pilot.py STAMPS_FILE [PILOT_CSV]   the reading (PILOT_CSV: the pilot's stdout, for its output-check gate)
  read_pilot.py --self-test               the decision on hand-built synthetic stamps

Standard library only. The SASS gate stays by hand (README)."""
import bisect
import random
import statistics
import struct
import sys

FIRST, LAST = 64, 510  # read iterations k: FIRST <= k <= LAST (k + 1 must be stamped)
MATCH = 400  # cycles: the nearest issue of the other warp must lie within this


class Config:
    def __init__(self, w, warps_per_sm, stagger, warps):
        self.w, self.warps_per_sm, self.stagger = w, warps_per_sm, stagger
        self.warps = warps  # list of (sm, warpid, issues[], arrivals[]) in absolute clocks


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    configs, at = [], 0
    while at < len(data):
        w, n, stagger, recorded, saved = struct.unpack_from("<5i", data, at)
        at += 20
        warps = []
        for _ in range(saved):
            sm, warpid, base = struct.unpack_from("<IIQ", data, at)
            at += 16
            words = struct.unpack_from("<%dI" % (2 * recorded), data, at)
            at += 8 * recorded
            warps.append((sm, warpid, [base + v for v in words[0::2]], [base + v for v in words[1::2]]))
        configs.append(Config(w, n, stagger, warps))
    return configs


def ordered(cfg):
    """Every stamp in order: issue < arrival < next issue."""
    for _, _, s, a in cfg.warps:
        for k in range(len(s)):
            if not s[k] < a[k] or (k + 1 < len(s) and not a[k] < s[k + 1]):
                return False
    return True


def medians(cfg):
    bursts, periods = [], []
    for _, _, s, a in cfg.warps:
        for k in range(FIRST, LAST + 1):
            bursts.append(s[k + 1] - a[k])
            periods.append(a[k + 1] - a[k])
    return statistics.median(bursts), statistics.median(periods)


def by_sm(cfg):
    sms = {}
    for wp in cfg.warps:
        sms.setdefault(wp[0], []).append(wp)
    return sms


def nearest(sorted_values, x):
    i = bisect.bisect_left(sorted_values, x)
    best = None
    for j in (i - 1, i):
        if 0 <= j < len(sorted_values) and (best is None or abs(sorted_values[j] - x) < abs(best - x)):
            best = sorted_values[j]
    return best


def collision(cfg, S, ks=(FIRST, LAST)):
    """Mean of max(0, S - |a_k - a'|) over the read arrivals of warps with exactly one partner (the other
    warp of the SM with the same %warpid mod 4); a' the partner's nearest arrival. Returns (C, warps read,
    warps left out)."""
    total, count, read, left = 0.0, 0, 0, 0
    for warps in by_sm(cfg).values():
        for wp in warps:
            partners = [o for o in warps if o is not wp and o[1] % 4 == wp[1] % 4]
            if len(partners) != 1:
                left += 1
                continue
            read += 1
            other = partners[0][3]
            for k in range(ks[0], ks[1] + 1):
                total += max(0.0, S - abs(wp[3][k] - nearest(other, wp[3][k])))
                count += 1
    return (total / count if count else float("nan")), read, left


def release_slope(cfg, same_scheduler=False):
    """Least-squares slope of the latency difference on the issue difference, pairs of warps of one SM
    (different schedulers, or the same with same_scheduler), each read iteration of the first against the
    second's load nearest in issue (within MATCH cycles). Returns (beta, pairs)."""
    xs, ys = [], []
    for warps in by_sm(cfg).values():
        for i in range(len(warps)):
            for j in range(i + 1, len(warps)):
                a, b = warps[i], warps[j]
                if (a[1] % 4 == b[1] % 4) != same_scheduler:
                    continue
                order = sorted(range(len(b[2])), key=lambda m: b[2][m])
                issues = [b[2][m] for m in order]
                for k in range(FIRST, LAST + 1):
                    x = a[2][k]
                    pos = bisect.bisect_left(issues, x)
                    best = None
                    for p in (pos - 1, pos):
                        if 0 <= p < len(issues) and (best is None or abs(issues[p] - x) < abs(issues[best] - x)):
                            best = p
                    if best is None or abs(issues[best] - x) > MATCH:
                        continue
                    m = order[best]
                    xs.append(b[2][m] - x)
                    ys.append((b[3][m] - b[2][m]) - (a[3][k] - a[2][k]))
    if len(xs) < 2:
        return float("nan"), len(xs)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return (sxy / sxx if sxx else float("nan")), len(xs)


def coincidence(cfg, apart=50, within=8, shift=37):
    """Pairs of warps of one SM with different schedulers, each read iteration k of the first against the
    second's load m nearest in issue, kept if apart <= |issue gap| <= MATCH: the share whose arrivals lie
    within `within` cycles of each other, over the same share with the second's latency taken from its
    iteration m' = m shifted by `shift` within the read range (the same issue gaps, latencies unrelated).
    Returns (kappa, observed share, null share, pairs)."""
    span = LAST - FIRST + 1
    hits = null_hits = pairs = 0
    for warps in by_sm(cfg).values():
        for i in range(len(warps)):
            for j in range(i + 1, len(warps)):
                a, b = warps[i], warps[j]
                if a[1] % 4 == b[1] % 4:
                    continue
                for k in range(FIRST, LAST + 1):
                    x = a[2][k]
                    pos = bisect.bisect_left(b[2], x)  # a warp's issues increase
                    best = None
                    for p in (pos - 1, pos):
                        if FIRST <= p <= LAST and (best is None or abs(b[2][p] - x) < abs(b[2][best] - x)):
                            best = p
                    if best is None or not apart <= abs(b[2][best] - x) <= MATCH:
                        continue
                    pairs += 1
                    gap = b[2][best] - x
                    la = a[3][k] - a[2][k]
                    hits += abs(gap + (b[3][best] - b[2][best]) - la) <= within
                    m = FIRST + (best - FIRST + shift) % span
                    null_hits += abs(gap + (b[3][m] - b[2][m]) - la) <= within
    if pairs == 0 or null_hits == 0:
        return float("nan"), 0.0, 0.0, pairs
    return hits / null_hits, hits / pairs, null_hits / pairs, pairs


def find(configs, w, n, staggered):
    for c in configs:
        if c.w == w and c.warps_per_sm == n and (c.stagger > 0) == staggered:
            return c
    return None


def decide(rho, kappa):
    if rho <= 1.3:
        return "no convoy: a scheduler's two warps meet as random phases would have them"
    if rho < 2:
        return "undecided (1.3 < rho_C < 2)"
    if kappa >= 2:
        return "convoy, brought together by the memory (HA8 explains)"
    if kappa <= 1.2:
        return "convoy, not by a release seen across schedulers"
    return "convoy; its cause undecided"


def read(configs, csv_text=None, out=print):
    """The reading; returns (gates_ok, verdict or None)."""
    ok = True
    if csv_text is not None:
        checks = [l for l in csv_text.splitlines() if l.startswith("# output checks failed:")]
        failed = checks and checks[-1].split(":")[1].strip() == "0"
        out("gate: output checks: %s" % (checks[-1] if checks else "no line"))
        ok = ok and bool(failed)
    for c in configs:
        good = ordered(c)
        out("config W=%d, %d warps/SM, stagger %d: %d warps saved, stamps in order: %s"
            % (c.w, c.warps_per_sm, c.stagger, len(c.warps), "yes" if good else "NO"))
        ok = ok and good
    lone, pair = find(configs, 256, 4, False), find(configs, 256, 8, False)
    if lone is None or pair is None:
        out("gate: the W = 256 runs at 4 and 8 warps/SM are missing")
        return False, None
    S, P4 = medians(lone)
    _, P = medians(pair)
    E = P - P4
    out("S (lone burst) %.1f, P4 %.1f, P (8 warps/SM) %.1f, E %.1f cycles" % (S, P4, P, E))
    if E < 100:
        out("gate: E = %.1f < 100 cycles: this kernel does not carry the second warp's cost" % E)
        ok = False
    expected = S * S / P
    C, read_warps, left = collision(pair, S)
    rho = C / expected
    kappa, seen, null, pairs = coincidence(pair)
    beta, bpairs = release_slope(pair)
    out("C %.1f cycles against S^2/P %.1f: rho_C %.2f (%d warps read, %d without exactly one partner)"
        % (C, expected, rho, read_warps, left))
    out("kappa (different schedulers, issued 50-400 apart, arrived within 8) %.2f: %.4f against %.4f over %d pairs"
        % (kappa, seen, null, pairs))
    out("beta (different schedulers, printed only) %.3f over %d pairs" % (beta, bpairs))
    beside(configs, S, out)
    if not ok:
        out("reading: undecided (a gate failed)")
        return False, None
    verdict = decide(rho, kappa)
    out("reading: " + verdict)
    return True, verdict


def beside(configs, S, out):
    """What the README reads beside the decision, not deciding."""
    st = find(configs, 256, 8, True)
    if st is not None:
        _, Pst = medians(st)
        for ks in ((0, 15), (16, 63), (FIRST, LAST)):
            C, _, _ = collision(st, S, ks)
            out("staggered (%d cycles), iterations %d-%d: C %.1f, rho_C %.2f" % (st.stagger, ks[0], ks[1], C, C / (S * S / Pst)))
    pair = find(configs, 256, 8, False)
    b, n = release_slope(pair, same_scheduler=True)
    out("beta (same scheduler, 8 warps/SM) %.3f over %d pairs" % (b, n))
    lone = find(configs, 256, 4, False)
    b, n = release_slope(lone)
    out("beta (4 warps/SM) %.3f over %d pairs" % (b, n))
    kappa, seen, null, n = coincidence(lone)
    out("kappa (4 warps/SM) %.2f: %.4f against %.4f over %d pairs" % (kappa, seen, null, n))
    z4, z8 = find(configs, 0, 4, False), find(configs, 0, 8, False)
    if z4 is not None and z8 is not None:
        out("W = 0: median period %.1f at 4 warps/SM, %.1f at 8 (step %.1f)" % (medians(z4)[1], medians(z8)[1],
                                                                                 medians(z8)[1] - medians(z4)[1]))
    sixteen = find(configs, 256, 16, False)
    if sixteen is not None:
        _, P16 = medians(sixteen)
        total, count = 0.0, 0
        for warps in by_sm(sixteen).values():
            for wp in warps:
                others = sorted(t for o in warps if o is not wp and o[1] % 4 == wp[1] % 4 for t in o[3])
                if not others:
                    continue
                for k in range(FIRST, LAST + 1):
                    total += max(0.0, S - abs(wp[3][k] - nearest(others, wp[3][k])))
                    count += 1
        if count:
            partners = 3
            out("16 warps/SM: C %.1f against %d S^2/P %.1f (printed only)" % (total / count, partners, partners * S * S / P16))


# ---- self-test: hand-built stamps whose reading is known ----

def synth(kind, w, n, stagger=0, seed=1, period=None):
    """Stamps for 4 SMs: lone period 1000 (S = 230), paired period 1150. kind: 'random' (each warp's phase
    uniform, latencies independent), 'convoy' (a scheduler's warps arrive within +-10 cycles of each other,
    latencies independent), 'release' (each SM holds its loads due in windows of 600 cycles, about one every
    1200, and releases them together at the window's end: loads issued apart come back together), 'disorder'
    (random, one arrival after its next issue). Release gives each warp its own phase; its bunching of a
    scheduler's pair comes from the release grid alone."""
    rng = random.Random(seed)
    recorded = 512
    period = period or (1000 if n == 4 else 1150)
    burst = 230 if w == 256 else 8
    warps = []
    for sm in range(4):
        holds, h = [0.0], 0.0  # the SM's hold windows [h, h + 600), about one every 1200 cycles
        while h < 10000 + 600 * period:
            h += 600 + rng.expovariate(1 / 600)
            holds.append(h)
        leader = {}
        for warpid in range(n):
            sched = warpid % 4
            s, a = [], []
            if kind == "convoy" and sched in leader:  # follows its scheduler's first warp within +-10 cycles
                for ls, la in zip(*leader[sched]):
                    d = rng.uniform(-10, 10)
                    s.append(int(ls + d))
                    a.append(int(la + d))
                warps.append((sm, warpid, s, a))
                continue
            t = 10000 + rng.uniform(0, period)
            for k in range(recorded):
                issue = t
                arrive = issue + (period - burst) + rng.gauss(0, 20)
                if kind == "release":  # a load due inside one of the SM's holds arrives at the hold's end
                    h = holds[bisect.bisect_right(holds, arrive) - 1]
                    if h <= arrive < h + 600:
                        arrive = h + 600 + rng.uniform(0, 4)
                s.append(int(issue))
                a.append(int(arrive))
                t = arrive + burst + (rng.uniform(0, 40) + (150 if n == 8 else 0) if kind == "release" else 0)
            leader[sched] = (s, a)
            if kind == "disorder" and sm == 0 and warpid == 0:
                a[100] = s[101] + 5
            warps.append((sm, warpid, s, a))
    return Config(w, n, stagger, warps)


def self_test():
    failures = 0

    def expect(name, configs, want_ok, want_prefix):
        nonlocal failures
        lines = []
        ok, verdict = read(configs, out=lines.append)
        good = ok == want_ok and (want_prefix is None or (verdict or "").startswith(want_prefix))
        print("%s: %s (%s)" % (name, "ok" if good else "FAILED", verdict))
        if not good:
            failures += 1
            print("\n".join("   " + l for l in lines))

    expect("random phases", [synth("random", 256, 4), synth("random", 256, 8)], True, "no convoy")
    expect("convoy", [synth("convoy", 256, 4), synth("convoy", 256, 8)], True, "convoy, not by a release")
    expect("release", [synth("release", 256, 4), synth("release", 256, 8)], True, "convoy, brought together")
    expect("stamps out of order", [synth("random", 256, 4), synth("disorder", 256, 8)], False, None)
    expect("E under its gate", [synth("random", 256, 4), synth("random", 256, 8, period=1060)], False, None)
    # The output-check gate from the pilot's stdout.
    lines = []
    ok, _ = read([synth("random", 256, 4), synth("random", 256, 8)], csv_text="w,x\n# output checks failed: 1\n",
                 out=lines.append)
    print("output check failed: %s" % ("ok" if not ok else "FAILED"))
    failures += 0 if not ok else 1
    # Hand-worked collision: partner exactly S/2 behind every arrival gives C = S/2.
    a = [0 + 1000 * k for k in range(512)]
    b = [115 + 1000 * k for k in range(512)]
    cfg = Config(256, 8, 0, [(0, 0, [x - 700 for x in a], a), (0, 4, [x - 700 for x in b], b)])
    C, _, _ = collision(cfg, 230)
    print("collision by hand (115 of 230): %s (%.1f)" % ("ok" if abs(C - 115) < 1e-9 else "FAILED", C))
    failures += 0 if abs(C - 115) < 1e-9 else 1
    # Hand-worked slope: the second's latency shorter by exactly its issue lag gives beta = -1.
    s1 = [1000 * k for k in range(512)]
    s2 = [1000 * k + 50 + (k % 7) * 20 for k in range(512)]
    a1 = [x + 800 for x in s1]
    a2 = [1000 * k + 800 for k in range(512)]
    cfg = Config(256, 8, 0, [(0, 0, s1, a1), (0, 1, s2, a2)])
    beta, _ = release_slope(cfg)
    print("slope by hand (-1): %s (%.3f)" % ("ok" if abs(beta + 1) < 1e-9 else "FAILED", beta))
    failures += 0 if abs(beta + 1) < 1e-9 else 1
    print("self-test: %d failed" % failures)
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    csv_text = open(sys.argv[2]).read() if len(sys.argv) == 3 else None
    ok, _ = read(load(sys.argv[1]), csv_text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
