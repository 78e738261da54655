#!/usr/bin/env bash
# Submits the warpcost job array (one suite a GPU) and its collector (after every task has ended).
#
#   scripts/slurm/submit.sh --shared DIR [--build DIR] [--tasks N] [--partition P]
#       [--constraint C] [--time T] [--account A] [--gres G|none] [--sbatch-opt OPT]...
#       [-- BENCH_ARGS...]
#
#   --shared      a folder every node sees (created): runs/, tasks/, logs/ and the collector's output
#   --build       a build folder on the shared file system with bench/warpcost-bench and
#                 analysis/warpcost-analyze (default build/h200; build it once, beforehand)
#   --tasks       array tasks, one GPU each (default 1)
#   --partition, --constraint (e.g. a GPU type such as h100|h200, as the site names its features),
#   --time (each task's limit, default the job script's 00:30:00), --account: passed to sbatch
#   --gres        each task's GPU request (default gpu:1); "none" submits without one (a cluster
#                 with no GPU gres, such as tests/slurm/run-slurm-test.sh's one-node Slurm)
#   --sbatch-opt  any further sbatch option for the array, e.g. --sbatch-opt=--exclusive (one task a
#                 node: every GPU of a node to one suite) or --sbatch-opt=--nodelist=gpu[01-04]
# Prints the two job ids ("array=<id> collector=<id>").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '4,6p' "$0" | sed 's/^# \{0,1\}/usage: /' >&2; exit 2; }
bad() { echo "submit.sh: $1" >&2; exit 2; }

shared=
build=build/h200
tasks=1
gres=gpu:1
common=()
array_opts=()
bench_args=
while [ $# -gt 0 ]; do
  case "$1" in
    --shared|--build|--tasks|--partition|--constraint|--time|--account|--gres|--sbatch-opt)
      [ $# -ge 2 ] || bad "$1 needs a value"
      opt=$1 value=$2
      shift 2 ;;
    --*=*) opt=${1%%=*} value=${1#*=}; shift ;;
    --) shift; bench_args="$*"; break ;;
    *) bad "unknown argument '$1'" ;;
  esac
  case "$opt" in
    --shared) shared=$value ;;
    --build) build=$value ;;
    --tasks)
      [[ "$value" =~ ^[1-9][0-9]{0,4}$ ]] || bad "--tasks '$value': allowed: a whole number from 1"
      tasks=$value ;;
    --partition|--constraint|--time|--account)
      [ -n "$value" ] || bad "$opt is empty"
      common+=("$opt=$value") ;;
    --gres) [ -n "$value" ] || bad "--gres is empty; allowed: a gres such as gpu:1, or none"
      gres=$value ;;
    --sbatch-opt) array_opts+=("$value") ;;
    *) bad "unknown option '$opt'" ;;
  esac
done
[ -n "$shared" ] || { echo "submit.sh: name the shared results folder with --shared DIR" >&2; usage; }
command -v sbatch >/dev/null || bad "sbatch is not on PATH: run this on a Slurm login node"
build_dir=$(cd "$build" 2>/dev/null && pwd) || bad "--build '$build': no such folder"
build=$build_dir
[ -x "$build/bench/warpcost-bench" ] ||
  bad "--build '$build' has no bench/warpcost-bench: build once first (cmake --preset h200 && cmake --build --preset h200)"
[ -x "$build/analysis/warpcost-analyze" ] || bad "--build '$build' has no analysis/warpcost-analyze"
mkdir -p "$shared/runs" "$shared/tasks" "$shared/logs"
shared=$(cd "$shared" && pwd)

env_common="ALL,WARPCOST_SHARED=$shared,WARPCOST_BUILD=$build"
# sbatch takes the gres from the job script unless told otherwise; "none" submits the script with
# its gres directive taken out (through stdin), since sbatch has no way to unset it.
script=$here/warpcost-array.sbatch
if [ "$gres" = none ]; then
  gres_opt=()
  script_input=$(sed '/^#SBATCH --gres=/d' "$script")
else
  gres_opt=("--gres=$gres")
  script_input=$(cat "$script")
fi
array_id=$(printf '%s\n' "$script_input" |
  WARPCOST_BENCH_ARGS=$bench_args sbatch --parsable --array="0-$((tasks - 1))" \
    --output="$shared/logs/%x-%A_%a.out" \
    --export="$env_common${bench_args:+,WARPCOST_BENCH_ARGS}" \
    ${gres_opt[@]+"${gres_opt[@]}"} ${common[@]+"${common[@]}"} ${array_opts[@]+"${array_opts[@]}"})
array_id=${array_id%%;*}
# The collector needs no GPU, and the time limit asked for the suite is not its own.
collect_common=()
for o in ${common[@]+"${common[@]}"}; do [[ "$o" == --time=* ]] || collect_common+=("$o"); done
collector_id=$(sbatch --parsable --dependency="afterany:$array_id" \
  --output="$shared/logs/%x-%j.out" \
  --export="$env_common,WARPCOST_ARRAY_JOB=$array_id,WARPCOST_ARRAY_TASKS=$tasks" \
  ${collect_common[@]+"${collect_common[@]}"} "$here/warpcost-collect.sbatch")
collector_id=${collector_id%%;*}
echo "array=$array_id collector=$collector_id"
echo "submit.sh: $tasks task(s) in job $array_id, collector $collector_id; results in $shared" \
     "(summary-$array_id.md, tasks-$array_id.csv, warpcost.csv, report.md)" >&2
