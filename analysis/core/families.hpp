// Every registered family's contract (analysis/core/family_schema.hpp), in WARPCOST_FAMILIES order
// (the top CMakeLists.txt's one registry line). What the bench and the analysis both read.
#pragma once

#include <string>
#include <vector>

#include "analysis/core/family_schema.hpp"

namespace warpcost::schema {

const std::vector<const FamilyDescriptor*>& family_descriptors();
// The descriptor named `name` (a run name's first part), or nullptr.
const FamilyDescriptor* family_descriptor(const std::string& name);
// Every family's counter-pass metrics, each once, in family order.
std::vector<std::string> all_default_metrics();

}  // namespace warpcost::schema
