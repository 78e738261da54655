#!/usr/bin/env bash
# The greedy-issue model's second implementation (tests/greedy_second_implementation.py, over
# pilots/whatif/gto_window_sim.py) still gives the committed tables test_models compares the C++
# model with (without a spread, and with one: --sigma); a table with one figure changed is refused
# by the comparison here.
#   tests/greedy-second-implementation.sh REPO PYTHON
set -euo pipefail
repo=${1:?usage: tests/greedy-second-implementation.sh REPO PYTHON}
python=${2:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixture=$repo/tests/fixtures/greedy-second-implementation.tsv
"$python" "$repo/tests/greedy_second_implementation.py" "$repo" > "$work/now.tsv"
if ! diff -u "$fixture" "$work/now.tsv"; then
  echo "FAIL: the second implementation no longer gives $fixture (regenerate it with tests/greedy_second_implementation.py)"
  exit 1
fi
sigma_fixture=$repo/tests/fixtures/greedy-second-implementation-sigma.tsv
"$python" "$repo/tests/greedy_second_implementation.py" "$repo" --sigma > "$work/sigma.tsv"
if ! diff -u "$sigma_fixture" "$work/sigma.tsv"; then
  echo "FAIL: the second implementation no longer gives $sigma_fixture (regenerate it with tests/greedy_second_implementation.py REPO --sigma)"
  exit 1
fi
# Planted: one cycle count changed must differ.
sed '3s/\t\([0-9]*\)\.\([0-9]*\)$/\t9\1.\2/' "$fixture" > "$work/bad.tsv"
if diff -q "$work/bad.tsv" "$work/now.tsv" > /dev/null; then
  echo "FAIL: a changed figure was not seen"; exit 1
fi
echo "greedy-second-implementation: $(grep -vc '^#' "$fixture") cases and $(grep -vc '^#' "$sigma_fixture") with a spread as committed; a changed one is seen"
