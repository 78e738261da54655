// Plain statistics over repetitions.
#pragma once

#include <vector>

namespace warpcost::analysis {

double median(std::vector<double> values);              // throws std::invalid_argument if empty
double mean(const std::vector<double>& values);         // throws std::invalid_argument if empty
// coefficient of variation = sample standard deviation / mean; 0 for a single value
double coefficient_of_variation(const std::vector<double>& values);
// The standard error of the median, relative to the median, estimated robustly from the median
// absolute deviation: 1.2533 x 1.4826 x MAD / sqrt(n) / |median|. 1.4826 x MAD estimates a normal
// sample's standard deviation without letting one outlier set it, and the median of n normal values
// has a standard error 1.2533 (sqrt(pi/2)) times that of their mean. 0 for fewer than 2 values
// (no estimate: a miss then fails).
double relative_median_standard_error(const std::vector<double>& values);
// The value at rank round(q x (n - 1)) of the sorted values (no interpolation), q in [0, 1]: the
// divergence runner's p10 and p90 of a launch's warp cycles. Throws std::invalid_argument if empty
// or q is outside [0, 1].
double nearest_rank_percentile(std::vector<double> values, double q);

}  // namespace warpcost::analysis
