#!/usr/bin/env bash
# pilots/alu_burst (README.md): the W = 64/128/256 streams at 4..64 warps/SM, Nsight Compute's stall
# reasons on five launches, and the SASS of the W = 256 kernel. Writes $OUT/alu-burst.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/warpcost-out}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
bin=build/h200/bench/warpcost-stream
log="$OUT/alu-burst.log"
: > "$log"
echo "=== alu_burst_pilot (HA4)" >> "$log"
if nvcc -O3 -std=c++17 -arch=sm_90 -I. -o /tmp/alu-burst-pilot pilots/alu_burst/alu_burst_pilot.cu kernels/common/cuda_check.cpp >> "$log" 2>&1; then
  /tmp/alu-burst-pilot >> "$log" 2>&1 || echo "rc $?" >> "$log"
else
  echo "the pilot did not build" >> "$log"
fi
[ -x "$bin" ] || { echo "alu_burst: $bin is missing: build the h200 preset first" | tee -a "$log"; exit 2; }
for w in 64 128 256 rt256; do
  for n in 4 8 16 32 64; do
    if [ "$w" = rt256 ]; then args=(--alu 256 --run-time-alu); else args=(--alu "$w"); fi
    echo "=== read ${args[*]} --warps-per-sm $n" >> "$log"
    "$bin" read "${args[@]}" --warps-per-sm "$n" --counters --json >> "$log" 2>&1 || echo "rc $?" >> "$log"
  done
done
metrics='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,gpu__time_duration.sum'
for spec in "256 8" "256 64" "rt256 8" "64 8" "0 8"; do
  set -- $spec
  if [ "$1" = rt256 ]; then args=(--alu 256 --run-time-alu); else args=(--alu "$1"); fi
  echo "=== ncu read ${args[*]} --warps-per-sm $2" >> "$log"
  ncu --clock-control none -k 'regex:stream_(kernel|run_time_alu_kernel)' -c 1 --csv --metrics "$metrics" \
    "$bin" read "${args[@]}" --warps-per-sm "$2" >> "$log" 2>&1 || echo "rc $?" >> "$log"
done
echo "=== SASS stream_kernel<256, false, 16>" >> "$log"
cuobjdump -sass "$bin" 2>/dev/null | awk '/Function : .*stream_kernelILi256ELb0ELi16E/{p=1} p&&/Function : /&&!/stream_kernelILi256ELb0ELi16E/{p=0} p' | head -700 >> "$log"
echo "=== done" >> "$log"
