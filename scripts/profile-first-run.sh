#!/usr/bin/env bash
# Where a fresh `./warpcost run` spends its time, step by step: the configure, every compile and
# link (start, end, seconds, through a compiler launcher), then the steps ./warpcost takes after the
# build (the device check, the suite, the analysis, the plots, the console summary), each timed.
# Runs on a copy of this checkout without build/ (a fresh clone's tree), like
# scripts/first-run-benchmark.sh. Writes to OUT (default /tmp/warpcost-profile):
#   phases.txt    seconds from the start at which each step ended, and its own seconds
#   compiles.txt  start end seconds file, a line for each compile or link, by start
#   bench.err     the suite's progress lines, each prefixed with seconds from the start
# Usage: scripts/profile-first-run.sh   (from the repository root; a GPU machine)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
OUT=${OUT:-/tmp/warpcost-profile}
mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/warpcost-profile-XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -C "$work" -xf -
[ -d .git ] && cp -r .git "$work/.git"
cd "$work"
log=$work/launch.log
cat >"$work/launch.sh" <<L
#!/usr/bin/env bash
s=\$(date +%s.%N); "\$@"; rc=\$?; e=\$(date +%s.%N)
echo "\$s \$e \$(printf '%s\n' "\$@" | grep -E '\.(cu|cpp|o|a|so)\$' | tail -n 1)" >>"$log"; exit \$rc
L
chmod +x "$work/launch.sh"
t0=$(date +%s.%N)
last=$t0
step() {  # step NAME: the seconds since the start and since the previous step
  local now; now=$(date +%s.%N)
  awk -v t0="$t0" -v l="$last" -v n="$now" -v s="$1" 'BEGIN { printf "%7.2f s  %6.2f s  %s\n", n - t0, n - l, s }' >>"$OUT/phases.txt"
  last=$now
}
: >"$OUT/phases.txt"
launchers=()
for lang in CXX CUDA; do
  launchers+=("-DCMAKE_${lang}_COMPILER_LAUNCHER=$work/launch.sh" "-DCMAKE_${lang}_LINKER_LAUNCHER=$work/launch.sh")
done
cmake --preset user "${launchers[@]}" >"$OUT/configure.log" 2>&1 || { echo "configure failed"; exit 1; }
step configure
cmake --build --preset user -j "$(nproc)" --target warpcost-run-tools >"$OUT/build.log" 2>&1 || { echo "build failed"; exit 1; }
step "build (warpcost-run-tools)"
cmake --preset user >/dev/null 2>&1; step "configure again (no change)"
cmake --build --preset user -j "$(nproc)" --target warpcost-run-tools >/dev/null 2>&1; step "build again (no change)"
build/user/bench/warpcost-bench --warpcost_check_device >/dev/null 2>&1; step "device check"
build/user/bench/warpcost-bench --warpcost_results_root=results >"$work/bench.out" \
  2> >(while IFS= read -r line; do
         awk -v t0="$t0" -v n="$(date +%s.%N)" -v l="$line" 'BEGIN { printf "%7.2f %s\n", n - t0, l }'
       done >"$OUT/bench.err")
step suite
build/user/analysis/warpcost-analyze --per-run --allow-no-runs --quiet --plots results/plots \
  --csv results/warpcost.csv --report results/report.md results >/dev/null 2>&1
step "analysis ($(find results -name bench.json | wc -l) runs)"
python3 analysis/plots.py results/warpcost.csv results/plots >/dev/null 2>&1; step plots
scripts/console-summary.sh results/report.md >/dev/null 2>&1; step "console summary"
grep '^CMAKE_CUDA_ARCHITECTURES' build/user/CMakeCache.txt >>"$OUT/phases.txt"
command -v cuobjdump >/dev/null && cuobjdump --list-elf build/user/bench/warpcost-bench | sed -n '1,2p' >>"$OUT/phases.txt"
awk -v t0="$t0" '{ printf "%7.2f %7.2f %6.2f %s\n", $1 - t0, $2 - t0, $2 - $1, $3 }' "$log" |
  sed "s|$work/||" | sort -n >"$OUT/compiles.txt"
awk '{ s += $3 } END { printf "compiles and links: %d, %.1f s of CPU\n", NR, s }' "$OUT/compiles.txt" >>"$OUT/phases.txt"
cat "$OUT/phases.txt"
