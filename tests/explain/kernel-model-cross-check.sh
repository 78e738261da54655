#!/usr/bin/env bash
# The kernel model (explain/kernel_model.cpp, EXPLAIN-4) against its second implementation
# (tests/explain/kernel_model_reference.py) on real records: every session of the committed H200
# explain round re-priced by `warpcost explain --from-records` with a committed suite run, each
# view's speedup compared with the reference's, within a part in a million. Twice: with the run as
# committed (no block_turnover sweep: D = 0), and with the one-load-a-thread pilot's block_turnover
# points added to it (the turnover path), in a temporary results folder removed after. Then every
# session of the H100 round with that GPU's own run (below).
# Usage: kernel-model-cross-check.sh WARPCOST_EXPLAIN REPO_ROOT PYTHON
set -euo pipefail
explain=$1
repo=$2
python=${3:-python3}
round=$repo/results/nvidia-h200/20261201T192700Z-explain-repeat
run=$repo/results/nvidia-h200/20261203T072255Z-9c349b82
pilot=$repo/results/nvidia-h200/20261205T045805Z-one-per-thread-pilot
for need in "$round/cases.tsv" "$run/bench.json" "$pilot/pilot-bench.json"; do
  [ -e "$need" ] || { echo "skip: $need is not in this tree"; exit 77; }
done
work=$(mktemp -d /tmp/warpcost-kernel-model-XXXXXX)
trap 'rm -rf "$work"' EXIT
# r_sat as the run's own row says (the analysis measures it; the model only reads it)
rsat=$(awk -F, '$11=="second_order_parameters" && $13=="saturated_issue_rate" {print $14; exit}' "$run/warpcost.csv")
[ -n "$rsat" ] || { echo "no saturated_issue_rate row in $run/warpcost.csv"; exit 1; }

# The turnover by hand from a run's block_turnover points (BENCH_JSON into OUT_JSON): the
# reference's turnover_of, cycles an SM spends a block = SMs x median seconds x measured clock /
# blocks (docs/models.md, "one load a thread").
turnover_of() {
  "$python" - "$1" "$2" "$repo/tests/explain" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
import kernel_model_reference as R
out = R.turnover_of(json.load(open(sys.argv[1])))
assert out, "the run has no block_turnover points"
json.dump(out, open(sys.argv[2], "w"))
PY
}
# Every view of explain's JSON (GOT) against the reference's (REF), within a part in a million;
# prints what differs, labelled LABEL, and returns 1 then.
same_views() {
  "$python" - "$1" "$2" "$3" <<'PY'
import json, sys
got = {v["name"]: v["speedup"] for v in json.load(open(sys.argv[1]))["kernels"][0]["views"]}
ref = json.load(open(sys.argv[2]))["views"]
bad = [f"{k}: explain {got.get(k)} reference {v}" for k, v in ref.items()
       if got.get(k) is None or abs(got[k] - v) > 1e-6 * v]
bad += [f"{k}: explain {v}, the reference prices none" for k, v in got.items() if v is not None and k not in ref]
if bad:
    print(sys.argv[3], "differs:", "; ".join(bad))
    sys.exit(1)
PY
}

mkdir -p "$work/plain/nvidia-h200/20261203T072255Z-9c349b82" "$work/turnover/nvidia-h200/20261203T072256Z-composite"
cp "$run/bench.json" "$work/plain/nvidia-h200/20261203T072255Z-9c349b82/"
"$python" - "$run/bench.json" "$pilot/pilot-bench.json" "$work/turnover/nvidia-h200/20261203T072256Z-composite/bench.json" <<'PY'
import json, sys
run, pilot = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
run["benchmarks"] += [b for b in pilot["benchmarks"] if b["name"].startswith("streaming/block_turnover/")]
json.dump(run, open(sys.argv[3], "w"))
PY
turnover_of "$work/turnover/nvidia-h200/20261203T072256Z-composite/bench.json" "$work/turnover.json"

status=0
compared=0
while IFS=$'\t' read -r name _; do
  case "$name" in '#'*|'') continue ;; esac
  records=$round/$name/records.jsonl
  for mode in plain turnover; do
    "$explain" --from-records "$records" --results "$work/$mode" --json "$work/$name.$mode.json" >/dev/null
    if [ "$mode" = turnover ]; then
      "$python" "$repo/tests/explain/kernel_model_reference.py" "$records" "$work/turnover/nvidia-h200/20261203T072256Z-composite/bench.json" "$rsat" "$work/turnover.json" >"$work/$name.$mode.ref.json"
    else
      "$python" "$repo/tests/explain/kernel_model_reference.py" "$records" "$run/bench.json" "$rsat" >"$work/$name.$mode.ref.json"
    fi
    same_views "$work/$name.$mode.json" "$work/$name.$mode.ref.json" "$name $mode" || status=1
    compared=$((compared + 1))
  done
