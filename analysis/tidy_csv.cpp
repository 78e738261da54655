#include "analysis/tidy_csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "analysis/core/result_schema.hpp"
#include "analysis/core/text_format.hpp"

namespace warpcost::analysis {
namespace {

std::string column_for_key(const std::string& key) {
  const auto& fixed_columns = csv_header();
  const bool taken = std::find(fixed_columns.begin(), fixed_columns.end(), key) != fixed_columns.end();
  return taken ? "param_" + key : key;
}

// Every parameter name of every row, sorted.
std::vector<std::string> parameter_keys(const std::vector<EvaluatedRun>& runs) {
  std::set<std::string> keys;
  for (const auto& er : runs) {
    for (const Row& r : er.rows) {
      for (const auto& [key, value] : parse_key_values(r.params)) keys.insert(key);
    }
  }
  return {keys.begin(), keys.end()};
}

}  // namespace

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

std::string tidy_csv(const std::vector<EvaluatedRun>& runs) {
  const std::vector<std::string> keys = parameter_keys(runs);
  std::string out;
  const auto& header = csv_header();
  for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  for (const auto& column : parameter_columns(runs)) out += "," + csv_field(column);
  out += "\n";
  namespace key = schema::key;
  for (const auto& er : runs) {
    const RunContext& c = er.run.context;
    const std::string run_prefix =
        csv_field(c.text(schema::kVersionKey)) + "," + csv_field(c.text(key::kRunId)) + "," +
        csv_field(c.text(key::kUtc)) + "," + csv_field(c.text(key::kGpuName)) + "," +
        csv_field(c.text(key::kCc)) + "," + csv_field(c.text(key::kSmCount)) + "," +
        csv_field(c.text(key::kDriverVersion)) + "," + csv_field(c.text(key::kCudaRuntime)) + "," +
        csv_field(git_rev_text(c.text(key::kGitRev)));
    const std::string status = run_status_of(er.run);
    for (const Row& r : er.rows) {
      out += run_prefix + "," + csv_field(r.family) + "," + csv_field(r.benchmark) + "," +
             csv_field(r.params) + "," + csv_field(r.metric) + "," + csv_number(r.value) + "," +
             csv_field(r.unit) + "," + csv_field(r.model) + "," +
             (r.predicted ? csv_number(*r.predicted) : "") + "," +
             (r.rel_error ? csv_number(*r.rel_error) : "") + "," + csv_field(r.kind) + "," + csv_field(r.verdict) + "," +
             status;
      const auto values = parse_key_values(r.params);
      for (const auto& k : keys) {
        const auto it = values.find(k);
        out += "," + (it == values.end() ? std::string() : csv_field(it->second));
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace warpcost::analysis
