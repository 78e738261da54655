#!/usr/bin/env bash
# The GPU round's robustness checks (issue 22), each against a scratch results root outside
# results/ (so nothing in results/ changes), its log in $OUT/robustness.txt:
#  1. SIGINT during the suite: the bench exits 130, files the points it measured as a run whose
#     context says run_status = partial..., with no errored point, and the summary names it;
#  2. two runs on one GPU: the second refuses (exit 75) naming the first's run, and with
#     --warpcost_gpu_lock=wait waits for it and then runs;
#  3. another process on the GPU (warpcost-stream, which takes no lock) during a run: the run's
#     context other_gpu_processes names its pid (NVML in a container may list no process: then the
#     context says none and this step says so rather than fail);
#  4. the plan the device makes equals the h200 profile's on an H200 (any other GPU: its plan and
#     what it leaves out are recorded).
# Usage (repository root, after the h200 preset is built): scripts/gpu-round-robustness.sh [BUILD]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/h200}
bench=$build/bench/warpcost-bench
analyze=$build/analysis/warpcost-analyze
OUT=${OUT:-/tmp/warpcost-out}
mkdir -p "$OUT"
log="$OUT/robustness.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-robustness-XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
say() { echo "$*" | tee -a "$log"; }
fail() { say "FAILED: $*"; status=1; }
context_of() {  # context_of JSON KEY
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"].get(sys.argv[2], ""))' "$1" "$2"
}
: >"$log"

say "== 1. SIGINT during the suite"
"$bench" --warpcost_results_root="$work/r1" --warpcost_counters=off \
  "--benchmark_filter=^(calibration|partial_warp|divergence)/" >"$work/1.out" 2>"$work/1.err" &
pid=$!
sleep 12
kill -INT "$pid"
wait "$pid"; rc=$?
tail -n 3 "$work/1.err" | tee -a "$log"
[ "$rc" -eq 130 ] || fail "exit $rc after SIGINT, expected 130"
json=$(find "$work/r1" -name bench.json | head -n 1)
if [ -z "$json" ]; then
  fail "no run filed after SIGINT"
else
  rs=$(context_of "$json" run_status); say "run_status: $rs"
  [[ $rs == partial* ]] || fail "run_status '$rs' after SIGINT"
  n=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["benchmarks"]; print(len(b), sum(1 for x in b if x.get("error_occurred")))' "$json")
  say "benchmarks kept, errored: $n"
  [ "${n#* }" = 0 ] || fail "errored points in the partial run"
  "$analyze" --quiet --per-run --report "$work/summary.md" "$work/r1" || true
  grep -q "A partial run" "$work/summary.md" && say "summary names the partial run" || fail "the summary does not name the partial run"
fi

say "== 2. two runs on one GPU"
"$bench" --warpcost_results_root="$work/r2" --warpcost_counters=off "--benchmark_filter=^divergence/" \
  >"$work/2a.out" 2>"$work/2a.err" &
first=$!
sleep 6
"$bench" --warpcost_results_root="$work/r2" --warpcost_counters=off "--benchmark_filter=^calibration/sm_clock" \
  >"$work/2b.out" 2>"$work/2b.err"; rc=$?
cat "$work/2b.err" | tee -a "$log"
[ "$rc" -eq 75 ] || fail "the second run exited $rc, expected 75 (refused)"
grep -q "in use by another warpcost run (run " "$work/2b.err" || fail "the refusal does not name the first run"
"$bench" --warpcost_results_root="$work/r2" --warpcost_counters=off --warpcost_gpu_lock=wait \
  "--benchmark_filter=^calibration/sm_clock" >"$work/2c.out" 2>"$work/2c.err"; rc=$?
grep -m1 "waiting for it" "$work/2c.err" | tee -a "$log"
[ "$rc" -eq 0 ] || fail "the waiting run exited $rc"
grep -q "waiting for it" "$work/2c.err" || say "note: the first run had ended before the third started (no wait seen)"
wait "$first" || fail "the first run failed"

say "== 3. another process on the GPU"
( end=$((SECONDS + 25)); while [ $SECONDS -lt $end ]; do "$build/bench/warpcost-stream" read >/dev/null 2>&1; done ) &
other=$!
sleep 2
"$bench" --warpcost_results_root="$work/r3" --warpcost_counters=off "--benchmark_filter=^partial_warp/staircase" \
  >"$work/3.out" 2>"$work/3.err"; rc=$?
pkill -P "$other" 2>/dev/null; kill "$other" 2>/dev/null; wait "$other" 2>/dev/null  # the loop and its running child
json=$(find "$work/r3" -name bench.json | head -n 1)
if [ -n "$json" ]; then
  op=$(context_of "$json" other_gpu_processes); say "other_gpu_processes: $op"
  [[ $op == pid* ]] || say "note: NVML listed no other process (a container hides them?); context says '$op'"
else
  fail "no run filed with another process present (exit $rc)"
fi

say "== 4. the device's plan against the h200 profile's"
"$bench" --benchmark_list_tests >"$work/device.list" 2>"$work/device.err"
"$bench" --device_profile=h200 --benchmark_list_tests >"$work/h200.list" 2>/dev/null
grep "the plan for\|not on this GPU" "$work/device.err" | tee -a "$log"
if grep -q "NVIDIA H200" "$work/device.err"; then
  diff "$work/h200.list" "$work/device.list" >>"$log" && say "the H200's plan equals the h200 profile's" ||
    fail "the H200's plan differs from the h200 profile's (diff above)"
fi
exit $status
