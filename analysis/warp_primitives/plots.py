"""The warp-primitives family's figures, drawn by analysis/plots.py: latency (one warp an SM) and
throughput at full residency by primitive, with the Programming Guide's shuffle rate; throughput
against warps/SM (the Little's law knee); and cost against active lanes (warp granularity)."""

# Primitive ids and names, as core/warp_primitives/model.cpp numbers them.
NAMES = ["alu_add", "shfl_idx32", "shfl_up32", "shfl_down32", "shfl_xor32", "shfl_idx64", "shfl_up64",
         "shfl_down64", "shfl_xor64", "ballot", "any", "all", "match_any", "match_all", "reduce_add",
         "reduce_min", "reduce_max", "syncwarp", "activemask", "sum_butterfly", "sum_shared",
         "sum_butterfly64", "sum_butterfly_f32"]
FAMILY = "warp_primitives"


def name_of(pid):
    i = int(pid)
    return NAMES[i] if 0 <= i < len(NAMES) else "primitive %d" % i


def pick(rows, run, benchmark, metric, **fixed):
    return [r for r in rows if r["run_id"] == run and r["family"] == FAMILY and r["benchmark"] == benchmark
            and r["metric"] == metric and all(r["p"].get(k) == str(v) for k, v in fixed.items())]


def draw_by_primitive(rows, plt, save, run):
    lat = {int(r["p"]["primitive"]): r["v"] for r in pick(rows, run, "latency", "cycles_per_op",
                                                             active_lanes=32, mask=0)}
    thr_rows = pick(rows, run, "throughput", "warp_ops_per_cycle_per_sm", active_lanes=32, mask=0)
    cap = max((int(r["p"]["warps_per_sm"]) for r in thr_rows), default=0)
    thr = {int(r["p"]["primitive"]): r["v"] for r in thr_rows if int(r["p"]["warps_per_sm"]) == cap}
    table = {int(r["p"]["primitive"]): r["pred"] for r in pick(rows, run, "throughput",
                                                               "shuffle_throughput_vs_guide_table")}
    ids = sorted(set(lat) | set(thr))
    if not ids:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    xs = list(range(len(ids)))
    left.bar(xs, [lat.get(i, 0) for i in ids])
    left.set_xticks(xs)
    left.set_xticklabels([name_of(i) for i in ids], rotation=75, fontsize=7)
    left.set_ylabel("cycles per op")
    left.set_yscale("log")
    left.set_title("latency: one dependent chain, one warp an SM, 32 lanes")
    right.bar(xs, [thr.get(i, 0) for i in ids], label="measured")
    marked = [(x, table[i]) for x, i in zip(xs, ids) if table.get(i)]
    if marked:
        right.plot([x for x, _ in marked], [v for _, v in marked], "k_", ms=14, mew=2,
                   label="Guide table (cc 9.0): 32 results/clock/SM = 1 SHFL/clock/SM")
    right.set_xticks(xs)
    right.set_xticklabels([name_of(i) for i in ids], rotation=75, fontsize=7)
    right.set_ylabel("warp-ops per cycle per SM")
    right.set_yscale("log")
    right.set_title("throughput at full residency (%d warps/SM), 4 chains a warp" % cap)
    right.legend(fontsize=7)
    save(fig, "warp-primitives-by-primitive.svg", run)


def draw_knees(rows, plt, save, run):
    thr_rows = pick(rows, run, "throughput", "warp_ops_per_cycle_per_sm", active_lanes=32, mask=0)
    curves = {}
    for r in thr_rows:
        curves.setdefault(int(r["p"]["primitive"]), []).append((int(r["p"]["warps_per_sm"]), r["v"]))
    curves = {p: sorted(c) for p, c in curves.items() if len(c) >= 3}
    if not curves:
        return
    knees = {int(r["p"]["primitive"]): r["pred"] for r in pick(rows, run, "throughput", "throughput_knee_warps_per_sm")}
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (p, c) in enumerate(sorted(curves.items())):
        color = colors[k % len(colors)]
        ax.plot([w for w, _ in c], [v for _, v in c], "o-", ms=3, lw=0.8, color=color, label=name_of(p))
        if knees.get(p):
            ax.axvline(knees[p], color=color, lw=0.6, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("warps per SM")
    ax.set_ylabel("warp-ops per cycle per SM")
    ax.set_title("throughput against residency; dotted: Little's law knee (latency x best / 4 chains)")
    ax.legend(fontsize=7, ncol=2)
    save(fig, "warp-primitives-knee.svg", run)


def draw_lanes(rows, plt, save, run):
    lat = pick(rows, run, "latency", "cycles_per_op")
    by = {}
    for r in lat:
        if r["p"].get("mask") in ("0", "1"):
            by.setdefault((int(r["p"]["primitive"]), r["p"]["mask"]), []).append((int(r["p"]["active_lanes"]), r["v"]))
    by = {k: sorted(v) for k, v in by.items() if len(v) >= 2 or k[1] == "1"}
    swept = sorted({p for p, m in by if len(by[(p, m)]) >= 2})
    if not swept:
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, p in enumerate(swept):
        color = colors[k % len(colors)]
        full = by.get((p, "0"), [])
        # The 32-lane point is the reference of both shapes.
        ref = [v for n, v in full if n == 32]
        if full:
            ax.plot([n for n, _ in full], [v for _, v in full], "o-", ms=3, lw=0.8, color=color,
                    label=name_of(p) + " contiguous")
        scattered = by.get((p, "1"), [])
        if scattered:
            pts = scattered + ([(32, ref[0])] if ref else [])
            pts.sort()
            ax.plot([n for n, _ in pts], [v for _, v in pts], "s--", ms=3, lw=0.6, color=color,
                    label=name_of(p) + " scattered")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("active lanes (the rest skip the chain)")
    ax.set_ylabel("cycles per op (one warp an SM)")
    ax.set_title("cost against active lanes: flat = a warp cost (model: within 2 % of 32 lanes)")
    ax.legend(fontsize=7, ncol=2)
    save(fig, "warp-primitives-lanes.svg", run)


def draw(rows, plt, save):
    """analysis/plots.py's entry."""
    from plot_support import newest_run
    run = newest_run(rows, FAMILY, "latency")
    if run is None:
        return
    draw_by_primitive(rows, plt, save, run)
    draw_knees(rows, plt, save, run)
    draw_lanes(rows, plt, save, run)
