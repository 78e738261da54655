#!/usr/bin/env bash
# scripts/check-sass.sh --only in_flight on samples made from a real sm_90 dump
# (tests/fixtures/sass/make_in_flight_samples.sh says what each holds): the good one passes, the
# unrolled, interleaved and lost-instance ones fail. Then, where nvcc is installed, on the suite's
# own coalescing kernels built for sm_90 (and on them as they were before the fix, which must fail).
# Own temporary folder, removed after.
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
# The suite's own coalescing kernels, as nvcc builds them for sm_90 (the suite's flags), through
# scripts/cubin-sass-words.py: no cuobjdump needed. The same for the kernels as they were before the
# fix (3e35d5d), which must fail (the segment kernel at 16, the narrow tile kernels at 12), when git
# has that commit.
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { echo "nvcc not found: the suite's kernels were not checked"; exit 0; }
build() {  # source file, output name
  "$nvcc" -cubin -O3 -DNDEBUG -lineinfo -std=c++17 -arch=sm_90 -I"$repo" -o "$work/$2.cubin" "$1"
  python3 "$repo/scripts/cubin-sass-words.py" "$work/$2.cubin" > "$work/$2.sass"
}
build "$repo/kernels/coalescing/kernels.cu" now
"$check" --only in_flight --sass-text "$work/now.sass"
if git -C "$repo" cat-file -e 3e35d5d:kernels/coalescing/kernels.cu 2>/dev/null; then
  mkdir -p "$work/old/kernels/coalescing"
  git -C "$repo" show 3e35d5d:kernels/coalescing/kernels.cu > "$work/old/kernels/coalescing/kernels.cu"
  build "$work/old/kernels/coalescing/kernels.cu" before
  "$check" --only in_flight --must-fail --sass-text "$work/before.sass" | grep -E '^(FAIL|ok   negative)'
fi
echo "check-sass-in-flight: the suite's coalescing kernels hold the model's counts; before the fix they did not"
