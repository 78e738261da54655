// The partial-warp family's analysis (analysis/family.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::partial_warp {
std::vector<const Family*> families();
// The family's sentences (analysis/partial_warp/report.cpp): the why of each of its reasons.
std::string render(const Reason& reason);
}  // namespace warpcost::analysis::partial_warp
