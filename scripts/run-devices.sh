#!/usr/bin/env bash
# One suite per GPU of this host, in parallel, one warpcost-bench process each
# (--warpcost_device=N), each into its own results/<gpu-slug>/<utc-stamp>-<uuid8>/; then one
# analysis over results/, and each further run compared with the first device's.
#
#   scripts/run-devices.sh [--preset P] --devices all|N[,N...] [-- BENCH_ARGS...]
#
# ./warpcost run --devices calls this. A GPU that fails keeps its partial run as
# <stamp>-<uuid8>.failed (the bench's own rule) and does not stop the others; the exit status is 1
# when any GPU failed, 0 when all ran. Without a GPU it says so and analyses the committed results,
# as ./warpcost run does.
#
# For tests (no GPU, no build): WARPCOST_BENCH names the bench to run instead of the preset's build,
# WARPCOST_ANALYZE the analysis, WARPCOST_RESULTS_ROOT the results folder (default results; any
# other root is analysed with warpcost-analyze directly instead of the cmake `analysis` target).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '6p' "$0" | sed 's/^# \{0,1\}/usage: /' >&2; exit 2; }

preset=user
devices=
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) [ $# -ge 2 ] || usage; preset=$2; shift 2 ;;
    --devices) [ $# -ge 2 ] || usage; devices=$2; shift 2 ;;
    --devices=*) devices=${1#--devices=}; shift ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "run-devices: unknown argument '$1'" >&2; usage ;;
  esac
done

# The device list is checked before any device is looked for.
bad_devices() {
  echo "warpcost: --devices '$devices': $1; allowed: all, or device indices 0, 1, ... separated by" \
       "commas, each once (--devices 0,2)" >&2
  exit 2
}
[ -n "$devices" ] || bad_devices "empty"
wanted=()
if [ "$devices" != all ]; then
  IFS=, read -r -a wanted <<<"$devices"
  [ "${devices: -1}" != , ] || bad_devices "ends with a comma"
  for d in "${wanted[@]}"; do
    [[ "$d" =~ ^(0|[1-9][0-9]{0,3})$ ]] || bad_devices "'$d' is not a device index"
  done
  dupes=$(printf '%s\n' "${wanted[@]}" | sort | uniq -d | paste -sd, -)
  [ -z "$dupes" ] || bad_devices "device $dupes named twice (two processes on one GPU time each other)"
fi

root=${WARPCOST_RESULTS_ROOT:-results}
build=build/$preset
analyse_committed() {
  if [ "$root" = results ] && [ -z "${WARPCOST_ANALYZE:-}" ]; then
    cmake --build --preset "$preset" --target warpcost-analyze >/dev/null
    cmake --build --preset "$preset" --target analysis
  else
    "${WARPCOST_ANALYZE:-$build/analysis/warpcost-analyze}" --per-run --quiet \
      --csv "$root/warpcost.csv" --report "$root/report.md" "$root"
  fi
}

if [ -n "${WARPCOST_BENCH:-}" ]; then
  bench=$WARPCOST_BENCH
else
  cmake --preset "$preset" >/dev/null
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "warpcost: no NVIDIA GPU is visible on this machine (nvidia-smi finds none);" \
         "skipping the suite and analysing the committed results in $root/." >&2
    analyse_committed
    exit 0
  fi
  cmake --build --preset "$preset" -j "$(nproc)" >&2  # progress on stderr
  bench=$build/bench/warpcost-bench
fi

# "N CUDA device(s) visible", or exit 77 when CUDA finds none.
set +e
visible_line=$("$bench" --warpcost_check_device)
visible_rc=$?
set -e
if [ "$visible_rc" -ne 0 ] || ! [[ "$visible_line" =~ ^([0-9]+)\ CUDA ]]; then
  echo "warpcost: the GPU is not usable by CUDA here; analysing the committed results." >&2
  analyse_committed
  exit 0
fi
visible=${BASH_REMATCH[1]}
if [ "$devices" = all ]; then
  mapfile -t wanted < <(seq 0 $((visible - 1)))
else
  for d in "${wanted[@]}"; do
    [ "$d" -lt "$visible" ] || {
      echo "warpcost: --devices '$devices': device $d is not visible; CUDA sees devices" \
           "0..$((visible - 1)) (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset})" >&2
      exit 2
    }
  done
fi

# Each bench's stdout (Google Benchmark's table, then its run folder) goes to a log; its stderr
# (progress, failures) goes to the terminal with the device in front, and to a log.
# WARPCOST_DEVICE_LOGS: where the logs go (default build/<preset>/device-logs; the test's own folder).
log_root=${WARPCOST_DEVICE_LOGS:-$build/device-logs}
mkdir -p "$log_root" "$root"
logs=$(mktemp -d "$log_root/$(date -u +%Y%m%dT%H%M%SZ)-XXXX")
echo "warpcost: ${#wanted[@]} suite(s) in parallel on device(s) ${wanted[*]} of $visible;" \
     "logs in $logs/" >&2
pids=()
for d in "${wanted[@]}"; do
  (
    set +e
    "$bench" --warpcost_device="$d" --warpcost_results_root="$root" \
      ${bench_args[@]+"${bench_args[@]}"} 2>&1 >"$logs/device-$d.out" |
      tee "$logs/device-$d.err" | sed -u "s/^/[device $d] /" >&2
    echo "${PIPESTATUS[0]}" >"$logs/device-$d.rc"
  ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done

runs=()
failed=()
for d in "${wanted[@]}"; do
  rc=$(cat "$logs/device-$d.rc" 2>/dev/null || echo "?")
  run_dir=$(tail -n 1 "$logs/device-$d.out" 2>/dev/null || true)
  if [ "$rc" = 0 ] && [ -f "$run_dir/bench.json" ]; then
    runs+=("$run_dir")
    echo "warpcost: device $d: $run_dir" >&2
  else
    failed+=("$d")
    echo "warpcost: device $d failed (exit $rc); its log: $logs/device-$d.err; a partial run, if" \
         "any, is kept as a .failed folder; the other devices' runs stand" >&2
  fi
done

if [ ${#runs[@]} -gt 0 ]; then
  analyse_committed >"$logs/analysis.log" 2>&1 || {
    echo "warpcost: the analysis failed; the runs stand. Its output:" >&2
    cat "$logs/analysis.log" >&2
    exit 1
  }
  analyze=${WARPCOST_ANALYZE:-$build/analysis/warpcost-analyze}
  # Each further GPU against the first: per benchmark, time and cycles, same / faster / slower.
  for ((i = 1; i < ${#runs[@]}; i++)); do
    if "$analyze" --compare "${runs[0]}" "${runs[$i]}" --quiet \
         --csv "${runs[$i]}/compare.csv" --report "${runs[$i]}/compare.md" >/dev/null 2>"$logs/compare-$i.err"; then
      echo "warpcost: ${runs[$i]} against ${runs[0]}:" \
           "$(grep -E '^[0-9]+ benchmarks in both|^In SM cycles' "${runs[$i]}/compare.md" | paste -sd' ' -)" >&2
    else
      echo "warpcost: no compare of ${runs[$i]} with ${runs[0]}: $(cat "$logs/compare-$i.err")" >&2
    fi
  done
  echo "warpcost: runs ${runs[*]} (each with bench.json, warpcost.csv, report.md);" \
       "$root/warpcost.csv and $root/report.md merge every run." >&2
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "warpcost: ${#failed[@]} of ${#wanted[@]} device(s) failed: ${failed[*]}" >&2
  exit 1
fi
