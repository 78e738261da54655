#!/usr/bin/env python3
"""A second implementation of explain's kernel model (explain/kernel_model.cpp, EXPLAIN-4, -5, -7 and -8), written
apart from it in plain Python from docs/explain.md's description, to check the C++ on real records.

Usage: kernel_model_reference.py RECORDS.jsonl BENCH.json R_SAT [TURNOVER.json]
Prints one JSON object: each view's speedup (the fitted model's time over the re-solved one, at
least 1) and the fit. RECORDS: a session's raw records (its first profiled launch is priced);
BENCH: the suite run whose read_independent 16-byte W = 0 sweep is the loaded-latency locus (and whose
copy_independent sweep, where it has one, the copy locus of EXPLAIN-7); R_SAT:
the run's saturated_issue_rate row (warp instructions a cycle a scheduler); TURNOVER: optional
{"block_threads": cycles} of the run's block_turnover rows.
"""
import json
import math
import statistics
import sys

SCHEDULERS = 4  # sm_90's warp schedulers an SM (the run's arch parameters say the same)


def _little_points(bench, prefix, total_rate):
    """The unthrottled, error-free points whose name starts with PREFIX: (total_rate(b, seconds), cycles a
    load waits by Little's law, 512 bytes a warp in flight over the read rate), sorted and made
    non-decreasing (a load never gets faster as the DRAM gets busier); with the run's S and f."""
    ctx = bench["context"]
    sms = float(ctx["sm_count"])
    clock = float(ctx["sm_clock_measured_khz"]) * 1e3
    reference = float(ctx.get("sm_clock_reference_mhz", ctx.get("sm_clock_max_mhz", 0)))
    pts = []
    for b in bench["benchmarks"]:
        name = b["name"]
        if not name.startswith(prefix) or b.get("error_occurred"):
            continue
        clocks = b.get("warpcost_sm_clock_mhz")
        if clocks is not None and reference > 0 and min(clocks if isinstance(clocks, list) else [clocks]) < 0.95 * reference:
            continue  # throttled (the analysis' kThrottleFraction)
        warps = float(name.split("warps_per_sm:")[1].split("/")[0])
        seconds = statistics.median(b["warpcost_sample_seconds"])
        read = b["bytes_read"] / seconds  # the bytes the stream reads (the analysis' kBytesRead)
        pts.append((total_rate(b, seconds), sms * warps * 512.0 * clock / read))
    pts.sort()
    out, top = [], 0.0
    for bw, c in pts:
        top = max(top, c)
        out.append((bw, top))
    return out, sms, clock, ctx


def locus_points(bench):
    return _little_points(bench, "streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:",
                          lambda b, seconds: b["bytes_read"] / seconds)


def copy_points(bench):
    """EXPLAIN-7's copy locus from the run's copy_independent points, against the read + write rate;
    [] without two."""
    pts = _little_points(bench, "streaming/copy_independent/load_bytes:16/warps_per_sm:",
                         lambda b, seconds: (b["bytes_read"] + b["bytes_written"]) / seconds)[0]
    return pts if len(pts) >= 2 else []


def wait(k, g, bw):
    """EXPLAIN-7: the read locus' latency moved towards the copy locus' by the written share."""
    read = lam(g["locus"], bw)
    copy = g.get("copy_locus") or []
    if len(copy) < 2 or k.get("Bw", 0) <= 0:
        return read
    rb = k["B"] - k["Bw"]
    s = min(1.0, k["Bw"] / rb) if rb > 0 else 1.0
    return read + s * (lam(copy, bw) - read)


def turnover_of(bench):
    """{block threads: cycles an SM spends a block} of a run's block_turnover points: SMs x median
    seconds x measured clock / blocks (docs/models.md, "one load a thread")."""
    ctx = bench["context"]
    sms, clock = float(ctx["sm_count"]), float(ctx["sm_clock_measured_khz"]) * 1e3
    out = {}
    for b in bench["benchmarks"]:
        if b["name"].startswith("streaming/block_turnover/"):
            threads = float(b["name"].split("block_threads:")[1].split("/")[0])
            out[threads] = sms * statistics.median(b["warpcost_sample_seconds"]) * clock / b["blocks"]
    return out


def lam(pts, bw):
    if bw <= pts[0][0]:
        return pts[0][1]
    for (b0, c0), (b1, c1) in zip(pts, pts[1:]):
        if bw <= b1:
            return c0 + (c1 - c0) * (bw - b0) / (b1 - b0)
    return pts[-1][1]


def mva(customers, demands, delay):
    def exact(n):
        q = [0.0] * len(demands)
        x = 0.0
        for c in range(1, n + 1):
            r = [d * (1 + qi) for d, qi in zip(demands, q)]
            x = c / (delay + sum(r))
            q = [x * ri for ri in r]
        return x
    lo, hi = math.floor(customers), math.ceil(customers)
    xlo = exact(lo) if lo > 0 else 0.0
    return xlo if hi == lo else xlo + (exact(hi) - xlo) * (customers - lo)


