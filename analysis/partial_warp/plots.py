"""The partial-warp family's plot: the staircase's useful throughput and fraction by block size."""
from plot_support import newest_run, select


def staircase_data(rows):
    run = newest_run(rows, "partial_warp", "staircase")
    if run is None:
        return None
    rate = sorted((int(r["p"]["block_threads"]), r["v"])
                  for r in select(rows, run, "staircase",
                                  "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_second"))
    fraction = sorted((int(r["p"]["block_threads"]), r["v"], r["pred"])
                      for r in select(rows, run, "staircase", "useful_fraction"))
    return {"run": run, "rate": rate, "fraction": fraction}


def draw(rows, plt, save):
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
