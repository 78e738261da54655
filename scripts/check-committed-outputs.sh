#!/usr/bin/env bash
# The committed analysis outputs are what today's analysis writes: every committed run re-analysed
# (in a copy of the tracked results/, as `./warpcost run` analyses them) must give byte-identical
# warpcost.csv, report.md and verdict-lock.txt for each run that commits them, and the summary
# results/report.md. A change that moves any output byte (a refactor that claims none, issue 32)
# fails here until the outputs are regenerated and committed with it, where the diff shows them.
# Usage: scripts/check-committed-outputs.sh ANALYZE   (exit 0 identical, 1 differences, 2 usage)
set -euo pipefail
[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: $0 WARPCOST_ANALYZE" >&2; exit 2; }
analyze=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-outputs-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
git ls-files -z results | tar --null -T - -cf - | tar -xf - -C "$work"
(cd "$work" && "$analyze" --per-run --allow-no-runs --quiet --plots results/plots \
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
  if ! cmp -s "$file" "$work/$file"; then
    echo "check-committed-outputs: $file differs from what the analysis writes now:" >&2
    diff "$file" "$work/$file" | head -10 >&2 || true
    status=1
  fi
done < <(git ls-files results)
[ $status -eq 0 ] && echo "check-committed-outputs: $compared committed outputs, each byte-identical to today's analysis"
exit $status
