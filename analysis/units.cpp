#include "analysis/units.hpp"

#include "analysis/csv_schema.hpp"

#include <algorithm>
#include <map>

namespace warpcost::analysis {
namespace {

// Units that are already names in the vocabulary or spell one of them another way (the evaluators'
// own names and CUPTI's, e.g. "smsp__warps_launched.sum=warp").
const std::map<std::string, std::string>& unit_aliases() {
  static const std::map<std::string, std::string> aliases = {
      {"ratio", "1"},          {"", "1"},
      {"percent", "%"},        {"per warp", "branches"},
      {"byte", "B"},           {"bytes", "B"},
      {"byte/second", "B/s"},  {"second", "s"},
      {"nsecond", "ns"},       {"usecond", "us"},
      {"msecond", "ms"},       {"cycle", "cycles"},
      {"warp", "warps"},       {"thread", "threads"},
      {"cta", "blocks"},       {"block", "blocks"},
      {"instruction", "inst"}, {"branch_target", "branches"},
      {"sector", "sectors"},   {"request", "requests"},
      {"hz", "Hz"},
      // The evaluators' own spellings of vocabulary units.
      {"bytes/s", "B/s"},      {"warps/SM", "warps"},
      {"instructions", "inst"},
      // CUPTI's units of the default counters l1tex__t_requests and lts__t_sectors.
      {"l1tex_request", "requests"}, {"l2_sector", "sectors"},
  };
  return aliases;
}

// "count" says a row counts something; what it counts is in the metric's name.
const std::map<std::string, std::string>& counted_things() {
  static const std::map<std::string, std::string> things = {
      {"warps_per_block", "warps"},
      {"warps_with_one_clock", "warps"},
      {"tail_full_warps", "warps"},
      {"resident_warps_per_sm", "warps"},
      {"knee_warps_per_sm", "warps"},
      {"knee_model_scheduler_demand", "warps"},
      {"knee_model_littles_law", "warps"},
      {"threads_mapped_as_model", "threads"},
      {"tail_active_threads", "threads"},
      {"resident_blocks_per_sm", "blocks"},
      {"distinct_sms", "SMs"},
  };
  return things;
}

}  // namespace

const std::vector<std::string>& unit_vocabulary() { return csv_schema().units; }

bool unit_in_vocabulary(const std::string& unit) {
  const auto& v = unit_vocabulary();
  return std::find(v.begin(), v.end(), unit) != v.end();
}

std::string vocabulary_unit(const Row& row) {
  if (unit_in_vocabulary(row.unit)) return row.unit;
  // Already written as a CUPTI unit: kept (the CSV writer asks again after use_vocabulary_units,
  // which once made "cupti:cupti:..." of every unit outside the vocabulary).
  if (row.unit.rfind(csv_schema().cupti_unit_prefix, 0) == 0) return row.unit;
  if (row.unit == "count") {
    const auto it = counted_things().find(row.metric);
    // A count this table does not name yet is still a plain number.
    return it == counted_things().end() ? "1" : it->second;
  }
  const auto it = unit_aliases().find(row.unit);
  if (it != unit_aliases().end()) return it->second;
  return csv_schema().cupti_unit_prefix + row.unit;
}

void use_vocabulary_units(std::vector<Row>& rows) {
  for (Row& r : rows) r.unit = vocabulary_unit(r);
}

}  // namespace warpcost::analysis
