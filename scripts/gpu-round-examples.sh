#!/usr/bin/env bash
# The GPU round's worked-examples step (issue 25; docs/worked-examples.md): `warpcost check --measure`
# on the reference page's file and on the course sample, each example run by its family's runner at
# its own parameters. Each writes results/<gpu>/<utc>-examples-<file>/{examples.md,examples.csv}; the round
# packs those new folders with the suite's runs (results.tar.gz), for committing.
# Exit 1 from --measure means a disagreeing answer or a failing GPU row: the sample holds two
# deliberately wrong answers, and a model row that fails on the GPU is a finding (the page's second-
# order rows of Ex 5 and self-test 3 fail on the H200: docs/worked-examples.md), so 0 and 1 are both
# a measured page. Anything else (2 a malformed file, 77 no GPU, a crash) fails the step.
# Usage (from the repository root, after the h200 build): scripts/gpu-round-examples.sh [PRESET]
set -uo pipefail
cd "$(dirname "$0")/.."
preset=${1:-h200}
status=0
for file in examples/worked-examples.toml examples/course-sample.toml; do
  ./warpcost check "$file" --measure --preset "$preset"
  rc=$?
  [ "$rc" -le 1 ] || { echo "$file: exit $rc (not a measured page)"; status=1; }
done
exit $status
