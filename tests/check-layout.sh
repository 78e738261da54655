#!/usr/bin/env bash
# Issue 16's layout rules on the source tree (ROOT, the repository): bench/ and kernels/ include no
# analysis header outside the core library (warpcost-bench links only warpcost_analysis_core):
# analysis/core/, and a family's descriptor analysis/<family>/schema.hpp and models
# analysis/<family>/*model.hpp, which its CMakeLists.txt puts in the core (CORE ...); and
# every project include is a path from the root that exists ("analysis/core/models.hpp", not
# "models.hpp"). Prints each offending line; exit 1 when there is one.
set -euo pipefail
root=${1:?usage: check-layout.sh ROOT}
cd "$root"
status=0
if grep -rnE '#include "analysis/' bench kernels | grep -vE '#include "analysis/(core/|[a-z_]+/schema\.hpp|[a-z_]+/[a-z_]*model\.hpp)'; then
  echo "check-layout: bench/ or kernels/ include an analysis header outside analysis/core/" >&2
  status=1
fi
while IFS=: read -r file line text; do
  # warpcost/*.inc are generated into the build tree by cmake/families.cmake.
  [[ $text == *\#include\ \"warpcost/* ]] && continue
  path=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$text")
  if [ ! -f "$path" ]; then
    echo "$file:$line: $text (not a path from the repository root)"
    status=1
  fi
done < <(grep -rnE '^#include "' analysis bench kernels tests --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh')
[ $status -eq 0 ] && echo "check-layout: includes name their folder; bench includes only analysis/core"
exit $status
