// The coalescing family's analysis (analysis/family.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::coalescing {
std::vector<const Family*> families();
// The family's sentences (analysis/coalescing/report.cpp): the why of each of its reasons.
std::string render(const Reason& reason);
// A second-order price's `numbers` (CoalescingSecondOrderPrice, analysis/coalescing/evaluation.hpp)
// from the values its evaluator gives: the counted bytes, R(D) and its fit points, the in-flight
// bound, the prediction. Its second-order rows' sentences start with it.
std::string render_second_order_price(const Reason& values);
}  // namespace warpcost::analysis::coalescing
