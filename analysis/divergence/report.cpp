// The divergence family's summary tables: the split sweep, the k-way switch, the nested if and the
// residency sweep, each a grid of slowdowns beside the model, built from the evaluated rows; and its
// sentences: each reason its evaluator gives (analysis/reason.hpp) as the why of its row.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
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

// Seconds as microseconds to one decimal: "12.3 us".
std::string us(double seconds) { return fixed(seconds * 1e6, 1) + " us"; }

// A whole number the evaluator stored as a double (a count, a parameter), as std::to_string writes it.
std::string count(const Reason& r, const std::string& key) { return std::to_string(std::llround(r.n(key))); }

// After a judged sentence whose model missed: ", x% past the tolerance, ...: too noisy to decide"
// where the miss lies within the statistic's uncertainty (detail::noise_note), else "".
std::string miss_note(const Reason& r) {
  return r.f("holds") ? "" : detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma"));
}

// What every sentence about a benchmark point starts with: the point and its residency.
std::string subject(const Reason& r) {
  const std::string residency =
      count(r, "warps_per_sm") + " warps/SM (" + count(r, "warps_per_scheduler") + " per scheduler)";
  const std::string& point = r.t("point");
  if (point == "split") return "k = " + count(r, "k") + " of 32 (" + r.t("pattern") + "), " + residency + ": ";
  if (point == "warp_uniform") {
    return "warp-uniform control (even warps if, odd warps else), " + residency + ": ";
  }
  if (point == "switch" || point == "nested") {
    return count(r, "paths") + (point == "switch" ? " switch paths" : " nested-if leaves") +
           (std::llround(r.n("first_path")) != 0 ? " from path " + count(r, "first_path") : std::string()) + " of " +
           count(r, "trips") + " trips, " + residency + ": ";
  }
  throw std::logic_error("divergence reason '" + r.code + "' names no point it knows ('" + point + "')");
}

// The configuration a counter row's sentence names (DivergenceShape in the evaluator).
std::string shape(const Reason& r) {
  const std::string& s = r.t("shape");
  if (s == "path_cost") return "every lane on the first path (a parameter point of the second-order model)";
  if (s == "split") {
    return "k = " + count(r, "if_lanes") + " lanes x " + count(r, "if_trips") + " trips and " + count(r, "else_lanes") +
           " x " + count(r, "else_trips");
  }
  if (s == "warp_uniform") return "warp-uniform: each warp on one side";
  if (s == "one_side") return "one side populated";
  if (s == "switch") return count(r, "populated") + " equal switch paths";
  if (s == "nested") return count(r, "populated") + " equal leaves";
  throw std::logic_error("divergence reason '" + r.code + "' names no shape it knows ('" + s + "')");
}

}  // namespace

