#!/usr/bin/env bash
# core/suite_loops.cpp is what scripts/suite-loop-programs.py reads from the sm_90 cubin
# nvcc builds of kernels/streaming/kernels.cu with the suite's flags: a changed kernel or compiler
# fails here (regenerate the file; the greedy-issue model's figures move with it). A program with
# one stall count changed is refused. Skipped (77) without nvcc. Own temporary folder, removed after.
#   tests/suite-loop-programs.sh REPO
set -euo pipefail
repo=${1:?usage: tests/suite-loop-programs.sh REPO}
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { echo "nvcc not found: the suite's loops were not rebuilt, core/suite_loops.cpp is unchecked: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nvcc" -cubin -O3 -DNDEBUG -lineinfo -std=c++17 -arch=sm_90 -I"$repo" -o "$work/s.cubin" "$repo/kernels/streaming/kernels.cu"
python3 "$repo/scripts/suite-loop-programs.py" "$work/s.cubin" > "$work/now.cpp"
if ! diff -u "$repo/core/suite_loops.cpp" "$work/now.cpp"; then
  echo "FAIL: core/suite_loops.cpp is not what nvcc $("$nvcc" --version | tail -1) builds today"
  exit 1
fi
sed 's/case 256: return "4 13/case 256: return "5 13/' "$repo/core/suite_loops.cpp" > "$work/bad.cpp"
if diff -q "$work/bad.cpp" "$work/now.cpp" > /dev/null; then echo "FAIL: a changed stall count was not seen"; exit 1; fi
echo "suite-loop-programs: the committed loops are nvcc's; a changed one is seen"
