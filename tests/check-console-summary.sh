#!/usr/bin/env bash
# scripts/console-summary.sh on a summary of three runs with a long worked-example table: the named
# run's section and the headline figures are printed whole, each other run's section as one line,
# the worked examples not at all, and no NEW picks the newest run. Usage: check-console-summary.sh SCRIPT
set -euo pipefail
script=${1:?usage: check-console-summary.sh CONSOLE_SUMMARY_SCRIPT}
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-console-XXXXXX")
trap 'rm -rf "$work"' EXIT
{
  printf '# warpcost summary\n\n3 run(s) analysed.\n'
  for id in 20261201T000000Z-aaaa 20261203T000000Z-cccc 20261202T000000Z-bbbb; do
    printf '\n## GPU X — newest run gpu-x/%s\n\n| family | model holds |\n|---|---|\n' "$id"
    for f in 1 2 3 4 5 6 7; do printf '| family%s of %s | 1 |\n' "$f" "$id"; done
  done
  printf '\n## Headline figures per GPU\n\n| GPU | best read |\n|---|---|\n| GPU X (GPU-bbbb) | 4.6 TB/s (missed) |\n| GPU X (GPU-cccc) | 4.7 TB/s (met) |\n'
  printf '\n## Worked examples\n\n'
  for i in $(seq 1 120); do printf '| Ex %s | row |\n' "$i"; done
} >"$work/report.md"
fail() { echo "check-console-summary: $1"; exit 1; }
out=$("$script" "$work/report.md" 20261202T000000Z-bbbb)
grep -q 'family7 of 20261202T000000Z-bbbb' <<<"$out" || fail "the named run's table is missing"
grep -q 'family1 of 20261203T000000Z-cccc' <<<"$out" && fail "another run's table was printed"
grep -q '^Other runs.*gpu-x/20261201T000000Z-aaaa, gpu-x/20261203T000000Z-cccc$' <<<"$out" || fail "the other two runs are not named on one line"
grep -q '4.6 TB/s (missed)' <<<"$out" || fail "the new run's headline figures are missing"
grep -q '4.7 TB/s' <<<"$out" && fail "another GPU's headline row was printed"
grep -q '| Ex 1 |' <<<"$out" && fail "the worked examples were printed"
[ "$(wc -l <<<"$out")" -lt 30 ] || fail "$(wc -l <<<"$out") lines for a 3-run summary"
newest=$("$script" "$work/report.md")
grep -q 'family7 of 20261203T000000Z-cccc' <<<"$newest" || fail "no NEW did not pick the newest run"
if "$script" "$work/missing.md" 2>/dev/null; then fail "a missing report did not fail"; fi
echo "check-console-summary: as expected"
