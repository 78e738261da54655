#!/usr/bin/env bash
# warpcost explain's launch selection on explain/programs/shape_sweep (7 shapes of one kernel, 3
# launches each, so matching launches 0..20 in shape order): --each-shape profiles one launch a
# shape (7 launch records, 7 distinct shapes); --launch-skip 3 --launch-count 2 --no-dram-pass
# profiles exactly matching launches 3 and 4. Needs the GPU machine: exit 77 (skipped) without one.
#   tests/explain/launch-selection.sh EXPLAIN SHAPE_SWEEP
set -uo pipefail
explain=$1 sweep=$2
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "launch-selection: no GPU here (nvidia-smi lists none); this test runs on the GPU machine"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
"$explain" --each-shape --launch-count 100 --records "$tmp/each.jsonl" --json "$tmp/each.json" -- "$sweep" --repeats 3 \
  >"$tmp/each.log" 2>&1 || { echo "FAIL: explain --each-shape exited $?"; cat "$tmp/each.log"; exit 1; }
launches=$(grep -c '"record":"launch"' "$tmp/each.jsonl")
# The record's keys are in alphabetical order: block, then dynamic_shared_bytes.
shapes=$(grep '"record":"launch"' "$tmp/each.jsonl" |
  sed -n 's/.*"block":\(\[[0-9,]*\]\).*"dynamic_shared_bytes":\([0-9]*\).*/\1 \2/p' | sort -u | wc -l)
echo "each-shape: $launches launch record(s), $shapes distinct (block, shared) shape(s)"
[ "$launches" -eq 7 ] && [ "$shapes" -eq 7 ] || { echo "FAIL: want 7 and 7"; fail=1; }
"$explain" --launch-skip 3 --launch-count 2 --no-dram-pass --records "$tmp/skip.jsonl" -- "$sweep" --repeats 3 \
  >"$tmp/skip.log" 2>&1 || { echo "FAIL: explain --launch-skip exited $?"; cat "$tmp/skip.log"; exit 1; }
indices=$(grep '"record":"launch"' "$tmp/skip.jsonl" | grep -o '"index":[0-9]*' | tr '\n' ' ')
echo "skip 3, count 2: $indices"
[ "$indices" = '"index":3 "index":4 ' ] || { echo "FAIL: want indices 3 and 4"; fail=1; }
exit $fail
