#!/usr/bin/env bash
# The whole GPU round in one call on the device machine: build with the h200 preset and run every
# test (the GPU ones included), compute-sanitizer memcheck over the GPU tests, then the main job
# (suite + analysis), then the suite once more with counters off and `warpcost-analyze --compare` of
# the two (counters must not move the timing). Logs, compare.md and the new run folders, packed as
# one tarball (the timing-only run under compare-off/, outside results/), land in $OUT.
# Usage (from the repository root): scripts/gpu-round.sh [-- BENCH_ARGS...]
# WARPCOST_ROUND_SUITE_ONLY=1 builds and runs the suite only (a second round of one session, whose
# first round ran the tests); WARPCOST_ROUND_NCU=1 adds the Nsight Compute cross-check of the counter
# pass (scripts/ncu-crosscheck.sh), packed as $OUT/ncu.tar.gz. WARPCOST_ROUND_DEVICES=all (or a list)
# runs the suite on those GPUs at once (./warpcost run --devices) and compares them.
# WARPCOST_ROUND_EXPLAIN_SECONDS=N runs the explain proof round after the suite, priced from its run,
# for at most N s (a TERM judges and packs the cases done; WARPCOST_EXPLAIN_CASES picks them);
# WARPCOST_ROUND_EXAMPLES=0 leaves out the worked examples. One call of the models round (issues 33,
# 34): WARPCOST_ROUND_SUITE_ONLY=1 WARPCOST_ROUND_COMPARE=0 WARPCOST_ROUND_EXAMPLES=0
# WARPCOST_ROUND_EXPLAIN_SECONDS=300. WARPCOST_ROUND_PILOT="store_twin store_lines" first runs
# those pilots (pilots/NAME/README.md), each into $OUT/pilot-NAME.csv.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/warpcost-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/round.log") 2>&1

# The GPU machine has no nlohmann-json or toml++ package; copies unpacked from Debian's travel in .deps.
[ -d .deps/usr ] && export CMAKE_PREFIX_PATH="$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"

