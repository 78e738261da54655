#!/usr/bin/env bash
# `./warpcost check` and `./warpcost predict` (docs/worked-examples.md): builds the examples tool of
# the configured build folder, quietly, and runs it with the command's own arguments; with --measure
# it also builds the family runners and points the tool at them (BUILD_DIR/bench).
#   scripts/examples.sh BUILD_DIR check FILE [--plan | --measure] | predict KIND key=value ...
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
jobs=$(nproc 2>/dev/null || echo 2)
targets=(warpcost-examples)
extra=()
measure=0
own_bench_dir=0
for arg in "$@"; do
  case "$arg" in
    --measure) measure=1 ;;
    --bench-dir) own_bench_dir=1 ;;
  esac
done
# --measure: the build's runners, built and passed, unless the user named a folder (given twice is
# a usage error).
if [ "$measure" = 1 ] && [ "$own_bench_dir" = 0 ]; then
  targets+=(warpcost-record warpcost-diverge warpcost-coalesce warpcost-stream warpcost-primitives)
  extra=(--bench-dir "$build/bench")
fi
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >/dev/null || {
  echo "warpcost: building ${targets[*]} failed (cmake --build $build --target ${targets[*]})" >&2
  exit 1
}
exec "$build/check/warpcost-examples" "$@" ${extra[@]+"${extra[@]}"}
