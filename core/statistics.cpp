#include "core/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace warpcost::analysis {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("mean of no values");
  double sum = 0.0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double coefficient_of_variation(const std::vector<double>& values) {
  const double m = mean(values);
  if (values.size() < 2 || m == 0.0) return 0.0;
  double squares = 0.0;
  for (const double v : values) squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / m;
}

double relative_median_standard_error(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double m = median(values);
  if (m == 0.0) return 0.0;
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double v : values) deviations.push_back(std::fabs(v - m));
  const double mad = median(deviations);
  return 1.2533 * 1.4826 * mad / std::sqrt(static_cast<double>(values.size())) / std::fabs(m);
}

double nearest_rank_percentile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("percentile of no values");
  if (!(q >= 0.0 && q <= 1.0)) {
    throw std::invalid_argument("percentile q = " + std::to_string(q) + "; allowed: 0..1");
  }
  std::sort(values.begin(), values.end());
  const auto i = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(i, values.size() - 1)];
}

}  // namespace warpcost::analysis
