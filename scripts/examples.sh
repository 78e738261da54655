#!/usr/bin/env bash
# `./warpcost check` and `./warpcost predict` (docs/worked-examples.md): builds the examples tool of
# the configured build folder, quietly, and runs it with the command's own arguments.
#   scripts/examples.sh BUILD_DIR check FILE [--measure] | predict KIND key=value ...
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$build" -j "$jobs" --target warpcost-examples >/dev/null || {
  echo "warpcost: building warpcost-examples failed (cmake --build $build --target warpcost-examples)" >&2
  exit 1
}
exec "$build/analysis/examples/warpcost-examples" "$@"
