#!/usr/bin/env bash
# One device call of the models round (issues 33 and 34): build with the h200 preset, run the whole
# default suite (./warpcost run: the first run with block_turnover, chase_loaded and the request
# ceiling), pack the new run folder into $OUT/run.tar.gz, then the explain proof round
# (scripts/gpu-round-explain.sh) on the cases WARPCOST_EXPLAIN_CASES names, priced from that run,
# under a time limit so what it made still comes back. WARPCOST_ROUND_SKIP_SUITE=1 skips the suite
# (a second call, with the first call's run committed under results/).
# Usage (repository root, on the GPU machine): OUT=... scripts/gpu-round-models.sh [EXPLAIN_SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/warpcost-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/round.log") 2>&1
[ -d .deps/usr ] && export CMAKE_PREFIX_PATH="$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
explain_seconds=${1:-300}
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv || true
echo "=== build"
cmake --preset h200 >/dev/null && cmake --build --preset h200 -j "$(nproc)" >/dev/null || { echo "build failed"; exit 1; }
echo "=== build done at $((SECONDS - start)) s"
if [ "${WARPCOST_ROUND_SKIP_SUITE:-0}" != 1 ]; then
  before=$(find results -mindepth 2 -maxdepth 2 -type d | sort)
  ./warpcost run --preset h200 || echo "=== suite exited $?"
  after=$(find results -mindepth 2 -maxdepth 2 -type d | sort)
  new=$(comm -13 <(echo "$before") <(echo "$after"))
  echo "=== new run folder(s): $new (at $((SECONDS - start)) s)"
  [ -n "$new" ] && tar czf "$OUT/run.tar.gz" $new
fi
# What is left of the call's 600 s, less a minute for the table and the transfer.
left=$((540 - (SECONDS - start)))
[ "$left" -lt "$explain_seconds" ] && explain_seconds=$left
echo "=== explain round: ${WARPCOST_EXPLAIN_CASES:-every case}, at most $explain_seconds s"
if [ "$explain_seconds" -gt 30 ]; then
  timeout --signal=TERM -k 45 "$explain_seconds" scripts/gpu-round-explain.sh build/h200 "$OUT" ||
    echo "=== explain round exited $?"
fi
echo "=== done at $((SECONDS - start)) s"
