#!/usr/bin/env python3
"""Where a compiled kernel's loop lets its warp stall: the stall counts and scoreboard waits of every
instruction of the loop that holds the most FFMAs, read from a cubin's words (no disassembler here).

  nvcc -cubin -arch=sm_90 -O3 -std=c++17 -I. -o /tmp/k.cubin kernels/streaming/kernels.cu
  python3 pilots/whatif/kernel_stalls.py /tmp/k.cubin stream_kernelILi256ELb0ELi16EE

What it reads (the control field of sm_70+ instructions, bits 105-125 of the 128-bit word; Jia et
al. 2018, "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", section 2):
  stall  bits 105-108: cycles before the warp's next instruction may issue;
  yield  bit 109 (printed as is; 0 on the long-stall instructions of the loops read here);
  bits 110-112: the scoreboard the instruction's result sets (variable-latency results: LDG, LDC, S2R);
  bits 113-115: the scoreboard set until its source registers are read (stores: STG);
  bits 116-121: the scoreboards it waits for before it issues.
An LDC also prints its predicate and constant (bank and byte offset).
Opcode names come from a cuobjdump -sass dump of the same toolkit and architecture (the low 12 bits
of the first word against the printed mnemonic; default: the phase_lock pilot's dump committed from
an H100), and BRA targets are decoded as that dump prints them: every BRA of the dump is decoded and
compared with cuobjdump's own target before anything else is read (`--self-check` does only that).

Exploratory (docs/models.md, "The two streaming misses left"): no verdict reads it.
"""
import argparse
import importlib.util
import pathlib
import re
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_DUMP = ROOT / "results/nvidia-h100-80gb-hbm3/20261207T025700Z-pilots/phase-lock-256.sass"
LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);\s*/\* 0x([0-9a-f]{16}) \*/")
HI = re.compile(r"\s*/\* 0x([0-9a-f]{16}) \*/\s*$")
BRA = 0x947


def control(hi):
    c = hi >> 41
    return {"stall": c & 0xF, "yield": (c >> 4) & 1, "writes": (c >> 5) & 7, "reads": (c >> 8) & 7,
            "waits": [b for b in range(6) if (c >> 11) & (1 << b)]}


LDC = 0xB82


def ldc_operand(lo):
    """`@P0 c[0x0][0x210]`: the predicate (bits 12-15: 7 none, 8 and up negated) and the constant,
    its byte offset in words at bits 40-55 and its bank at bits 56-60, as the dump's LDC words hold
    them (LDC R1, c[0x0][0x28] is 0x00000a00ff017b82)."""
    p = (lo >> 12) & 0xF
    pred = "" if p == 7 else "@%sP%d " % ("!" if p & 8 else "", p & 7)
    return "%sc[0x%x][0x%x]" % (pred, (lo >> 56) & 0x1F, 4 * ((lo >> 40) & 0xFFFF))


def bra_target(pc, lo):
    """The target cuobjdump prints: a signed word offset from the next instruction, its low 8 bits
    in bits 16-23 of the first word and the rest from bit 34 up."""
    low = (lo >> 16) & 0xFF
    high = lo >> 34
    if high >> 29:
        high -= 1 << 30
    return pc + 16 + 4 * ((high << 8) | low)


def read_dump(path):
    """(pc, mnemonic, operands, lo, hi) of every instruction in a cuobjdump -sass text."""
    rows = []
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        m = LINE.match(line)
        if not m or i + 1 >= len(lines):
            continue
        h = HI.match(lines[i + 1])
        if not h:
            continue
        rows.append((int(m.group(1), 16), m.group(3), m.group(4).strip(), int(m.group(5), 16), int(h.group(1), 16)))
    return rows


def opcode_names(rows):
    names = {}
    for _pc, mnemonic, _ops, lo, _hi in rows:
        names.setdefault(lo & 0xFFF, set()).add(mnemonic.split(".")[0])
    return {k: "/".join(sorted(v)) for k, v in names.items()}


def self_check(rows):
    checked = 0
    for pc, mnemonic, ops, lo, _hi in rows:
        if lo & 0xFFF != BRA or not mnemonic.startswith("BRA"):
            continue
        m = re.search(r"0x([0-9a-f]+)\s*$", ops)
        if not m:
            continue
        printed = int(m.group(1), 16)
        if bra_target(pc, lo) != printed:
            raise SystemExit("kernel_stalls: BRA at 0x%04x decodes to 0x%04x, cuobjdump printed 0x%04x"
                             % (pc, bra_target(pc, lo), printed))
        checked += 1
    if checked == 0:
        raise SystemExit("kernel_stalls: the dump has no BRA with a printed target to check against")
    return checked


