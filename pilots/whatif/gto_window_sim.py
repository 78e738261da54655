#!/usr/bin/env python3
"""What-if (no verdict reads it): the 16-byte read_independent stream priced by greedy-then-oldest
issue over the suite kernel's own instructions, so that a handover happens wherever the compiled
loop stalls and a mate is ready, at no rate chosen by hand.

The program: the loop nvcc 13.0 builds for sm_90 with the suite's flags (read from the cubin by
kernel_stalls.py), on the iterations without the probe (a forward branch is taken when the
instructions it skips hold the probe's clock read, CS2R), as a list of stall counts; the LDG, the
instruction that waits for its data, the LDC and the one that waits for the constant are marked.
Runs of stall-1 instructions without a wait issue back to back (a greedy scheduler keeps the warp).

One scheduler of k warps (an SM of N one-warp blocks: k = N / 4, or the slowest of the schedulers
when N is not a multiple of 4): each cycle the scheduler issues the running warp's next
instruction if that warp may issue (its stall count is over and any scoreboard it waits for is
released); otherwise it picks the oldest warp (lowest index) that may, which then runs. A load
comes back M + a Gaussian draw of sigma after it issues, an LDC after C cycles.

Inputs, all from one committed run plus the cubin:
  M0     - the lone iteration at W = 0 (1 warp/SM) less the W = 0 loop's own stall counts; the
           load's latency is M0 + Λ(BW) - Λ(0), Λ the run's W = 0 curve (the streaming locus),
           solved to a fixed point with Little's law (bisection, capped at the locus' ceiling);
  sigma  - sqrt(pi) x the probe's loaded_latency_max_excess_w2_cycles at W = 0, 4 warps/SM (or --sigma);
  C      - the constant's latency, for a loop that waits for one: the curve's own 1-warp iteration
           less M0 less its loop's stall counts;
  --rate - instructions a cycle in a run of stall-1 instructions (1 unless given).
Prints each curve's points, then its MAE over the points past 1 warp/SM and both knees (90 % of the
largest, linear between swept points). This is the what-if ISSUE-33-GREEDY-ISSUE was read from;
core/streaming/model.cpp is the rule (tests/greedy_second_implementation.py compares the two).

    python3 pilots/whatif/gto_window_sim.py CUBIN RUN_DIR [--w 0,64,256] [--seeds 2] [--iterations 200]
"""
import argparse
import csv
import importlib.util
import json
import math
import pathlib
import random
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
SCHEDULERS = 4
F_BYTES = 512  # bytes a warp iteration of the 16-byte stream


