#!/usr/bin/env python3
"""Applies the phase_lock pilot's decision (pilots/phase_lock/README.md, HA8) to its stamps file.

  read_pilot.py STAMPS_FILE PILOT_CSV   the reading (PILOT_CSV: the pilot's stdout, for its output-check gate)
  read_pilot.py --self-test             the decision on hand-built synthetic stamps

Standard library only. The SASS gate stays by hand (README)."""
import bisect
import heapq
import math
import os
import tempfile
import random
import statistics
import struct
import sys

FIRST, LAST = 64, 510  # read iterations k: FIRST <= k <= LAST (k + 1 must be stamped)
MATCH = 400  # cycles: the other warp's load nearest in issue must lie within this
DELTA = 16  # cycles: the slack around a partner's burst window
MIN_NULL_HITS = 400  # the coincidence ratio's null must rest on at least this many hits (200 on a half: about
# 100 and 50 expected coincidences, the null drawing four neighbours a pair)
WINDOWS = (8, 16, 32)  # cycles: arrivals this close count as together (a released 512-byte load may drain for some)


class Config:
    def __init__(self, w, warps_per_sm, stagger, warps):
        self.w, self.warps_per_sm, self.stagger = w, warps_per_sm, stagger
        self.warps = warps  # list of (sm, slot, issues[], arrivals[], rank) in absolute clocks


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    configs, at = [], 0
    while at < len(data):
        w, n, stagger, recorded, saved = struct.unpack_from("<5i", data, at)
        at += 20
        warps = []
        for _ in range(saved):
            sm, word, base = struct.unpack_from("<IIQ", data, at)
            at += 16
            words = struct.unpack_from("<%dI" % (2 * recorded), data, at)
            at += 8 * recorded
            warps.append((sm, word & 0xFFFF, [base + v for v in words[0::2]], [base + v for v in words[1::2]], word >> 16))
        configs.append(Config(w, n, stagger, warps))
    return configs


def ordered(cfg):
    """Every stamp in order: issue < arrival < next issue."""
    for wp in cfg.warps:
        s, a = wp[2], wp[3]
        for k in range(len(s)):
            if not s[k] < a[k] or (k + 1 < len(s) and not a[k] < s[k + 1]):
                return False
    return True


def placed(cfg):
    """Every saved SM holds warps_per_sm warps, warps_per_sm / 4 on each %warpid mod 4."""
    for warps in by_sm(cfg).values():
        if len(warps) != cfg.warps_per_sm:
            return False
        for r in range(4):
            if sum(1 for wp in warps if wp[1] % 4 == r) != cfg.warps_per_sm // 4:
                return False
    return bool(cfg.warps)


def medians(cfg):
    bursts, periods = [], []
    for wp in cfg.warps:
        s, a = wp[2], wp[3]
        for k in range(FIRST, LAST + 1):
            bursts.append(s[k + 1] - a[k])
            periods.append(a[k + 1] - a[k])
    return statistics.median(bursts), statistics.median(periods)


def by_sm(cfg):
    sms = {}
    for wp in cfg.warps:
        sms.setdefault(wp[0], []).append(wp)
    return sms


def mates(cfg):
    """(warp, its one partner): the other warp of its SM with the same %warpid mod 4, where there is exactly one."""
    out = []
    for warps in by_sm(cfg).values():
        for wp in warps:
            partners = [o for o in warps if o is not wp and o[1] % 4 == wp[1] % 4]
            if len(partners) == 1:
                out.append((wp, partners[0]))
    return out


def nearest(sorted_values, x):
    i = bisect.bisect_left(sorted_values, x)
    best = None
    for j in (i - 1, i):
        if 0 <= j < len(sorted_values) and (best is None or abs(sorted_values[j] - x) < abs(best - x)):
            best = sorted_values[j]
    return best


