#!/usr/bin/env bash
# Negative control of check-layout.sh: a throw-away tree of one family that keeps the rules passes;
# each planted break (bench including analysis, core including kernels, a file outside the name
# scheme, a missing descriptor) must make the check fail.
set -euo pipefail
check=${1:?usage: check-layout-selftest.sh CHECK_SCRIPT}
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-layout-XXXXXX")
trap 'rm -rf "$work"' EXIT
clean() {
  rm -rf "${work:?}"/*
  mkdir -p "$work"/{core,kernels,bench,analysis,tests,check,explain}/demo
  echo 'set(WARPCOST_FAMILIES demo)' >"$work/CMakeLists.txt"
  echo '#pragma once' >"$work/core/demo/schema.hpp"
  printf '#include "core/demo/schema.hpp"\n' >"$work/bench/demo/bench.cpp"
  printf '#include "core/demo/schema.hpp"\n' >"$work/analysis/demo/evaluation.cpp"
  echo '#pragma once' >"$work/kernels/demo/kernels.hpp"
}
clean
"$check" "$work" >/dev/null || { echo "selftest: the clean tree failed"; "$check" "$work"; exit 1; }
plant() {  # $1 what, then the command that breaks the clean tree
  local what=$1
  shift
  clean
  "$@"
  if "$check" "$work" >/dev/null 2>&1; then
    echo "selftest: not caught: $what"
    exit 1
  fi
}
plant "bench includes analysis" sh -c "printf '#include \"analysis/demo/evaluation.cpp\"\n' >>'$work/bench/demo/bench.cpp'"
plant "core includes kernels" sh -c "printf '#include \"kernels/demo/kernels.hpp\"\n' >'$work/core/demo/schema.cpp'"
plant "a file outside the scheme" sh -c "touch '$work/bench/demo/demo_bench.cpp'"
plant "a missing descriptor" sh -c "rm '$work/core/demo/schema.hpp'; printf '' >'$work/bench/demo/bench.cpp'; printf '' >'$work/analysis/demo/evaluation.cpp'"
plant "an include that is not a path from the root" sh -c "printf '#include \"schema.hpp\"\n' >>'$work/analysis/demo/evaluation.cpp'"
plant "an evaluator that writes a why sentence" sh -c "printf '  r.why = \"wrote \" + text;\n' >>'$work/analysis/demo/evaluation.cpp'"
plant "a why written without spaces" sh -c "printf '  r.why=\"x\";\n' >>'$work/analysis/demo/evaluation.cpp'"
plant "a why written through a pointer" sh -c "printf '  p->why = text;\n' >>'$work/analysis/demo/evaluation.cpp'"
plant "a why appended to" sh -c "printf '  r.why.append(text);\n' >>'$work/analysis/demo/evaluation.cpp'"
plant "a why whose value is on the next line" sh -c "printf '  r.why =\n      text;\n' >>'$work/analysis/demo/evaluation.cpp'"
plant "a why written in a family's report.cpp" sh -c "printf '  r.why = text;\n' >'$work/analysis/demo/report.cpp'"
plant "a why through a reference" sh -c "printf '  std::string& w = r.why;\n' >>'$work/analysis/demo/evaluation.cpp'"
echo "selftest: every planted break caught, the clean tree passes"
