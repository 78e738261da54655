// The partial-warp family's analysis (analysis/family.hpp).
#pragma once

#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::partial_warp {
std::vector<const Family*> families();
}  // namespace warpcost::analysis::partial_warp
