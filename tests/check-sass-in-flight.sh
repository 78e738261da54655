#!/usr/bin/env bash
# scripts/check-sass.sh --only in_flight on samples made from a real sm_90 dump
# (tests/fixtures/sass/make_in_flight_samples.sh says what each holds): the good one passes, the
# unrolled, interleaved and lost-instance ones fail. Own temporary folder, removed after.
#   tests/check-sass-in-flight.sh REPO
set -euo pipefail
repo=${1:?usage: tests/check-sass-in-flight.sh REPO}
command -v xz >/dev/null || { echo "xz not found: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$repo/tests/fixtures/sass/make_in_flight_samples.sh" "$work"
check=$repo/scripts/check-sass.sh
"$check" --only in_flight --sass-text "$work/in_flight_ok.sass"
for bad in unrolled interleaved lost_instance; do
  "$check" --only in_flight --must-fail --sass-text "$work/in_flight_$bad.sass"
done
echo "check-sass-in-flight: the good sample passes, the unrolled, interleaved and lost-instance ones fail"
