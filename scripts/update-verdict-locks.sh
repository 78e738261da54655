#!/usr/bin/env bash
# Writes the verdict lock of every run git tracks (docs/verdict-changes.md): for a committed run
# results/<gpu>/<run>/verdict-lock.txt, for an archived one
# results/archive/<gpu>/<run>.verdict-lock.txt, each by warpcost-analyze on a copy of the run in a
# temporary folder (the committed run's own report.md and warpcost.csv are left as they are).
# Run it in the commit that changes a rule, check `git diff results/` shows exactly the verdicts
# the change should move, and add them to docs/verdict-changes.md.
#   scripts/update-verdict-locks.sh [WARPCOST_ANALYZE]   (default: build/ci/analysis/warpcost-analyze)
# Exit 0: written; 1: a run could not be analysed (nothing of it written); 2: usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
analyze=${1:-$root/build/ci/analysis/warpcost-analyze}
if [ $# -gt 1 ] || [ ! -x "$analyze" ]; then
  echo "usage: $0 [WARPCOST_ANALYZE] (an executable warpcost-analyze; '$analyze' is not one)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lock_of() {  # $1 a folder holding one run's bench.json, $2 where its lock goes
  "$analyze" --quiet "$1" >/dev/null 2>"$work/stderr" || {
    echo "$0: warpcost-analyze failed on $1:" >&2; cat "$work/stderr" >&2; exit 1; }
  cp "$1/verdict-lock.txt" "$2.tmp.$$" && mv "$2.tmp.$$" "$2"
  echo "wrote ${2#"$root"/}"
}
n=0
while IFS= read -r -d '' f; do
  case $f in
    results/archive/*/*.tar.xz)
      dest=$work/unpacked-$n; mkdir -p "$dest"
      tar -xJf "$root/$f" -C "$dest"
      run=$(find "$dest" -name bench.json -print -quit)
      [ -n "$run" ] || { echo "$0: $f holds no bench.json" >&2; exit 1; }
      lock_of "$(dirname "$run")" "$root/${f%.tar.xz}.verdict-lock.txt" ;;
    results/archive/*) ;;
    results/*/*/bench.json)
      dest=$work/copy-$n/$(basename "$(dirname "$f")"); mkdir -p "$dest"
      cp "$root/$f" "$dest/bench.json"
      lock_of "$dest" "$root/$(dirname "$f")/verdict-lock.txt" ;;
  esac
  n=$((n + 1))
done < <(git -C "$root" ls-files -z -- results)
