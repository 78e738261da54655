#include "core/families.hpp"

#include <algorithm>

// Generated from WARPCOST_FAMILIES: includes analysis/<folder>/schema.hpp of every family and
// defines WARPCOST_FOR_EACH_FAMILY(X) as X(folder) X(folder) ...
#include "warpcost/schema_families.inc"

namespace warpcost::schema {

const std::vector<const FamilyDescriptor*>& family_descriptors() {
  static const std::vector<const FamilyDescriptor*> all = [] {
    std::vector<const FamilyDescriptor*> list;
#define WARPCOST_ADD_FAMILY(folder) \
  for (const FamilyDescriptor* d : folder::descriptors()) list.push_back(d);
    WARPCOST_FOR_EACH_FAMILY(WARPCOST_ADD_FAMILY)
#undef WARPCOST_ADD_FAMILY
    return list;
  }();
  return all;
}

const FamilyDescriptor* family_descriptor(const std::string& name) {
  for (const FamilyDescriptor* d : family_descriptors()) {
    if (name == d->name) return d;
  }
  return nullptr;
}

void rename_schema_1_parameters(const std::string& family, const std::string& benchmark,
                                std::vector<std::pair<std::string, std::string>>& params) {
  const FamilyDescriptor* d = family_descriptor(family);
  if (d == nullptr) return;
  for (auto& [name, value] : params) {
    for (const Rename& r : d->schema_1_names) {
      if (benchmark == r.benchmark && name == r.schema_1_name) {
        name = r.name;
        break;
      }
    }
  }
}

std::vector<std::string> all_default_metrics() {
  std::vector<std::string> all;
  for (const FamilyDescriptor* d : family_descriptors()) {
    for (const char* m : d->metrics) {
      if (std::find(all.begin(), all.end(), m) == all.end()) all.emplace_back(m);
    }
  }
  return all;
}

}  // namespace warpcost::schema
