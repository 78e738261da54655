#!/usr/bin/env python3
"""Estimate the suite's wall time on each GPU of data/device-profiles.csv, from a measured run.

usage: estimate-suite-time.py [--max=PROFILE:timing|total:SECONDS ...] BENCH RUN_JSON PROFILES_CSV [PROFILE ...]

BENCH is warpcost-bench (its --device_profile=NAME --benchmark_list_tests gives each GPU's plan),
RUN_JSON a run (or committed:GPU_SLUG, the newest run git lists under results/GPU_SLUG/) (the reference: each point's samples and GPU time, each family's wall).
Method (docs/generations.md):
  * a point's GPU time on the target is the reference point's median time scaled by the part that
    bounds it: compute and latency work an SM does scale with the SM clock and, for work spread
    over the whole GPU, the SM count; memory streams also with the DRAM peak
    (2 x memory clock x bus width / 8); the slower of the two scalings is taken;
  * a point the reference run lacks (a residency only the target has) takes the reference point of
    the same benchmark and arguments at the nearest residency, scaled by the warps' ratio;
  * samples: the run's rule (>= 10 samples, or 0.05 s of sampling with >= 3) caps a slower point's
    count at max(3, 0.05 s / time); the reference's count otherwise;
  * each point's set-up (buffers, checks, host replays) is its family's reference average
    (family wall less its samples' GPU time, over its points, scaled so the families' set-up adds
    up to the timing phase's), unscaled (same host assumed);
  * the counter pass: the reference's counter wall scaled by the plan's point count.
Prints one line per profile: timing, counters, total seconds; with --max, exits 1 when an estimate
is above its goal (the issue's: a T4 suite within 5 minutes, the H200's timing within 60 s).
"""
import csv
import json
import re
import subprocess
import sys
from collections import defaultdict

SUFFIX = "/iterations:1/manual_time"
TIME_CAP = 0.05
MIN_AT_CAP = 3


def profiles(path):
    with open(path) as f:
        rows = [line for line in f if line.strip() and not line.startswith("#")]
    return {r["name"]: r for r in csv.DictReader(rows)}


def peak(p):
    return 2.0 * float(p["memory_clock_khz"]) * 1e3 * float(p["memory_bus_width_bits"]) / 8.0


def plan(bench, name):
    out = subprocess.run([bench, "--device_profile=" + name, "--benchmark_list_tests"], check=True,
                         capture_output=True, text=True).stdout
    return [l.strip()[: -len(SUFFIX)] if l.strip().endswith(SUFFIX) else l.strip()
            for l in out.splitlines() if "/" in l and " " not in l.strip()]


def family(point):
    return point.split("/")[0]


def args_of(point):
    return dict(kv.split(":", 1) for kv in point.split("/")[2:] if ":" in kv)


def memory_bound(point):
    f = family(point)
    return f in ("streaming", "coalescing") or point.startswith("calibration/d2d_copy")


def whole_gpu(point):
    # Work spread over every SM (a grid sized to the SMs) versus one SM's or one block's.
    return not (point.startswith("latency/") or point.startswith("partial_warp/schedule")
                or point.startswith("partial_warp/grid_tail") or point.startswith("calibration/sm_clock")
                or point.startswith("calibration/launch_overhead"))


