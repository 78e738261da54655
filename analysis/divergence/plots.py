"""The divergence family's plots: the split sweep, the k-way switch and the residency sweep."""
from plot_support import newest_run, params_of, select


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


def plot_grid(ax, points):
    """The grid's slowdown (x, measured, predicted) and its fixed-part model."""
    if not points:
        return
    ax.plot([x for x, _, _ in points], [v for _, v, _ in points], "x", ms=4, label="grid time (events)")
    ax.plot([x for x, _, _ in points], [p for _, _, p in points], "--", lw=0.8,
            label="grid model: fixed part + populated regions")


def draw(rows, plt, save):
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
