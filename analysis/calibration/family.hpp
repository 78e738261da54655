// The calibration family's analysis (analysis/family.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::calibration {
std::vector<const Family*> families();
// The family's sentences (analysis/calibration/report.cpp): the why of each of its reasons.
std::string render(const Reason& reason);
}  // namespace warpcost::analysis::calibration
