#!/usr/bin/env python3
"""The figures docs/models.md quotes about the suite's read_independent loops ("The suite's own kernel
has that window, wider"), read from the paragraph itself and recomputed from the loops' full listings
(pilots/whatif/kernel_stalls.py --all) and from the pilot's committed dump.
  whatif_kernel_stalls_check.py DOCS DUMP W0 W64 W128 W256   (the four --all listings)
"""
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pilots", "whatif"))
import kernel_stalls as k  # noqa: E402

ROW = re.compile(r"  0x([0-9a-f]+)  (\S+)\s+S(\d+)\s+(\d)\s+(\S+)\s+(SB\d\(\S+ 0x[0-9a-f]+\)|SB\d\(before the loop\))?"
                 r"\s*(?:-> 0x([0-9a-f]+)|(@\S+ )?(c\[\S+\]))?\s*$")


def fail(message):
    raise SystemExit("FAIL: " + message)


def rows_of(path):
    rows = []
    for line in open(path):
        if not line.startswith("  0x"):
            continue
        m = ROW.match(line.rstrip("\n"))
        if not m:
            fail("%s: a listing row not understood: %r" % (path, line))
        rows.append({"pc": int(m.group(1), 16), "op": m.group(2), "stall": int(m.group(3)),
                     "waits": m.group(6) or "", "target": int(m.group(7), 16) if m.group(7) else None,
                     "const": (m.group(8) or "") + (m.group(9) or "")})
    for a, b in zip(rows, rows[1:]):
        if b["pc"] != a["pc"] + 16:
            fail("%s: the listing skips from 0x%04x to 0x%04x (run the script with --all)" % (path, a["pc"], b["pc"]))
    return rows


def index_of(rows, pc):
    for i, r in enumerate(rows):
        if r["pc"] == pc:
            return i
    fail("no instruction at 0x%04x in the loop" % pc)


def head(rows):
    """The loop's head up to its first LDG (the path without the probe)."""
    first = next(i for i, r in enumerate(rows) if r["op"] == "LDG")
    return rows[:first]


def quoted(text, pattern, what):
    m = re.search(pattern, text)
    if not m:
        fail("docs/models.md no longer quotes %s (pattern %s)" % (what, pattern))
    return m


