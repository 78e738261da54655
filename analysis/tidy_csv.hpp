// The tidy CSV for dashboards: one row per measured value, long format, fixed header (design.md).
#pragma once

#include <string>
#include <vector>

#include "evaluation.hpp"
#include "run_reader.hpp"

namespace warpcost::analysis {

inline const std::vector<std::string>& csv_header() {
  static const std::vector<std::string> header = {
      "schema_version", "run_id", "utc",     "gpu",    "cc",    "sm_count", "driver",
      "cuda_runtime",   "git_rev", "family", "benchmark", "params", "metric",  "value",
      "unit",           "model",  "predicted", "rel_error", "kind", "verdict"};
  return header;
}

struct EvaluatedRun {
  Run run;
  std::vector<Row> rows;
};

// RFC 4180 quoting: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& text);
std::string csv_number(double value);

std::string tidy_csv(const std::vector<EvaluatedRun>& runs);

}  // namespace warpcost::analysis
