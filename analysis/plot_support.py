"""What every family's plot module (analysis/<family>/plots.py) shares: the tidy CSV's rows and the
choice of the run to draw."""
import csv


def params_of(text):
    out = {}
    for item in text.split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            out[key] = value
    return out


def number(text):
    return float(text) if text not in ("", None) else None


def load(csv_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    # Archived runs (results/archive/...) stay in the CSV for the record but are not plotted.
    rows = [r for r in rows if r.get("run_status", "current") == "current"]
    for r in rows:
        r["p"] = params_of(r["params"])
        r["v"] = number(r["value"])
        r["pred"] = number(r["predicted"])
    return rows


def newest_run(rows, family, benchmark):
    """The run id that measured this family's benchmark at the most points, the newest of those: a
    later run over part of a sweep (a counter round, say) does not replace the whole sweep's plot."""
    points = {}
    for r in rows:
        if r["family"] == family and r["benchmark"] == benchmark:
            key = (r["utc"], r["run_id"])
            points.setdefault(key, set()).add(r["params"])
    if not points:
        return None
    return max(points, key=lambda k: (len(points[k]), k))[1]


def select(rows, run_id, benchmark, metric, **fixed):
    return [r for r in rows
            if r["run_id"] == run_id and r["benchmark"] == benchmark and r["metric"] == metric
            and all(r["p"].get(k) == str(v) for k, v in fixed.items())]
