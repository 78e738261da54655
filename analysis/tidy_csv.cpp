#include "analysis/tidy_csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "core/result_schema.hpp"
#include "analysis/csv_schema.hpp"
#include "analysis/headlines.hpp"
#include "analysis/units.hpp"
#include "core/text_format.hpp"

namespace warpcost::analysis {
namespace {

std::string column_for_key(const std::string& key) {
  const auto& fixed_columns = csv_header();
  const bool taken = std::find(fixed_columns.begin(), fixed_columns.end(), key) != fixed_columns.end();
  return taken ? "param_" + key : key;
}

// Whether a row's parameter `key` has a parameter column in the schema.
bool is_schema_parameter(const std::string& key) {
  const CsvField* f = csv_schema().field(column_for_key(key));
  return f != nullptr && f->role == "parameter";
}

// Every parameter name of every row that the schema has a column for, sorted (a row with any other
// is refused by conform_to_schema: its params text keeps every parameter).
std::vector<std::string> parameter_keys(const std::vector<EvaluatedRun>& runs) {
  std::set<std::string> keys;
  for (const auto& er : runs) {
    for (const Row& r : er.rows) {
      for (const auto& [key, value] : parse_key_values(r.params)) {
        if (is_schema_parameter(key)) keys.insert(key);
      }
    }
  }
  return {keys.begin(), keys.end()};
}

// The cells of one row (fixed columns, then the parameter columns of `keys`), as the CSV writes them.
std::vector<std::string> row_cells(const EvaluatedRun& er, const Row& r, const std::string& headline,
                                   const std::vector<std::string>& keys) {
  namespace key = schema::key;
  const RunContext& c = er.run.context;
  std::vector<std::string> cells = {
      c.text(schema::kVersionKey), c.text(key::kRunId), c.text(key::kUtc), c.text(key::kGpuName),
      c.text(key::kCc), c.text(key::kSmCount), c.text(key::kDriverVersion), c.text(key::kCudaRuntime),
      git_rev_text(c.text(key::kGitRev)), r.family, r.benchmark, r.params, r.metric, csv_number(r.value),
      vocabulary_unit(r), r.model, r.predicted ? csv_number(*r.predicted) : "",
      r.rel_error ? csv_number(*r.rel_error) : "", r.kind, r.verdict, run_status_of(er.run), headline,
      r.machine_state};
  if (cells.size() != csv_header().size()) {
    throw CsvSchemaError("the CSV writer fills " + std::to_string(cells.size()) + " fixed columns, " +
                         "analysis/csv-schema.json has " + std::to_string(csv_header().size()));
  }
  const auto values = parse_key_values(r.params);
  for (const auto& k : keys) {
    const auto it = values.find(k);
    cells.push_back(it == values.end() ? std::string() : it->second);
  }
  return cells;
}

// Throws CsvSchemaError naming the first cell, kind/verdict pair, unit or parameter of `r` that the
// schema refuses.
void check_row(const EvaluatedRun& er, const Row& r, const std::string& headline) {
  const CsvSchema& schema = csv_schema();
  const std::string where = er.run.run_id() + " " + r.family + "/" + r.benchmark + " " + r.params + " `" +
                            r.metric + "`";
  std::vector<std::string> keys;
  for (const auto& [k, v] : parse_key_values(r.params)) {
    if (!is_schema_parameter(k)) {
      // An error row keeps its params text whole and names the parameter in its why; it has no
      // column of its own.
      if (r.verdict == verdict::kError) continue;
      throw CsvSchemaError(where + ": parameter '" + k + "' (column '" + column_for_key(k) +
                           "') is not a parameter column of analysis/csv-schema.json; allowed: the "
                           "schema's parameter fields (add it there, with its type, to write it)");
    }
    keys.push_back(k);
  }
  const std::vector<std::string> cells = row_cells(er, r, headline, keys);
  const auto& header = csv_header();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string& column = i < header.size() ? header[i] : column_for_key(keys[i - header.size()]);
    check_csv_cell(*schema.field(column), cells[i], where);
  }
  check_kind_verdict(schema, r.kind, r.verdict, where);
  check_unit(schema, vocabulary_unit(r), where);
}

}  // namespace

const std::vector<std::string>& csv_header() {
  static const std::vector<std::string> header = csv_schema().fixed_columns();
  return header;
}

