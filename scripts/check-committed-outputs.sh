#!/usr/bin/env bash
# The committed analysis outputs are what today's analysis writes: every committed run re-analysed
# (in a copy of the committed results/ from git's index, as `./warpcost run` analyses them) must give byte-identical
# warpcost.csv, report.md and verdict-lock.txt for each run that commits them, and the summary
# results/report.md. A change that moves any output byte (a refactor that claims none, issue 32)
# fails here until the outputs are regenerated and committed with it, where the diff shows them.
# Usage: scripts/check-committed-outputs.sh ANALYZE   (exit 0 identical, 1 differences, 2 usage,
# 77 the index is not this tree's)
set -euo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 WARPCOST_ANALYZE" >&2; exit 2; }
analyze=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-outputs-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
# A tree copied without its own index (the GPU machine's copy carries an older .git) cannot say what
# is committed: skipped (77), not failed.
while IFS= read -r file; do
  [ -e "$file" ] || { echo "check-committed-outputs: git lists $file, which this tree lacks: its index is not this tree's; skipped" >&2; exit 77; }
done < <(git ls-files results)
# The committed (staged) results/, from git's index, not the working tree: a user's own runs and the
# reports ./warpcost run rewrote there do not count.
mkdir -p "$work/index" "$work/run"
git ls-files -z results | git checkout-index -z --stdin --prefix="$work/index/"
cp -a "$work/index/results" "$work/run/results"
(cd "$work/run" && "$analyze" --per-run --allow-no-runs --quiet --plots results/plots \
   --csv results/warpcost.csv --report results/report.md results >/dev/null 2>"$work/stderr") || {
  rc=$?; [ $rc -eq 3 ] || { cat "$work/stderr" >&2; echo "check-committed-outputs: the analysis exited $rc" >&2; exit 1; }; }
status=0
compared=0
while IFS= read -r file; do
  case "$file" in
    results/report.md|results/*/*/warpcost.csv|results/*/*/report.md|results/*/*/verdict-lock.txt) ;;
    *) continue ;;
  esac
  compared=$((compared + 1))
  if ! cmp -s "$work/index/$file" "$work/run/$file"; then
    echo "check-committed-outputs: $file (as committed) differs from what the analysis writes now:" >&2
    diff "$work/index/$file" "$work/run/$file" | head -10 >&2 || true
    status=1
  fi
done < <(git ls-files results)
[ $status -eq 0 ] && echo "check-committed-outputs: $compared committed outputs, each byte-identical to today's analysis"
exit $status