def load_kernel_stalls():
    spec = importlib.util.spec_from_file_location("kernel_stalls", HERE / "kernel_stalls.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def program(ks, cubin, w):
    """[(stall, kind)] of the W loop's path without the probe; kind in '', 'ldg', 'wait_ldg', 'ldc',
    'wait_ldc' (an instruction both waiting and setting is not met in these loops)."""
    rows = ks.read_dump(ks.DEFAULT_DUMP)
    ks.self_check(rows)
    names = ks.opcode_names(rows)
    data = pathlib.Path(cubin).read_bytes()
    tag = "stream_kernelILi%dELb0ELi16EE" % w
    found = [(n, o, s) for n, o, s in ks.sections(data) if n.startswith(".text.") and tag in n]
    if len(found) != 1:
        sys.exit("gto_window_sim: %d functions match %s" % (len(found), tag))
    _n, offset, size = found[0]
    code = []
    for pc in range(0, size - size % 16, 16):
        lo, hi = struct.unpack_from("<QQ", data, offset + pc)
        code.append((pc, lo, hi, names.get(lo & 0xFFF, "op%03x" % (lo & 0xFFF))))
    _ffma, head, back, body = ks.ffma_loop(code)
    index = {row[0]: i for i, row in enumerate(body)}
    path, i, sets = [], 0, {}
    while True:
        pc, lo, hi, op = body[i]
        c = ks.control(hi)
        kind = ""
        if op == "LDG":
            kind = "ldg"
        elif op == "LDC":
            kind = "ldc"
        for b in c["waits"]:
            if sets.get(b) == "ldg":
                kind = "wait_ldg"
            elif sets.get(b) == "ldc":
                kind = "wait_ldc"
        if c["writes"] != 7 and op in ("LDG", "LDC"):
            sets[c["writes"]] = op.lower()
        path.append((c["stall"], kind, op))
        if pc == back:
            break
        if lo & 0xFFF == ks.BRA:
            target = ks.bra_target(pc, lo)
            skipped = body[i + 1:index[target]] if target > pc else []
            if any(r[3] == "CS2R" for r in skipped):
                i = index[target]
                continue
        i += 1
    return path


def compress(path):
    """Merge runs of stall-1 instructions without a wait or a load into one step of their length."""
    out = []
    for stall, kind, _op in path:
        if kind == "" and stall == 1 and out and out[-1][1] == "run":
            out[-1] = (out[-1][0] + 1, "run")
        elif kind == "" and stall == 1:
            out.append((1, "run"))
        else:
            out.append((stall, kind))
    return out


def scheduler_cycles(k, prog, latency, sigma, ldc, seed, iterations, rate=1.0):
    rnd = random.Random(seed)
    n = len(prog)
    pos = [0] * k
    free_at = [0] * k      # the cycle the warp's stall count ends
    data_at = [0.0] * k    # when its load's data is back
    const_at = [0.0] * k
    done = [0] * k
    finish = [0.0] * k
    current = 0
    t = 0.0

    def ready_time(w):
        stall, kind = prog[pos[w]]
        r = free_at[w]
        if kind == "wait_ldg":
            r = max(r, data_at[w])
        elif kind == "wait_ldc":
            r = max(r, const_at[w])
        return r

    while min(done) < iterations:
        live = [w for w in range(k) if done[w] < iterations]
        if done[current] < iterations and ready_time(current) <= t:
            w = current
        else:
            can = [w for w in live if ready_time(w) <= t]
            if not can:
                t = min(ready_time(w) for w in live)
                continue
            w = current = min(can)
        stall, kind = prog[pos[w]]
        if kind == "ldg":
            data_at[w] = t + latency + sigma * rnd.gauss(0.0, 1.0)
        elif kind == "ldc":
            const_at[w] = t + ldc
        if kind == "run":
            stall = stall / rate  # a run of stall-1 instructions at the scheduler's issue rate
        free_at[w] = t + stall
        t_issue = t
        t += stall if kind == "run" else 1  # the scheduler is busy for a run; else one issue cycle
        pos[w] += 1
        if pos[w] == n:
            pos[w] = 0
            done[w] += 1
            if done[w] == iterations:
                finish[w] = t_issue + stall
    return max(finish) / iterations


def sm_cycles(n_warps, prog, latency, sigma, ldc, seeds, iterations):
    counts = sorted({len(range(s, n_warps, SCHEDULERS)) for s in range(SCHEDULERS)} - {0})
    vals = []
    for seed in seeds:
        vals.append(max(scheduler_cycles(c, prog, latency, sigma, ldc, seed * 10 + c, iterations) for c in counts))
    return sum(vals) / len(vals), min(vals), max(vals)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cubin")
    ap.add_argument("run")
    ap.add_argument("--sigma", type=float)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--w", default="0,1,2,4,8,16,32,64,128,256")
    ap.add_argument("--rate", type=float, default=1.0, help="instructions a cycle in a run of stall-1 instructions")
    ap.add_argument("--grid", type=float, default=25.0, help="cycles between the latencies simulated")
    args = ap.parse_args()
    ks = load_kernel_stalls()
    bench = json.load(open(f"{args.run}/bench.json"))
    f = next(b["sm_clock_hz"] for b in bench["benchmarks"] if b["name"].startswith("calibration/sm_clock"))
    sigma = args.sigma
    for b in bench["benchmarks"]:
        if b["name"].startswith("streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:4/"):
            if sigma is None and "loaded_latency_max_excess_w2_cycles" in b:
                sigma = math.sqrt(math.pi) * b["loaded_latency_max_excess_w2_cycles"]
    if sigma is None:
        sys.exit(f"{args.run}: no loaded_latency_max_excess_w2_cycles at W = 0, 4 warps/SM; pass --sigma")
    measured, sms = {}, None
    for r in csv.DictReader(open(f"{args.run}/warpcost.csv")):
        if (r["benchmark"] == "read_independent" and r["load_bytes"] == "16" and r["loads_in_flight"] in ("", "1") and
                r["metric"] == "dram__bytes_read.sum.per_second"):
            w, n, sms = int(r["alu_per_load"]), int(r["warps_per_sm"]), int(r["sm_count"])
            measured[(w, n)] = float(r["value"])
    per_cycle = lambda n: n * sms * F_BYTES * f
    # The locus: the W = 0 curve's (bandwidth, iteration cycles), cycles made non-decreasing.
    loc, most = [], 0.0
    for bw, c in sorted((measured[(0, n)], per_cycle(n) / measured[(0, n)]) for (w, n) in measured if w == 0):
        most = max(most, c)
        loc.append((bw, most))
    lam0, ceiling = loc[0][1], loc[-1][0]

    def locus(bw):
        if bw <= loc[0][0]:
            return loc[0][1]
        for (x0, c0), (x1, c1) in zip(loc, loc[1:]):
            if bw <= x1:
                return c0 + (c1 - c0) * (bw - x0) / (x1 - x0)
        return loc[-1][1]

    prog0 = compress(program(ks, args.cubin, 0))
    own0 = sum(s / args.rate if k == "run" else s for s, k in prog0)
    t0_0 = per_cycle(1) / measured[(0, 1)]
    base = t0_0 - own0  # the memory's unloaded latency as the program sees it
    print(f"# H: lone W = 0 iteration {t0_0:.0f} cycles less its loop's {own0}: M0 = {base:.0f}; "
          f"sigma {sigma:.0f}; locus {len(loc)} points to {ceiling / 1e12:.2f} TB/s; "
          f"{args.seeds} seeds x {args.iterations} iterations; C = T0(W) - M0 - loop(W)")
    print("W,loop_cycles,C,warps_per_sm,measured_TBps,simulated_TBps,error_pct")
    seeds = range(1, args.seeds + 1)
    for w in (int(x) for x in args.w.split(",")):
        prog = compress(program(ks, args.cubin, w))
        own = sum(s / args.rate if k == "run" else s for s, k in prog)
        t0 = per_cycle(1) / measured[(w, 1)]
        c = max(0.0, t0 - base - own) if any(k == "wait_ldc" for _s, k in prog) else 0.0
        cache = {}

        def period(k, lat):
            lo = math.floor(lat / args.grid) * args.grid
            vals = []
            for g in (lo, lo + args.grid):
                if (k, g) not in cache:
                    cache[(k, g)] = sum(scheduler_cycles(k, prog, g, sigma, c, s * 10 + k, args.iterations, args.rate)
                                        for s in seeds) / len(seeds)
                vals.append(cache[(k, g)])
            return vals[0] + (vals[1] - vals[0]) * (lat - lo) / args.grid

        def iteration(n, bw):
            lat = base + locus(bw) - lam0
            counts = {len(range(s, n, SCHEDULERS)) for s in range(SCHEDULERS)} - {0}
            return max(period(k, lat) for k in counts)

        curve = []
        for n in sorted(m for (ww, m) in measured if ww == w):
            offered = lambda bw: per_cycle(n) / iteration(n, bw)
            if offered(ceiling) >= ceiling:
                bw = ceiling
            else:
                lo, hi = 0.0, ceiling
                for _ in range(40):
                    mid = 0.5 * (lo + hi)
                    lo, hi = (mid, hi) if offered(mid) > mid else (lo, mid)
                bw = 0.5 * (lo + hi)
            got = measured[(w, n)]
            curve.append((n, got, bw))
            print(f"{w},{own:.0f},{c:.0f},{n},{got / 1e12:.4f},{bw / 1e12:.4f},{100 * (bw - got) / got:+.1f}")
        def knee(points):
            top = max(v for _n, v in points)
            prev = None
            for n, v in points:
                if v >= 0.9 * top:
                    if prev is None:
                        return float(n)
                    (n0, v0) = prev
                    return n0 + (n - n0) * (0.9 * top - v0) / (v - v0)
                prev = (n, v)
        judged = [abs(p - g) / g for n, g, p in curve if n > 1]
        print(f"# W = {w}: MAE {100 * sum(judged) / len(judged):.2f} % over {len(judged)} points (1 warp/SM left out), "
              f"largest {100 * max(judged):.1f} %; knee measured {knee([(n, g) for n, g, _p in curve]):.1f}, "
              f"simulated {knee([(n, p) for n, _g, p in curve]):.1f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
