// The warp-primitives family's analysis (analysis/family.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::warp_primitives {
std::vector<const Family*> families();
// The family's sentences (analysis/warp_primitives/report.cpp): the why of each of its reasons.
std::string render(const Reason& reason);
}  // namespace warpcost::analysis::warp_primitives
