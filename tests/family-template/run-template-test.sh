#!/usr/bin/env bash
# docs/adding-a-family.md proved: a copy of this tree (git ls-files) gains the template family of
# tests/family-template/ (folders core/, kernels/, bench/, analysis/ named demo) and its one registry
# line; it configures; the analysis builds and finds the family's rows in a run of it; the family's
# kernel and registration compile; the layout check holds it to the name scheme. The count of files
# a new family needs is measured here and must equal the number docs/adding-a-family.md states.
# Usage: run-template-test.sh SOURCE_ROOT   (exit 0 passed, 1 failed)
set -euo pipefail
root=$(cd "${1:?usage: run-template-test.sh SOURCE_ROOT}" && pwd)
template=$root/tests/family-template
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-template-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "template-family: $*" >&2; exit 1; }
(cd "$root" && git ls-files -z | grep -zv '^results/' | tar --null -T - -cf -) | tar -xf - -C "$work/"
files=0
for layer in core kernels bench analysis; do
  cp -r "$template/$layer/demo" "$work/$layer/demo"
  files=$((files + $(find "$template/$layer/demo" -type f | wc -l)))
done
# The one line outside the family's folders: the registry.
sed -i 's/^set(WARPCOST_FAMILIES \(.*\))$/set(WARPCOST_FAMILIES \1 demo)/' "$work/CMakeLists.txt"
grep -q '^set(WARPCOST_FAMILIES .* demo)$' "$work/CMakeLists.txt" || fail "the registry line was not found"
changed=$(cd "$root" && diff <(cat CMakeLists.txt) "$work/CMakeLists.txt" | grep -c '^>' || true)
[ "$changed" -eq 1 ] || fail "the registry took $changed changed lines, not 1"
stated=$(sed -n 's/.*A new family is \*\*\([0-9]*\) files\*\* in its own folders.*/\1/p' "$root/docs/adding-a-family.md")
[ "$stated" = "$files" ] || fail "docs/adding-a-family.md states '$stated' files; the template family has $files"
"$work/tests/check-layout.sh" "$work" >/dev/null || { "$work/tests/check-layout.sh" "$work"; fail "the layout check refuses the family"; }
cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DWARPCOST_BUILD_TESTS=OFF >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; fail "configure failed"; }
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$work/build" -j "$jobs" --target warpcost-analyze >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; fail "warpcost-analyze did not build with the family"; }
# The kernel and the registration compile (their objects alone: the whole bench is the suite's build).
make -C "$work/build/kernels" demo/kernels.cu.o >"$work/kernel.log" 2>&1 || { tail -20 "$work/kernel.log"; fail "the kernel does not compile"; }
make -C "$work/build/bench" demo/bench.cpp.o >"$work/bench.log" 2>&1 || { tail -20 "$work/bench.log"; fail "the registration does not compile"; }
grep -q 'demo/bench.cpp.o' "$work/bench.log" || fail "the registration was not compiled"
mkdir -p "$work/run"
cp "$template/run/bench.json" "$work/run/"
"$work/build/analysis/warpcost-analyze" --quiet "$work/run" >/dev/null 2>"$work/analyze.log" || { cat "$work/analyze.log"; fail "the analysis refused the family's run"; }
rows=$(grep -c ',demo,echo,trips=[13],echoed_trips,[13],1,the kernel writes back the trip count it was given,[13],0,check,passes,' "$work/run/warpcost.csv" || true)
[ "$rows" -eq 2 ] || { grep ',demo,' "$work/run/warpcost.csv" | head; fail "expected the family's 2 check rows, found $rows"; }
echo "template-family: $files files in the family's own folders and 1 registry line; it builds, keeps the layout, and its 2 rows are in the analysis"
