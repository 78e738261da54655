#!/usr/bin/env bash
# The console summary of `./warpcost run` (issue 36): from a summary report.md, its preamble, the
# section of run NEW (its verdict table and second-order MAEs), the headline figures, and one line
# for every other run's section; the worked examples and the other runs' tables stay in the file.
# With no NEW (no GPU: nothing ran), the newest run the summary holds stands for it (run ids begin
# with their UTC time). Usage: console-summary.sh REPORT [NEW]   (exit 2: usage or no such file)
set -euo pipefail
report=${1:-}
new=${2:-}
if [ -z "$report" ] || [ $# -gt 2 ] || [ ! -f "$report" ]; then
  echo "usage: console-summary.sh REPORT [NEW_RUN_ID] (REPORT: a summary report.md; '$report' is not a file)" >&2
  exit 2
fi
[ -n "$new" ] || new=$(sed -n 's/^## .* newest run [^ ]*\/\([^/ ]*\)$/\1/p' "$report" | sort | tail -n 1)
# The new run's GPU: its run id ends in the first 8 hex digits of the GPU's UUID.
gpu=${new##*-}
awk -v new="$new" -v gpu="GPU-$gpu" '
  /^## / {
    if (index($0, "newest run ") && new != "" && !index($0, new)) {
      run = $0; sub(/.* newest run /, "", run)
      others = others (others == "" ? "" : ", ") run; skip = 1; next
    }
    skip = 0
    if ($0 ~ /^## Worked examples/) worked = 1
    headline = $0 ~ /^## Headline figures/
  }
  worked || skip { next }
  # The headline table: its header and the new run'"'"'s GPU row (every GPU'"'"'s rows are in the file).
  headline && /^\| / && !/^\| GPU \|/ && !/^\|---/ && !index($0, gpu) { next }
  { print }
  END {
    if (others != "") printf "Other runs (their tables in the file below): %s\n", others
    print "The whole summary, with the worked examples: " FILENAME "."
  }
' "$report"