def turnover(tt, threads):
    if not tt:
        return 0.0
    ks = sorted(tt)
    if threads <= ks[0]:
        return tt[ks[0]]
    for a, b in zip(ks, ks[1:]):
        if threads <= b:
            return tt[a] + (tt[b] - tt[a]) * (threads - a) / (b - a)
    return tt[ks[-1]]


def time_of(k, g):
    rounds = k["loads"] / k["m"] if k["loads"] > 0 else 0.0
    if k.get("B0", 0) > 0:  # at the DRAM ceiling (EXPLAIN-5): U with the DRAM bytes
        mem = k["B"] / k["B0"]
    else:
        mem = k["sec"] / k["sec0"] if k["sec0"] > 0 else 1
    u = k["u_mem"] * mem + k["u_iss"] * (k["ipw"] / k["ipw0"] if k["ipw0"] > 0 else 1)
    dem = [turnover(g["turnover"], k["P"]), k["iblk"] / (SCHEDULERS * g["rsat"])]
    X = lambda bw: mva(k["k"], dem, rounds * wait(k, g, bw) + u)
    sf, B, top = g["sms"] * g["clock"], k["B"], g["locus"][-1][0]
    if B <= 0:
        x = X(0.0)
    elif sf * X(top) * B >= top:
        x = top / (sf * B)
    else:
        lo, hi = 0.0, top
        for _ in range(100):
            mid = (lo + hi) / 2
            if sf * X(mid) * B > mid:
                lo = mid
            else:
                hi = mid
        x = X(lo)
    return (k["G"] / g["sms"]) / (x * g["clock"])


def fit(k, g, measured):
    # EXPLAIN-8: the defect's measured DRAM rate against the locus' ceiling (the coalesced twin's
    # queueing share reads it).
    rho = k["B"] * k["G"] / measured / g["locus"][-1][0] if k["B"] > 0 and measured > 0 else 0.0
    k = dict(k, m=1.0, u_mem=0.0, u_iss=0.0, sec0=k["sec"], ipw0=k["ipw"], rho=rho)
    most = max(1.0, k["loads"])
    if most > 1:
        fastest = time_of(dict(k, m=most), g)
        slowest = time_of(k, g)
        if measured <= fastest:
            return dict(k, m=most), "model slower than measured"
        if measured <= slowest:
            lo, hi = 1.0, most
            for _ in range(100):
                mid = (lo + hi) / 2
                if time_of(dict(k, m=mid), g) > measured:
                    lo = mid
                else:
                    hi = mid
            return dict(k, m=hi), "loads in flight"
    if measured <= time_of(k, g):
        return k, "model slower than measured"
    # EXPLAIN-5: measured DRAM rate at least 95 % of the locus' ceiling: all of U with the DRAM bytes.
    if k["B"] > 0 and k["B"] * k["G"] / measured >= 0.95 * g["locus"][-1][0]:
        k = dict(k, B0=k["B"])
        share = 1.0
    else:
        share = min(1.0, max(0.0, k["mem_share"]))
    with_u = lambda u: dict(k, u_mem=share * u, u_iss=(1 - share) * u)
    hi = max(1.0, measured * g["clock"])
    while time_of(with_u(hi), g) < measured:
        hi *= 2
    lo = 0.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if time_of(with_u(mid), g) < measured:
            lo = mid
        else:
            hi = mid
    return with_u(hi), "unexplained cycles"


def per_block(k, s):
    out = dict(k)
    for key in ("iblk", "ipw", "loads", "B", "asked", "sec", "Bw", "asked_st"):
        out[key] = k[key] * s
    return out


def full_k(g, w):
    return min(g["max_blocks"], math.floor(g["max_warps"] / w))


