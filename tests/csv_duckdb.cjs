// DuckDB over warpcost CSVs, for tests/csv_schema_test.py: loads each CSV with read_csv and the
// column types analysis/csv-schema.json declares (no type detection), counts its rows, and runs the
// SQL blocks docs/csv.md marks "<!-- query NAME sql -->" over a view `warpcost` of the first CSV.
//   node csv_duckdb.cjs NODE_MODULES_PARENT SCHEMA_JSON DOCS_CSV_MD CSV...
// Prints one JSON object: {"rows": {csv: n}, "queries": {name: [row objects]}}.
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

async function main() {
  const [modulesParent, schemaPath, docsPath, ...csvs] = process.argv.slice(2);
  const requireThere = createRequire(path.join(path.resolve(modulesParent), 'package.json'));
  const { DuckDBInstance } = requireThere('@duckdb/node-api');
  const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
  const sqlType = { string: 'VARCHAR', integer: 'BIGINT', number: 'DOUBLE' };
  const types = Object.fromEntries(schema.fields.map((f) => [f.name, sqlType[f.type]]));
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const quote = (s) => "'" + s.replace(/'/g, "''") + "'";
  const reader = (csv) => {
    const header = fs.readFileSync(csv, 'utf8').split('\n', 1)[0].split(',');
    const columns = header.map((c) => `${quote(c)}: ${quote(types[c] || 'VARCHAR')}`).join(', ');
    return `read_csv(${quote(csv)}, header = true, auto_detect = false, columns = {${columns}})`;
  };
  const out = { rows: {}, queries: {} };
  // Materialised, so every cell is converted to its declared type (a count alone may skip them).
  for (const [i, csv] of csvs.entries()) {
    await con.run(`CREATE TABLE loaded_${i} AS SELECT * FROM ${reader(csv)}`);
    const r = await con.runAndReadAll(`SELECT count(*) AS n FROM loaded_${i}`);
    out.rows[csv] = Number(r.getRowObjectsJson()[0].n);
  }
  await con.run(`CREATE VIEW warpcost AS SELECT * FROM ${reader(csvs[0])}`);
  const docs = fs.readFileSync(docsPath, 'utf8');
  const blocks = docs.matchAll(/<!-- query (\w+) sql -->\s*```sql\n([\s\S]*?)```/g);
  for (const [, name, sql] of blocks) {
    const r = await con.runAndReadAll(sql);
    out.queries[name] = r.getRowObjectsJson();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
