#!/usr/bin/env bash
# The GPU round's worked-examples step (issue 25; docs/worked-examples.md): `warpcost check --measure`
# on the reference page's file and on the course sample, each example run by its family's runner at
# its own parameters. Each writes results/<gpu>/<utc>-examples-<file>/{examples.md,examples.csv}; the round
# packs those new folders with the suite's runs (results.tar.gz), for committing.
# The sample holds two deliberately wrong answers, so its exit 1 is expected when its GPU rows all
# pass; the page's file must exit 0 (every answer agrees, every measured row passes or holds).
# Usage (from the repository root, after the h200 build): scripts/gpu-round-examples.sh [PRESET]
set -uo pipefail
cd "$(dirname "$0")/.."
preset=${1:-h200}
status=0
./warpcost check examples/worked-examples.toml --measure --preset "$preset" || status=1
./warpcost check examples/course-sample.toml --measure --preset "$preset"
rc=$?
[ "$rc" -eq 1 ] || { echo "course sample: exit $rc, expected 1 (its two deliberate disagrees)"; status=1; }
exit $status
