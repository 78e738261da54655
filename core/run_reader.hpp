// Reads a warpcost run (Google Benchmark JSON with warpcost's context keys) into plain data.
// A malformed, truncated or incomplete file throws RunFormatError naming the file and the field.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace warpcost::analysis {

class RunFormatError : public std::runtime_error {
 public:
  RunFormatError(const std::string& file, const std::string& field, const std::string& problem);
};

struct RunContext {
  std::map<std::string, std::string> values;

  const std::string& text(const std::string& key) const;  // throws std::out_of_range if absent
  double number(const std::string& key) const;             // throws if absent or not numeric
};

struct BenchmarkResult {
  std::string run_name;  // "calibration/d2d_copy/mib:1024" (Google Benchmark's own suffixes removed)
  std::string family;    // "calibration"
  std::string benchmark; // "d2d_copy"
  std::vector<std::pair<std::string, std::string>> params;  // in the registration's order
  // One per timed launch where the run recorded its samples (warpcost_sample_seconds), otherwise
  // one per repetition (older runs).
  std::vector<double> seconds;
  std::map<std::string, std::vector<double>> counters;      // one value per repetition
  bool error = false;
  std::string error_message;

  std::string params_text() const;  // "key=value;key=value"
  double param(const std::string& key) const;  // throws std::out_of_range if absent
  bool has_param(const std::string& key) const;
  double median_seconds() const;
  double counter_median(const std::string& name) const;  // throws std::out_of_range if absent
  bool has_counter(const std::string& name) const { return counters.count(name) != 0; }
};

struct Run {
  std::filesystem::path source;
  RunContext context;
  std::vector<BenchmarkResult> benchmarks;

  const std::string& run_id() const;
};

Run read_run(const std::filesystem::path& bench_json);

// Google Benchmark writes NaN and Infinity as bare tokens (the CV of a counter whose mean is 0 is
// NaN), which JSON does not allow. This replaces every such token outside a string with null.
std::string replace_nonfinite_tokens(const std::string& json_text);

// Splits a Google Benchmark run name into family, benchmark and key:value parameters, dropping the
// suffixes Google Benchmark appends itself (manual_time, min_time:…, repeats:…, iterations:…).
BenchmarkResult parse_run_name(const std::string& run_name);

}  // namespace warpcost::analysis
