#include "analysis/family.hpp"

#include <stdexcept>

// Generated from WARPCOST_FAMILIES: includes analysis/<folder>/family.hpp of every family and
// defines WARPCOST_FOR_EACH_FAMILY(X) as X(folder) X(folder) ...
#include "warpcost/analysis_families.inc"

namespace warpcost::analysis {

void Family::evaluate_benchmark(const Run&, const BenchmarkResult&, std::vector<Row>&) const {}
void Family::evaluate_counters(const Run&, const BenchmarkResult&, const CounterUnits&,
                               std::vector<Row>&, std::set<std::string>&) const {}
void Family::evaluate_run(const Run&, std::vector<Row>&) const {}
std::string Family::report_section(const EvaluatedRun&) const { return {}; }
std::string Family::render_reason(const Reason& reason) const {
  throw std::logic_error(std::string("family ") + descriptor().name + " renders no reason '" + reason.code + "'");
}

const std::vector<const Family*>& families() {
  static const std::vector<const Family*> all = [] {
    std::vector<const Family*> list;
#define WARPCOST_ADD_FAMILY(folder) \
  for (const Family* f : folder::families()) list.push_back(f);
    WARPCOST_FOR_EACH_FAMILY(WARPCOST_ADD_FAMILY)
#undef WARPCOST_ADD_FAMILY
    return list;
  }();
  return all;
}

const Family* family_named(const std::string& name) {
  for (const Family* f : families()) {
    if (name == f->descriptor().name) return f;
  }
  return nullptr;
}

}  // namespace warpcost::analysis