std::vector<std::vector<std::string>> headline_marks(const std::vector<EvaluatedRun>& runs) {
  std::vector<std::vector<std::string>> marks;
  std::vector<EvaluatedRun> current;
  std::vector<std::size_t> index_of_current;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    marks.emplace_back(runs[i].rows.size());
    if (run_status_of(runs[i].run) == run_status::kCurrent) {
      current.push_back(runs[i]);
      index_of_current.push_back(i);
    }
  }
  // The summary's own table is made from the current runs: the same call marks the same rows.
  for (const GpuHeadlines& h : headline_figures(current)) {
    for (const auto& [name, figure] : h.figures()) {
      if (!figure->found || figure->row == nullptr) continue;
      for (std::size_t c = 0; c < current.size(); ++c) {
        const auto& rows = current[c].rows;
        if (figure->row < rows.data() || figure->row >= rows.data() + rows.size()) continue;
        marks[index_of_current[c]][static_cast<std::size_t>(figure->row - rows.data())] = name;
      }
    }
  }
  return marks;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_number(double value) {
  if (!std::isfinite(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

std::string run_status_of(const Run& run) {
  for (const auto& part : run.source.parent_path()) {
    if (part == "archive") return run_status::kArchived;
  }
  return run_status::kCurrent;
}

std::string git_rev_text(const std::string& rev) {
  if (rev.empty() || rev == "unknown") return rev;
  return "g" + rev;
}

std::vector<std::string> parameter_columns(const std::vector<EvaluatedRun>& runs) {
  std::vector<std::string> columns;
  for (const auto& key : parameter_keys(runs)) columns.push_back(column_for_key(key));
  return columns;
}

std::vector<std::string> conform_to_schema(EvaluatedRun& er) {
  std::vector<std::string> refused;
  const CsvSchema& schema = csv_schema();
  for (Row& r : er.rows) {
    try {
      check_row(er, r, "");
      continue;
    } catch (const CsvSchemaError& e) {
      refused.push_back(e.what());
      // The row as an error: its identity kept, its value and prediction dropped.
      const auto allowed = schema.verdicts_by_kind.find(r.kind);
      const bool error_allowed = allowed != schema.verdicts_by_kind.end() &&
                                 std::find(allowed->second.begin(), allowed->second.end(),
                                           verdict::kError) != allowed->second.end();
      const std::string was = r.kind + "/" + r.verdict;
      if (!error_allowed) r.kind = kind::kInfo;
      r.verdict = verdict::kError;
      r.value = std::nan("");
      r.unit = "1";
      r.predicted.reset();
      r.rel_error.reset();
      r.model = "refused by analysis/csv-schema.json";
      if (r.family.empty()) r.family = "(none)";
      if (r.benchmark.empty()) r.benchmark = "(none)";
      if (r.metric.empty()) r.metric = "error";
      r.reason = Reason("core/schema_refused").text("was", was).text("what", e.what());
      r.why = render_reason(r.reason);
    }
    check_row(er, r, "");  // an error row the schema still refuses is a bug of this function: thrown
  }
  return refused;
}

std::string tidy_csv(const std::vector<EvaluatedRun>& runs) {
  const CsvSchema& schema = csv_schema();
  const std::vector<std::string> keys = parameter_keys(runs);
  const std::vector<std::string> param_columns = parameter_columns(runs);
  const auto& header = csv_header();
  std::vector<const CsvField*> fields;
  for (const auto& column : header) fields.push_back(schema.field(column));
  for (const auto& column : param_columns) fields.push_back(schema.field(column));
  std::string out;
  for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  for (const auto& column : param_columns) out += "," + csv_field(column);
  out += "\n";
  const auto marks = headline_marks(runs);
  for (std::size_t run_index = 0; run_index < runs.size(); ++run_index) {
    const EvaluatedRun& er = runs[run_index];
    for (std::size_t row_index = 0; row_index < er.rows.size(); ++row_index) {
      const Row& r = er.rows[row_index];
      const std::string& headline = marks[run_index][row_index];
      check_row(er, r, headline);
      const std::vector<std::string> cells = row_cells(er, r, headline, keys);
      const std::string where = er.run.run_id() + " " + r.family + "/" + r.benchmark + " " + r.params +
                                " `" + r.metric + "`";
      for (std::size_t i = 0; i < cells.size(); ++i) check_csv_cell(*fields[i], cells[i], where);
      for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_field(cells[i]);
      out += "\n";
    }
  }
  return out;
}

}  // namespace warpcost::analysis
