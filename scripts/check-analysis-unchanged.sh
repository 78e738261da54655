#!/usr/bin/env bash
# Issue 16's proof that the re-layout changes no verdict: analyses every archived run
# (results/archive/<gpu>/*.tar.xz) and every committed fixture run with two warpcost-analyze builds
# (BASE: before the change, NEW: after), maps BASE's old field names onto the new ones
# (scripts/renames.py states the map) and requires the per-run CSVs and reports, and the merged
# CSV and summary, to be byte-identical. Usage:
#   scripts/check-analysis-unchanged.sh BASE_ANALYZE NEW_ANALYZE
# Exit 0: identical apart from the renames; 1: differences (printed); 2: usage.
set -euo pipefail
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || {
  echo "usage: $0 BASE_ANALYZE NEW_ANALYZE (two executable warpcost-analyze builds)" >&2; exit 2; }
base=$1 new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Each side analyses a folder of the same name (runs/), so the report's relative links agree.
for side in base new; do
  mkdir -p "$work/$side/runs"
  for archive in "$root"/results/archive/*/*.tar.xz; do
    tar -xJf "$archive" -C "$work/$side/runs"
  done
done
analyse() {  # $1 binary, $2 folder of runs
  "$1" --quiet --per-run --csv "$2.csv" --report "$2.md" "$2" >/dev/null 2>"$2.stderr" || echo "exit $?" >>"$2.stderr"
  for f in "$2".csv "$2".md "$2".stderr "$2"/*/warpcost.csv "$2"/*/report.md; do
    # The run folders are temporary: their paths are the one thing allowed to differ.
    sed -i "s#$work/[a-z]*/runs#RUNS#g" "$f"
  done
}
analyse "$base" "$work/base/runs"
analyse "$new" "$work/new/runs"
python3 "$root/scripts/renames.py" "$work"/base/runs.csv "$work"/base/runs.md \
  "$work"/base/runs/*/warpcost.csv "$work"/base/runs/*/report.md
status=0
diff -r -q "$work/base" "$work/new" >/dev/null || status=1
if [ $status -ne 0 ]; then
  diff -r "$work/base" "$work/new" | head -80 || true
  echo "check-analysis-unchanged: the analyses differ beyond the renames" >&2
  exit 1
fi
# With BASE_BENCH and NEW_BENCH (two warpcost-bench builds), the benchmark names and parameters
# the suite registers must be the same too (--benchmark_list_tests needs no GPU). Only the list
# (stdout) is compared: the plan's notes ("the plan for ...", "not on this GPU: ...") go to stderr.
if [ -n "${BASE_BENCH:-}" ] && [ -n "${NEW_BENCH:-}" ]; then
  "$BASE_BENCH" --benchmark_list_tests >"$work/base.list" 2>/dev/null
  "$NEW_BENCH" --benchmark_list_tests >"$work/new.list" 2>/dev/null
  python3 "$root/scripts/renames.py" "$work/base.list"
  if ! diff "$work/base.list" "$work/new.list" >"$work/list.diff"; then
    head -20 "$work/list.diff" || true
    echo "check-analysis-unchanged: the registered benchmarks differ beyond the renames" >&2
    exit 1
  fi
  echo "check-analysis-unchanged: $(wc -l <"$work/new.list") registered benchmarks, the same names"
fi
runs=$(find "$work/new" -name bench.json | wc -l)
rows=$(($(wc -l <"$work/new/runs.csv") - 1))
echo "check-analysis-unchanged: $runs archived runs, $rows CSV rows, every per-run CSV and report identical apart from the renames"
