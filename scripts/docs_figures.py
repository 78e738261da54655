#!/usr/bin/env python3
"""Docs figures that cannot drift (issue 36): every block of a markdown file between

    <!-- generated: KIND RUN [NAME] -->
    ...
    <!-- /generated -->

is written from the committed run RUN (results/<gpu>/<RUN>/warpcost.csv) by KIND. A block whose
marker ends its line holds lines; one whose figure follows the marker on the same line
(`<!-- generated: verdicts RUN SELECT -->17 rows: ...<!-- /generated -->`) is inline, for prose.

  family-table RUN [FAM]  per family (or family FAM only), the count of each verdict of that run
                          (a fenced table)
  second-order RUN        per family, the second-order MAE target row and its judged rows
  headline RUN NAME       one headline figure of that run (the CSV's `headline` column), its verdict
  verdicts RUN SELECT     one line: how many of those rows (SELECT as for rows) read each verdict
  rows RUN SELECT         a table of that run's rows SELECT names: family/benchmark/metric, then
                          optionally ?key=value&key=value over the params (each row: params,
                          measured, predicted, relative error, verdict; in the CSV's order)

Usage: docs_figures.py [--check] FILE...   (run from the repository root)
Without --check the blocks are rewritten in place; with --check nothing is written and each block
whose text differs from what its run gives is named (exit 1). Exit 2: usage, an unknown KIND, or a
RUN with no committed warpcost.csv. Standard library only (the CSV's own columns, no pandas)."""
import csv
import glob
import os
import re
import sys

BLOCK = re.compile(r"(<!-- generated: ([a-z-]+) ([^ ]+)(?: ([^ ]+))? -->(\n?))(.*?)(<!-- /generated -->)", re.S)
FAMILIES = ["calibration", "partial_warp", "divergence", "latency", "streaming", "coalescing", "warp_primitives"]


class Usage(Exception):
    pass


def rows_of(run):
    paths = glob.glob(os.path.join("results", "*", run, "warpcost.csv"))
    if len(paths) != 1:
        raise Usage(f"run {run!r}: {len(paths)} committed warpcost.csv found; allowed: a run under results/<gpu>/")
    with open(paths[0], newline="") as f:
        return list(csv.DictReader(f))


def family_table(rows, only=None):
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
    if only is not None and only not in FAMILIES:
        raise Usage(f"family-table {only!r}: allowed: " + ", ".join(FAMILIES))
    present = [f for f in FAMILIES if any(r["family"] == f for r in rows) and only in (None, f)]
    width = max(len(f) for f in present)
    head = "| " + "family".ljust(width) + " | " + " | ".join(n for n, _, _ in cols) + " |"
    lines = ["```", head]
    for f in present:
        cells = [str(count.get((f, n), 0)).rjust(len(n)) for n, _, _ in cols]
        lines.append("| " + f.ljust(width) + " | " + " | ".join(cells) + " |")
    lines.append("```")
    return "\n".join(lines) + "\n"


def second_order(rows):
    """Per family, the second-order target row, its judged rows, and beside it the MAE of the
    family's textbook model rows (every judged model row not second-order): the summary's table,
    computed again here from the CSV alone."""
    lines = ["| family | second-order rows | judged | past tolerance | MAE | target | MAE textbook (model rows) |",
             "|---|---|---|---|---|---|---|"]
    for f in FAMILIES:
        for m in rows:
            if m["family"] != f or m["benchmark"] != "second_order" or not m["metric"].endswith("_mae"):
                continue
            metric = m["metric"][: -len("_mae")]
            judged = [r for r in rows if r["family"] == f and r["metric"] == metric and r["kind"] == "model"
                      and r["model"].startswith("second-order:") and r["verdict"] in ("holds", "fails", "warn")]
            past = sum(r["verdict"] != "holds" for r in judged)
            textbook = [abs(float(r["rel_error"])) for r in rows
                        if r["family"] == f and r["kind"] == "model" and r["verdict"] in ("holds", "fails", "warn")
                        and r["rel_error"] not in ("", None) and not r["model"].startswith("second-order:")]
            tb = f"{100 * sum(textbook) / len(textbook):.2f} % over {len(textbook)}" if textbook else "—"
            lines.append(f"| {f} | `{metric}` | {len(judged)} | {past} | {100 * float(m['value']):.2f} % | "
                         f"{m['verdict']} | {tb} |")
    return "\n".join(lines) + "\n"


