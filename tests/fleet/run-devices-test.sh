#!/usr/bin/env bash
# scripts/run-devices.sh without a GPU: a fake bench (fake-bench.sh) stands in for warpcost-bench
# on three devices, and the real warpcost-analyze analyses what they file. Checks: bad --devices
# values exit 2 naming the value before any device is looked for; the suites run at the same time;
# a failing device keeps its .failed run and does not lose the others' runs, their analysis or
# their compare; a device beyond those visible exits 2; no device at all analyses what is there.
#   tests/fleet/run-devices-test.sh PATH/TO/warpcost-analyze
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../../scripts/run-devices.sh
analyze=$(realpath "${1:?usage: run-devices-test.sh PATH/TO/warpcost-analyze}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WARPCOST_BENCH=$here/fake-bench.sh WARPCOST_ANALYZE=$analyze
export WARPCOST_RESULTS_ROOT=$work/results FAKE_NOTES=$work/notes WARPCOST_DEVICE_LOGS=$work/device-logs
mkdir -p "$FAKE_NOTES"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# run_case NAME EXPECTED_RC ARGS...: the script's stderr lands in $work/NAME.err
run_case() {
  local name=$1 want=$2 rc=0
  shift 2
  "$script" --preset ci "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  [ "$rc" = "$want" ] || fail "$name: exit $rc, expected $want; stderr:$(sed 's/^/  /' "$work/$name.err")"
}
expect_err() { grep -qF -- "$2" "$work/$1.err" || fail "$1: stderr lacks '$2': $(cat "$work/$1.err")"; }

# Bad values: exit 2, the value named, and no device looked for (the fake notes nothing).
for bad in '' 'x' '0,,1' '1,' '-1' '0,0' 'all,1' '99999'; do
  run_case bad 2 --devices "$bad"
  expect_err bad "--devices '$bad'"
  expect_err bad "allowed: all, or device indices"
done
[ -z "$(ls "$FAKE_NOTES")" ] || fail "a bad --devices value still started the bench"

# All three devices, device 1 failing.
FAKE_FAIL=1 run_case all 1 --devices all -- --benchmark_repetitions=5
expect_err all "device 1 failed (exit 1)"
expect_err all "[device 1] fake-bench: 1 failure(s)"
expect_err all "1 of 3 device(s) failed: 1"
for d in 0 2; do
  run=$WARPCOST_RESULTS_ROOT/fixture-gpu/2026010${d}T000000Z-0000000$d
  for f in bench.json warpcost.csv report.md; do [ -f "$run/$f" ] || fail "device $d: no $f in $run"; done
  grep -q -- "--warpcost_device=$d " "$FAKE_NOTES/args-$d" || fail "device $d ran without --warpcost_device=$d"
  grep -q -- "--benchmark_repetitions=5" "$FAKE_NOTES/args-$d" || fail "device $d lost the bench arguments"
done
[ -d "$WARPCOST_RESULTS_ROOT/fixture-gpu/20260101T000000Z-00000001.failed" ] || fail "device 1's failed run is gone"
for f in warpcost.csv report.md; do [ -f "$WARPCOST_RESULTS_ROOT/$f" ] || fail "no merged $f"; done
grep -q "fixture-gpu/20260102T000000Z-00000002" "$WARPCOST_RESULTS_ROOT/warpcost.csv" || fail "merged CSV lacks device 2's run"
grep -q "fixture-gpu/20260100T000000Z-00000000" "$WARPCOST_RESULTS_ROOT/warpcost.csv" || fail "merged CSV lacks device 0's run"
grep -q "20260101T000000Z-00000001" "$WARPCOST_RESULTS_ROOT/warpcost.csv" && fail "merged CSV holds the failed run"
compare=$WARPCOST_RESULTS_ROOT/fixture-gpu/20260102T000000Z-00000002/compare.md
[ -f "$compare" ] || fail "no compare of device 2 with device 0"
grep -q "benchmarks in both" "$compare" 2>/dev/null || fail "compare.md has no summary"
# In parallel: every suite started before any other ended.
for a in 0 1 2; do
  for b in 0 1 2; do
    [ "$a" = "$b" ] && continue
    awk -v s="$(cat "$FAKE_NOTES/start-$a")" -v e="$(cat "$FAKE_NOTES/end-$b")" 'BEGIN { exit !(s < e) }' ||
      fail "device $a started after device $b ended: not in parallel"
  done
done

# One device by index, another not visible.
rm -f "$FAKE_NOTES"/*
run_case one 0 --devices 2
{ [ -f "$FAKE_NOTES/start-2" ] && [ ! -f "$FAKE_NOTES/start-0" ]; } || fail "--devices 2 ran other devices"
FAKE_DEVICES=2 run_case beyond 2 --devices 0,2
expect_err beyond "device 2 is not visible; CUDA sees devices 0..1"
# No device: said so, and what is there is analysed.
FAKE_DEVICES=0 run_case none 0 --devices all
expect_err none "not usable by CUDA here"

if [ "$failures" -gt 0 ]; then
  echo "run-devices-test: $failures failure(s)" >&2
  exit 1
fi
echo "run-devices-test: all checks passed"