done <"$round/cases.tsv"

# The H100 rounds and the H200 round of 5 December, each priced from the suite run of its own device call (each has its own
# block_turnover sweep; its warpcost.csv is not committed: the analysis writes it into the
# temporary copy for r_sat). priced_round ROUND RUN_NAME BENCH_SOURCE: BENCH_SOURCE a run's bench.json,
# or the tar.xz an archived run is packed in (results/archive/, for the 64 MiB the tree may carry to
# a GPU).
analyze=$(dirname "$explain")/../analysis/warpcost-analyze
priced_round() {
  local round=$1 run_name=$2 source=$3 tag=$4 gpu=${5:-nvidia-h100-80gb-hbm3} pilot=${6:-}
  # A round whose sessions are packed (sessions.tar.xz beside its README, for the 64 MiB limit) is
  # unpacked into the temporary folder first.
  if [ -e "$round/sessions.tar.xz" ]; then
    mkdir -p "$work/$tag-round"
    tar -xJf "$round/sessions.tar.xz" -C "$work/$tag-round"
    round=$work/$tag-round
  fi
  if [ ! -e "$round/cases.tsv" ] || [ ! -e "$source" ] || [ ! -x "$analyze" ]; then
    # Every round named below is committed: one missing is a broken tree, not a round to skip.
    echo "the round $round, its run ($source) or $analyze is missing: its sessions cannot be compared"
    status=1
    return 0
  fi
  local results=$work/$tag
  local run_dir=$results/$gpu/$run_name
  mkdir -p "$run_dir"
  case $source in
    *.tar.xz) tar -xJf "$source" -C "$results/$gpu" "$run_name/bench.json" ;;
    *) cp "$source" "$run_dir/bench.json" ;;
  esac
  # PILOT (the store-twin pilot's csv of the same call): its copy16 curve added as the run's
  # copy_independent points, so both implementations take EXPLAIN-7's path on real records.
  if [ -n "$pilot" ]; then
    "$python" "$repo/pilots/store_twin/with_copy_locus.py" "$run_dir/bench.json" "$pilot" "$run_dir/bench.with-copy.json"
    mv "$run_dir/bench.with-copy.json" "$run_dir/bench.json"
  fi
  "$analyze" --quiet "$run_dir" >/dev/null 2>"$work/analyze.log" || { cat "$work/analyze.log"; echo "the analysis of $run_name failed"; exit 1; }
  local rsat
  rsat=$(awk -F, '$11=="second_order_parameters" && $13=="saturated_issue_rate" {print $14; exit}' "$run_dir/warpcost.csv")
  [ -n "$rsat" ] || { echo "no saturated_issue_rate row in the analysis of $run_name"; exit 1; }
  turnover_of "$run_dir/bench.json" "$work/$tag-turnover.json"
  local n=0 name records
  while IFS=$'\t' read -r name _; do
    case "$name" in '#'*|'') continue ;; esac
    records=$round/$name/records.jsonl
    "$explain" --from-records "$records" --results "$results" --json "$work/$name.$tag.json" >/dev/null
    "$python" "$repo/tests/explain/kernel_model_reference.py" "$records" "$run_dir/bench.json" "$rsat" "$work/$tag-turnover.json" >"$work/$name.$tag.ref.json"
    same_views "$work/$name.$tag.json" "$work/$name.$tag.ref.json" "$name $tag" || status=1
    n=$((n + 1))
  done <"$round/cases.tsv"
  echo "compared $n sessions of the round $(basename "$round") ($gpu)"
  [ "$n" -ge 26 ] || { echo "too few sessions compared in $round"; exit 1; }
  compared=$((compared + n))
}
# EXPLAIN-4's held-out round (its store gathers take EXPLAIN-5's DRAM-ceiling path), its run archived.
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261205T111000Z-explain-proof" 20261205T110614Z-13d70b73 \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261205T110614Z-13d70b73.tar.xz" h100a
# EXPLAIN-5's held-out round, priced from the run of its own call (archived since the third H100 run).
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261205T141736Z-explain-proof" 20261205T141736Z-3bd8d9d5 \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261205T141736Z-3bd8d9d5.tar.xz" h100b
# The H200 round of 5 December (issue 34's done-when round), priced from the H200 run of its call.
priced_round "$repo/results/nvidia-h200/20261205T145516Z-explain-proof" 20261205T145516Z-775fedc8 \
  "$repo/results/archive/nvidia-h200/20261205T145516Z-775fedc8.tar.xz" h200 nvidia-h200
