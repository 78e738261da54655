// The divergence family's analysis (analysis/family.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/family.hpp"
#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis::divergence {
std::vector<const Family*> families();
// The family's summary tables for one run (analysis/divergence/report.cpp); empty when it has no
// divergence sweep.
std::string divergence_summary_markdown(const EvaluatedRun& run);
// The family's sentences (analysis/divergence/report.cpp): the why of each of its reasons.
std::string render(const Reason& reason);
}  // namespace warpcost::analysis::divergence
