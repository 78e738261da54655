// The one unit vocabulary of the CSV and the reports (docs/csv.md). The evaluators and CUPTI name
// units their own way ("ratio", "count", "percent", "byte", "warp", ""); every row is brought into
// the vocabulary here, in one place, before anything is written.
#pragma once

#include <string>
#include <vector>

#include "analysis/evaluation.hpp"

namespace warpcost::analysis {

// Every unit a written row may carry, in the order docs/csv.md lists them.
const std::vector<std::string>& unit_vocabulary();

bool unit_in_vocabulary(const std::string& unit);

// The row's unit in the vocabulary, its value and prediction unchanged (no unit here needs a scale).
// A CUPTI unit outside the table is written as "cupti:<unit>" so it is never silently renamed.
std::string vocabulary_unit(const Row& row);

// Every row of `rows` with its unit brought into the vocabulary.
void use_vocabulary_units(std::vector<Row>& rows);

}  // namespace warpcost::analysis
