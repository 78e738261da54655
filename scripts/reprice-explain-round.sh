#!/usr/bin/env bash
# Re-price a committed explain proof round with the current cost model, without a GPU: every case's
# saved records through `warpcost explain --from-records` against the newest run of its GPU under
# RESULTS, then `--proof` on the round's own measured twin times (docs/explain.md, "In-sample").
# With --turnover-from PILOT_BENCH_JSON the run is first copied into a temporary results folder with
# the pilot's streaming/block_turnover points added (a run before that sweep otherwise prices every
# block with D = 0).
# Usage: scripts/reprice-explain-round.sh BUILD_DIR ROUND_DIR RESULTS_DIR [--turnover-from PILOT.json]
# Prints the proof table; writes nothing in the tree.
set -euo pipefail
build=$1
round=$2
results=$3
pilot=
if [ "${4:-}" = --turnover-from ]; then pilot=${5:?--turnover-from needs a file}; fi
explain=$build/bench/warpcost-explain
[ -x "$explain" ] || { echo "reprice-explain-round: no $explain (build warpcost-explain)" >&2; exit 2; }
[ -s "$round/cases.tsv" ] || { echo "reprice-explain-round: no $round/cases.tsv" >&2; exit 2; }
work=$(mktemp -d /tmp/warpcost-reprice-XXXXXX)
trap 'rm -rf "$work"' EXIT
# A round whose sessions are packed (sessions.tar.xz beside its README, for the 64 MiB the tree may
# carry to a GPU) is unpacked into the temporary folder first.
if [ -e "$round/sessions.tar.xz" ]; then
  mkdir -p "$work/round"
  tar -xJf "$round/sessions.tar.xz" -C "$work/round"
  round=$work/round
fi
if [ -n "$pilot" ]; then
  # the newest run folder by name (its UTC stamp) of the round's GPU, as explain chooses it
  gpu_name=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r.get("record")=="device": print(r["name"]); break' "$(ls "$round"/*/records.jsonl | head -n 1)")
  newest=$(python3 - "$results" "$gpu_name" <<'PY'
import json, pathlib, sys
best = None
for bench in pathlib.Path(sys.argv[1]).glob("*/*/bench.json"):
    if bench.parent.parent.name == "archive":
        continue
    try:
        name = json.load(open(bench))["context"].get("gpu_name")
    except Exception:
        continue
    if name == sys.argv[2] and (best is None or bench.parent.name > best.parent.name):
        best = bench
print(best or "")
PY
)
  [ -n "$newest" ] || { echo "reprice-explain-round: no run of $gpu_name under $results" >&2; exit 2; }
  folder=$(basename "$(dirname "$newest")")
  gpu=$(basename "$(dirname "$(dirname "$newest")")")
  mkdir -p "$work/results/$gpu/$folder"
  python3 - "$newest" "$pilot" "$work/results/$gpu/$folder/bench.json" <<'PY'
import json, sys
run, pilot = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
run["benchmarks"] += [b for b in pilot["benchmarks"] if b["name"].startswith("streaming/block_turnover/")]
json.dump(run, open(sys.argv[3], "w"))
PY
  results=$work/results
fi
: >"$work/cases.tsv"
while IFS=$'\t' read -r name view _json rest; do
  case "$name" in '#'*|'') continue ;; esac
  "$explain" --from-records "$round/$name/records.jsonl" --results "$results" --json "$work/$name.json" >/dev/null ||
    echo "reprice-explain-round: $name could not be re-priced" >&2
  printf '%s\t%s\t%s\t%s\n' "$name" "$view" "$work/$name.json" "$rest" >>"$work/cases.tsv"
done <"$round/cases.tsv"
echo "Figures: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["figures"])' "$(ls "$work"/*.json | head -n 1)")"
echo
"$explain" --proof "$work/cases.tsv"