def ffma_loop(code):
    """The loop (a backward BRA and the instructions from its target to it) that holds the most FFMAs
    in one function's code, rows (pc, lo, hi, name): (FFMAs, head pc, BRA pc, rows), or None."""
    by_pc = {row[0]: i for i, row in enumerate(code)}
    loops = []
    for i, (pc, lo, _hi, _name) in enumerate(code):
        if lo & 0xFFF == BRA:
            target = bra_target(pc, lo)
            if target < pc and target in by_pc:
                body = code[by_pc[target]:i + 1]
                loops.append((sum(1 for row in body if row[3] == "FFMA"), target, pc, body))
    return max(loops, key=lambda loop: loop[0]) if loops else None


def sections(data):
    """(name, offset, size) of each ELF section: scripts/cubin-sass-words.py's reader."""
    spec = importlib.util.spec_from_file_location("cubin_sass_words", ROOT / "scripts" / "cubin-sass-words.py")
    words = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(words)
    return words.sections(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cubin", nargs="?")
    ap.add_argument("function", nargs="?", help="a substring of the mangled name that picks one function")
    ap.add_argument("--dump", default=str(DEFAULT_DUMP), help="a cuobjdump -sass text for the opcode names")
    ap.add_argument("--self-check", action="store_true", help="only check the BRA decoding against the dump")
    ap.add_argument("--all", action="store_true", help="list every instruction of the loop, FFMAs of stall 1 too")
    args = ap.parse_args()

    rows = read_dump(pathlib.Path(args.dump))
    checked = self_check(rows)
    if args.self_check:
        print("kernel_stalls: %d BRA targets of %s decode as cuobjdump printed them" % (checked, args.dump))
        return 0
    if not args.cubin or not args.function:
        ap.error("a cubin and a function are needed (or --self-check)")
    names = opcode_names(rows)
    data = pathlib.Path(args.cubin).read_bytes()
    found = [(n, o, s) for n, o, s in sections(data) if n.startswith(".text.") and args.function in n]
    if len(found) != 1:
        raise SystemExit("kernel_stalls: %d functions match %r (need exactly one)" % (len(found), args.function))
    name, offset, size = found[0]
    code = []
    for pc in range(0, size - size % 16, 16):
        lo, hi = struct.unpack_from("<QQ", data, offset + pc)
        code.append((pc, lo, hi, names.get(lo & 0xFFF, "op%03x" % (lo & 0xFFF))))

    found_loop = ffma_loop(code)
    if found_loop is None:
        raise SystemExit("kernel_stalls: no backward branch in %s" % name)
    ffma, head, back, body = found_loop
    print("function %s" % name[len(".text."):])
    print("opcode names from %s (%d BRA targets decoded as cuobjdump printed them)" % (args.dump, checked))
    print("loop 0x%04x-0x%04x: %d instructions, %d FFMA" % (head, back, len(body), ffma))
    writer = {}
    print("  pc      op      stall  Y  sets    waits-for")
    for pc, lo, hi, op in body:
        c = control(hi)
        waits = ",".join("SB%d(%s)" % (b, writer.get(b, "before the loop")) for b in c["waits"])
        extra = "  -> 0x%04x" % bra_target(pc, lo) if lo & 0xFFF == BRA else ""
        if lo & 0xFFF == LDC:
            extra = "  " + ldc_operand(lo)
        sets = ",".join("SB%d" % b for b in (c["writes"], c["reads"]) if b != 7) or "-"
        if args.all or op != "FFMA" or c["stall"] != 1 or c["waits"]:
            print("  0x%04x  %-7s S%02d    %d  %-6s  %s%s" % (pc, op, c["stall"], c["yield"], sets, waits, extra))
        # The last instruction above that sets a scoreboard (its result or its source read): a
        # straight-line reading, so a wait after a branch may name the other path's instruction.
        for b in (c["writes"], c["reads"]):
            if b != 7:
                writer[b] = "%s 0x%04x" % (op, pc)
    stalls = [control(hi)["stall"] for _pc, _lo, hi, op in body if op == "FFMA"]
    print("FFMA: %d, stall counts %s (those of stall 1 without a wait are not listed)"
          % (len(stalls), sorted(set(stalls))))


if __name__ == "__main__":
    sys.exit(main())
