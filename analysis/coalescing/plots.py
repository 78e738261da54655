"""The coalescing family's figure, drawn by analysis/plots.py: useful bandwidth and sectors per
request against the stride, per element size, with the model beside each measurement."""

SIZES = (1, 2, 4, 8, 16)
ALL_STRIDES = list(range(1, 33))


def model_sectors(size, stride, offset=0):
    """Distinct 32-byte sectors of a warp whose lane l reads element offset + l*stride (the model in
    coalescing_model.cpp, here only to draw its line where the run has no counted point)."""
    touched = set()
    for lane in range(32):
        a = (offset + lane * stride) * size
        touched.update(range(a // 32, (a + size - 1) // 32 + 1))
    return len(touched)


def coalesced_rate(rows, run, benchmark="load_dram"):
    """The level's fully coalesced rate, as the evaluator takes it: the best stride-1, offset-0
    useful bandwidth of the 4, 8 and 16 B points (1 and 2 B keep too few bytes in flight)."""
    rates = [r["v"] for r in rows if r["run_id"] == run and r["family"] == "coalescing"
             and r["benchmark"] == benchmark and r["metric"] == "useful_bandwidth"
             and r["p"].get("elem_bytes") in ("4", "8", "16") and r["p"].get("stride") == "1"
             and r["p"].get("offset") == "0"]
    return max(rates) if rates else None


def draw_strides(rows, plt, save, newest_run):
    run = newest_run(rows, "coalescing", "load_dram")
    if run is None:
        return

    def series(metric, size):
        out = []
        for r in rows:
            p = r["p"]
            if (r["run_id"] == run and r["family"] == "coalescing" and r["benchmark"] == "load_dram"
                    and r["metric"] == metric and p.get("elem_bytes") == str(size) and p.get("offset") == "0"):
                out.append((int(p["stride"]), r["v"], r["pred"]))
        return sorted(out)

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    reference = coalesced_rate(rows, run)
    for i, size in enumerate(SIZES):
        color = colors[i % len(colors)]
        bw = series("useful_bandwidth", size)
        if bw:
            left.plot([s for s, _, _ in bw], [v / 1e12 for _, v, _ in bw], "o-", ms=3, lw=0.8, color=color,
                      label="%d-byte elements" % size)
            if reference:
                left.plot(ALL_STRIDES, [reference * size / model_sectors(size, s) / 1e12 for s in ALL_STRIDES],
                          "--", lw=0.8, color=color)
        counted = series("sectors_per_request", size)
        if bw or counted:
            right.plot(ALL_STRIDES, [model_sectors(size, s) for s in ALL_STRIDES], "--", lw=0.8, color=color,
                       label="%d-byte elements" % size)
        if counted:
            right.plot([s for s, _, _ in counted], [v for _, v, _ in counted], "o", ms=4, color=color)
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    left.set_xlabel("stride (elements between lanes)")
    left.set_ylabel("useful bandwidth (TB/s)")
    left.set_title("DRAM loads: measured (o), model (--)\n= best 4-16 B coalesced rate x useful / moved bytes")
    left.legend(fontsize=7)
    right.set_xscale("log", base=2)
    right.set_xlabel("stride (elements between lanes)")
    right.set_ylabel("32-byte sectors per warp request")
    right.set_title("sectors per warp request:\ncounted (o), distinct 32-byte sectors (--)")
    right.legend(fontsize=7)
    save(fig, "coalescing-stride.svg", run)


def draw_offsets_and_blocks(rows, plt, save, newest_run):
    """Misalignment (4-byte words, stride 1, offsets 0..31) and the block shapes of Ex 9 and Ex 3."""
    run = newest_run(rows, "coalescing", "load_dram")
    if run is None:
        return

    def pick(benchmark, metric, **fixed):
        return [r for r in rows if r["run_id"] == run and r["family"] == "coalescing"
                and r["benchmark"] == benchmark and r["metric"] == metric
                and all(r["p"].get(k) == str(v) for k, v in fixed.items())]

    offsets = sorted((int(r["p"]["offset"]), r["v"]) for r in pick("load_dram", "useful_bandwidth",
                                                                    elem_bytes=4, stride=1))
    shapes = pick("block_2d", "useful_bandwidth")
    if not offsets and not shapes:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    if offsets:
        reference = coalesced_rate(rows, run)
        left.plot([o for o, _ in offsets], [v / 1e12 for _, v in offsets], "o-", ms=3, lw=0.8, label="measured")
        if reference:
            every = list(range(32))
            left.plot(every, [reference * 4 / model_sectors(4, 1, o) / 1e12 for o in every], "--", lw=0.8,
                      label="sector model (32 B)")
            granules = [len({b // 64 for a in range(o * 4, o * 4 + 128, 4) for b in (a, a + 3)}) for o in every]
            left.plot(every, [reference * 128 / (64 * g) / 1e12 for g in granules], ":", lw=0.8,
                      label="64-byte granule model")
        left.set_xlabel("offset (4-byte elements from a 128-byte line)")
        left.set_ylabel("useful bandwidth (TB/s)")
        left.set_title("misaligned warps of 4-byte loads (stride 1)")
        left.legend(fontsize=7)
    if shapes:
        labels, measured, predicted = [], [], []
        for r in sorted(shapes, key=lambda r: (int(r["p"]["x"]), int(r["p"]["y"]))):
            labels.append("(%s,%s)" % (r["p"]["x"], r["p"]["y"]))
            measured.append(r["v"] / 1e12)
            predicted.append((r["pred"] or 0) / 1e12)
        xs = range(len(labels))
        right.bar([x - 0.2 for x in xs], measured, width=0.4, label="measured")
        right.bar([x + 0.2 for x in xs], predicted, width=0.4, label="model (launch-wide sectors)")
        right.set_xticks(list(xs))
        right.set_xticklabels(labels)
        right.set_xlabel("block (x,y) over a 1920x1080 row-major image")
        right.set_ylabel("useful bandwidth (TB/s)")
        right.set_title("Ex 9's blocks and Ex 3's (48,4)")
        right.legend(fontsize=7)
    save(fig, "coalescing-offsets-blocks.svg", run)


def draw(rows, plt, save):
    """analysis/plots.py's entry: the stride sweep, then misalignment and block shapes."""
    from plot_support import newest_run
    draw_strides(rows, plt, save, newest_run)
    draw_offsets_and_blocks(rows, plt, save, newest_run)
