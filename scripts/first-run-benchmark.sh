#!/usr/bin/env bash
# Issue 36's benchmark of the main command, as a new user meets it: a copy of this checkout without
# build/ (what a fresh clone has), the README's `./warpcost run` exactly as written, timed from the
# command's start to its exit (the summary is its last output); then the same command again on the
# unchanged copy, which must compile nothing. Writes to OUT (default /tmp/warpcost-first-run):
#   timing.txt     wall times, the console's line counts, the objects the second build compiled or
#                  linked, the git_rev each run recorded, the suite's own wall-time line
#   first.out/.err, second.out/.err   the two consoles, verbatim
#   runs.tar.xz    the two new run folders (bench.json and console.log each)
# Usage: scripts/first-run-benchmark.sh   (from the repository root; a GPU machine)
# Exit 0: both runs exited 0 and the second compiled nothing; 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-/tmp/warpcost-first-run}
mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-fresh-XXXXXX")
trap 'rm -rf "$work"' EXIT
# A fresh clone's tree: everything here except build outputs and run folders made after the commit.
tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -C "$work" -xf -
[ -d .git ] && cp -r .git "$work/.git"
cd "$work"
before=$(find results -mindepth 2 -maxdepth 2 -type d | sort)
status=0
{
  echo "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null)"
  echo "tree: $(find . -path ./.git -prune -o -type f -print | wc -l) files, no build/"
} >"$OUT/timing.txt"
for pass in first second; do
  start=$SECONDS
  ./warpcost run >"$OUT/$pass.out" 2>"$OUT/$pass.err"
  rc=$?
  wall=$((SECONDS - start))
  [ "$rc" -eq 0 ] || status=1
  echo "$pass ./warpcost run: rc $rc, $wall s to the summary" >>"$OUT/timing.txt"
  if [ "$pass" = second ]; then
    built=$(grep -cE '^\[ *[0-9]+%\] (Building|Linking)' build/user/build.log)
    echo "second build: $built objects compiled or linked (build/user/build.log)" >>"$OUT/timing.txt"
    [ "$built" -eq 0 ] || status=1
  fi
done
echo "console lines (stdout + stderr): first $(cat "$OUT/first.out" "$OUT/first.err" | wc -l)," \
     "second $(cat "$OUT/second.out" "$OUT/second.err" | wc -l)" >>"$OUT/timing.txt"
new=$(comm -13 <(echo "$before") <(find results -mindepth 2 -maxdepth 2 -type d | sort))
for d in $new; do echo "$d $(grep -o '"git_rev": "[^"]*"' "$d/bench.json")" >>"$OUT/timing.txt"; done
grep -h 'warpcost-bench: wall time' "$OUT/first.err" "$OUT/second.err" >>"$OUT/timing.txt"
# shellcheck disable=SC2086  # the run folders, one word each
[ -n "$new" ] && tar -cJf "$OUT/runs.tar.xz" $(for d in $new; do echo "$d/bench.json" "$d/console.log"; done)
cat "$OUT/timing.txt"
exit "$status"
