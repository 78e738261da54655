// Plain statistics over repetitions.
#pragma once

#include <vector>

namespace warpcost::analysis {

double median(std::vector<double> values);              // throws std::invalid_argument if empty
double mean(const std::vector<double>& values);         // throws std::invalid_argument if empty
// coefficient of variation = sample standard deviation / mean; 0 for a single value
double coefficient_of_variation(const std::vector<double>& values);

}  // namespace warpcost::analysis