status=0
step() {
  echo "=== $1"
  shift
  local start=$SECONDS
  "$@" || { echo "=== FAILED ($?): $*"; status=1; }
  echo "=== $((SECONDS - start)) s"
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv || true
before=$(find results -mindepth 2 -maxdepth 2 -type d 2>/dev/null | sort)

for pilot in ${WARPCOST_ROUND_PILOT:-}; do
  step "pilot $pilot" bash -c "set -o pipefail; nvcc -O3 -std=c++17 -arch=sm_90 -I. -o /tmp/warpcost-pilot pilots/$pilot/${pilot}_pilot.cu kernels/common/cuda_check.cpp kernels/common/probe_kernels.cu core/statistics.cpp && /tmp/warpcost-pilot | tee \"$OUT/pilot-$pilot.csv\""
done

if [ "${WARPCOST_ROUND_SUITE_ONLY:-0}" = 1 ]; then
  pilots_status=$status status=0
  step "build (h200 preset)" bash -c "cmake --preset h200 >/dev/null && cmake --build --preset h200 -j \$(nproc)"
  # A few seconds: the coalescing load kernels hold the requests in flight their model reads (in the
  # log). A build that does not is not measured: the round stops here, FAILED.
  step "SASS of the coalescing load kernels" scripts/check-sass.sh --only in_flight build/h200/kernels/libwarpcost_kernels.a
  if [ "$status" != 0 ]; then echo "=== gpu round: FAILED (no suite run: the build or the in-flight check failed)"; exit 1; fi
  status=$pilots_status
else
step "build and test (h200 preset)" ./warpcost test --preset h200
# The launch-wrapper test provokes an invalid launch on purpose; memcheck would count that API error.
# The chase's L1-against-DRAM timing test is left out too: memcheck's instrumentation of every load
# costs more than the latencies it compares. So is the clock probe's SM clock against the events'
# (within 3 %): under memcheck it read 4.7 % off in the round of 83d4692, and passed without it.
step "compute-sanitizer memcheck on the GPU tests" \
  compute-sanitizer --tool memcheck --error-exitcode 9 build/h200/tests/test_gpu \
  --gtest_filter=-GpuLaunchWrapper.ReportsAnImpossibleConfigurationAsAnError:GpuChase.A16KiBRingIsFasterPerLoadThanA1GiBRing:GpuChase.BackToBackLaunchesOnARingLargerThanTheL2BothMissIt:GpuClockProbe.StaysOnOneSmAndMeasuresAPlausibleClock
step "compute-sanitizer memcheck on the coalescing GPU tests" \
  compute-sanitizer --tool memcheck --error-exitcode 9 build/h200/tests/coalescing/test_gpu_coalescing
# Runs one of the command-line tools once per argument list, into $OUT/FILE and the log.
examples() {
  local file=$1 tool=$2
  shift 2
  for args in "$@"; do
    echo "\$ $tool $args"
    "build/h200/bench/$tool" $args || return 1
    echo
  done > "$OUT/$file"
  cat "$OUT/$file"
}
step "recorder examples" examples records.txt warpcost-record "48" "100" "1023" "48 4 1" "8 4 3"
step "warpcost-diverge examples" examples diverge.txt warpcost-diverge "--split 20" \
  "--split 20 --warps-per-sm 64" "--pattern warp_uniform" "--paths 8" "--leaves 3"
step "warpcost-stream examples" examples stream.txt warpcost-stream "read" "read --warps-per-sm 8 --alu 16" \
  "read --warps-per-sm 4 --alu 16 --dependent" "one-per-thread --block-threads 32" \
  "one-per-thread --block-threads 1024" "chase --footprint-kib 16" "chase --footprint-kib 4194304"
step "SASS of the divergence and streaming kernels" bash -c "set -o pipefail; scripts/check-sass.sh build/h200/kernels/libwarpcost_kernels.a --print | tee \"$OUT/sass.txt\""
step "robustness: SIGINT, the GPU lock, another process, the device's plan" scripts/gpu-round-robustness.sh build/h200
step "warp primitives: SASS and its negative control, synccheck, examples" scripts/gpu-round-primitives.sh build/h200 "$OUT"
step "warpcost explain on examples/explain: proof, ncu cross-check, overhead" scripts/gpu-round-explain.sh build/h200 "$OUT"
fi
if [ "${WARPCOST_ROUND_NCU:-0}" = 1 ]; then
  step "ncu cross-check of the counter pass" bash -c "scripts/ncu-crosscheck.sh build/h200 \"$OUT/ncu\" && tar czf \"$OUT/ncu.tar.gz\" -C \"$OUT\" ncu && rm -r \"$OUT/ncu\""
fi
if [ -n "${WARPCOST_ROUND_DEVICES:-}" ]; then
  step "suite on devices ${WARPCOST_ROUND_DEVICES} and analysis" \
    ./warpcost run --preset h200 --devices "$WARPCOST_ROUND_DEVICES" "$@"
else
  step "suite and analysis" ./warpcost run --preset h200 "$@"
fi
# Counters do not disturb timing: the same suite again with the counter phase off, compared with the
# run above (timing-only run as BASE). WARPCOST_ROUND_COMPARE=0 leaves it out.
if [ "${WARPCOST_ROUND_COMPARE:-1}" = 1 ]; then
  compare_off() {
    [ "${1:-}" = "--" ] && shift
    local on off
    on=$(comm -13 <(echo "$before") <(find results -mindepth 2 -maxdepth 2 -type d | sort) | grep -v '[.]failed$' | tail -n 1)
    # Outside results/: the timing-only run is evidence for the compare, not a dataset to merge.
    off=$(build/h200/bench/warpcost-bench --warpcost_results_root=/tmp/warpcost-compare/compare-off \
      --warpcost_counters=off "$@" | tail -n 1)
    [ -f "$off/bench.json" ] && [ -f "$on/bench.json" ] || { echo "no pair of runs to compare"; return 1; }
    build/h200/analysis/warpcost-analyze --compare "$off" "$on" --report "$OUT/compare.md" --quiet || return 1
    echo "counters off (base): $off; counters on (new): $on"
    sed -n 3p "$OUT/compare.md"
    grep -v "| same |" "$OUT/compare.md" | grep "^| [a-z]" | head -n 40
  }
  step "suite again, counters off, and compare" compare_off "$@"
fi

# The run folders made so far (and the plots, and the counters-off run) as $OUT/results.tar.gz:
# packed once before the explain round too, so a round cut short there still brings its suite run.
pack_results() {
  local after new plots compare_runs
  after=$(find results -mindepth 2 -maxdepth 2 -type d 2>/dev/null | sort)
  new=$(comm -13 <(echo "$before") <(echo "$after"))
  plots=$(ls results/plots/*.svg 2>/dev/null)
  [ -n "$new" ] || return 0
  compare_runs=$([ -d /tmp/warpcost-compare/compare-off ] && echo "-C /tmp/warpcost-compare compare-off")
  tar czf "$OUT/results.tar.gz.part" $new $plots $compare_runs && mv "$OUT/results.tar.gz.part" "$OUT/results.tar.gz"
  echo "packed: $new $compare_runs"
}
pack_results

if [ -n "${WARPCOST_ROUND_EXPLAIN_SECONDS:-}" ]; then
  step "warpcost explain proof round, at most ${WARPCOST_ROUND_EXPLAIN_SECONDS} s" \
    timeout --signal=TERM -k 45 "$WARPCOST_ROUND_EXPLAIN_SECONDS" scripts/gpu-round-explain.sh build/h200 "$OUT"
fi
if [ "${WARPCOST_ROUND_EXAMPLES:-1}" = 1 ]; then
  step "worked examples measured (check --measure)" scripts/gpu-round-examples.sh h200
fi

# Again with what the explain round and the examples added (the plots the analysis drew here,
# matplotlib being on this machine, travel with the run folders).
pack_results
echo "=== gpu round: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
