#!/usr/bin/env bash
# pilots/whatif/kernel_stalls.py: its BRA decoding against the targets cuobjdump printed in a
# committed sm_90 dump, a dump with one target planted wrong refused; then, where nvcc is
# installed (else skipped, 77), the suite's 16-byte read_independent kernels as nvcc builds them for
# sm_90 (the suite's flags) give every figure docs/models.md quotes about them
# (tests/whatif_kernel_stalls_check.py reads the figures from the paragraph); a changed figure and a
# listing with a row left out are refused.
# Own temporary folder, removed after.
#   tests/whatif-kernel-stalls.sh REPO
set -euo pipefail
repo=${1:?usage: tests/whatif-kernel-stalls.sh REPO}
script=$repo/pilots/whatif/kernel_stalls.py
dump=$repo/results/nvidia-h100-80gb-hbm3/20261207T025700Z-pilots/phase-lock-256.sass
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$script" --self-check --dump "$dump"
# Planted: the first printed BRA target moved by 0x10 must be refused.
python3 - "$dump" "$work/bad.sass" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"(BRA\s+)0x([0-9a-f]+)", text)
text = text[:m.start(2)] + "%x" % (int(m.group(2), 16) + 0x10) + text[m.end(2):]
open(sys.argv[2], "w").write(text)
PY
if python3 "$script" --self-check --dump "$work/bad.sass" 2>"$work/err"; then
  echo "FAIL: a dump with a wrong BRA target passed the self-check"; exit 1
fi
grep -q "cuobjdump printed" "$work/err" || { echo "FAIL: no message naming the BRA"; cat "$work/err"; exit 1; }
echo "whatif-kernel-stalls: the BRA decoding matches the dump; a wrong target is refused"
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { echo "nvcc not found: the suite's kernels were not read, so docs/models.md's figures are unchecked: skipped"; exit 77; }
"$nvcc" -cubin -O3 -DNDEBUG -lineinfo -std=c++17 -arch=sm_90 -I"$repo" -o "$work/s.cubin" \
  "$repo/kernels/streaming/kernels.cu"
for w in 0 64 128 256; do
  python3 "$script" "$work/s.cubin" "stream_kernelILi${w}ELb0ELi16EE" --all --dump "$dump" > "$work/w$w.txt"
done
check=$repo/tests/whatif_kernel_stalls_check.py
python3 "$check" "$repo/docs/models.md" "$dump" "$work"/w{0,64,128,256}.txt
# Planted: a docs paragraph with one quoted figure changed, and a listing with a row left out,
# must each fail.
sed 's/stall counts sum to 36 cycles/stall counts sum to 35 cycles/' "$repo/docs/models.md" > "$work/bad.md"
if python3 "$check" "$work/bad.md" "$dump" "$work"/w{0,64,128,256}.txt > "$work/out" 2>&1; then
  echo "FAIL: a changed figure in docs/models.md passed"; exit 1
fi
grep -q "docs/models.md quotes" "$work/out" || { echo "FAIL: no message for the changed figure"; cat "$work/out"; exit 1; }
grep -v " MOV " "$work/w256.txt" > "$work/w256-gap.txt"
if python3 "$check" "$repo/docs/models.md" "$dump" "$work"/w{0,64,128}.txt "$work/w256-gap.txt" > "$work/out" 2>&1; then
  echo "FAIL: a listing with a row left out passed"; exit 1
fi
grep -q "the listing skips" "$work/out" || { echo "FAIL: no message for the gap"; cat "$work/out"; exit 1; }
echo "whatif-kernel-stalls: the suite's read_independent loops (W = 0, 64, 128, 256) give every figure docs/models.md quotes; a changed figure and a gap are refused"
