#!/usr/bin/env python3
"""What-if (no verdict reads it): the streaming model (core/streaming/model.hpp, predict_stream)
re-solved in Python for the 16-byte read_independent curves, with the queue's waiting scaled by c
(R = D(1 + c q) in the mean-value analysis; c = 1 is the model as declared). Prints, for c = 1 and
2, each curve's knee (90 % crossing) and MAE and the MAE over every W > 0 curve (their 1-warp/SM
fit points left out). r_sat = 0.94 and f = 1.98 GHz (both runs' values). Usage:
scaled_queue.py WARPCOST_CSV RUN_ID_SUBSTRING"""
import sys

import numpy as np
import pandas as pd

from stream_model import B, F, S, fixed_point, locus, mva

R_SAT = 0.94


def knee(curve):
    top = max(v for _, v in curve)
    level = 0.9 * top
    for i, (w, v) in enumerate(curve):
        if v >= level:
            if i == 0:
                return w
            w0, v0 = curve[i - 1]
            return w0 + (w - w0) * (level - v0) / (v - v0)
    return 0


def main():
    d = pd.read_csv(sys.argv[1], low_memory=False)
    run = sys.argv[2]
    s = d[(d.benchmark == "read_independent") & (d.load_bytes == 16) & d.run_id.str.contains(run)]
    bw = s[s.metric == "dram__bytes_read.sum.per_second"]
    _, xs, ys = locus(d, run)
    counts = s.pivot_table(index=["alu_per_load", "warps_per_sm"], columns="metric", values="value")
    for c in (1, 2):
        errors_all = []
        for w in sorted(a for a in bw.alu_per_load.unique() if a > 0):
            cur = bw[bw.alu_per_load == w].sort_values("warps_per_sm")
            t0 = S * B * F / cur[cur.warps_per_sm == 1].value.iloc[0]
            instr = counts.loc[(w, 8), "smsp__inst_executed.sum"] / counts.loc[(w, 8), "dram__bytes_read.sum"] * B
            demand = instr / R_SAT
            predicted = []
            for n in cur.warps_per_sm.astype(int):
                per_scheduler = -(-n // 4)

                def offered(b):
                    delay = max(t0 + np.interp(b, xs, ys) - ys[0] - demand, 0.0)
                    return S * n * B * F / mva(per_scheduler, demand, delay, c)

                predicted.append(fixed_point(offered, xs[-1]))
            measured = list(zip(cur.warps_per_sm.astype(int), cur.value))
            errors = [abs(m / p - 1) for (n, m), p in zip(measured, predicted) if n > 1]
            errors_all += errors
            print(f"c={c} W={int(w)}: knee measured {knee(measured):.1f}, predicted "
                  f"{knee(list(zip(cur.warps_per_sm.astype(int), predicted))):.1f}, MAE {100 * np.mean(errors):.2f} %")
        print(f"c={c}: MAE over every W > 0 curve {100 * np.mean(errors_all):.2f} % ({len(errors_all)} points)")


if __name__ == "__main__":
    main()
