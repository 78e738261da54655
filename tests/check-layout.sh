#!/usr/bin/env bash
# The layout's rules on the source tree (ROOT, the repository), issues 16 and 32:
#  - the data flows one way: core/ (the contract: descriptors, pure models, text formatting) is the
#    ground floor and includes nothing of kernels/, bench/, analysis/ or the tools; kernels/ and
#    bench/ include core/ and never analysis/;
#  - every family folder holds the same file names (the name scheme below), so a reader who knows
#    one family finds the same files in the next;
#  - every project include is a path from the root that exists ("core/models.hpp", not "models.hpp").
# Prints each offending line; exit 1 when there is one.
set -euo pipefail
shopt -s nullglob
root=${1:?usage: check-layout.sh ROOT}
cd "$root"
status=0
if grep -rnE '#include "(analysis|check|explain)/' bench kernels core; then
  echo "check-layout: bench/, kernels/ or core/ include analysis/ or a tool's header (the flow is core -> kernels -> bench -> results -> analysis)" >&2
  status=1
fi
if grep -rnE '#include "(kernels|bench)/' core; then
  echo "check-layout: core/ includes kernels/ or bench/ (it is the ground floor, host-only, no CUDA)" >&2
  status=1
fi
# Verdicts as data (issue 32): an evaluator gives a row's reason, never its sentence; a why is
# written only where a reason is rendered (evaluate_run's render pass in analysis/evaluation.cpp,
# the schema-refused row in analysis/tidy_csv.cpp). compare.cpp's judgements of two runs are
# another tool's table, not verdict rows.
if grep -rnE --include='*.cpp' --include='*.hpp' '(\.|->)why *\+?=([^=]|$)|(\.|->)why\.(append|assign|insert|replace|swap)\b|std::string *& *[a-z_]+ *= *[a-z_.>-]*why\b' analysis \
   | grep -vE '^analysis/evaluation\.cpp:[0-9]+: +(r|e_row)\.why = render_reason\((r|e_row)\.reason\);$|^analysis/tidy_csv\.cpp:[0-9]+: +r\.why = render_reason\(r\.reason\);$' \
   | grep -vE '^analysis/compare\.cpp:'; then
  echo "check-layout: an evaluator writes a why sentence; give the row a Reason and render it in the family's render_reason (docs/analysis.md)" >&2
  status=1
fi
# The name scheme: the files a family folder may hold, per layer (docs/adding-a-family.md).
declare -A scheme=(
  [core]="CMakeLists.txt schema.hpp schema.cpp model.hpp model.cpp"
  [kernels]="CMakeLists.txt kernels.cu kernels.hpp kernels_*.cu kernels_*.hpp reference.cpp pattern.hpp"
  [bench]="CMakeLists.txt bench.cpp plan.hpp plan.cpp runner.hpp runner.cpp main.cpp"
  [analysis]="CMakeLists.txt evaluation.cpp evaluation.hpp family.hpp family.cpp report.cpp plots.py"
  [tests]="CMakeLists.txt test_evaluation.cpp test_model.cpp test_plan.cpp test_gpu.cpp fixtures"
)
families=$(sed -n 's/^set(WARPCOST_FAMILIES \(.*\))$/\1/p' CMakeLists.txt)
for family in $families; do
  for layer in core kernels bench analysis tests; do
    [ -d "$layer/$family" ] || continue
    for path in "$layer/$family"/*; do
      name=$(basename "$path")
      ok=0
      read -r -a patterns <<<"${scheme[$layer]}"
      for pattern in "${patterns[@]}"; do
        # shellcheck disable=SC2053  # the pattern is a glob on purpose
        [[ $name == $pattern ]] && ok=1
      done
      if [ $ok -eq 0 ]; then
        echo "$path: not in the name scheme of $layer/<family>/ (allowed: ${scheme[$layer]})"
        status=1
      fi
    done
  done
  [ -f "core/$family/schema.hpp" ] || { echo "core/$family/schema.hpp missing: every family has a descriptor"; status=1; }
done
while IFS=: read -r file line text; do
  # warpcost/*.inc are generated into the build tree by cmake/families.cmake.
  [[ $text == *\#include\ \"warpcost/* ]] && continue
  path=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$text")
  # The template family (tests/family-template) is copied onto the root by its test, so its
  # includes name paths from the template's root; they must exist there or in the repository.
  if [[ $file == tests/family-template/* ]] && [ -f "tests/family-template/$path" ]; then
    continue
  fi
  if [ ! -f "$path" ]; then
    echo "$file:$line: $text (not a path from the repository root)"
    status=1
  fi
done < <(grep -rnE '^#include "' core analysis bench kernels check explain tests --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh')
[ $status -eq 0 ] && echo "check-layout: core is the ground floor, bench and kernels include no analysis, every family folder keeps the name scheme, includes name their folder"
exit $status
