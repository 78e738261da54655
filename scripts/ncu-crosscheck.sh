#!/usr/bin/env bash
# Cross-checks warpcost's counter pass against Nsight Compute: each benchmark below runs once with
# warpcost's counters on, then once under `ncu --clock-control none` with warpcost's counters off,
# ncu collecting the same metrics (the counter names warpcost wrote) on one of the same kernel's
# launches. scripts/ncu_compare.py puts the two side by side with their ratio.
# Usage: scripts/ncu-crosscheck.sh BUILD_DIR OUT_DIR   (needs ncu, python3 and a GPU)
set -euo pipefail
build=$1
out=$2
bench="$build/bench/warpcost-bench"
mkdir -p "$out"
command -v ncu >/dev/null || { echo "ncu-crosscheck: ncu is not installed"; exit 77; }

# name | benchmark filter | kernel name regex (ncu -k)
cases=(
  "staircase-48|^partial_warp/staircase/block_threads:48/|fma_blocks_kernel"
  "split-low-20|^divergence/split_low/k:20/if_trips:384/else_trips:384/warps_per_sm:4/|if_else_kernel"
  "warp-uniform|^divergence/warp_uniform/if_trips:384/else_trips:384/warps_per_sm:4/|if_else_kernel"
  "read-w0-32|^streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:32/|stream_kernel"
  "one-per-thread-256|^streaming/read_one_per_thread/block_threads:256/|stream_one_per_thread_kernel"
)
common=(--benchmark_repetitions=1 --benchmark_min_time=0.01)
for c in "${cases[@]}"; do
  IFS='|' read -r name filter kernel <<<"$c"
  "$bench" "${common[@]}" "--benchmark_filter=$filter" --benchmark_out="$out/$name.warpcost.json" \
    --benchmark_out_format=json >/dev/null
  metrics=$(python3 "$(dirname "$0")/ncu_compare.py" --metrics "$out/$name.warpcost.json")
  # Skip the first launch (the output check) and profile a warm one.
  ncu --clock-control none --metrics "$metrics" -k "regex:$kernel" --launch-skip 2 --launch-count 1 \
    --csv --page raw "$bench" --warpcost_counters=off "${common[@]}" "--benchmark_filter=$filter" \
    >"$out/$name.ncu.csv" 2>"$out/$name.ncu.log"
done
python3 "$(dirname "$0")/ncu_compare.py" --table "$out"/*.warpcost.json | tee "$out/ncu-crosscheck.md"
