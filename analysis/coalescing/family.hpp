// The coalescing family's analysis (analysis/family.hpp).
#pragma once

#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::coalescing {
std::vector<const Family*> families();
}  // namespace warpcost::analysis::coalescing