def main():
    limits = {}
    args = []
    for a in sys.argv[1:]:
        if a.startswith("--max="):
            m = re.fullmatch(r"--max=([^:]+):(timing|total):([0-9.]+)", a)
            if not m:
                sys.exit(f"estimate-suite-time: {a}: allowed: --max=PROFILE:timing|total:SECONDS")
            limits[(m.group(1), m.group(2))] = float(m.group(3))
        else:
            args.append(a)
    if len(args) < 3:
        sys.exit(__doc__)
    bench, run_json, profiles_csv, *names = args
    if run_json.startswith("committed:"):
        import os
        root = os.path.dirname(os.path.dirname(os.path.abspath(profiles_csv)))
        slug = run_json.split(":", 1)[1]
        listed = subprocess.run(["git", "-C", root, "ls-files", "--", f"results/{slug}/*/bench.json"],
                                capture_output=True, text=True).stdout.split()
        if not listed:
            print(f"estimate-suite-time: no committed run under results/{slug}/ (not a git checkout?)")
            sys.exit(77)
        run_json = os.path.join(root, sorted(listed)[-1])
    over = []
    run = json.load(open(run_json))
    ref_name = next(n for n, p in profiles(profiles_csv).items() if p["gpu"] == run["context"]["gpu_name"])
    all_profiles = profiles(profiles_csv)
    ref = all_profiles[ref_name]
    points = {}
    fam_samples = defaultdict(float)
    fam_points = defaultdict(int)
    for b in run["benchmarks"]:
        name = b["name"][: -len(SUFFIX)] if b["name"].endswith(SUFFIX) else b["name"]
        s = b.get("warpcost_sample_seconds") or []
        if not s:
            continue
        t = sorted(s)[len(s) // 2]
        points[name] = (t, len(s))
        fam_samples[family(name)] += sum(s)
        fam_points[family(name)] += 1
    fam_wall = dict(kv.split("=") for kv in run["context"]["family_wall_seconds"].split(";"))
    # The family walls hold the counter phase too: their set-up is scaled to the timing phase's.
    timing_wall = float(run["context"]["timing_wall_seconds"])
    other = {f: max(0.0, float(fam_wall[f]) - fam_samples[f]) for f in fam_points}
    k = (timing_wall - sum(fam_samples.values())) / sum(other.values())
    setup = {f: other[f] * k / fam_points[f] for f in fam_points}
    counter_wall = float(run["context"].get("counter_wall_seconds", 0))
    for name in names or list(all_profiles):
        p = all_profiles[name]
        clock = float(ref["sm_clock_max_khz"]) / float(p["sm_clock_max_khz"])
        sms = float(ref["sm_count"]) / float(p["sm_count"])
        dram = peak(ref) / peak(p)
        planned = plan(bench, name)
        timing = 0.0
        for point in planned:
            t_ref, n_ref = points.get(point, (None, None))
            warps_ratio = 1.0
            if t_ref is None:
                a = args_of(point)
                base = "/".join(point.split("/")[:2])
                best = None
                for other, (t, n) in points.items():
                    if not other.startswith(base + "/"):
                        continue
                    b_args = args_of(other)
                    if set(b_args) != set(a) or any(b_args[k] != a[k] for k in a if k != "warps_per_sm"):
                        continue
                    gap = abs(int(b_args.get("warps_per_sm", 0)) - int(a.get("warps_per_sm", 0)))
                    if best is None or gap < best[0]:
                        best = (gap, t, n, int(b_args.get("warps_per_sm", 1)))
                if best is None:
                    continue
                _, t_ref, n_ref, w_ref = best
                warps_ratio = int(a.get("warps_per_sm", w_ref)) / w_ref
            compute = t_ref * clock * (sms if whole_gpu(point) else 1.0) * warps_ratio
            t = max(compute, t_ref * dram * warps_ratio) if memory_bound(point) else compute
            n = min(n_ref, max(MIN_AT_CAP, int(TIME_CAP / t) + 1))
            timing += n * t + setup.get(family(point), 0.0)
        counters = counter_wall * len(planned) / len(points)
        print(f"{name}: {len(planned)} points, timing {timing:.0f} s, counters {counters:.0f} s, "
              f"total {timing + counters:.0f} s")
        for kind, value in (("timing", timing), ("total", timing + counters)):
            if (name, kind) in limits and value > limits[(name, kind)]:
                over.append(f"{name}: estimated {kind} {value:.0f} s; goal: at most {limits[(name, kind)]:.0f} s")
    for line in over:
        print("estimate-suite-time: " + line)
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
