#!/usr/bin/env python3
"""The tidy CSV against its schema (analysis/csv-schema.json, a Frictionless Table Schema).

The `frictionless` package is not in Debian and warpcost installs nothing from PyPI, so this is the
validator: pandas reads the CSV with the dtypes the schema declares (warnings are errors), then every
column is checked against its field (order, type, enum, required), every (kind, verdict) pair against
warpcost:verdictsByKind and every unit against warpcost:units.

    csv_schema.py validate FILE...        exit 0 when every file conforms, 1 naming each problem
    csv_schema.py docs                    the columns and units tables docs/csv.md embeds
    csv_schema.py check-docs DOCS_CSV_MD  exit 1 when docs/csv.md's tables differ from the schema
    csv_schema.py dtypes                  the pandas dtype of every column, as JSON

Exit 77 (ctest: skipped) with the reason where this python has no pandas (validate only).
"""
import json
import os
import re
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_PATH = os.path.join(HERE, "..", "analysis", "csv-schema.json")
PANDAS_DTYPE = {"string": "string", "integer": "Int64", "number": "float64"}
DOCS_BEGIN = "<!-- generated from analysis/csv-schema.json by scripts/csv_schema.py docs: do not edit -->"
DOCS_END = "<!-- end of generated tables -->"


def load_schema(path=SCHEMA_PATH):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dtypes(schema):
    """The pandas dtype of every column the schema names."""
    return {f["name"]: PANDAS_DTYPE[f["type"]] for f in schema["fields"]}


def read_csv(path, schema):
    """The CSV with the schema's dtypes; any pandas warning (mixed types, a failed cast) raises."""
    import pandas as pd
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\r\n").split(",")
    types = dtypes(schema)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return pd.read_csv(path, dtype={c: types.get(c, "string") for c in header},
                           keep_default_na=False, na_values=[""])


def problems(path, schema):
    """Every way the file breaks the schema, as text; [] when it conforms."""
    import pandas as pd
    out = []
    fields = {f["name"]: f for f in schema["fields"]}
    fixed = [f["name"] for f in schema["fields"] if f["warpcost:role"] == "fixed"]
    try:
        df = read_csv(path, schema)
    except Exception as e:  # noqa: BLE001 - a failed typed read is the finding
        return [f"{path}: the schema's dtypes do not read it: {type(e).__name__}: {e}"]
    columns = list(df.columns)
    if columns[:len(fixed)] != fixed:
        out.append(f"{path}: fixed columns {columns[:len(fixed)]}; the schema's, in order: {fixed}")
    params = columns[len(fixed):]
    for c in params:
        if c not in fields or fields[c]["warpcost:role"] != "parameter":
            out.append(f"{path}: column '{c}' is not a parameter field of the schema")
    # Sorted by the parameter's own name: `param_benchmark` is the parameter `benchmark`.
    def key(c):
        return c[len("param_"):] if c.startswith("param_") and c[len("param_"):] in fixed else c
    if params != sorted(params, key=key):
        out.append(f"{path}: parameter columns not sorted by name: {params}")
    for c in columns:
        f = fields.get(c)
        if f is None:
            continue
        col = df[c]
        cons = f.get("constraints", {})
        if cons.get("required") and col.isna().any():
            out.append(f"{path}: column '{c}' is empty in {int(col.isna().sum())} rows; the schema requires it")
        if "enum" in cons:
            bad = sorted(set(col.dropna()) - set(cons["enum"]))
            if bad:
                out.append(f"{path}: column '{c}' holds {bad[:5]}; allowed: {cons['enum']}")
    allowed = schema["warpcost:verdictsByKind"]
    if "kind" in df and "verdict" in df:
        for (kind, verdict), n in df.groupby(["kind", "verdict"]).size().items():
            if verdict not in allowed.get(kind, []):
                out.append(f"{path}: {n} rows of kind '{kind}' read '{verdict}'; allowed: {allowed.get(kind)}")
    units = {u["unit"] for u in schema["warpcost:units"]}
    prefix = schema["warpcost:cuptiUnitPrefix"]
    if "unit" in df:
        bad = sorted(u for u in set(df["unit"].dropna()) if u not in units and not u.startswith(prefix))
        if bad:
            out.append(f"{path}: units {bad} are neither in the vocabulary nor {prefix}<name>")
    return out


def docs_tables(schema):
    """docs/csv.md's columns, parameter columns, units and verdicts tables, from the schema."""
    def cell(text):
        return text.replace("|", "\\|")
    lines = [DOCS_BEGIN, "", "### Fixed columns, in this order", "",
             "| column | type | allowed | what it holds |", "|---|---|---|---|"]
    for f in schema["fields"]:
        if f["warpcost:role"] != "fixed":
            continue
        allowed = ", ".join(f"`{v}`" for v in f.get("constraints", {}).get("enum", []))
        lines.append(f"| `{f['name']}` | {f['type']} | {allowed} | {cell(f['description'])} |")
    lines += ["", "### Parameter columns (those the rows have, sorted by name)", "",
              "| column | type | what it holds |", "|---|---|---|"]
    for f in schema["fields"]:
        if f["warpcost:role"] == "parameter":
            lines.append(f"| `{f['name']}` | {f['type']} | {cell(f['description'])} |")
    lines += ["", "### Verdicts each kind allows", "", "| kind | verdicts |", "|---|---|"]
    for kind, verdicts in schema["warpcost:verdictsByKind"].items():
        lines.append(f"| `{kind}` | " + ", ".join(f"`{v}`" for v in verdicts) + " |")
    lines += ["", "### Units", "", "| unit | meaning |", "|---|---|"]
    for u in schema["warpcost:units"]:
        lines.append(f"| `{u['unit']}` | {cell(u['meaning'])} |")
    lines += ["", f"A CUPTI unit outside the vocabulary is written `{schema['warpcost:cuptiUnitPrefix']}<its name>`.",
              "", DOCS_END]
    return "\n".join(lines) + "\n"


def check_docs(doc, schema):
    text = open(doc, encoding="utf-8").read()
    found = re.search(re.escape(DOCS_BEGIN) + r".*?" + re.escape(DOCS_END) + "\n", text, re.S)
    if not found:
        print(f"{doc}: no generated tables (the line '{DOCS_BEGIN}' ... '{DOCS_END}')")
        return 1
    if found.group(0) != docs_tables(schema):
        print(f"{doc}: the tables differ from analysis/csv-schema.json; regenerate them with "
              f"scripts/csv_schema.py docs")
        return 1
    print(f"{doc}: tables match analysis/csv-schema.json")
    return 0


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    schema = load_schema()
    if argv[0] == "docs":
        sys.stdout.write(docs_tables(schema))
        return 0
    if argv[0] == "check-docs" and len(argv) == 2:
        return check_docs(argv[1], schema)
    if argv[0] == "dtypes":
        print(json.dumps(dtypes(schema), indent=1))
        return 0
    if argv[0] == "validate" and len(argv) >= 2:
        try:
            import pandas  # noqa: F401
        except ImportError:
            print(f"skipped: {sys.executable} has no pandas (Debian: apt-get install python3-pandas)")
            return 77
        found = []
        for path in argv[1:]:
            p = problems(path, schema)
            found += p
            if not p:
                print(f"{path}: conforms to analysis/csv-schema.json")
        for p in found:
            print(p)
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
