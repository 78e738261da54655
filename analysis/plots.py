#!/usr/bin/env python3
"""warpcost plots: the figures a person would rather look at than read, drawn with matplotlib from
the tidy CSV that warpcost-analyze writes (one row per measured value), for each benchmark from the
run that swept it at the most points (the newest of equals).

    python3 analysis/plots.py results/warpcost.csv results/plots

Writes SVGs (without dates, so an unchanged CSV gives unchanged files). Without matplotlib it says
so and exits 0: the analysis around it still succeeds, and committed plots stay as they are.
"""
import csv
import os
import sys


def params_of(text):
    out = {}
    for item in text.split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            out[key] = value
    return out


def number(text):
    return float(text) if text not in ("", None) else None


def load(csv_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    # Archived runs (results/archive/...) stay in the CSV for the record but are not plotted.
    rows = [r for r in rows if r.get("run_status", "current") == "current"]
    for r in rows:
        r["p"] = params_of(r["params"])
        r["v"] = number(r["value"])
        r["pred"] = number(r["predicted"])
    return rows


def newest_run(rows, family, benchmark):
    """The run id that measured this family's benchmark at the most points, the newest of those: a
    later run over part of a sweep (a counter round, say) does not replace the whole sweep's plot."""
    points = {}
    for r in rows:
        if r["family"] == family and r["benchmark"] == benchmark:
            key = (r["utc"], r["run_id"])
            points.setdefault(key, set()).add(r["params"])
    if not points:
        return None
    return max(points, key=lambda k: (len(points[k]), k))[1]


def select(rows, run_id, benchmark, metric, **fixed):
    return [r for r in rows
            if r["run_id"] == run_id and r["benchmark"] == benchmark and r["metric"] == metric
            and all(r["p"].get(k) == str(v) for k, v in fixed.items())]


def staircase_data(rows):
    run = newest_run(rows, "partial_warp", "staircase")
    if run is None:
        return None
    rate = sorted((int(r["p"]["threads"]), r["v"])
                  for r in select(rows, run, "staircase",
                                  "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_second"))
    fraction = sorted((int(r["p"]["threads"]), r["v"], r["pred"])
                      for r in select(rows, run, "staircase", "useful_fraction"))
    return {"run": run, "rate": rate, "fraction": fraction}


def split_data(rows):
    run = newest_run(rows, "divergence", "split_low")
    if run is None:
        return None
    trips = None
    for r in select(rows, run, "split_low", "warp_cycles", warps_per_sm=4):
        if r["p"]["if_trips"] == r["p"]["else_trips"]:
            trips = r["p"]["if_trips"]
    if trips is None:
        return None
    series = {}
    for pattern in ("low", "interleaved", "random"):
        pts = [(int(r["p"]["k"]), r["v"], r["pred"])
               for r in select(rows, run, "split_" + pattern, "warp_slowdown",
                               if_trips=trips, else_trips=trips, warps_per_sm=4)]
        pts.append((32, 1.0, 1.0))  # the reference itself
        series[pattern] = sorted(pts)
    grid = sorted((int(r["p"]["k"]), r["v"], r["pred"])
                  for r in select(rows, run, "split_low", "grid_slowdown_fixed_cost",
                                  if_trips=trips, else_trips=trips, warps_per_sm=4))
    unequal = sorted((int(r["p"]["k"]), r["v"], r["pred"])
                     for r in select(rows, run, "split_low", "warp_slowdown", if_trips=trips,
                                     warps_per_sm=4)
                     if r["p"]["else_trips"] not in (trips, "0"))
    return {"run": run, "series": series, "grid": grid, "unequal": unequal}


def switch_data(rows):
    run = newest_run(rows, "divergence", "switch")
    if run is None:
        return None
    warp = sorted((int(r["p"]["paths"]), r["v"], r["pred"])
                  for r in select(rows, run, "switch", "warp_slowdown", first_path=0, warps_per_sm=4))
    summed = {int(r["p"]["paths"]): r["pred"]
              for r in select(rows, run, "switch", "warp_slowdown_measured_paths", first_path=0,
                              warps_per_sm=4)}
    grid = sorted((int(r["p"]["paths"]), r["v"], r["pred"])
                  for r in select(rows, run, "switch", "grid_slowdown_fixed_cost", first_path=0,
                                  warps_per_sm=4))
    return {"run": run, "warp": warp, "summed": summed, "grid": grid}


def residency_data(rows):
    run = newest_run(rows, "divergence", "split_low")
    if run is None:
        return None
    pts = []
    for r in select(rows, run, "split_low", "warp_slowdown", k=16):
        if r["p"]["if_trips"] != r["p"]["else_trips"]:
            continue
        w = int(r["p"]["warps_per_sm"])
        same = dict(k=16, if_trips=r["p"]["if_trips"], else_trips=r["p"]["else_trips"], warps_per_sm=w)
        grid = select(rows, run, "split_low", "grid_slowdown", **same)
        fixed = select(rows, run, "split_low", "grid_slowdown_fixed_cost", **same)
        pts.append((w, r["v"], grid[0]["v"] if grid else None, fixed[0]["pred"] if fixed else None))
    return {"run": run, "points": sorted(pts)}


def streaming_data(rows):
    run = newest_run(rows, "streaming", "read_independent")
    if run is None:
        return None
    curves = {}
    for r in select(rows, run, "read_independent", "dram__bytes_read.sum.per_second", load_bytes=16):
        curves.setdefault(int(r["p"]["alu_per_load"]), []).append((int(r["p"]["warps_per_sm"]), r["v"]))
    knees = {int(r["p"]["alu_per_load"]): r["v"]
             for r in select(rows, run, "knee", "knee_warps_per_sm", use="independent", load_bytes=16)
             if "loads_in_flight" not in r["p"]}
    # Each model's predicted knee per W, for the markers.
    models = {}
    for metric in ("knee_model_ceil_l_over_w", "knee_model_scheduler_demand", "knee_model_littles_law"):
        for r in select(rows, run, "knee", metric, use="independent", load_bytes=16):
            if r["pred"] is not None:
                models.setdefault(int(r["p"]["alu_per_load"]), {})[metric] = r["pred"]
    peak = next((r["pred"] for r in select(rows, run, "read_independent",
                                            "dram__bytes_read.sum.per_second") if r["pred"]), None)
    batched = {1: curves.get(0, [])}
    for r in select(rows, run, "read_batched", "dram__bytes_read.sum.per_second", load_bytes=16):
        batched.setdefault(int(r["p"]["loads_in_flight"]), []).append((int(r["p"]["warps_per_sm"]), r["v"]))
    one = sorted((int(r["p"]["block_threads"]), r["v"])
                 for r in select(rows, run, "read_one_per_thread", "dram__bytes_read.sum.per_second"))
    return {"run": run, "curves": {w: sorted(c) for w, c in curves.items()}, "knees": knees, "peak": peak,
            "models": models, "batched": {u: sorted(c) for u, c in batched.items() if c}, "one": one}


def latency_data(rows):
    run = newest_run(rows, "latency", "chase_random")
    if run is None:
        return None
    series = {}
    for bench in ("chase_random", "chase_stride"):
        series[bench] = sorted((int(r["p"]["footprint_kib"]), r["v"])
                               for r in select(rows, run, bench, "latency_cycles"))
    plateaus = {(r["p"]["order"], r["p"]["level"]): r["v"]
                for r in select(rows, run, "latency_plateau", "latency_cycles")}
    return {"run": run, "series": series, "plateaus": plateaus}


def plot_grid(ax, points):
    """The grid's slowdown (x, measured, predicted) and its fixed-part model."""
    if not points:
        return
    ax.plot([x for x, _, _ in points], [v for _, v, _ in points], "x", ms=4, label="grid time (events)")
    ax.plot([x for x, _, _ in points], [p for _, _, p in points], "--", lw=0.8,
            label="grid model: fixed part + populated regions")


def main(argv):
    if len(argv) != 3:
        print("usage: plots.py WARPCOST_CSV OUT_DIR", file=sys.stderr)
        return 2
    csv_path, out_dir = argv[1], argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plots: matplotlib is not installed here (python3 -c 'import matplotlib' fails); "
              "no plots drawn, the committed ones in " + out_dir + " are left as they are")
        return 0
    matplotlib.rcParams["svg.hashsalt"] = "warpcost"
    rows = load(csv_path)
    os.makedirs(out_dir, exist_ok=True)
    written = []

    def save(fig, name, run):
        fig.text(0.99, 0.005, "run " + run, ha="right", va="bottom", fontsize=7)
        path = os.path.join(out_dir, name)
        fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
        plt.close(fig)
        written.append(path)

    st = staircase_data(rows)
    if st and st["rate"]:
        fig, (a, b) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
        xs = [p for p, _ in st["rate"]]
        a.plot(xs, [v / 1e12 for _, v in st["rate"]], ".", ms=3, label="measured")
        a.set_ylabel("useful FMA/s (T)")
        a.set_title("partial-warp staircase: useful throughput vs threads per block")
        a.legend()
        if st["fraction"]:
            b.plot([p for p, _, _ in st["fraction"]], [v for _, v, _ in st["fraction"]], ".", ms=4,
                   label="measured: rate(P) / rate(32 ceil(P/32))")
            model_x = list(range(1, 1025))
            b.plot(model_x, [p / (32 * -(-p // 32)) for p in model_x], "-", lw=0.8,
                   label="model P / (32 ceil(P/32))")
        b.set_xlabel("threads per block P")
        b.set_ylabel("useful fraction")
        b.legend()
        save(fig, "partial-warp-staircase.svg", st["run"])

    sp = split_data(rows)
    if sp:
        fig, ax = plt.subplots(figsize=(9, 5))
        marks = {"low": "o", "interleaved": "s", "random": "^"}
        for pattern, pts in sp["series"].items():
            ax.plot([k for k, _, _ in pts], [v for _, v, _ in pts], marks[pattern], ms=4,
                    fillstyle="none", label="per warp, " + pattern + " lanes")
        model = sp["series"]["low"]
        ax.plot([k for k, _, _ in model], [p for _, _, p in model], "-", lw=0.8,
                label="model: sum of populated paths")
        plot_grid(ax, sp["grid"])
        if sp["unequal"]:
            ax.plot([k for k, _, _ in sp["unequal"]], [v for _, v, _ in sp["unequal"]], "d", ms=3,
                    label="per warp, T_if = 4 T_else")
            ax.plot([k for k, _, _ in sp["unequal"]], [p for _, _, p in sp["unequal"]], ":", lw=0.8,
                    label="model (T_if + T_else) / T_if")
        ax.set_xlabel("k: lanes of 32 on the if side")
        ax.set_ylabel("slowdown vs the all-if warp")
        ax.set_title("divergence: every lane split, one warp per scheduler")
        ax.set_ylim(0, 2.3)
        ax.legend(fontsize=8, loc="lower center")
        save(fig, "divergence-split-sweep.svg", sp["run"])

    sw = switch_data(rows)
    if sw and sw["warp"]:
        fig, ax = plt.subplots(figsize=(9, 5))
        xs = [1] + [n for n, _, _ in sw["warp"]]
        ax.plot(xs, xs, "-", lw=0.8, label="model: number of populated paths")
        ax.plot([n for n, _, _ in sw["warp"]], [v for _, v, _ in sw["warp"]], "o", ms=4,
                fillstyle="none", label="per warp")
        if sw["summed"]:
            ns = sorted(sw["summed"])
            ax.plot(ns, [sw["summed"][n] for n in ns], ":", lw=0.8,
                    label="model: sum of each case run alone")
        plot_grid(ax, sw["grid"])
        ax.set_xlabel("distinct switch paths in a warp")
        ax.set_ylabel("slowdown vs one path")
        ax.set_title("divergence: k-way switch, one warp per scheduler")
        ax.legend(fontsize=8)
        save(fig, "divergence-k-way.svg", sw["run"])

    rs = residency_data(rows)
    if rs and len(rs["points"]) > 1:
        fig, ax = plt.subplots(figsize=(9, 5))
        ws = [w for w, _, _, _ in rs["points"]]
        ax.axhline(2.0, lw=0.8, label="model: 2x (both sides populated)")
        ax.plot(ws, [v for _, v, _, _ in rs["points"]], "o-", ms=4, label="per warp (median cycles)")
        ax.plot(ws, [g for _, _, g, _ in rs["points"]], "x-", ms=5, label="grid time (events)")
        ax.plot(ws, [f for _, _, _, f in rs["points"]], "--", lw=0.8,
                label="grid model: fixed part + populated regions")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ws)
        ax.set_xticklabels([str(w) for w in ws])
        ax.set_xlabel("resident warps per SM (4 schedulers)")
        ax.set_ylabel("16/16 split: slowdown vs uniform")
        ax.set_title("divergence: which measure the model describes, by residency")
        ax.legend(fontsize=8)
        save(fig, "divergence-residency.svg", rs["run"])

    sd = streaming_data(rows)
    if sd and sd["curves"]:
        fig, ax = plt.subplots(figsize=(9, 5.5))
        for w in sorted(sd["curves"]):
            pts = sd["curves"][w]
            line, = ax.plot([x for x, _ in pts], [v / 1e12 for _, v in pts], ".-", ms=3, lw=0.8,
                            label="W = %d" % w)
            knee = sd["knees"].get(w)
            if knee is not None:
                at = dict(pts).get(int(knee))
                if at is not None:
                    ax.plot([knee], [at / 1e12], "o", ms=7, fillstyle="none", color=line.get_color())
            # The models' knees, drawn on the curve at the nearest measured residency.
            for metric, marker in (("knee_model_ceil_l_over_w", "x"), ("knee_model_scheduler_demand", "+"),
                                   ("knee_model_littles_law", "^")):
                predicted = sd["models"].get(w, {}).get(metric)
                if predicted is not None and pts:
                    x, v = min(pts, key=lambda p: abs(p[0] - predicted))
                    ax.plot([x], [v / 1e12], marker, ms=7, color=line.get_color())
        if sd["peak"]:
            ax.axhline(sd["peak"] / 1e12, ls="--", lw=0.8, color="gray", label="theoretical DRAM peak")
        ax.set_xlabel("resident warps per SM")
        ax.set_ylabel("read bandwidth (TB/s)")
        ax.set_title("load streaming: bandwidth vs warps/SM per W (16-byte loads)\n"
                     "o measured knee, x ceil(L/W), + scheduler demand, ^ Little's law")
        ax.legend(fontsize=7, ncol=2)
        save(fig, "streaming-bandwidth.svg", sd["run"])

    if sd and (len(sd["batched"]) > 1 or sd["one"]):
        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
        for u in sorted(sd["batched"]):
            pts = sd["batched"][u]
            left.plot([x for x, _ in pts], [v / 1e12 for _, v in pts], "o-", ms=3, lw=0.8,
                      label="%d load(s) in flight a thread" % u)
        if sd["peak"]:
            left.axhline(sd["peak"] / 1e12, ls="--", lw=0.8, color="gray", label="theoretical DRAM peak")
            right.axhline(sd["peak"] / 1e12, ls="--", lw=0.8, color="gray", label="theoretical DRAM peak")
        left.set_xlabel("resident warps per SM")
        left.set_ylabel("read bandwidth (TB/s)")
        left.set_title("loads in flight a warp move the knee (W = 0)")
        left.legend(fontsize=7)
        if sd["one"]:
            right.plot([t for t, _ in sd["one"]], [v / 1e12 for _, v in sd["one"]], "o-", ms=3, lw=0.8,
                       label="one 16-byte load a thread")
        right.set_xlabel("threads per block")
        right.set_ylabel("read bandwidth (TB/s)")
        right.set_title("non-persistent: one load a thread, by block size")
        right.legend(fontsize=7)
        save(fig, "streaming-in-flight.svg", sd["run"])

    ld = latency_data(rows)
    if ld and ld["series"]["chase_random"]:
        fig, ax = plt.subplots(figsize=(9, 5))
        for bench, label in (("chase_random", "random ring"), ("chase_stride", "fixed stride")):
            pts = ld["series"][bench]
            if pts:
                ax.plot([k * 1024 for k, _ in pts], [v for _, v in pts], "o-", ms=3, lw=0.8, label=label)
        for (order, level), cycles in sorted(ld["plateaus"].items()):
            if order == "random":
                ax.axhline(cycles, ls=":", lw=0.8, color="gray")
                ax.text(16 * 1024, cycles, " %s %.0f cycles" % (level, cycles), va="bottom", fontsize=7)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("footprint (bytes)")
        ax.set_ylabel("cycles per dependent load")
        ax.set_title("pointer-chase latency: L1, L2 and DRAM plateaus")
        ax.legend(fontsize=8)
        save(fig, "latency-plateaus.svg", ld["run"])

    for path in written:
        print("wrote " + path)
    if not written:
        print("plots: no family in " + csv_path + " has data to plot")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
