// Every registered family's contract (core/family_schema.hpp), in WARPCOST_FAMILIES order
// (the top CMakeLists.txt's one registry line). What the bench and the analysis both read.
#pragma once

#include <string>
#include <vector>

#include "core/family_schema.hpp"

namespace warpcost::schema {

const std::vector<const FamilyDescriptor*>& family_descriptors();
// The descriptor named `name` (a run name's first part), or nullptr.
const FamilyDescriptor* family_descriptor(const std::string& name);
// A schema-1 run's parameters under today's names (the family's schema_1_names); unchanged for a
// family or benchmark without renames.
void rename_schema_1_parameters(const std::string& family, const std::string& benchmark,
                                std::vector<std::pair<std::string, std::string>>& params);
// Every family's counter-pass metrics, each once, in family order.
std::vector<std::string> all_default_metrics();

}  // namespace warpcost::schema
