#!/usr/bin/env python3
"""What-if (no verdict reads it): the one-load-a-thread model (core/streaming/model.hpp,
predict_block_stream) re-solved with and without a block waiting for its slowest warp: the delay
Lambda(BW) plus the expected excess of the slowest of w = block_threads / 32 latency samples
(loaded_latency_max_excess_w{2..32}_cycles of the locus points, bench.json counters, interpolated in
BW and in log2 w). Prints, a block size, the measured rate, the committed prediction, this one's,
and the slowest-warp one's, with the measured over each. docs/models.md quotes it.
  slowest_warp.py WARPCOST_CSV RUN_ID_SUBSTRING BENCH_JSON"""
import json
import math
import sys

import numpy as np
import pandas as pd

from stream_model import F, S, fixed_point, locus, mva

DRAWS = (2, 4, 8, 16, 32)


def main():
    frame = pd.read_csv(sys.argv[1], low_memory=False)
    run = sys.argv[2]
    with open(sys.argv[3]) as f:
        bench = json.load(f)["benchmarks"]
    warps, bw, cycles = locus(frame, run)
    excess_of = {}  # warps/SM of a locus point -> its max excesses
    for b in bench:
        if b["name"].startswith("streaming/read_independent/load_bytes:16/alu_per_load:0/") and \
                "loaded_latency_max_excess_w2_cycles" in b:
            n = int(b["name"].split("warps_per_sm:")[1].split("/")[0])
            excess_of[n] = [b[f"loaded_latency_max_excess_w{w}_cycles"] for w in DRAWS]
    excess = np.array([excess_of[n] for n in warps])

    def slowest(b, w):  # expected excess of the slowest of w warps at throughput b
        if w < 2:
            return 0.0
        at = [np.interp(b, bw, excess[:, i]) for i in range(len(DRAWS))]
        return float(np.interp(math.log2(w), [math.log2(d) for d in DRAWS], at))

    rows = frame[frame.run_id.str.contains(run)]
    one = rows[rows.benchmark == "read_one_per_thread"]
    turnover = rows[rows.metric == "block_turnover_cycles"].set_index("block_threads").value
    print(run)
    for threads in sorted(one.block_threads.dropna().unique()):
        point = one[one.block_threads == threads]
        row = point[point.metric == "second_order_bandwidth"].iloc[0]
        w = int(threads // 32)
        resident = int(round(point[point.metric == "resident_warps_per_sm"].value.iloc[0] / w))

        def solve(wait_for_slowest):
            def offered(b):
                delay = np.interp(b, bw, cycles) + (slowest(b, w) if wait_for_slowest else 0.0)
                return S * F * threads * 16 / (mva(resident, turnover[threads], delay) / resident)
            return fixed_point(offered, bw[-1])

        mine, late = solve(False), solve(True)
        print(f"{int(threads)} threads, {resident} blocks an SM: measured {row.value / 1e12:.3f} TB/s, "
              f"committed {row.predicted / 1e12:.3f}, here {mine / 1e12:.3f} ({100 * (row.value / mine - 1):+.1f} %), "
              f"slowest warp {late / 1e12:.3f} ({100 * (row.value / late - 1):+.1f} %)")


if __name__ == "__main__":
    main()
