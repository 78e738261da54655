// The latency and streaming families' analysis (analysis/family.hpp): one folder, two run-name
// families, since the streaming knees are read against the latency plateaus.
#pragma once

#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::streaming {
std::vector<const Family*> families();
}  // namespace warpcost::analysis::streaming
