// Two runs side by side (two GPUs, or before and after a change): per benchmark present in both,
// the ratio of median times and a verdict that respects the repetitions' spread, in the spirit of
// Google Benchmark's compare tool (a two-sided Mann-Whitney U test on the repetitions).
#pragma once

#include <string>
#include <vector>

#include "run_reader.hpp"

namespace warpcost::analysis {

namespace compare_verdict {
inline constexpr const char* kSame = "same";        // medians within kSameBand
inline constexpr const char* kFaster = "faster";    // new is faster, and the repetitions separate
inline constexpr const char* kSlower = "slower";    // new is slower, and the repetitions separate
inline constexpr const char* kUnclear = "unclear";  // apart by more than the band, but the
                                                    // repetitions overlap: noise could explain it
inline constexpr const char* kError = "error";      // either side reported an error
}  // namespace compare_verdict

inline constexpr double kSameBand = 0.01;       // |new/base - 1| below 1 %: the same
inline constexpr double kSignificance = 0.05;   // U-test p-value below this: the runs differ

struct BenchmarkComparison {
  std::string family;
  std::string benchmark;
  std::string params;
  double base_median_s = 0;
  double new_median_s = 0;
  double ratio = 0;  // new / base median time: below 1 is faster
  double base_cv = 0;
  double new_cv = 0;
  double p_value = 1;  // two-sided Mann-Whitney U over the repetitions
  std::string verdict;
  std::string why;
};

struct RunComparison {
  std::string base_run;
  std::string new_run;
  std::vector<BenchmarkComparison> rows;
  std::vector<std::string> only_in_base;  // run names
  std::vector<std::string> only_in_new;
};

// Exact two-sided p-value of the Mann-Whitney U test (ties count one half), by enumerating every
// split of the pooled values when there are at most 20 of them, the normal approximation beyond.
// Throws std::invalid_argument when either side is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// Throws std::runtime_error when the runs share no benchmark.
RunComparison compare_runs(const Run& base, const Run& next);

// Columns: family,benchmark,params,base_run,new_run,base_median_s,new_median_s,ratio,base_cv,
// new_cv,p_value,verdict.
std::string comparison_csv(const RunComparison& c);
std::string comparison_markdown(const RunComparison& c);

}  // namespace warpcost::analysis
