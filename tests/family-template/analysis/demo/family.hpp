// The template family's analysis (analysis/family.hpp).
#pragma once

#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::demo {
std::vector<const Family*> families();
}  // namespace warpcost::analysis::demo
