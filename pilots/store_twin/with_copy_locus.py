#!/usr/bin/env python3
"""A suite run's bench.json with the store-twin pilot's copy16 curve added as copy_independent points.

usage: with_copy_locus.py BENCH.json PILOT.csv OUT_BENCH.json

The pilot's `stream,copy16,W,seconds,read_bytes,written_bytes` rows measure the kernel the suite's
streaming/copy_independent benchmark runs (16 bytes a lane copied a step, W warps/SM held exactly),
one median time a point; each becomes a point of that name so that `warpcost explain --results`
and tests/explain/kernel_model_reference.py price a committed round with EXPLAIN-7's copy locus
(runs made before the suite measured it). The copy points carry the run's reference clock (the
pilot ran unthrottled in the same call) and no other counter. Only for rounds whose call ran the
pilot; a copy locus that is not the GPU-under-test's own suite measurement judges nothing.
"""
import json
import sys


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    bench = json.load(open(argv[1]))
    ctx = bench["context"]
    clock = float(ctx.get("sm_clock_reference_mhz", ctx.get("sm_clock_max_mhz", 0)))
    added = 0
    for line in open(argv[2]):
        if not line.startswith("stream,copy16,"):
            continue
        _, _, w, seconds, read, written = line.strip().split(",")
        name = f"streaming/copy_independent/load_bytes:16/warps_per_sm:{int(w)}/iterations:1/manual_time"
        bench["benchmarks"].append({
            "name": name, "run_name": name, "run_type": "iteration", "iterations": 1, "repetitions": 1,
            "repetition_index": 0, "threads": 1, "time_unit": "us", "real_time": float(seconds) * 1e6,
            "cpu_time": float(seconds) * 1e6, "bytes_read": float(read), "bytes_written": float(written),
            "warpcost_sample_seconds": [float(seconds)], "warpcost_samples": 1.0, "warpcost_noise": 0.0,
            "warpcost_sm_clock_mhz": clock, "warpcost_other_processes": 0.0, "warpcost_clock_event_reasons": 0.0})
        added += 1
    if added < 2:
        sys.exit(f"{argv[2]}: {added} copy16 row(s); a copy locus needs at least 2")
    json.dump(bench, open(argv[3], "w"))


if __name__ == "__main__":
    main(sys.argv)