# Its repeat on a later H200 call (code f875c7b, no pricing rule changed), priced from that call's run.
priced_round "$repo/results/nvidia-h200/20261205T175534Z-explain-proof" 20261205T175534Z-46d41701 \
  "$repo/results/nvidia-h200/20261205T175534Z-46d41701/bench.json" h200b nvidia-h200
# The H100 round of 6 December (code 25b5f41, no pricing rule changed), priced from the run of its call.
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T023526Z-explain-proof" 20261206T023526Z-d14e790e \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T023526Z-d14e790e.tar.xz" h100d
# Its repeat on a fifth H100 card (code eb94cef, no pricing rule changed), priced from the run of its call.
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T044856Z-explain-proof" 20261206T044856Z-19e93b3c \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T044856Z-19e93b3c.tar.xz" h100e
# And on a sixth card (05:06, the same code), its run archived when committed.
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T050609Z-explain-proof" 20261206T050609Z-0e30b10c \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T050609Z-0e30b10c.tar.xz" h100f
# EXPLAIN-7's first round: the suite run of its call measured the copy locus itself (archived
# when the second round's run came in).
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T055348Z-explain-proof" 20261206T055348Z-3e6ad765 \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T055348Z-3e6ad765.tar.xz" h100g
# EXPLAIN-7's second held-out round (08:08, an eighth card), priced from the run of its own call.
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T080817Z-explain-proof" 20261206T080817Z-73f074cc \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T080817Z-73f074cc.tar.xz" h100h
# EXPLAIN-8's first held-out round (08:55, a ninth H100 card), priced from the run of its own call
# (archived when the run of 14:28 came in).
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T085546Z-explain-proof" 20261206T085546Z-fc6ae2a8 \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T085546Z-fc6ae2a8.tar.xz" h100i
# EXPLAIN-8's second held-out round (14:28, a tenth H100 card), priced from the run of its own call
# (archived when the run of 15:05 came in).
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T142843Z-explain-proof" 20261206T142843Z-d4f726de \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T142843Z-d4f726de.tar.xz" h100j
# EXPLAIN-8's third held-out round (15:05, an eleventh H100 card; the tile kernels at 4 loads), priced
# from the run of its own call.
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T150548Z-explain-proof" 20261206T150548Z-31f42062 \
  "$repo/results/nvidia-h100-80gb-hbm3/20261206T150548Z-31f42062/bench.json" h100k
# EXPLAIN-7's first H200 round (6 December 08:27, card ef58b233), priced from the run of its own call
# (archived on 6 December 15:20, for the 64 MiB the tree carries to the GPU).
priced_round "$repo/results/nvidia-h200/20261206T082703Z-explain-proof" 20261206T082703Z-ef58b233 \
  "$repo/results/archive/nvidia-h200/20261206T082703Z-ef58b233.tar.xz" h200c nvidia-h200
# EXPLAIN-7's path (the copy locus): the two rounds of 6 December 04:48 and 05:06 again, each run
# with its call's store-twin pilot's copy16 curve as its copy_independent points (runs of that code
# did not measure it; pilots/store_twin/with_copy_locus.py).
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T044856Z-explain-proof" 20261206T044856Z-19e93b3c \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T044856Z-19e93b3c.tar.xz" h100e-copy nvidia-h100-80gb-hbm3 \
  "$repo/results/nvidia-h100-80gb-hbm3/20261206T044856Z-pilots/pilot-store_twin.csv"
priced_round "$repo/results/nvidia-h100-80gb-hbm3/20261206T050609Z-explain-proof" 20261206T050609Z-0e30b10c \
  "$repo/results/archive/nvidia-h100-80gb-hbm3/20261206T050609Z-0e30b10c.tar.xz" h100f-copy nvidia-h100-80gb-hbm3 \
  "$repo/results/nvidia-h100-80gb-hbm3/20261206T050609Z-pilots/pilot-store_twin.csv"
echo "compared $compared sessions x 6 views"
[ "$compared" -ge 20 ] || { echo "too few sessions compared"; exit 1; }
exit $status
