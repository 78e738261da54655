// The divergence family's summary tables: the split sweep, the k-way switch, the nested if and the
// residency sweep, each a grid of slowdowns beside the model, built from the evaluated rows.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "core/text_format.hpp"
#include "analysis/divergence/family.hpp"
#include "core/divergence/schema.hpp"
#include "analysis/evaluation_support.hpp"
#include "analysis/report.hpp"

namespace warpcost::analysis::divergence {
namespace {

using Params = std::map<std::string, std::string>;

// (benchmark, params, metric) -> row of one run.
class RowIndex {
 public:
  explicit RowIndex(const std::vector<Row>& rows) {
    for (const Row& r : rows) {
      if (r.family == schema::divergence::kFamily) index_[{r.benchmark, r.params, r.metric}] = &r;
    }
  }
  const Row* find(const std::string& benchmark, const std::string& params,
                  const std::string& metric) const {
    const auto it = index_.find({benchmark, params, metric});
    return it == index_.end() ? nullptr : it->second;
  }
  // "2.001 (holds)", "1 (reference)" or "—".
  std::string cell(const std::string& benchmark, const std::string& params,
                   const std::string& metric, bool show_verdict = true) const {
    const Row* r = find(benchmark, params, metric);
    if (r == nullptr) return "—";
    std::string text = fixed(r->value, 3);
    if (show_verdict && r->verdict != "holds") text += " (" + r->verdict + ")";
    return text;
  }
  std::string predicted(const std::string& benchmark, const std::string& params,
                        const std::string& metric) const {
    const Row* r = find(benchmark, params, metric);
    return r == nullptr || !r->predicted ? "—" : fixed(*r->predicted, 3);
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string>, const Row*> index_;
};

// The reference key the evaluators look splits up by (schema::divergence::split_params), from the
// trip counts and residency as the rows' parameters spell them.
std::string split(long long k, const std::string& if_trips, const std::string& else_trips,
                  const std::string& warps) {
  return schema::divergence::split_params(k, std::stoll(if_trips), std::stoll(else_trips),
                                          std::stoll(warps));
}

}  // namespace

std::string divergence_summary_markdown(const EvaluatedRun& er) {
  const RowIndex idx(er.rows);
  // The sweep's trip counts and residencies, read from the rows themselves.
  std::string equal_trips;
  std::string short_trips;
  std::set<long long> residencies;
  std::set<long long> path_counts;
  std::set<long long> leaf_counts;
  long long nested_full = 0;  // the nested ifs' full residency as the run planned it from its device
  for (const Row& r : er.rows) {
    if (r.family != schema::divergence::kFamily || r.metric != "warp_cycles") continue;
    const Params p = parse_key_values(r.params);
    if (r.benchmark == schema::divergence::benchmark::kSplitLow && p.count(schema::divergence::param::kIfTrips)) {
      if (p.at(schema::divergence::param::kIfTrips) == p.at(schema::divergence::param::kElseTrips)) {
        equal_trips = p.at(schema::divergence::param::kIfTrips);
        if (p.at(schema::divergence::param::kSplitK) == "16") residencies.insert(std::stoll(p.at(schema::divergence::param::kWarpsPerSm)));
      } else if (p.at(schema::divergence::param::kElseTrips) != "0") {
        short_trips = p.at(schema::divergence::param::kElseTrips);
      }
    }
    if (r.benchmark == schema::divergence::benchmark::kSwitch && p.count(schema::divergence::param::kFirstPath) && p.at(schema::divergence::param::kFirstPath) == "0" &&
        p.at(schema::divergence::param::kWarpsPerSm) == "4") {
      path_counts.insert(std::stoll(p.at(schema::divergence::param::kPaths)));
    }
    if (r.benchmark == schema::divergence::benchmark::kNested) {
      leaf_counts.insert(std::stoll(p.at(schema::divergence::param::kLeaves)));
      nested_full = std::max(nested_full, std::stoll(p.at(schema::divergence::param::kWarpsPerSm)));
    }
  }
  if (equal_trips.empty()) return {};

  std::string md = "\n### Divergence: the split sweep, one warp per scheduler (4 warps/SM)\n\n";
  md += "Per-warp slowdown = a warp's median cycles in the branch region over the all-if warp's; "
        "grid = CUDA-event time over the all-if grid's. Bodies of " + equal_trips +
        " trips of 64 dependent FMAs";
  md += short_trips.empty() ? ".\n\n" : "; the unequal sweep's else side has " + short_trips + ".\n\n";
  md += "| k (if lanes) | low | interleaved | random | model | grid (low) | grid model: fixed part + "
        "populated regions |";
  if (!short_trips.empty()) md += " T_if = 4 T_else | model |";
  md += "\n|---|---|---|---|---|---|---|" + std::string(short_trips.empty() ? "" : "---|---|") + "\n";
  for (long long k = 0; k <= 32; ++k) {
    const std::string eq = split(k, equal_trips, equal_trips, "4");
    const bool ref = k == 32;
    md += "| " + std::to_string(k) + " | ";
    if (ref) {
      md += "1 (reference) | 1 (reference) | 1 (reference) | 1 | 1 (reference) | 1 |";
    } else {
      md += idx.cell("split_low", eq, "warp_slowdown") + " | " +
            idx.cell("split_interleaved", eq, "warp_slowdown") + " | " +
            idx.cell("split_random", eq, "warp_slowdown") + " | " +
            idx.predicted("split_low", eq, "warp_slowdown") + " | " +
            idx.cell("split_low", eq, "grid_slowdown", false) + " | " +
            idx.predicted("split_low", eq, "grid_slowdown_fixed_cost") + " |";
    }
    if (!short_trips.empty()) {
      const std::string un = split(k, equal_trips, short_trips, "4");
      if (k == 0 || ref) {
        md += " " + std::string(ref ? "1 (T_if)" : "T_else") + " | — |";
      } else {
        md += " " + idx.cell("split_low", un, "warp_slowdown") + " | " +
              idx.predicted("split_low", un, "warp_slowdown") + " |";
      }
    }
    md += "\n";
  }

  if (!path_counts.empty()) {
    md += "\n### Divergence: k-way switch, one warp per scheduler\n\n";
    md += "| paths | per warp | model: paths | model: sum of each case alone | grid | grid model: "
          "fixed part + populated regions |\n|---|---|---|---|---|---|\n";
    for (const long long n : path_counts) {
      const std::string p = "paths=" + std::to_string(n) + ";first_path=0;trips=" + equal_trips +
                            ";warps_per_sm=4";
      if (n == 1) {
        md += "| 1 | 1 (reference) | 1 | 1 | 1 (reference) | 1 |\n";
        continue;
      }
      md += "| " + std::to_string(n) + " | " + idx.cell("switch", p, "warp_slowdown") + " | " +
            idx.predicted("switch", p, "warp_slowdown") + " | " +
            idx.predicted("switch", p, "warp_slowdown_measured_paths") + " | " +
            idx.cell("switch", p, "grid_slowdown", false) + " | " +
            idx.predicted("switch", p, "grid_slowdown_fixed_cost") + " |\n";
    }
  }

  if (!leaf_counts.empty()) {
    md += "\n### Divergence: two-level nested if\n\n";
    const std::string full = std::to_string(nested_full);
    md += "| populated leaves | per warp, 4 warps/SM | grid, 4 warps/SM | per warp, " + full + " warps/SM | "
          "grid, " + full + " warps/SM | model |\n|---|---|---|---|---|---|\n";
    for (const long long n : leaf_counts) {
      if (n == 1) continue;
      auto p = [&](const char* warps) {
        return "leaves=" + std::to_string(n) + ";trips=" + equal_trips + ";warps_per_sm=" + warps;
      };
      md += "| " + std::to_string(n) + " | " + idx.cell("nested", p("4"), "warp_slowdown") + " | " +
            idx.cell("nested", p("4"), "grid_slowdown", false) + " | " +
            idx.cell("nested", p(full.c_str()), "warp_slowdown") + " | " +
            idx.cell("nested", p(full.c_str()), "grid_slowdown") + " | " + std::to_string(n) + " |\n";
    }
  }

  if (!residencies.empty()) {
    md += "\n### Divergence: a 16/16 split at every residency\n\n";
    md += "Which measure the model describes depends on whether the schedulers have idle issue "
          "slots. The uniform warps' p10..p90 cycles show when a warp's own cycles start to "
          "include its neighbours'.\n\n";
    md += "| warps/SM | per scheduler | per warp | grid | grid model: fixed part + populated "
          "regions | uniform warps p10..p90 (cycles) | warp-uniform control, grid |\n"
          "|---|---|---|---|---|---|---|\n";
    const long long schedulers = detail::arch_of(er.run).schedulers_per_sm;
    for (const long long w : residencies) {
      const std::string ws = std::to_string(w);
      const std::string half = split(16, equal_trips, equal_trips, ws);
      const std::string uniform = split(32, equal_trips, equal_trips, ws);
      const Row* p10 = idx.find("split_low", uniform, "warp_cycles_p10");
      const Row* p90 = idx.find("split_low", uniform, "warp_cycles_p90");
      const std::string spread = p10 != nullptr && p90 != nullptr
                                     ? fixed(p10->value, 0) + ".." + fixed(p90->value, 0)
                                     : "—";
      md += "| " + ws + " | " + std::to_string(w / schedulers) + " | " +
            idx.cell("split_low", half, "warp_slowdown") + " | " +
            idx.cell("split_low", half, "grid_slowdown") + " | " +
            idx.predicted("split_low", half, "grid_slowdown_fixed_cost") + " | " + spread + " | " +
            idx.cell("warp_uniform",
                     "if_trips=" + equal_trips + ";else_trips=" + equal_trips + ";warps_per_sm=" + ws,
                     "grid_slowdown") +
            " |\n";
    }
  }
  return md;
}

}  // namespace warpcost::analysis::divergence
