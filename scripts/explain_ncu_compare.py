#!/usr/bin/env python3
"""warpcost explain's injected counters beside Nsight Compute's for the same launch.

Usage: explain_ncu_compare.py [--dram-pass] NAME RECORDS.jsonl NCU.csv
  RECORDS.jsonl  the injection library's records (warpcost explain --records), whose first launch
                 record (the launch profiled in full; with the DRAM pass on, the second launch) is
                 the launch compared (its replayed range's counters, as written)
  NCU.csv        `ncu --csv --page raw` of the same launch of the same kernel (ncu --launch-skip)
  --dram-pass    compare the first DRAM pass instead (one unreplayed pass on the launch chosen,
                 before the full profile; metric kDramPass); NCU.csv then holds ncu's one-pass run
                 of the same metrics on that launch
Prints markdown rows: program, metric, explain, ncu, ratio, within 1 % (the counter pass's
cross-check tolerance, scripts/ncu_compare.py). Counts (instructions, requests, sectors, bytes,
branch targets, warps) should agree; duration, clock and per-cycle rates vary run to run.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ncu_compare import TOLERANCE, ncu_values  # noqa: E402


def first_record(path, kind):
    for line in Path(path).read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("record") == kind and record.get("metrics"):
            return record
    sys.exit(f"explain_ncu_compare: {path} has no {kind} record with counters")


def main(argv):
    kind = "launch"
    if argv and argv[0] == "--dram-pass":
        kind, argv = "dram_pass", argv[1:]
    if len(argv) != 3:
        sys.exit(__doc__)
    name, records, ncu_csv = argv
    mine = first_record(records, kind)["metrics"]
    theirs = ncu_values(ncu_csv)
    for metric in sorted(mine):
        a = float(mine[metric])
        if metric not in theirs:
            print(f"| {name} | `{metric}` | {a:.6g} | missing | | no |")
            continue
        b = theirs[metric]
        ratio = a / b if b else (1.0 if a == 0 else float("inf"))
        ok = "yes" if abs(ratio - 1) <= TOLERANCE else "no"
        print(f"| {name} | `{metric}` | {a:.6g} | {b:.6g} | {ratio:.4f} | {ok} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