def collision(pairs, S, ks=(FIRST, LAST)):
    """Mean of max(0, S - |a_k - a'|) over the read arrivals of each warp; a' its partner's nearest arrival."""
    total, count = 0.0, 0
    for wp, other in pairs:
        for k in range(ks[0], ks[1] + 1):
            total += max(0.0, S - abs(wp[3][k] - nearest(other[3], wp[3][k])))
            count += 1
    return total / count if count else float("nan")


def in_burst(wp, other, shift, ks):
    """Arrivals a_k of wp that lie in a burst window [a'_m - DELTA, s'_{m+1} + DELTA] of `other`, its stamps
    moved by `shift` cycles. Returns (hits, arrivals)."""
    a2 = [t + shift for t in other[3]]
    s2 = other[2]
    hits = 0
    for k in range(ks[0], ks[1] + 1):
        x = wp[3][k]
        m = bisect.bisect_right(a2, x + DELTA) - 1
        if 0 <= m and m + 1 < len(s2) and x <= s2[m + 1] + shift + DELTA:
            hits += 1
    return hits, ks[1] - ks[0] + 1


def burst_ratio(pairs, P, ks=(FIRST, LAST)):
    """rho_F: the share of arrivals inside the partner's burst window, over the same share with the partner
    moved by P/4, P/2 and 3P/4 (the mean of the three). Returns (rho_F, share, null share)."""
    hits = null = count = 0
    for wp, other in pairs:
        h, n = in_burst(wp, other, 0, ks)
        hits += h
        count += n
        for f in (0.25, 0.5, 0.75):
            null += in_burst(wp, other, f * P, ks)[0] / 3
    if count == 0 or null == 0:
        return float("nan"), 0.0, 0.0
    return hits / null, hits / count, null / count


def release_slope(cfg, same_scheduler=False):
    """Least-squares slope of the latency difference on the issue difference (printed only)."""
    xs, ys = [], []
    for warps in by_sm(cfg).values():
        for i in range(len(warps)):
            for j in range(i + 1, len(warps)):
                a, b = warps[i], warps[j]
                if (a[1] % 4 == b[1] % 4) != same_scheduler:
                    continue
                for k in range(FIRST, LAST + 1):
                    m = match(a, b, k)
                    if m is None:
                        continue
                    xs.append(b[2][m] - a[2][k])
                    ys.append((b[3][m] - b[2][m]) - (a[3][k] - a[2][k]))
    if len(xs) < 2:
        return float("nan"), len(xs)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return (sxy / sxx if sxx else float("nan")), len(xs)


def match(a, b, k):
    """b's read iteration whose issue is nearest a's issue k, if within MATCH cycles (a warp's issues increase)."""
    x = a[2][k]
    pos = bisect.bisect_left(b[2], x)
    best = None
    for p in (pos - 1, pos):
        if FIRST <= p <= LAST and (best is None or abs(b[2][p] - x) < abs(b[2][best] - x)):
            best = p
    if best is None or abs(b[2][best] - x) > MATCH:
        return None
    return best


def window_pairs(a, b, apart):
    """(k, m): every read iteration k of a and every read load m of b issued apart <= |s_b(m) - s_a(k)| <= MATCH
    cycles from it. Every such m, not the nearest: which of b's loads is nearest depends on when b issues next,
    so on b's latency (a long one leaves a longer gap, nearer a point in it), and would bias the observed
    latencies against their neighbours; whether a load's issue lies in a window does not depend on its own
    latency."""
    for k in range(FIRST, LAST + 1):
        x = a[2][k]
        for lo, hi in ((x - MATCH, x - apart), (x + apart, x + MATCH)):
            for m in range(max(bisect.bisect_left(b[2], lo), FIRST), min(bisect.bisect_right(b[2], hi), LAST + 1)):
                yield k, m


