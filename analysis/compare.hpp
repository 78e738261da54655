// Two runs side by side (two GPUs, or before and after a change): per benchmark present in both,
// the ratio of median times and of median SM cycles (time x the clock each side ran at), each with
// a verdict that respects the measurement's spread, in the spirit of Google Benchmark's compare
// tool (a two-sided Mann-Whitney U test on the repetitions; with too few repetitions for that test
// to ever separate, the per-point sample noise the bench records).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_reader.hpp"

namespace warpcost::analysis {

namespace compare_verdict {
inline constexpr const char* kSame = "same";        // medians within kSameBand
inline constexpr const char* kFaster = "faster";    // new is faster, and the measurements separate
inline constexpr const char* kSlower = "slower";    // new is slower, and the measurements separate
inline constexpr const char* kUnclear = "unclear";  // apart by more than the band, but the
                                                    // measurements overlap: noise could explain it
inline constexpr const char* kError = "error";      // either side reported an error
}  // namespace compare_verdict

inline constexpr double kSameBand = 0.01;       // |new/base - 1| below 1 %: the same
inline constexpr double kSignificance = 0.05;   // p-value below this: the runs differ
// The standard error of a median of n samples of relative spread s is about sqrt(pi/2) s/sqrt(n)
// (its asymptotic efficiency against the mean for normal samples). Used because the bench does not
// say whether a point's statistic is the mean or the median of its samples: the median's is larger.
inline constexpr double kMedianStandardErrorFactor = 1.2533141373155001;

// Which evidence a verdict rests on.
namespace compare_test {
inline constexpr const char* kRepetitions = "repetitions";  // Mann-Whitney U over the repetitions
inline constexpr const char* kSamples = "samples";  // z-test on log(ratio), each side's standard
                                                    // error from warpcost_noise/warpcost_samples
inline constexpr const char* kNone = "none";        // neither can separate the runs
}  // namespace compare_test

// One side of a comparison as the verdict sees it: one value per repetition, and (runs that
// record it) the per-point sample noise of the bench's timed samples.
struct Measurements {
  std::vector<double> values;
  bool has_sample_noise = false;
  double sample_noise = 0;  // relative standard deviation of the timed samples (a fraction)
  double samples = 0;       // timed samples the point's statistic is taken over
};

struct Judgement {
  double base_median = 0;
  double new_median = 0;
  double ratio = 0;  // new / base median: below 1 is faster (fewer seconds, fewer cycles)
  double p_value = 1;
  std::string test;  // compare_test::k*
  std::string verdict;
  std::string why;
};

// The verdict shared by time and cycles: same within kSameBand; otherwise faster/slower when the
// U test over the repetitions gives p < kSignificance, or, where the repetitions are too few for
// that test ever to reach it, when the sample-noise z-test does; unclear when neither separates.
Judgement judge(const Measurements& base, const Measurements& next);

struct BenchmarkComparison {
  std::string family;
  std::string benchmark;
  std::string params;
  double base_median_s = 0;
  double new_median_s = 0;
  double ratio = 0;  // new / base median time: below 1 is faster
  double base_cv = 0;
  double new_cv = 0;
  double p_value = 1;
  std::string verdict;
  std::string why;
  // The same in SM cycles: each repetition's time x the SM clock it ran at (the point's own
  // reading where the bench took one, else the run's measured clock).
  double base_clock_hz = 0;  // median clock of the base's repetitions
  double new_clock_hz = 0;
  std::string base_clock_source;  // "point" or "run"
  std::string new_clock_source;
  double cycles_ratio = 0;
  double cycles_p_value = 1;
  std::string cycles_verdict;
  std::string cycles_why;
};

struct RunComparison {
  std::string base_run;
  std::string new_run;
  std::string base_gpu;  // "NVIDIA H200 (GPU-0672368d)"
  std::string new_gpu;
  std::vector<BenchmarkComparison> rows;
  std::vector<std::string> only_in_base;  // run names
  std::vector<std::string> only_in_new;
};

// Exact two-sided p-value of the Mann-Whitney U test (ties count one half), by enumerating every
// split of the pooled values when there are at most 20 of them, the normal approximation beyond.
// Throws std::invalid_argument when either side is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// The SM clock (Hz) each repetition of b ran at: the point's own reading (warpcost_sm_clock_mhz,
// else the calibrated families' sm_clock_hz) where it has one a repetition, else the run's clock
// measured at start-up for every repetition. `source` becomes "point" or "run".
std::vector<double> repetition_clocks_hz(const Run& run, const BenchmarkResult& b, std::string* source);

// "NVIDIA H200 (GPU-0672368d)": the run's GPU name and the first 8 hex digits of its UUID.
std::string gpu_label(const Run& run);

// Throws std::runtime_error when the runs share no benchmark.
RunComparison compare_runs(const Run& base, const Run& next);

// Columns: family,benchmark,params,base_run,new_run,base_median_s,new_median_s,ratio,base_cv,
// new_cv,p_value,verdict,base_sm_clock_hz,new_sm_clock_hz,cycles_ratio,cycles_p_value,
// cycles_verdict.
std::string comparison_csv(const RunComparison& c);
// The summary: per family the count of each verdict, and the `largest` changes in time (by
// |log ratio|) with their p-values. What `warpcost-analyze --compare` prints without --full.
std::string comparison_summary_markdown(const RunComparison& c, std::size_t largest = 10);
// The summary, then every benchmark's row (what --report writes and --full prints).
std::string comparison_markdown(const RunComparison& c);

}  // namespace warpcost::analysis
