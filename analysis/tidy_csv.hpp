// The tidy CSV for dashboards: one row per measured value, long format (design.md, docs/csv.md).
// The fixed columns come first; then one column per benchmark parameter that any row has, so pandas
// and Grafana filter on `warps_per_sm` directly (the `params` text stays for a whole-row key).
#pragma once

#include <string>
#include <vector>

#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"

namespace warpcost::analysis {

// The fixed columns, in order: the schema's (analysis/csv-schema.json) fields of role "fixed".
const std::vector<std::string>& csv_header();

namespace run_status {
inline constexpr const char* kCurrent = "current";
inline constexpr const char* kArchived = "archived";
}  // namespace run_status

struct EvaluatedRun {
  Run run;
  std::vector<Row> rows;
};

// "archived" for a run anywhere below a folder named `archive` (results/archive/...), else "current".
std::string run_status_of(const Run& run);

// The git revision as text that no CSV reader takes for a number: "g" + the abbreviated hash
// (git describe's own prefix), so "1823362" is written "g1823362"; "unknown" stays as it is.
std::string git_rev_text(const std::string& rev);

// The parameter columns of these runs: every key of every row's params, sorted; a key that is also
// a fixed column's name becomes "param_<key>".
std::vector<std::string> parameter_columns(const std::vector<EvaluatedRun>& runs);

// The headline column of each row of `runs` (parallel to runs[i].rows): the summary's headline
// figure the row is (headlines.hpp: one row per figure and GPU, from the current runs), or "".
std::vector<std::vector<std::string>> headline_marks(const std::vector<EvaluatedRun>& runs);

// RFC 4180 quoting: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& text);
std::string csv_number(double value);

// Holds every row of `er` to the schema the CSV is written against; a row it refuses is rewritten
// as an error row (its family, benchmark, params and metric kept, kind info where its own kind
// allows no error, the refusal in its why and model) so one bad row never costs the others.
// Returns one message per refused row, naming the row and what the schema refused.
std::vector<std::string> conform_to_schema(EvaluatedRun& er);

// The CSV of `runs`. Every cell is checked against the schema first (column types, allowed values,
// the unit vocabulary, the verdicts each kind allows, a parameter column the schema names): a
// value it does not allow throws CsvSchemaError naming the row, column and what is allowed.
std::string tidy_csv(const std::vector<EvaluatedRun>& runs);

}  // namespace warpcost::analysis
