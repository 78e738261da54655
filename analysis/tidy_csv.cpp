#include "tidy_csv.hpp"

#include <cmath>
#include <cstdio>

#include "result_schema.hpp"

namespace warpcost::analysis {

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

std::string tidy_csv(const std::vector<EvaluatedRun>& runs) {
  std::string out;
  const auto& header = csv_header();
  for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  namespace key = schema::key;
  for (const auto& er : runs) {
    const RunContext& c = er.run.context;
    const std::string run_prefix =
        csv_field(c.text(schema::kVersionKey)) + "," + csv_field(c.text(key::kRunId)) + "," +
        csv_field(c.text(key::kUtc)) + "," + csv_field(c.text(key::kGpuName)) + "," +
        csv_field(c.text(key::kCc)) + "," + csv_field(c.text(key::kSmCount)) + "," +
        csv_field(c.text(key::kDriverVersion)) + "," + csv_field(c.text(key::kCudaRuntime)) + "," +
        csv_field(c.text(key::kGitRev));
    for (const Row& r : er.rows) {
      out += run_prefix + "," + csv_field(r.family) + "," + csv_field(r.benchmark) + "," +
             csv_field(r.params) + "," + csv_field(r.metric) + "," + csv_number(r.value) + "," +
             csv_field(r.unit) + "," + csv_field(r.model) + "," +
             (r.predicted ? csv_number(*r.predicted) : "") + "," +
             (r.rel_error ? csv_number(*r.rel_error) : "") + "," + csv_field(r.kind) + "," +
             csv_field(r.verdict) + "\n";
    }
  }
  return out;
}

}  // namespace warpcost::analysis
