#!/usr/bin/env python3
"""Docs figures that cannot drift (issue 36): every block of a markdown file between

    <!-- generated: KIND RUN [NAME] -->
    ...
    <!-- /generated -->

is written from the committed run RUN (results/<gpu>/<RUN>/warpcost.csv) by KIND:

  family-table RUN        per family, the count of each verdict of that run (a fenced table)
  second-order RUN        per family, the second-order MAE target row and its judged rows
  headline RUN NAME       one headline figure of that run (the CSV's `headline` column), its verdict

Usage: docs_figures.py [--check] FILE...   (run from the repository root)
Without --check the blocks are rewritten in place; with --check nothing is written and each block
whose text differs from what its run gives is named (exit 1). Exit 2: usage, an unknown KIND, or a
RUN with no committed warpcost.csv. Standard library only (the CSV's own columns, no pandas)."""
import csv
import glob
import os
import re
import sys

BLOCK = re.compile(r"(<!-- generated: ([a-z-]+) ([^ ]+)(?: ([^ ]+))? -->\n)(.*?)(<!-- /generated -->)", re.S)
FAMILIES = ["calibration", "partial_warp", "divergence", "latency", "streaming", "coalescing", "warp_primitives"]


class Usage(Exception):
    pass


def rows_of(run):
    paths = glob.glob(os.path.join("results", "*", run, "warpcost.csv"))
    if len(paths) != 1:
        raise Usage(f"run {run!r}: {len(paths)} committed warpcost.csv found; allowed: a run under results/<gpu>/")
    with open(paths[0], newline="") as f:
        return list(csv.DictReader(f))


def family_table(rows):
    cols = [("model holds", "model", "holds"), ("model fails", "model", "fails"), ("warn", "model", "warn"),
            ("untestable", "model", "untestable here"), ("checks passed", "check", "passes"),
            ("checks failed", "check", "fails"), ("targets met", "target", "met"),
            ("targets missed", "target", "missed"), ("throttled", None, "throttled"), ("error", None, "error"),
            ("info", None, "info")]
    count = {}
    for r in rows:
        for name, kind, verdict in cols:
            if r["verdict"] == verdict and (kind is None or r["kind"] == kind):
                count[(r["family"], name)] = count.get((r["family"], name), 0) + 1
    present = [f for f in FAMILIES if any(r["family"] == f for r in rows)]
    width = max(len(f) for f in present)
    head = "| " + "family".ljust(width) + " | " + " | ".join(n for n, _, _ in cols) + " |"
    lines = ["```", head]
    for f in present:
        cells = [str(count.get((f, n), 0)).rjust(len(n)) for n, _, _ in cols]
        lines.append("| " + f.ljust(width) + " | " + " | ".join(cells) + " |")
    lines.append("```")
    return "\n".join(lines) + "\n"


def second_order(rows):
    lines = ["| family | second-order rows | judged | past tolerance | MAE | target |", "|---|---|---|---|---|---|"]
    for f in FAMILIES:
        for m in rows:
            if m["family"] != f or m["benchmark"] != "second_order" or not m["metric"].endswith("_mae"):
                continue
            metric = m["metric"][: -len("_mae")]
            judged = [r for r in rows if r["family"] == f and r["metric"] == metric and r["kind"] == "model"
                      and r["model"].startswith("second-order:") and r["verdict"] in ("holds", "fails", "warn")]
            past = sum(r["verdict"] != "holds" for r in judged)
            lines.append(f"| {f} | `{metric}` | {len(judged)} | {past} | {100 * float(m['value']):.2f} % | {m['verdict']} |")
    return "\n".join(lines) + "\n"


def human(value, unit):
    v = float(value)
    if unit == "B/s":
        return f"{v / 1e12:.3f} TB/s"
    if unit in ("cycles", "warps"):
        return f"{v:.0f} {unit}"
    return f"{v:.3f}"


def headline(rows, name):
    for r in rows:
        if r["headline"] == name:
            return f"{human(r['value'], r['unit'])} ({r['verdict']})"
    raise Usage(f"headline {name!r}: no row of that run carries it")


def generate(kind, run, name):
    rows = rows_of(run)
    if kind == "family-table":
        return family_table(rows)
    if kind == "second-order":
        return second_order(rows)
    if kind == "headline":
        if not name:
            raise Usage("headline needs a NAME (best_read, dram_latency, divergence_20_12, staircase, knee)")
        return headline(rows, name) + "\n"
    raise Usage(f"unknown kind {kind!r}; allowed: family-table, second-order, headline")


def main(argv):
    check = bool(argv) and argv[0] == "--check"
    files = argv[1:] if check else argv
    if not files:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    drift = []
    try:
        for path in files:
            with open(path) as f:
                text = f.read()

            def fill(m):
                new = generate(m.group(2), m.group(3), m.group(4))
                if new != m.group(5):
                    drift.append(f"{path}: the {m.group(2)} block of {m.group(3)} {m.group(4) or ''}".rstrip())
                return m.group(1) + new + m.group(6)

            out = BLOCK.sub(fill, text)
            # Every marker must open a whole block, and a file handed to the check must hold one:
            # a mistyped or unclosed marker, or a file whose blocks were deleted, is not "current".
            opened = len(re.findall(r"<!-- generated", text))
            closed = len(re.findall(r"<!-- /generated -->", text))
            matched = len(BLOCK.findall(text))
            if matched == 0 or opened != matched or closed != matched:
                raise Usage(f"{path}: {opened} generated marker(s), {closed} closing, {matched} whole block(s); "
                            "allowed: at least one block, each '<!-- generated: KIND RUN [NAME] -->' ... "
                            "'<!-- /generated -->'")
            if not check and out != text:
                with open(path + ".tmp", "w") as f:
                    f.write(out)
                os.replace(path + ".tmp", path)
    except (Usage, OSError) as e:
        print(f"docs_figures: {e}", file=sys.stderr)
        return 2
    if check and drift:
        print("docs figures differ from their committed runs (run scripts/docs_figures.py FILE to rewrite):",
              *drift, sep="\n  ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
