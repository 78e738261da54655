// The warp-primitives family's analysis (analysis/family.hpp).
#pragma once

#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::warp_primitives {
std::vector<const Family*> families();
}  // namespace warpcost::analysis::warp_primitives