std::string render(const Reason& r) {
  const std::string s = r.sentence();
  if (s == "warp_cycles") {
    return subject(r) + "median over " + fixed(r.n("warps"), 0) + " warps; p10..p90 " + fixed(r.n("p10"), 0) + ".." +
           fixed(r.n("p90"), 0) +
           (r.f("has_region_span") ? "; the region spanned " + us(r.n("region_span_seconds")) + " of the grid"
                                   : std::string());
  }
  if (s == "warp_cycles_quantile") return subject(r) + r.t("quantile") + " of the warps' cycles in the branch region";
  if (s == "resident_warps_per_sm") {
    return subject(r) + "every one of " + fixed(r.n("sms"), 0) + " SMs ran " +
           (r.f("exact") ? fixed(r.n("most"), 0) + " warps"
                         : fixed(r.n("fewest"), 0) + ".." + fixed(r.n("most"), 0) + " warps, not " +
                               count(r, "requested"));
  }
  if (s == "uniform_reference") {
    return subject(r) + "the uniform reference: every lane on one path, " + fixed(r.n("cycles"), 0) +
           " cycles a warp for " + count(r, "trips") + " trips of its dependent FMA loop";
  }
  if (s == "warp_slowdown") {
    std::string why = subject(r) + "a warp took " + fixed(r.n("cycles"), 0) + " cycles, the uniform warp " +
                      fixed(r.n("uniform_cycles"), 0) + ": " + fixed(r.n("measured"), 3) + "x against " +
                      fixed(r.n("model"), 3) + "x" + miss_note(r);
    if (!r.f("holds") && r.f("uniform_warps_contend")) {
      why += "; the uniform warps alone spread " + fixed(r.n("p10"), 0) + ".." + fixed(r.n("p90"), 0) +
             " cycles (p10..p90 here): with several warps per scheduler a warp's cycles include "
             "the issue slots it waited for while the others ran, so they stop measuring its "
             "own paths; the grid time is the measure at this residency";
    }
    return why;
  }
  if (s == "grid_slowdown") {
    std::string why = subject(r) + "the grid took " + us(r.n("seconds")) + ", the uniform grid " +
                      us(r.n("uniform_seconds")) + ": " + fixed(r.n("measured"), 3) + "x against " +
                      fixed(r.n("model"), 3) + "x" + miss_note(r);
    if (!r.f("holds")) {
      if (r.f("warp_holds")) why += "; the per-warp model holds (warp_slowdown)";
      if (r.f("has_fixed_part")) {
        why += "; " + us(r.n("fixed_part_seconds")) +
               " of the uniform grid lie outside the branch region (launch, "
               "prologue, stores: grid time minus the region's span), and divergence does not "
               "multiply them (grid_slowdown_fixed_cost)";
      }
    }
    return why;
  }
  if (s == "grid_slowdown_fixed_cost") {
    return subject(r) + us(r.n("fixed_part_seconds")) + " fixed + " + us(r.n("populated_spans_seconds")) +
           " of populated paths' regions = " + us(r.n("predicted_seconds")) + "; measured " + us(r.n("seconds")) +
           miss_note(r);
  }
  if (s == "second_order_grid_slowdown") {
    return subject(r) + fixed(r.n("trips_cfg"), 0) + " trips a warp against " + fixed(r.n("trips_ref"), 0) +
           "; F = " + us(r.n("fixed_seconds")) + ", t = " + fixed(r.n("seconds_per_trip") * 1e9, 2) +
           " ns a trip (" + r.t("parameter_benchmark") + " " + r.t("parameter_points") + "): predicted " +
           fixed(r.n("predicted"), 3) + "x, measured " + fixed(r.n("measured"), 3) + "x" + miss_note(r);
  }
  if (s == "side_warp_slowdown") {
    return subject(r) + "the " + r.t("side") + " warps took " + fixed(r.n("cycles"), 0) + " cycles, the all-" +
           r.t("side") + " grid's warps " + fixed(r.n("uniform_cycles"), 0) + miss_note(r);
  }
  if (s == "unequal_sides_grid_slowdown") {
    return subject(r) + "the grid took " + fixed(r.n("measured"), 3) +
           "x the all-if grid. A grid whose warps all run at once waits for its slowest warp (1.000x); an SM "
           "whose schedulers are saturated issues the mix of both kinds (" + fixed(r.n("mix"), 3) + "x)";
  }
  if (s == "path_cost_vs_first_path") {
    return subject(r) + "case " + count(r, "first_path") + " alone took " + fixed(r.n("cycles"), 0) +
           " cycles a warp, case 0 alone " + fixed(r.n("first_path_cycles"), 0) +
           (r.f("holds") ? ""
                         : ": the same instructions cost differently at another place in the binary" + miss_note(r));
  }
  if (s == "warp_slowdown_measured_paths") {
    return subject(r) + "the cases alone sum to " + fixed(r.n("cases_cycles"), 0) +
           " cycles; the divergent warp took " + fixed(r.n("cycles"), 0) + miss_note(r);
  }
  if (s == "lanes_per_instruction") {
    return shape(r) + ": " + fixed(r.n("lanes"), 3) + " lanes on per instruction, the model " +
           fixed(r.n("model_lanes"), 3);
  }
  if (s == "divergent_branch_targets_per_warp") {
    return shape(r) + ": " + fixed(r.n("divergent_targets"), 0) + " divergent targets over " + fixed(r.n("warps"), 0) +
           " warps, " + fixed(r.n("one_path_divergent_targets"), 0) +
           " in the one-path run (each warp's lane-0 record and each block's clock sample)";
  }
  throw std::logic_error("divergence renders no reason '" + r.code + "'");
}

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
