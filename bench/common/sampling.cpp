#include "bench/common/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace warpcost::sampling {

std::string rule_problem(const Rule& r) {
  if (r.min_samples < 2) {
    return "minimum samples = " + std::to_string(r.min_samples) + "; allowed: 2 or more (noise needs two)";
  }
  if (!(r.max_noise > 0.0 && r.max_noise < 1.0)) {
    return "noise target = " + std::to_string(r.max_noise) + "; allowed: a fraction between 0 and 1";
  }
  if (!(r.time_cap_s > 0.0)) return "time cap = " + std::to_string(r.time_cap_s) + " s; allowed: above 0";
  if (r.min_samples_at_cap < 1 || r.min_samples_at_cap > r.min_samples) {
    return "samples at the time cap = " + std::to_string(r.min_samples_at_cap) + "; allowed: 1.." +
           std::to_string(r.min_samples);
  }
  if (r.max_samples < r.min_samples) {
    return "maximum samples = " + std::to_string(r.max_samples) + "; allowed: at least the minimum (" +
           std::to_string(r.min_samples) + ")";
  }
  return {};
}

void SampleSet::add(double seconds) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
    throw std::invalid_argument("a sample of " + std::to_string(seconds) + " s; allowed: finite, 0 or more");
  }
  values_.push_back(seconds);
  const double delta = seconds - mean_;
  mean_ += delta / static_cast<double>(values_.size());
  m2_ += delta * (seconds - mean_);
}

double SampleSet::noise() const noexcept {
  if (values_.size() < 2 || mean_ <= 0.0) return 0.0;
  const double variance = m2_ / static_cast<double>(values_.size() - 1);
  return std::sqrt(std::max(0.0, variance)) / mean_;
}

double SampleSet::median() const {
  if (values_.empty()) throw std::logic_error("the median of no samples");
  std::vector<double> v = values_;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

const char* stop_name(Stop stop) {
  switch (stop) {
    case Stop::kConverged: return "converged";
    case Stop::kTimeCap: return "time cap";
    case Stop::kSampleCap: return "sample cap";
    case Stop::kContinue: break;
  }
  return "continue";
}

Stop decide(const Rule& r, const SampleSet& s, double elapsed_s) {
  const auto n = static_cast<int>(s.size());
  if (n >= r.min_samples && s.noise() <= r.max_noise) return Stop::kConverged;
  if (n >= r.max_samples) return Stop::kSampleCap;
  if (n >= r.min_samples_at_cap && elapsed_s >= r.time_cap_s) return Stop::kTimeCap;
  return Stop::kContinue;
}

}  // namespace warpcost::sampling