def main():
    docs, dump, w0, w64, w128, w256 = sys.argv[1:7]
    text = " ".join(pathlib.Path(docs).read_text().split())
    start = text.find("The suite's own kernel has that window, wider")
    if start < 0:
        fail("the paragraph is gone from docs/models.md")
    text = text[start:start + 4000]
    rows = {0: rows_of(w0), 64: rows_of(w64), 128: rows_of(w128), 256: rows_of(w256)}
    r256 = rows[256]

    # The loop's size: static, and on iterations without the probe (the forward branch after the fold
    # skips the probe's path).
    m = quoted(text, r"W = 256 loop is (\d+) instructions \((\d+) on the iterations without the probe\)", "the loop's size")
    fold_branch = next(r for r in r256 if r["op"] == "BRA" and r["target"] and r["target"] > r["pc"])
    skipped = index_of(r256, fold_branch["target"]) - index_of(r256, fold_branch["pc"]) - 1
    if (len(r256), len(r256) - skipped) != (int(m.group(1)), int(m.group(2))):
        fail("the loop is %d instructions (%d without the probe); docs/models.md says %s and %s"
             % (len(r256), len(r256) - skipped, m.group(1), m.group(2)))
    ffma = [r for r in r256 if r["op"] == "FFMA"]
    m = quoted(text, r"(\d+) FFMAs, each with stall count 1 and no scoreboard wait", "the FFMA count")
    if len(ffma) != int(m.group(1)) or any(r["stall"] != 1 or r["waits"] for r in ffma):
        fail("%d FFMAs, stalls %s, waits %s" % (len(ffma), sorted({r["stall"] for r in ffma}),
                                                 sorted({r["waits"] for r in ffma})))

    # The burst: from its first FFMA to its last, the integer work among them included.
    first_ffma = min(i for i, r in enumerate(r256) if r["op"] == "FFMA")
    last_ffma = max(i for i, r in enumerate(r256) if r["op"] == "FFMA")
    burst = sum(r["stall"] for r in r256[first_ffma:last_ffma + 1])
    m = quoted(text, r"about (\d+) cycles of stall counts at W = 256", "the burst's length")
    if burst != int(m.group(1)):
        fail("the burst is %d cycles of stall counts; docs/models.md says about %s" % (burst, m.group(1)))

    # From the burst's last FFMA to the LDG: the loop's end after its last FFMA, then the head.
    window = r256[last_ffma + 1:] + head(r256)
    m = quoted(text, r"stall counts sum to (\d+) cycles \(([\d, ]+)\)", "the window before the load")
    want = [int(x) for x in m.group(2).split(",")]
    got = [r["stall"] for r in window]
    if got != want or sum(got) != int(m.group(1)):
        fail("from the last FFMA to the LDG: %s = %d; docs/models.md quotes %s = %s"
             % ([(r["op"], r["stall"]) for r in window], sum(got), want, m.group(1)))
    ops = [r["op"] for r in window]
    if ops != ["IADD3", "BRA", "ISETP", "ISETP", "LDC", "LEA", "LEA"]:
        fail("the window's instructions are %s" % ops)
    ldc = window[4]
    const = quoted(text, r"reloads the data pointer \(`(c\[[^`]+\])`\)", "the LDC's constant").group(1)
    if ldc["const"].split()[-1] != const or not window[5]["waits"].startswith("SB0(LDC"):
        fail("the LDC reads %r (docs/models.md: %s), the LEA waits for %r" % (ldc["const"], const, window[5]["waits"]))

    # After the data: the fold (the first wait on the load), through the branch past the probe's path,
    # then from its target up to the first FFMA.
    fold = next(i for i, r in enumerate(r256) if r["waits"].startswith("SB2(LDG"))
    end = index_of(r256, fold_branch["pc"])
    after = r256[fold:end + 1]
    i = index_of(r256, fold_branch["target"])
    while r256[i]["op"] != "FFMA":
        after.append(r256[i])
        i += 1
    m = quoted(text, r"then (\d+) cycles of stall counts before the first FFMA", "the cycles after the data")
    if sum(r["stall"] for r in after) != int(m.group(1)):
        fail("after the data: %s = %d; docs/models.md says %s"
             % ([(r["op"], r["stall"]) for r in after], sum(r["stall"] for r in after), m.group(1)))

    # The heads: W = 64 and 128 as W = 256; W = 0 without the LDC.
    m = quoted(text, r"same head \((\d+) cycles of stall counts", "the W = 64 and 128 head")
    for w in (64, 128, 256):
        h = head(rows[w])
        if [(r["op"], r["stall"]) for r in h] != [(r["op"], r["stall"]) for r in head(r256)] \
                or sum(r["stall"] for r in h) != int(m.group(1)) or "LDC" not in [r["op"] for r in h]:
            fail("W = %d head %s; docs/models.md says the same head, %s cycles, an LDC among them"
                 % (w, [(r["op"], r["stall"]) for r in h], m.group(1)))
    m = quoted(text, r"W = 0's has (\d+) and no LDC", "the W = 0 head")
    h0 = head(rows[0])
    if sum(r["stall"] for r in h0) != int(m.group(1)) or "LDC" in [r["op"] for r in h0]:
        fail("W = 0 head %s; docs/models.md says %s and no LDC" % ([(r["op"], r["stall"]) for r in h0], m.group(1)))

    # The pilot's loop, from its committed dump: between its last FFMA and its load.
    m = quoted(text, r"has (\d+) between its last FFMA and its load \(([^)]*)\)", "the pilot's window")
    want = [int(x) for x in re.findall(r"\b(\d+)\b", m.group(2).split(";")[0])]
    dump_rows = k.read_dump(pathlib.Path(dump))
    starts = [i for i, r in enumerate(dump_rows) if r[0] == 0] + [len(dump_rows)]
    loops = [k.ffma_loop([(pc, lo, hi, mn.split(".")[0]) for pc, mn, _ops, lo, hi in dump_rows[a:b]])
             for a, b in zip(starts, starts[1:])]
    _n, _head, _back, body = max((loop for loop in loops if loop), key=lambda loop: loop[0])
    last = max(i for i, r in enumerate(body) if r[3] == "FFMA")
    first_ldg = next(i for i, r in enumerate(body) if r[3] == "LDG")
    pilot = [k.control(r[2])["stall"] for r in body[last + 1:] + body[:first_ldg]]
    if pilot != want or sum(pilot) != int(m.group(1)):
        fail("the pilot's window %s = %d; docs/models.md quotes %s = %s" % (pilot, sum(pilot), want, m.group(1)))
    print("whatif_kernel_stalls_check: every figure of the paragraph recomputed from the listings and the dump")


if __name__ == "__main__":
    main()
