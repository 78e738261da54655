"""The latency and streaming families' plots: bandwidth against warps per SM with the knee models,
loads in flight and one load a thread, and the pointer chase's plateaus."""
from plot_support import newest_run, params_of, select


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


def draw(rows, plt, save):
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
