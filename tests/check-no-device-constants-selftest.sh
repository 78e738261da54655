#!/usr/bin/env bash
# Negative control of check-no-device-constants.sh: in a throw-away git tree of this process's own,
# each planted H200 constant must make the check fail, and the clean tree must pass.
set -euo pipefail
check=${1:?usage: check-no-device-constants-selftest.sh CHECK_SCRIPT}
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-constants-XXXXXX")
trap 'rm -rf "$work"' EXIT
git -C "$work" init -q
mkdir -p "$work/bench" "$work/analysis"
printf '// the H200 has 132 SMs (a comment may say so)\nint sms(int n) { return n; }\n' >"$work/bench/a.cpp"
git -C "$work" add -A
"$check" "$work" >/dev/null || { echo "selftest: the clean tree failed"; exit 1; }
for plant in 'constexpr int kSms = 132;' 'const char* m = "64 warps on the H200";' 'long long l2 = 60 * kMiB;' \
             'for (int warps = 1; warps <= 64; ++warps) {}' 'constexpr int kFullResidency = 64;' 'auto b = 62914560;'; do
  printf '%s\n' "$plant" >"$work/analysis/b.cpp"
  git -C "$work" add -A
  if "$check" "$work" >/dev/null 2>&1; then
    echo "selftest: not caught: $plant"
    exit 1
  fi
done
echo "selftest: every planted constant caught, the clean tree passes"