def fix(k, name, g):
    k = dict(k)
    one_wave = k["G"] <= g["sms"] * k["k"] * (1 + 1e-6)
    if name == "partial_warps":
        full = 32 * k["w"]
        if full > k["P"]:
            r = full / k["P"]
            k.update(G=k["G"] / r, P=full, B=k["B"] * r, asked=k["asked"] * r, sec=k["sec"] * r,
                     Bw=k["Bw"] * r, asked_st=k["asked_st"] * r)
            k["k"] = min(k["k"], k["G"] / g["sms"])
    elif name == "divergence":
        k.update(iblk=k["iblk"] * (1 - k["s"]), ipw=k["ipw"] * (1 - k["s"]), s=0.0)
    elif name == "coalescing" and k["asked"] > 0:  # nothing asked: nothing to coalesce
        # EXPLAIN-7 and EXPLAIN-8, with a copy locus: a twin moving fewer DRAM bytes leaves the queueing
        # share q of U's memory part behind, q = (rho - 0.8) / 0.2 clamped to [0, 1]
        if len(g.get("copy_locus") or []) >= 2 and k["B"] > k["asked"]:
            q = min(1.0, max(0.0, (k.get("rho", 0.0) - 0.8) / 0.2))
            k["u_mem"] = k["u_mem"] * (1 - q)
        k.update(B=min(k["B"], k["asked"]), sec=min(k["sec"], k["asked"] / 32.0), Bw=min(k["Bw"], k["asked_st"]))
    elif name == "latency_hiding":
        full = full_k(g, k["w"])
        if full > k["k"]:
            if one_wave:
                blocks = g["sms"] * full
                if k["loads"] > 0:  # a warp's one load is not split
                    blocks = min(blocks, k["G"] * max(1.0, k["loads"]))
                if blocks > k["G"]:
                    k = per_block(k, k["G"] / blocks)
                    k.update(G=blocks, k=min(full, blocks / g["sms"]))
            else:
                k["k"] = min(full, k["G"] / g["sms"])
    elif name == "block_turnover":
        if not one_wave:
            blocks = g["sms"] * k["k"]
            k = per_block(k, k["G"] / blocks)
            k["G"] = blocks
    elif name == "all_fixed":
        for f in ("partial_warps", "divergence", "coalescing", "latency_hiding", "block_turnover"):
            k = fix(k, f, g)
    return k


def kernel_of(records_path, sms):
    launch, passes = None, {}
    for line in open(records_path):
        r = json.loads(line)
        if r.get("record") == "dram_pass":
            passes[r["index"]] = r
        if r.get("record") == "launch" and launch is None:
            launch = r
    m = launch["metrics"]
    dram = passes.get(launch.get("dram_pass_index"), {}).get("metrics") or m
    P = launch["block"][0] * launch["block"][1] * launch["block"][2]
    w = math.ceil(P / 32)
    warps = m["smsp__warps_launched.sum"]
    G = warps / w  # the blocks the launch launched
    written = min(dram["dram__bytes_write.sum"], m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] * 32)
    eff = min(1.0, max(0.0, m["smsp__thread_inst_executed.sum"] / m["smsp__inst_executed.sum"] / (32 * P / (32 * w))))
    warps_active = m["sm__warps_active.avg.per_cycle_active"]
    issue = min(1.0, m["smsp__issue_active.avg.pct_of_peak_sustained_active"] / 100)
    stall = m["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] * issue / (warps_active / SCHEDULERS)
    return dict(
        G=G, P=P, w=w, k=min(launch["occupancy_blocks_per_sm"], G / sms),
        iblk=m["smsp__inst_executed.sum"] / G, ipw=m["smsp__inst_executed.sum"] / warps,
        loads=m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] / warps,
        B=(dram["dram__bytes_read.sum"] + written) / G,
        Bw=written / G,  # the written part of B (EXPLAIN-7's written share)
        asked_st=m["sm__sass_data_bytes_mem_global_op_st.sum"] / G,
        asked=(m["sm__sass_data_bytes_mem_global_op_ld.sum"] + m["sm__sass_data_bytes_mem_global_op_st.sum"]) / G,
        sec=(m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] + m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]) / G,
        s=(1 - eff) if m["smsp__sass_branch_targets_threads_divergent.sum"] > 0 else 0.0,
        mem_share=min(1.0, max(0.0, stall)),
    ), m["gpu__time_duration.sum"] * 1e-9


def gpu_of(bench, rsat, turnover):
    """The GPU's parameters the model reads, from a run's bench.json: the locus, S, f, r_sat, the
    turnover sweep ({block threads: cycles}), the SM's block and warp limits and the copy locus."""
    pts, sms, clock, ctx = locus_points(bench)
    return dict(locus=pts, sms=sms, clock=clock, rsat=float(rsat), turnover=turnover,
                max_blocks=float(ctx["max_blocks_per_sm"]), max_warps=float(ctx["max_warps_per_sm"]),
                copy_locus=copy_points(bench))


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    bench = json.load(open(sys.argv[2]))
    tt = {}
    if len(sys.argv) == 5:
        tt = {float(a): float(b) for a, b in json.load(open(sys.argv[4])).items()}
    g = gpu_of(bench, sys.argv[3], tt)
    k, measured = kernel_of(sys.argv[1], g["sms"])
    fitted, how = fit(k, g, measured)
    base = time_of(fitted, g)
    views = {}
    for name in ("partial_warps", "divergence", "coalescing", "latency_hiding", "block_turnover", "all_fixed"):
        if name == "block_turnover" and not tt:
            continue  # without the sweep the view is not priced
        views[name] = max(1.0, base / time_of(fix(fitted, name, g), g))
    print(json.dumps({"how": how, "model_seconds": base, "measured_seconds": measured,
                      "loads_in_flight": fitted["m"], "unexplained": fitted["u_mem"] + fitted["u_iss"],
                      "views": views}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
