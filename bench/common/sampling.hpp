// When to stop timing one benchmark point: nvbench's stdrel criterion. Every sample is one
// event-timed launch; a point stops once it has at least `min_samples` and the relative standard
// deviation of its samples is at most `max_noise`, or once its wall time passes `time_cap_s` with
// at least `min_samples_at_cap`, or at `max_samples`. Host only (no CUDA): the statistics and the
// rule are tested on a machine without a GPU.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace warpcost::sampling {

struct Rule {
  int min_samples = 10;          // nvbench's default minimum
  double max_noise = 0.005;      // 0.5 % relative standard deviation
  double time_cap_s = 0.05;      // wall time of one point's sampling, host overhead included
  int min_samples_at_cap = 3;    // a point slower than the cap still gets this many samples
  int max_samples = 2000;        // launch-bound kernels never reach 0.5 %; this bounds them
};

// "" or one sentence naming the value and what is allowed.
std::string rule_problem(const Rule& rule);

// The samples of one point (seconds), with their running mean and variance (Welford).
class SampleSet {
 public:
  void add(double seconds);
  std::size_t size() const noexcept { return values_.size(); }
  const std::vector<double>& values() const noexcept { return values_; }
  double mean() const noexcept { return mean_; }
  // Relative standard deviation (sample standard deviation / mean); 0 with fewer than 2 samples.
  double noise() const noexcept;
  double median() const;  // throws std::logic_error when empty

 private:
  std::vector<double> values_;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

enum class Stop { kContinue, kConverged, kTimeCap, kSampleCap };
const char* stop_name(Stop stop);

// Whether a point with `samples`, sampled for `elapsed_s` of wall time, stops here, and why.
Stop decide(const Rule& rule, const SampleSet& samples, double elapsed_s);

}  // namespace warpcost::sampling