def human(value, unit):
    v = float(value)
    if unit == "B/s":
        return f"{v / 1e12:.3f} TB/s"
    if unit in ("cycles", "warps"):
        return f"{v:.0f} {unit}"
    return f"{v:.3f}"


def fine(value, unit):
    """A row's figure at the precision the docs' tables quote: TB/s to 3 decimals, cycles and
    microseconds to 2, anything else to 4 significant digits with its unit."""
    v = float(value)
    unit = unit.split(":")[-1]  # a CUPTI unit's name without its prefix
    if unit == "B/s":
        return f"{v / 1e12:.3f} TB/s"
    if unit == "cycles":
        return f"{v:.2f} cycles"
    if unit == "s":
        return f"{v * 1e6:.2f} µs"
    return f"{v:.4g}" + (f" {unit}" if unit and unit not in ("ratio", "1") else "")


def params_of(text):
    return dict(item.split("=", 1) for item in text.split(";") if "=" in item)


def signed_percent(text):
    if text in ("", None):
        return "—"
    v = 100 * float(text)
    if abs(v) < 0.05:
        return "0.0 %"
    return f"{v:+.1f} %".replace("-", "−")


def selected_rows(rows, select):
    path, _, query = select.partition("?")
    parts = path.split("/")
    if len(parts) != 3 or not all(parts):
        raise Usage(f"rows {select!r}: allowed: family/benchmark/metric[?key=value&...]")
    family, benchmark, metric = parts
    wanted = dict(item.split("=", 1) for item in query.split("&") if item) if query else {}
    if query and any("=" not in item for item in query.split("&")):
        raise Usage(f"rows {select!r}: each filter is key=value")
    picked = [r for r in rows if r["family"] == family and r["benchmark"] == benchmark and r["metric"] == metric
              and all(params_of(r["params"]).get(k) == v for k, v in wanted.items())]
    if not picked:
        raise Usage(f"rows {select!r}: no row of that run matches")
    return picked


def rows_table(rows, select):
    lines = ["| params | measured | predicted | error | verdict |", "|---|---|---|---|---|"]
    for r in selected_rows(rows, select):
        predicted = fine(r["predicted"], r["unit"]) if r["predicted"] not in ("", None) else "—"
        lines.append(f"| {r['params'] or '—'} | {fine(r['value'], r['unit'])} | {predicted} | "
                     f"{signed_percent(r['rel_error'])} | {r['verdict']} |")
    return "\n".join(lines) + "\n"


def headline(rows, name):
    for r in rows:
        if r["headline"] == name:
            return f"{human(r['value'], r['unit'])} ({r['verdict']})"
    raise Usage(f"headline {name!r}: no row of that run carries it")


def generate(kind, run, name):
    rows = rows_of(run)
    if kind == "family-table":
        return family_table(rows, name)
    if kind == "second-order":
        return second_order(rows)
    if kind == "headline":
        if not name:
            raise Usage("headline needs a NAME (best_read, dram_latency, divergence_20_12, staircase, knee)")
        return headline(rows, name) + "\n"
    if kind == "verdicts":
        if not name:
            raise Usage("verdicts needs a SELECT: family/benchmark/metric[?key=value&...]")
        picked = selected_rows(rows, name)
        order = ["holds", "fails", "warn", "untestable here", "throttled", "passes", "met", "missed", "error", "info"]
        counts = {v: sum(r["verdict"] == v for r in picked) for v in order}
        return f"{len(picked)} rows: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + "\n"
    if kind == "rows":
        if not name:
            raise Usage("rows needs a SELECT: family/benchmark/metric[?key=value&...]")
        return rows_table(rows, name)
    raise Usage(f"unknown kind {kind!r}; allowed: family-table, second-order, headline, verdicts, rows")


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
                if not m.group(5):  # inline: the marker and the figure on one line
                    new = new.rstrip("\n")
                if new != m.group(6):
                    drift.append(f"{path}: the {m.group(2)} block of {m.group(3)} {m.group(4) or ''}".rstrip())
                return m.group(1) + new + m.group(7)

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