def coincidence(cfg, sms=None, apart=50, windows=WINDOWS, histogram=None):
    """kappa: pairs of warps of one SM with different schedulers, each read iteration k of the first against
    every read load m of the second issued apart <= |issue gap| <= MATCH from it: the share whose arrivals
    lie within w cycles of each other, over the same share with the second's latency taken from its
    neighbouring loads m - 2, m - 1, m + 1, m + 2 (those in the read range; the same issue gap, a latency of a
    moment one or two periods away), for each window w. sms: the SM ids read (None: all). histogram: a dict
    filled with the observed arrival gaps in 2-cycle bins from -64 to +64. Returns, per window, (kappa, share,
    null share, pairs, null hits), and the share of the observed hits (widest window) where the later-issued
    load arrived second."""
    hits = dict.fromkeys(windows, 0)
    null_hits = dict.fromkeys(windows, 0)
    pairs = null_trials = in_order = ordered_hits = 0
    widest = max(windows)
    for sm, warps in by_sm(cfg).items():
        if sms is not None and sm not in sms:
            continue
        for i in range(len(warps)):
            for j in range(i + 1, len(warps)):
                a, b = warps[i], warps[j]
                if a[1] % 4 == b[1] % 4:
                    continue
                for k, m in window_pairs(a, b, apart):
                    pairs += 1
                    gap = b[2][m] - a[2][k]
                    la = a[3][k] - a[2][k]
                    da = gap + (b[3][m] - b[2][m]) - la  # b's arrival less a's
                    if histogram is not None and -64 <= da < 64:
                        histogram[da // 2 * 2] = histogram.get(da // 2 * 2, 0) + 1
                    for w in windows:
                        hits[w] += abs(da) <= w
                    if abs(da) <= widest and da != 0:
                        ordered_hits += 1
                        in_order += (da > 0) == (gap > 0)
                    for d in (-2, -1, 1, 2):
                        if FIRST <= m + d <= LAST:
                            null_trials += 1
                            dn = gap + (b[3][m + d] - b[2][m + d]) - la
                            for w in windows:
                                null_hits[w] += abs(dn) <= w
    out = {}
    for w in windows:
        if pairs == 0 or null_hits[w] == 0:
            out[w] = (float("nan"), 0.0, 0.0, pairs, null_hits[w])
        else:
            out[w] = ((hits[w] / pairs) / (null_hits[w] / null_trials), hits[w] / pairs, null_hits[w] / null_trials,
                      pairs, null_hits[w])
    return out, (in_order / ordered_hits if ordered_hits else float("nan"))


def find(configs, w, n, staggered):
    for c in configs:
        if c.w == w and c.warps_per_sm == n and (c.stagger > 0) == staggered:
            return c
    return None


def side(x, high, low):
    """'high' if x >= high, 'low' if x <= low, else 'between' ('between' for NaN too)."""
    if x != x:
        return "between"
    return "high" if x >= high else "low" if x <= low else "between"


def decide(readings):
    """The README's table. readings: {window: [(kappa, null hits) for 8 warps/SM all, even, odd SMs, then 4
    warps/SM all, even, odd]}."""
    def enough(row):
        return all(h >= (MIN_NULL_HITS if i % 3 == 0 else MIN_NULL_HITS / 2) for i, (_, h) in enumerate(row))
    for w in sorted(readings):
        row = readings[w]
        if enough(row) and all(side(k, 2, 1.2) == "high" for k, _ in row):
            return ("loads come back together (a release, or in-order return at the SM), within %d cycles "
                    "(HA8 explains the bunching)" % w)
    if all(enough(row) and all(side(k, 2, 1.2) == "low" for k, _ in row) for row in readings.values()):
        return ("release ruled out: loads issued 50-400 cycles apart come back within %s cycles no more often "
                "than chance" % "/".join(str(w) for w in sorted(readings)))
    return "undecided (kappa between its bounds, its halves disagree, or too few null hits, at some window)"


def read(configs, csv_text, out=print):
    """The reading; returns (gates_ok, verdict or None)."""
    ok = True
    checks = [l for l in (csv_text or "").splitlines() if l.startswith("# output checks failed:")]
    passed = bool(checks) and checks[-1].split(":")[1].strip() == "0"
    out("gate: output checks: %s" % (checks[-1] if checks else "no line (no pilot CSV read)"))
    ok = ok and passed
    for c in configs:
        good, where = ordered(c), placed(c)
        out("config W=%d, %d warps/SM, stagger %d: %d warps saved, stamps in order: %s, %d a SM and %d a scheduler: %s"
            % (c.w, c.warps_per_sm, c.stagger, len(c.warps), "yes" if good else "NO", c.warps_per_sm,
               c.warps_per_sm // 4, "yes" if where else "NO"))
        ok = ok and good and where
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
    readings = {w: [] for w in WINDOWS}
    for cfg, n in ((pair, 8), (lone, 4)):
        for name, chosen in (("all SMs", None), ("even SM ids", {sm for sm in by_sm(cfg) if sm % 2 == 0}),
                             ("odd SM ids", {sm for sm in by_sm(cfg) if sm % 2 == 1})):
            hist = {} if chosen is None else None
            per, in_order = coincidence(cfg, chosen, histogram=hist)
            for w in WINDOWS:
                kappa, seen, base, count, null_hits = per[w]
                readings[w].append((kappa, null_hits))
                out("kappa (%d warps/SM, %s, within %d cycles) %.2f: %.4f against %.4f over %d pairs, %d null hits"
                    % (n, name, w, kappa, seen, base, count, null_hits))
            if hist is not None:
                out("  later-issued load arriving second among coincidences (within %d): %.3f" % (max(WINDOWS), in_order))
                out("  arrival gaps (2-cycle bins, -64..62): " + " ".join("%d:%d" % (k, hist[k]) for k in sorted(hist)))
    beside(configs, S, out)
    if not ok:
        out("reading: undecided (a gate failed)")
        return False, None
    verdict = decide(readings)
    out("reading: " + verdict)
    return True, verdict


def beside(configs, S, out):
    """What the README reads beside the decision, not deciding: where a scheduler's two warps meet."""
    lone, pair = find(configs, 256, 4, False), find(configs, 256, 8, False)
    _, P = medians(pair)
    lat = lambda cfg: statistics.median(wp[3][k] - wp[2][k] for wp in cfg.warps for k in range(FIRST, LAST + 1))
    burst = lambda cfg: medians(cfg)[0]
    out("8 against 4 warps/SM: median burst %+.1f cycles (stretched: shared issue), median latency %+.1f (waiting "
        "behind the partner's burst, or the memory)" % (burst(pair) - S, lat(pair) - lat(lone)))
    pairs = mates(pair)
    rho_f, share, null = burst_ratio(pairs, P)
    C = collision(pairs, S)
    out("rho_F %.2f: %.4f of arrivals in the partner's burst window against %.4f moved by P/4, P/2, 3P/4 (%d warps "
        "paired); C %.1f cycles against S^2/P %.1f: rho_C %.2f" % (rho_f, share, null, len(pairs), C, S * S / P, C / (S * S / P)))
    st = find(configs, 256, 8, True)
    if st is not None:
        _, Pst = medians(st)
        for ks in ((0, 15), (16, 63), (FIRST, LAST)):
            C = collision(mates(st), S, ks)
            r = burst_ratio(mates(st), Pst, ks)[0]
            out("staggered (%d cycles), iterations %d-%d: rho_F %.2f, C %.1f, rho_C %.2f"
                % (st.stagger, ks[0], ks[1], r, C, C / (S * S / Pst)))
    b, n = release_slope(pair)
    out("beta (different schedulers, 8 warps/SM) %.3f over %d pairs" % (b, n))
    b, n = release_slope(pair, same_scheduler=True)
    out("beta (same scheduler, 8 warps/SM) %.3f over %d pairs" % (b, n))
    b, n = release_slope(lone)
    out("beta (4 warps/SM) %.3f over %d pairs" % (b, n))
    z4, z8 = find(configs, 0, 4, False), find(configs, 0, 8, False)
    if z4 is not None and z8 is not None:
        out("W = 0: median period %.1f at 4 warps/SM, %.1f at 8 (step %.1f)" % (medians(z4)[1], medians(z8)[1],
                                                                                 medians(z8)[1] - medians(z4)[1]))
    sixteen = find(configs, 256, 16, False)
    if sixteen is not None:
        _, P16 = medians(sixteen)
        hits = null = 0
        for warps in by_sm(sixteen).values():
            for wp in warps:
                for o in warps:
                    if o is wp or o[1] % 4 != wp[1] % 4:
                        continue
                    hits += in_burst(wp, o, 0, (FIRST, LAST))[0]
                    null += sum(in_burst(wp, o, f * P16, (FIRST, LAST))[0] for f in (0.25, 0.5, 0.75)) / 3
        if null:
            out("16 warps/SM: rho_F over each same-scheduler pair %.2f; median period %.1f" % (hits / null, P16))


# ---- self-test: hand-built stamps whose reading is known ----

def synth(kind, w, n, stagger=0, seed=1, period=None, slot=None, jitter=150, drain=0, hold_share=1.0, sms=4):
    """Stamps for `sms` SMs: lone period 1000 (S = 230), paired period 1150, each latency with a Gaussian jitter
    (150 cycles: the probe's spread). kind: 'random' (latencies independent), 'convoy' (a scheduler's second
    warp follows its first within +-10 cycles, no release), 'release' (each SM holds its loads due in windows
    of 600 cycles, about one every 1200, and releases them at the window's end, one every `drain` cycles in
    issue order; a load due in a window is held with probability hold_share), 'swing' (a latency swing common
    to the SM, sigma about 140 cycles, changing over 250-600 cycles, over an own jitter of 60), 'drift' (random,
    with a slow swing of +-150 cycles over about 250k cycles), 'disorder' (random, one arrival after its next
    issue). slot(warp) gives the %warpid (default: the warp's index)."""
    rng = random.Random(seed)
    recorded = 512
    period = period or (1000 if n == 4 else 1150)
    burst = 230 if w == 256 else 8
    warps = []
    for sm in range(sms):
        holds, h = [0.0], 0.0
        while h < 10000 + 600 * period:
            h += 600 + rng.expovariate(1 / 600)
            holds.append(h)
        released = {}  # hold start -> loads released so far
        waves = [(rng.uniform(250, 600), rng.uniform(0, 2 * math.pi)) for _ in range(6)]
        own = 60 if kind == "swing" else jitter
        leaders = [wid for wid in range(n) if kind != "convoy" or wid < 4]
        stamps = {wid: ([], []) for wid in leaders}
        heap = [(10000 + rng.uniform(0, period), wid) for wid in leaders]
        heapq.heapify(heap)
        while heap:  # every leader's loads in issue order, so a hold drains them in that order
            issue, wid = heapq.heappop(heap)
            arrive = issue + (period - burst) + max(-500.0, rng.gauss(0, own))
            if kind == "swing":
                arrive += sum(81 * math.sin(2 * math.pi * issue / T + ph) for T, ph in waves)
            if kind == "drift":
                arrive += 150 * math.sin(issue / 40000.0 + sm)
            if kind == "release":
                h = holds[bisect.bisect_right(holds, arrive) - 1]
                if h <= arrive < h + 600 and rng.random() < hold_share:
                    arrive = h + 600 + drain * released.get(h, 0) + rng.uniform(0, 4)
                    released[h] = released.get(h, 0) + 1
            s, a = stamps[wid]
            s.append(int(issue))
            a.append(int(max(arrive, issue + 1)))
            if len(s) < recorded:
                heapq.heappush(heap, (a[-1] + burst, wid))
        for wid in range(n):
            sl = slot(wid) if slot else wid
            if wid in stamps:
                s, a = stamps[wid]
                if kind == "disorder" and sm == 0 and wid == 0:
                    a[100] = s[101] + 5
                warps.append((sm, sl, s, a, 0))
            else:  # convoy: follows its scheduler's first warp within +-10 cycles
                ls, la = stamps[wid % 4]
                d = [rng.uniform(-10, 10) for _ in ls]
                warps.append((sm, sl, [int(x + e) for x, e in zip(ls, d)], [int(x + e) for x, e in zip(la, d)], 1))
    return Config(w, n, stagger, warps)


def pack(configs):
    """The pilot's file layout (phase_lock_pilot.cu), for the load round trip."""
    out = b""
    for c in configs:
        recorded = len(c.warps[0][2])
        out += struct.pack("<5i", c.w, c.warps_per_sm, c.stagger, recorded, len(c.warps))
        for sm, slot, s, a, rank in c.warps:
            base = min(s)
            out += struct.pack("<IIQ", sm, slot | (rank << 16), base)
            words = []
            for x, y in zip(s, a):
                words += [x - base, y - base]
            out += struct.pack("<%dI" % len(words), *words)
    return out


GOOD_CSV = "w,x\n# output checks failed: 0\n"


def self_test():
    failures = 0

    def check(name, good, detail):
        nonlocal failures
        print("%s: %s (%s)" % (name, "ok" if good else "FAILED", detail))
        failures += 0 if good else 1

    def expect(name, configs, want_ok, want_prefix, csv=GOOD_CSV):
        lines = []
        ok, verdict = read(configs, csv, out=lines.append)
        good = ok == want_ok and (want_prefix is None or (verdict or "").startswith(want_prefix))
        check(name, good, verdict)
        if not good:
            print("\n".join("   " + l for l in lines))

    def runs(kind, **kw):
        return [synth(kind, 256, 4, **kw), synth(kind, 256, 8, **kw), synth(kind, 256, 8, stagger=500, seed=3, **kw)]

    present, ruled = "loads come back together", "release ruled out"
    expect("random phases", runs("random", sms=16), True, ruled)
    expect("a convoy without a release", runs("convoy", sms=16), True, ruled)
    expect("release", runs("release", sms=8), True, present + " (a release, or in-order return at the SM), within 8")
    expect("release drained one load every 12 cycles", runs("release", drain=12), True, present)
    lines = []
    _, v = read(runs("release", drain=12, hold_share=0.15), GOOD_CSV, out=lines.append)
    check("a weak release, drained: never ruled out", not (v or "").startswith(ruled), v)
    _, v = read(runs("swing", sms=16), GOOD_CSV, out=lines.append)
    check("a short common latency swing: never read as a release", not (v or "").startswith(present), v)
    expect("release at 8 warps/SM only", [synth("random", 256, 4)] + runs("release")[1:], True, "undecided")
    expect("slow latency drift, no release", runs("drift", sms=16), True, ruled)
    expect("tight latencies: too few coincidences", runs("random", jitter=5), True, "undecided")

    def gate(name, configs, line, csv=GOOD_CSV):
        lines = []
        ok, _ = read(configs, csv, out=lines.append)
        check(name, not ok and any(line in l for l in lines), line)

    gate("slots 2w: no scheduler pairs", runs("random", slot=lambda w: 2 * w), "a scheduler: NO")
    gate("stamps out of order", [synth("random", 256, 4), synth("disorder", 256, 8)], "stamps in order: NO")
    gate("E under its gate", [synth("random", 256, 4), synth("random", 256, 8, period=1060)], "gate: E =")
    gate("output check failed", runs("random"), "output checks failed: 1", csv="w,x\n# output checks failed: 1\n")
    gate("no pilot CSV", runs("random"), "no pilot CSV read", csv=None)
    # The table's edges, on hand-given readings: (kappa, null hits) x 6 a window.
    low, high = [(1.0, 800), (1.0, 400), (1.0, 400)] * 2, [(3.0, 800), (3.0, 400), (3.0, 400)] * 2
    check("table: all low, enough hits", decide({8: low, 16: low, 32: low}).startswith(ruled), "")
    few = [(1.0, 800), (1.0, 199), (1.0, 400)] + low[3:]
    check("table: a half under 200 null hits", decide({8: few, 16: low, 32: low}).startswith("undecided"), "")
    split = [(2.3, 800), (2.3, 400), (1.6, 400)] + high[3:]
    check("table: halves disagree", decide({8: split, 16: split, 32: split}).startswith("undecided"), "")
    check("table: high at 16 only", "within 16" in decide({8: low, 16: high, 32: split}), "")
    edge = [(1.0, 800), (1.0, 400), (1.3, 400)] + low[3:]
    check("table: one 1.3 at 32 keeps it open", decide({8: low, 16: low, 32: edge}).startswith("undecided"), "")
    # The file layout: pack, write, load.
    configs = runs("random")
    fd, path = tempfile.mkstemp(suffix=".bin")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(pack(configs))
        back = load(path)
    finally:
        os.remove(path)
    same = len(back) == len(configs) and all(
        (x.w, x.warps_per_sm, x.stagger) == (y.w, y.warps_per_sm, y.stagger) and x.warps == y.warps
        for x, y in zip(back, configs))
    check("stamps file round trip", same, "%d configurations" % len(back))
    # Hand-worked kappa: A issues at 1000k (latency 800), B 100 cycles later, latency 700 on even k (arriving
    # with A) and 900 on odd k. Observed: the 224 even k of 64..510 of 447. Null (B's latency from m - 2, m - 1,
    # m + 1, m + 2 inside 64..510): even k hit on m +- 2, odd k on m +- 1; 1788 trials less 6 at the edges
    # (k = 64, 65, 509, 510 lose 2, 1, 1, 2), hits 443 x 2 + 1 + 2 + 2 + 1 = 892. The same at every window.
    sa = [1000 * k for k in range(512)]
    sb = [1000 * k + 100 for k in range(512)]
    A = (0, 0, sa, [x + 800 for x in sa], 0)
    B = (0, 1, sb, [x + (700 if k % 2 == 0 else 900) for k, x in enumerate(sb)], 0)
    per, _ = coincidence(Config(256, 8, 0, [A, B]))
    want = (224 / 447) / (892 / 1782)
    check("kappa by hand (%.6f)" % want, all(abs(per[w][0] - want) < 1e-12 and per[w][3] == 447 and per[w][4] == 892
                                          for w in WINDOWS), str(per[8]))
    # Hand-worked collision: partner exactly S/2 behind every arrival gives C = S/2.
    a = [1000 * k for k in range(512)]
    b = [115 + 1000 * k for k in range(512)]
    one = (0, 0, [x - 700 for x in a], a, 0)
    two = (0, 4, [x - 700 for x in b], b, 1)
    C = collision([(one, two)], 230)
    check("collision by hand (115 of 230)", abs(C - 115) < 1e-9, "%.1f" % C)
    # Hand-worked in-burst share: two's burst is [115 + 1000k, 415 + 1000k] (its next issue at 1000(k+1) - 585):
    # one's arrivals at 1000k lie outside (115 - 16 > 0); moved by 250 the window is [365, 665]: outside; by 500
    # [615, 915]: outside; by 750 [865, 1165]: 1000 inside.
    h0, n0 = in_burst(one, two, 0, (FIRST, LAST))
    hs = [in_burst(one, two, sh, (FIRST, LAST))[0] for sh in (250, 500, 750)]
    check("in-burst share by hand (0; 0, 0, all)", h0 == 0 and hs[0] == 0 and hs[1] == 0 and hs[2] == n0,
          "%d; %s of %d" % (h0, hs, n0))
    # Hand-worked slope: the second's latency shorter by exactly its issue lag gives beta = -1.
    s1 = [1000 * k for k in range(512)]
    s2 = [1000 * k + 50 + (k % 7) * 20 for k in range(512)]
    cfg = Config(256, 8, 0, [(0, 0, s1, [x + 800 for x in s1], 0), (0, 1, s2, [1000 * k + 800 for k in range(512)], 0)])
    beta, _ = release_slope(cfg)
    check("slope by hand (-1)", abs(beta + 1) < 1e-9, "%.3f" % beta)
    print("self-test: %d failed" % failures)
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[2]) as f:
        csv_text = f.read()
    ok, _ = read(load(sys.argv[1]), csv_text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
