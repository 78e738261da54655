#!/usr/bin/env python3
"""The instruction words of an sm_70+ cubin in cuobjdump -sass's layout, for scripts/check-sass.sh
--only in_flight where cuobjdump is not installed (nvcc is enough: nvcc -cubin -arch=sm_90 ...).

Each function (an ELF section .text.NAME) prints as "Function : NAME", each 16-byte instruction as
"/*ADDR*/ OPCODE ;  /* 0xLO */" and "/* 0xHI */", the two 64-bit little-endian words, as cuobjdump
prints them. No disassembler: the only opcode named is LDG (the low 12 bits of the first word are
0x981, checked against cuobjdump -sass of the same nvcc 13.0 sm_90 code on the device: the dump in
results/nvidia-h100-80gb-hbm3/20261206T142100Z-pilots); every other instruction prints as OP. What
check-sass.sh reads from the rest (scoreboards, waits) is in the second word, as in cuobjdump's.
  scripts/cubin-sass-words.py FILE.cubin > FILE.sass
"""
import struct
import sys

LDG = 0x981


def sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit("cubin-sass-words: not a 64-bit ELF file (a cubin from nvcc -cubin)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = heads[shstrndx][4]
    for name, _type, _flags, _addr, offset, size in heads:
        end = data.index(b"\0", names_at + name)
        yield data[names_at + name:end].decode(), offset, size


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: scripts/cubin-sass-words.py FILE.cubin")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    for name, offset, size in sections(data):
        if not name.startswith(".text."):
            continue
        print("\t\tFunction : " + name[len(".text."):])
        for pc in range(0, size - size % 16, 16):
            lo, hi = struct.unpack_from("<QQ", data, offset + pc)
            op = "LDG.E" if lo & 0xFFF == LDG else "OP"
            print("        /*%04x*/                   %s ;   /* 0x%016x */" % (pc, op, lo))
            print("                                                  /* 0x%016x */" % hi)


if __name__ == "__main__":
    main()
