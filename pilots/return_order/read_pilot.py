#!/usr/bin/env python3
"""Reads return_order_pilot's CSV and applies the decision its README declares (HA5): gates at
width 32 (E(w) >= 150 cycles and B issuing >= 20 cycles after A, for every B warp), then each of
warps 1-7 at width 32, delay 100, mode both: waits / does not wait / unclear, then the reading of
the seven. The output-check and SASS gates are read by hand (the CSV's '# output checks failed'
line is checked here too). Prints the width 1 and delay 300 readings beside it, not deciding.

    python3 pilots/return_order/read_pilot.py PILOT_CSV
    python3 pilots/return_order/read_pilot.py --self-test
"""
import csv
import io
import sys


def load(text):
    failed = None
    rows = []
    for line in text.splitlines():
        if line.startswith("# output checks failed:"):
            failed = int(line.split(":")[1])
        if line.startswith("#") or not line.strip():
            continue
        rows.append(line)
    table = list(csv.DictReader(io.StringIO("\n".join(rows))))
    return failed, table


def verdicts(table, width, delay):
    def row(mode, warp=None, d=None):
        for r in table:
            if (r["mode"] == mode and int(r["width"]) == width and (warp is None or int(r["warp_b"]) == warp)
                    and (d is None or int(r["delay"]) == d)):
                return r
        raise KeyError(f"no row mode={mode} width={width} warp={warp} delay={d}")

    a_alone = float(row("a_alone")["lat_a_median"])
    out = {}
    for w in range(1, 8):
        both = row("both", w, delay)
        alone = float(row("b_alone", w, delay)["lat_b_median"])
        gap = float(both["issue_gap_median"])
        e = a_alone - gap - alone
        b = float(both["lat_b_median"])
        share = float(both["b_done_not_before_a_share"])
        if b >= alone + 0.5 * e and share >= 0.9:
            v = "waits"
        elif b <= alone + 0.1 * e:
            v = "does not wait"
        else:
            v = "unclear"
        out[w] = dict(e=e, gap=gap, b=b, alone=alone, share=share, verdict=v)
    return out


def reading(v):
    if any(x["verdict"] == "unclear" for x in v.values()):
        return "undecided (a warp unclear)"
    waiting = {w for w, x in v.items() if x["verdict"] == "waits"}
    if waiting == {4}:
        return "HA5 per scheduler explains"
    if waiting == set(range(1, 8)):
        return "in order over the whole SM"
    if not waiting:
        return "HA5 ruled out"
    return f"the %warpid mod 4 mapping is wrong: warps {sorted(waiting)} wait; HA5 undecided"


def decide(text):
    failed, table = load(text)
    lines = []
    gates = failed == 0
    lines.append(f"output checks failed: {failed}")
    v = verdicts(table, 32, 100)
    for w, x in v.items():
        ok = x["e"] >= 150 and x["gap"] >= 20
        gates = gates and ok
        lines.append(f"width 32, delay 100, warp {w}: E {x['e']:.0f}, gap {x['gap']:.0f}, B {x['b']:.0f} against "
                     f"{x['alone']:.0f} alone, share {x['share']:.3f}: {x['verdict']}{'' if ok else ' (gate fails)'}")
    decision = reading(v) if gates else "no decision (a gate fails)"
    lines.append(f"DECISION: {decision}")
    for width, delay in ((1, 100), (32, 300), (1, 300)):
        try:
            lines.append(f"beside it, width {width}, delay {delay}: {reading(verdicts(table, width, delay))}")
        except KeyError as e:
            lines.append(f"beside it, width {width}, delay {delay}: {e}")
    return decision, "\n".join(lines)


def synthetic(waiting_warps):
    """A CSV as the pilot prints it, with A's DRAM load at 700 cycles, B alone at 280, B issuing
    110 cycles after A; warps in `waiting_warps` complete just after A (700 - 110 + 5 cycles)."""
    out = ["# synthetic", "mode,width,warp_b,delay,records,lat_a_median,lat_b_median,issue_gap_median,"
           "b_done_not_before_a_share,b_done_minus_a_done_median"]
    for width in (1, 32):
        for w in range(1, 8):
            for delay in (100, 300):
                gap = delay + 10
                b = 700 - gap + 5 if w in waiting_warps and delay == 100 else 280
                share = 0.99 if w in waiting_warps else 0.0
                out.append(f"both,{width},{w},{delay},33792,700,{b},{gap},{share},0")
        out.append(f"a_alone,{width},0,0,33792,700,-1,-1,-1.000,-1")
        for w in range(1, 8):
            for delay in (100, 300):
                out.append(f"b_alone,{width},{w},{delay},33792,-1,280,-1,-1.000,-1")
    out.append("# output checks failed: 0")
    return "\n".join(out)


def self_test():
    cases = [({4}, "HA5 per scheduler explains"), (set(range(1, 8)), "in order over the whole SM"),
             (set(), "HA5 ruled out"), ({2, 6}, "the %warpid mod 4 mapping is wrong: warps [2, 6] wait; HA5 undecided")]
    for waiting, want in cases:
        got, _ = decide(synthetic(waiting))
        assert got == want, (waiting, got, want)
    # E under its gate (A only 150 cycles slower than B alone + gap): no decision.
    text = synthetic({4}).replace("a_alone,32,0,0,33792,700", "a_alone,32,0,0,33792,500")
    got, _ = decide(text)
    assert got == "no decision (a gate fails)", got
    # A failed output check: no decision.
    got, _ = decide(synthetic({4}).replace("# output checks failed: 0", "# output checks failed: 3"))
    assert got == "no decision (a gate fails)", got
    print("self-test: 6 cases as hand-worked")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        print(decide(open(sys.argv[1]).read())[1])
