#!/usr/bin/env bash
# pilots/whatif/kernel_stalls.py: its BRA decoding against the targets cuobjdump printed in a
# committed sm_90 dump, a dump with one target planted wrong refused; then, where nvcc is
# installed, the suite's 16-byte read_independent kernels as nvcc builds them for sm_90 (the
# suite's flags) hold the stall map docs/models.md quotes: at W = 256 a loop of 256 FFMAs each of
# stall 1 without a wait, before the load an LDC the address waits for (as at W = 64 and 128), at
# W = 0 none; the stall counts around the load as docs/models.md quotes them.
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
[ -n "$nvcc" ] || { echo "nvcc not found: the suite's kernels were not read"; exit 0; }
"$nvcc" -cubin -O3 -DNDEBUG -lineinfo -std=c++17 -arch=sm_90 -I"$repo" -o "$work/s.cubin" \
  "$repo/kernels/streaming/kernels.cu"
python3 "$script" "$work/s.cubin" stream_kernelILi256ELb0ELi16EE --dump "$dump" > "$work/w256.txt"
for w in 0 64 128; do
  python3 "$script" "$work/s.cubin" "stream_kernelILi${w}ELb0ELi16EE" --dump "$dump" > "$work/w$w.txt"
done
expect() {  # file, extended regex, what it means
  grep -Eq "$2" "$1" || { echo "FAIL: $3"; cat "$1"; exit 1; }
}
expect "$work/w256.txt" "instructions, 256 FFMA$" "the W = 256 loop holds 256 FFMAs"
expect "$work/w256.txt" "^FFMA: 256, stall counts \[1\]" "every FFMA of the W = 256 loop has stall 1"
if grep -Eq "^  0x[0-9a-f]+  FFMA " "$work/w256.txt"; then
  echo "FAIL: an FFMA of the W = 256 loop waits on a scoreboard"; cat "$work/w256.txt"; exit 1
fi
expect "$work/w256.txt" "LEA +S04 +- +SB0\(LDC 0x[0-9a-f]+\)" "the W = 256 load's address waits for an LDC"
# At W = 0 the loop's first load (the path without the probe) is not preceded by an LDC.
if sed -n '/^  pc /,/ LDG /p' "$work/w0.txt" | grep -q " LDC "; then
  echo "FAIL: the W = 0 load's address waits for a reloaded constant"; cat "$work/w0.txt"; exit 1
fi
# The figures docs/models.md quotes, hand-read from the listing: 304 instructions; before the load
# IADD3 1, BRA 6 (the loop's end), ISETP 4, ISETP 13, LDC 2, LEA 4 (waits for the LDC), LEA 6: 36;
# after the data the fold's LOP3 4, LOP3 1, BRA 6, then BSYNC 5, MOV 2, IADD3 2, IADD3 1: 21.
expect "$work/w256.txt" "^loop 0x[0-9a-f]+-0x[0-9a-f]+: 304 instructions" "the W = 256 loop is 304 instructions"
python3 - "$work/w256.txt" <<'PY'
import re, sys
rows = [(int(m.group(1), 16), m.group(2), int(m.group(3)), m.group(4) or "", m.group(5))
        for m in (re.match(r"  0x([0-9a-f]+)  (\S+)\s+S(\d+)\s+\S+\s+(SB\d\(\S+ 0x[0-9a-f]+\))?\s*(-> 0x[0-9a-f]+)?", l)
                  for l in open(sys.argv[1])) if m]
first_ldg = next(i for i, r in enumerate(rows) if r[1] == "LDG")
head = rows[:first_ldg]
tail = rows[-2:]
got = [(r[1], r[2]) for r in tail + head]
want = [("IADD3", 1), ("BRA", 6), ("ISETP", 4), ("ISETP", 13), ("LDC", 2), ("LEA", 4), ("LEA", 6)]
assert got == want, "before the load: %s, docs/models.md quotes %s" % (got, want)
assert sum(s for _o, s in got) == 36
assert head[3][3].startswith("SB0(LDC"), "the first LEA does not wait for the LDC: %s" % (head[3],)
fold = next(i for i, r in enumerate(rows) if r[3].startswith("SB2(LDG"))
after, i = [], fold
while rows[i][1] != "BRA":
    after.append(rows[i]); i += 1
after.append(rows[i])
pc = int(rows[i][4].split()[1], 16)
j = next(k for k, r in enumerate(rows) if r[0] == pc)
while j < len(rows) and rows[j][0] == pc:
    after.append(rows[j]); pc += 16; j += 1
got = [(r[1], r[2]) for r in after]
want = [("LOP3", 4), ("LOP3", 1), ("BRA", 6), ("BSYNC", 5), ("MOV", 2), ("IADD3", 2), ("IADD3", 1)]
assert got == want, "after the data: %s, docs/models.md quotes %s" % (got, want)
assert sum(s for _o, s in got) == 21
PY
# The loop's head up to the load (the path without the probe): W = 64 and 128 as W = 256 (ISETP 4,
# ISETP 13, LDC 2, LEA 4, LEA 6: 29); W = 0 ISETP 1, BSSY 3, ISETP 13, BRA 5, LEA 4, LEA 6: 32.
python3 - "$work" <<'PY'
import re, sys
def head(path):
    rows = [(m.group(1), int(m.group(2))) for m in
            (re.match(r"  0x[0-9a-f]+  (\S+)\s+S(\d+)", l) for l in open(path)) if m]
    return rows[:next(i for i, r in enumerate(rows) if r[0] == "LDG")]
want = [("ISETP", 4), ("ISETP", 13), ("LDC", 2), ("LEA", 4), ("LEA", 6)]
for w in (64, 128, 256):
    got = head("%s/w%d.txt" % (sys.argv[1], w))
    assert got == want, "W = %d head %s, docs/models.md quotes %s" % (w, got, want)
got = head(sys.argv[1] + "/w0.txt")
want0 = [("ISETP", 1), ("BSSY", 3), ("ISETP", 13), ("BRA", 5), ("LEA", 4), ("LEA", 6)]
assert got == want0, "W = 0 head %s, docs/models.md quotes %s" % (got, want0)
assert sum(s for _o, s in want) == 29 and sum(s for _o, s in want0) == 32
PY
echo "whatif-kernel-stalls: the suite's read_independent loops (W = 0, 64, 128, 256) hold the stall map docs/models.md quotes"
