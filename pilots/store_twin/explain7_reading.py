#!/usr/bin/env python3
"""EXPLAIN-7 as declared, on a committed round: the rule's figures on the rounds it was designed on.

usage: explain7_reading.py ROUND_DIR BENCH.json R_SAT PROOF.md

BENCH.json: the round's suite run with a copy locus (a run that measured copy_independent, or one
made by with_copy_locus.py from the call's store-twin pilot). Prices every case with
tests/explain/kernel_model_reference.py (the second implementation, EXPLAIN-7 included) and holds
each fix, full-fix and residency-twin price against the measured twin of PROOF.md by the proof's
rules (10 %; a price at most 1.05 holds only if its twin measured under 1.05). No verdict reads it.
Since EXPLAIN-8 the reference carries that rule's queueing share, so this now prints EXPLAIN-8's
figures; EXPLAIN-7's as declared are in docs/verdict-changes.md.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "explain"))
sys.path.insert(0, HERE)
import kernel_model_reference as R  # noqa: E402
from copy_locus_reading import VIEWS, holds, measured_fixes  # noqa: E402


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    bench = json.load(open(argv[2]))
    g = R.gpu_of(bench, argv[3], R.turnover_of(bench))
    sms = g["sms"]
    if len(g["copy_locus"]) < 2:
        sys.exit(f"{argv[2]} has no copy locus")
    measured = measured_fixes(argv[4])
    held, n, errors = 0, 0, []
    for case in [l.split("\t")[0] for l in open(os.path.join(argv[1], "cases.tsv")) if l.strip() and not l.startswith("#")]:
        k, seconds = R.kernel_of(os.path.join(argv[1], case, "records.jsonl"), sms)
        fitted, _ = R.fit(k, g, seconds)
        t = R.time_of(fitted, g)
        price = {v: max(1.0, t / R.time_of(R.fix(fitted, v, g), g)) for v in VIEWS}
        for check in ("fix_speedup", "full_fix_speedup", "residency_twin_speedup"):
            if (case, check) not in measured:
                continue
            view, m = measured[(case, check)]
            view = "all_fixed" if check == "full_fix_speedup" else view
            if view not in price:
                continue
            e = price[view] / m - 1
            ok = holds(price[view], m)
            held += ok
            n += 1
            errors.append(e)
            print(f"{case} {check} {view}: price {price[view]:.3f}, measured {m:.3f}, {e:+.1%}" + ("" if ok else "  FAILS"))
    print(f"EXPLAIN-7: {held} of {n} hold by the proof's rules; mean signed error {sum(errors) / len(errors):+.1%}")


if __name__ == "__main__":
    main(sys.argv)
