#!/usr/bin/env bash
# The warp-primitives family's GPU-round steps, into ONE file, $OUT/primitives.txt: the SASS proof
# of every chain kernel and its negative control (the plain-move build must fail it), the lesson's
# mask facts under compute-sanitizer --tool synccheck (a 48-thread block: a shuffle with the active
# mask, then with the full mask, which names 16 lanes the second warp does not have), memcheck over
# two kernels' indexing, and examples of warpcost-primitives. Called by one line of scripts/gpu-round.sh.
#   scripts/gpu-round-primitives.sh BUILD_DIR OUT_DIR
# Exit 0 when the SASS check passes and its negative control fails; synccheck's reports are facts
# recorded for docs/warp-primitives.md, not failures.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/gpu-round-primitives.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
build=$1
out=$2
tool=$build/bench/warpcost-primitives
log=$out/primitives.txt
status=0
section() { echo; echo "=== $*"; }
{
  section "SASS: every primitive_chain_kernel holds its instruction (scripts/check-sass-primitives.sh)"
  scripts/check-sass-primitives.sh --tool "$tool" "$build/kernels/libwarpcost_kernels.a" || status=1

  section "negative control: the plain-move build must fail the check"
  if cmake --build "$build" --target warpcost_primitives_plain_move >/dev/null; then
    obj=$(find "$build" -name 'libwarpcost_primitives_plain_move.a' | head -n 1)
    scripts/check-sass-primitives.sh --tool "$tool" --must-fail "$obj" || status=1
  else
    echo "the plain-move build failed"; status=1
  fi

  for mask in "" "--full-mask"; do
    section "compute-sanitizer --tool synccheck: warpcost-primitives facts --threads 48 --split 5 $mask"
    timeout 300 compute-sanitizer --tool synccheck "$tool" facts --threads 48 --split 5 $mask
    echo "(exit $?)"
  done

  # The kernels' indexing (shared rows of sum_shared at full residency, both divergent sides) under
  # memcheck: any access error fails the step.
  for args in "throughput --primitive sum_shared" "latency --primitive shfl_xor32 --lanes 16 --mask divergent"; do
    section "compute-sanitizer --tool memcheck: warpcost-primitives $args"
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$tool" $args || status=1
  done

  section "warpcost-primitives examples"
  "$tool" list
  for args in "latency --primitive shfl_xor32" "latency --primitive shfl_xor32 --lanes 1" \
              "latency --primitive shfl_xor32 --lanes 16 --mask scattered" \
              "latency --primitive ballot --lanes 16 --mask divergent" "latency --primitive reduce_add" \
              "latency --primitive sum_butterfly" "throughput --primitive shfl_xor32" \
              "throughput --primitive shfl_xor32 --warps 8" "throughput --primitive match_any --lanes 16"; do
    echo "\$ warpcost-primitives $args"
    timeout 120 "$tool" $args || status=1
  done
} > "$log" 2>&1
cat "$log"
exit $status
