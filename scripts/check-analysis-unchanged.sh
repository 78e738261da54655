#!/usr/bin/env bash
# A change that claims to move no output (a refactor, issue 32) proved on every run there is: every
# committed run (git ls-files results) and every archived one (results/archive/<gpu>/*.tar.xz) is
# analysed by two warpcost-analyze builds (BASE: before the change, NEW: after), each in a copy of
# its own, and the per-run CSVs, reports and verdict locks and the merged CSV and summary must be
# byte-identical. (Issue 16's schema-1 renames are no longer mapped: every run is read by today's
# reader, which maps them itself.) CI runs the same promise against the committed outputs
# (scripts/check-committed-outputs.sh). Usage:
#   scripts/check-analysis-unchanged.sh BASE_ANALYZE NEW_ANALYZE
# Exit 0: identical; 1: differences (printed); 2: usage.
set -euo pipefail
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || {
  echo "usage: $0 BASE_ANALYZE NEW_ANALYZE (two executable warpcost-analyze builds)" >&2; exit 2; }
base=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-unchanged-XXXXXX")
trap 'rm -rf "$work"' EXIT
for side in base new; do
  mkdir -p "$work/$side/archive"
  (cd "$root" && git ls-files -z results | tar --null -T - -cf -) | tar -xf - -C "$work/$side"
  for archive in "$root"/results/archive/*/*.tar.xz; do tar -xJf "$archive" -C "$work/$side/archive"; done
done
for side in base new; do
  binary=$base
  [ "$side" = new ] && binary=$new
  (cd "$work/$side" && "$binary" --per-run --allow-no-runs --quiet --csv all.csv --report summary.md \
     results archive >/dev/null 2>stderr || echo "exit $?" >>stderr)
done
if ! diff -r -q "$work/base" "$work/new" >/dev/null; then
  diff -r "$work/base" "$work/new" | head -80 || true
  echo "check-analysis-unchanged: the analyses differ" >&2
  exit 1
fi
# With BASE_BENCH and NEW_BENCH (two warpcost-bench builds), the benchmark names and parameters
# the suite registers must be the same too (--benchmark_list_tests needs no GPU).
if [ -n "${BASE_BENCH:-}" ] && [ -n "${NEW_BENCH:-}" ]; then
  "$BASE_BENCH" --benchmark_list_tests >"$work/base.list" 2>/dev/null
  "$NEW_BENCH" --benchmark_list_tests >"$work/new.list" 2>/dev/null
  if ! diff "$work/base.list" "$work/new.list" >"$work/list.diff"; then
    head -20 "$work/list.diff" || true
    echo "check-analysis-unchanged: the registered benchmarks differ" >&2
    exit 1
  fi
  echo "check-analysis-unchanged: $(wc -l <"$work/new.list") registered benchmarks, the same names"
fi
runs=$(find "$work/new" -name bench.json | wc -l)
rows=$(($(wc -l <"$work/new/all.csv") - 1))
echo "check-analysis-unchanged: $runs runs (committed and archived), $rows CSV rows; every per-run CSV, report and lock, the merged CSV and the summary identical"
