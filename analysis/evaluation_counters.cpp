// The counter pass's values beside the timings: every Nsight Compute metric a benchmark carries
// becomes a row under its own name and unit, and the metrics that test a model are held against it:
// warps launched against ceil(P/32), lanes per instruction against P/ceil(P/32) and against the
// populated paths' lane efficiency, divergent branch targets as the proof a branch is real, achieved
// warps against the requested residency, and DRAM bytes against the bytes a stream reads.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "evaluation_support.hpp"
#include "models.hpp"
#include "result_schema.hpp"

namespace warpcost::analysis {

using detail::base_row;
using detail::iparam;
using detail::find_benchmark;
using detail::with_prediction;

namespace {

constexpr const char* kWarpsLaunched = "smsp__warps_launched.sum";
constexpr const char* kLanes = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
constexpr const char* kWarpsActive = "sm__warps_active.avg.per_cycle_active";
constexpr const char* kDivergent = "smsp__sass_branch_targets_threads_divergent.sum";
constexpr const char* kDramBytes = "dram__bytes_read.sum";
// Instructions outside the modelled region (a warp's lane-0 record, a block's thread-0 clock
// sample, the guard of a grid tail) run at other lane counts; at these sizes they move the ratio by
// at most 0.3 % on the H200.
constexpr double kLaneTolerance = 0.02;
// Achieved warps of a persistent grid: every block starts at once and runs to the end, so only the
// launch's ramp and drain take the average below the requested count.
constexpr double kResidencyTolerance = 0.05;
constexpr double kDramBytesTolerance = 0.02;
constexpr double kSameSlotsTolerance = 0.02;

const char* source_note() { return "CUPTI counter pass, one profiled launch after the timed ones"; }

bool is_ncu_metric(const std::string& name) { return name.find("__") != std::string::npos; }

// "metric=unit;metric=unit" from the run's context; empty for runs before the counter pass.
std::map<std::string, std::string> counter_units(const Run& run) {
  const auto it = run.context.values.find(schema::key::kCounterUnits);
  return it == run.context.values.end() ? std::map<std::string, std::string>{}
                                        : parse_key_values(it->second);
}

Row counter_row(const BenchmarkResult& b, const std::string& metric, const std::string& unit) {
  Row r = base_row(b);
  r.metric = metric;
  r.value = b.counter_median(metric);
  r.unit = unit;
  return r;
}

Row relative_check(Row r, const std::string& model, double predicted, double tolerance,
                   const std::string& why) {
  r.model = model;
  r = with_prediction(r, predicted);
  // One profiled launch: no repetitions to call a miss noise, so a miss fails.
  const bool holds = std::fabs(*r.rel_error) <= tolerance;
  r.kind = kind::kModel;
  r.verdict = holds ? verdict::kHolds : verdict::kFails;
  r.why = why + (holds ? "" : "; off by more than " + fixed(100 * tolerance, 0) + "%");
  return r;
}

// ---- partial warps ---------------------------------------------------------------------------

void partial_warp_checks(const Run& run, const BenchmarkResult& b,
                         const std::map<std::string, std::string>& units, std::vector<Row>& rows,
                         std::set<std::string>& done) {
  long long p = 0;      // threads of a block
  double blocks = 1.0;  // blocks launched
  double useful = 0.0;  // threads that do the work
  if (b.benchmark == "schedule") {
    p = model::threads_per_block({iparam(b, "x"), iparam(b, "y"), iparam(b, "z")});
    useful = static_cast<double>(p);
  } else if (b.benchmark == "staircase") {
    p = iparam(b, "threads");
    blocks = b.counter_median("blocks");
    useful = static_cast<double>(p);
  } else if (b.benchmark == "grid_tail") {
    p = iparam(b, "block");
    blocks = b.counter_median("blocks");
    useful = static_cast<double>(iparam(b, "threads"));
  } else {
    return;
  }
  const long long warps = model::warps_per_block(p);
  const std::string tag = "P = " + std::to_string(p) + ": ";

  if (b.has_counter(kWarpsLaunched)) {
    Row r = counter_row(b, kWarpsLaunched, units.count(kWarpsLaunched) ? units.at(kWarpsLaunched) : "");
    r.model = "ceil(P/32) warps a block, x blocks";
    r = with_prediction(r, blocks * static_cast<double>(warps));
    const bool same = r.value == *r.predicted;
    r.kind = kind::kModel;
    r.verdict = same ? verdict::kHolds : verdict::kFails;
    r.why = tag + "the hardware launched " + fixed(r.value, 0) + " warps for " + fixed(blocks, 0) +
            " block(s): " +
            (same ? "ceil(P/32) = " + std::to_string(warps) + " each"
                  : "not ceil(P/32) = " + std::to_string(warps) + " each");
    rows.push_back(r);
    done.insert(kWarpsLaunched);
  }
  if (b.has_counter(kLanes)) {
    // The work's lanes: `useful` threads in ceil(useful/32) warps (a grid tail's warps past the
    // total only run their guard).
    const long long working = b.benchmark == "grid_tail"
                                  ? model::warps_per_block(static_cast<long long>(useful))
                                  : static_cast<long long>(blocks) * warps;
    const double model_lanes =
        useful * (b.benchmark == "grid_tail" ? 1.0 : blocks) / static_cast<double>(working);
    Row r = counter_row(b, kLanes, "lanes");
    r = relative_check(r, "active lanes per warp instruction = P / ceil(P/32)", model_lanes, kLaneTolerance,
                       tag + fixed(r.value, 3) + " lanes on per instruction; " + fixed(useful, 0) +
                           " working threads in " + std::to_string(working) + " warps give " +
                           fixed(model_lanes, 3));
    if (r.verdict == std::string(verdict::kFails) && b.benchmark == "grid_tail") {
      r.why +=
          ": the warps past the total still issue their guard and exit with all lanes on, "
          "which weighs against so few useful lanes";
    }
    rows.push_back(r);
    done.insert(kLanes);
  }
  if (b.benchmark == "staircase" && b.has_counter(kWarpsActive)) {
    const double slots = b.counter_median("blocks_per_sm") * static_cast<double>(warps);
    Row r = counter_row(b, kWarpsActive, units.count(kWarpsActive) ? units.at(kWarpsActive) : "warp");
    r.model = "at most the warp slots the occupancy API reserves: blocks/SM x ceil(P/32)";
    r = with_prediction(r, slots);
    // At most the reserved slots is a bound the hardware cannot break: info.
    r.verdict = verdict::kInfo;
    r.why = tag + "achieved " + fixed(r.value, 1) + " of " + fixed(slots, 0) + " reserved warp slots (" +
            fixed(100 * r.value / slots, 1) +
            "%): 4 full waves, each block's warps start and retire together, so the SM averages "
            "below its reservation between a block's end and the next one's start" +
            (r.value > slots * 1.001 ? "; above the reservation, so the occupancy figure is wrong" : "");
    rows.push_back(r);
    done.insert(kWarpsActive);

    // The note's claim in hardware counts: a 48-thread block holds the warp slots of a 64-thread one.
    if (p % model::kWarpSize != 0) {
      const long long next = model::kWarpSize * warps;
      const BenchmarkResult* whole =
          find_benchmark(run, "partial_warp", "staircase", "threads=" + std::to_string(next));
      if (whole != nullptr && whole->has_counter(kWarpsActive)) {
        Row s = base_row(b);
        s.metric = "achieved_warps_vs_whole_warp_block";
        s.value = r.value / whole->counter_median(kWarpsActive);
        s.unit = "ratio";
        s = relative_check(s,
                           "ceil(P/32): a partial warp holds a whole warp slot, so P and 32 ceil(P/32) "
                           "threads achieve the same warps",
                           1.0, kSameSlotsTolerance,
                           tag + fixed(r.value, 2) + " achieved warps/SM against " +
                               fixed(whole->counter_median(kWarpsActive), 2) +
                               " at P = " + std::to_string(next));
        rows.push_back(s);
      }
    }
  }
}

// ---- divergence ------------------------------------------------------------------------------

struct DivergenceShape {
  double lanes = 32.0;    // predicted active lanes per instruction of the branch region
  int populated = 1;      // paths with at least one lane
  std::string reference;  // the same kernel's one-path benchmark: "benchmark|params"
  std::string text;
};

DivergenceShape divergence_shape(const BenchmarkResult& b) {
  DivergenceShape s;
  const std::string warps = ";warps_per_sm=" + std::to_string(iparam(b, "warps_per_sm"));
  if (b.benchmark.rfind("split_", 0) == 0 || b.benchmark == "warp_uniform") {
    const long long if_trips = iparam(b, "if_trips");
    const long long else_trips = iparam(b, "else_trips");
    const long long k = b.benchmark == "warp_uniform" ? 0 : iparam(b, "k");
    const std::string trips =
        ";if_trips=" + std::to_string(if_trips) + ";else_trips=" + std::to_string(else_trips);
    s.reference =
        (b.benchmark == "warp_uniform" ? std::string("split_low") : b.benchmark) + "|k=0" + trips + warps;
    if (k > 0 && k < model::kWarpSize) {
      const std::vector<model::BranchPath> paths = {
          {static_cast<int>(k), static_cast<double>(if_trips)},
          {static_cast<int>(model::kWarpSize - k), static_cast<double>(else_trips)}};
      s.lanes = model::kWarpSize * model::predicted_lane_efficiency(paths);
      s.populated = 2;
      s.text = "k = " + std::to_string(k) + " lanes x " + std::to_string(if_trips) + " trips and " +
               std::to_string(model::kWarpSize - k) + " x " + std::to_string(else_trips);
    } else {
      s.text = b.benchmark == "warp_uniform" ? "warp-uniform: each warp on one side" : "one side populated";
    }
    return s;
  }
  const bool is_switch = b.benchmark == "switch";
  const long long n = iparam(b, is_switch ? "paths" : "leaves");
  const std::string trips = ";trips=" + std::to_string(iparam(b, "trips"));
  s.reference = b.benchmark + (is_switch ? "|paths=1;first_path=0" : "|leaves=1") + trips + warps;
  // Equal paths: sum over paths of lanes x T over n T is 32/n however the lanes are spread.
  s.populated = static_cast<int>(std::min<long long>(n, model::kWarpSize));
  s.lanes = static_cast<double>(model::kWarpSize) / s.populated;
  s.text = std::to_string(s.populated) + (is_switch ? " equal switch paths" : " equal leaves");
  return s;
}

void divergence_checks(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows,
                       std::set<std::string>& done) {
  const DivergenceShape s = divergence_shape(b);
  if (b.has_counter(kLanes)) {
    Row r = counter_row(b, kLanes, "lanes");
    r = relative_check(
        r, "32 x lane efficiency = sum of lanes_p x cost_p / sum of cost_p (populated paths)", s.lanes,
        kLaneTolerance,
        s.text + ": " + fixed(r.value, 3) + " lanes on per instruction, the model " + fixed(s.lanes, 3));
    rows.push_back(r);
    done.insert(kLanes);
  }
  if (!b.has_counter(kDivergent) || !b.has_counter(kWarpsLaunched)) return;
  const auto bar = s.reference.find('|');
  const BenchmarkResult* ref =
      find_benchmark(run, "divergence", s.reference.substr(0, bar), s.reference.substr(bar + 1));
  // The one-path run itself would be held against itself: no row, it cannot fail.
  if (ref == nullptr || ref == &b || !ref->has_counter(kDivergent)) return;
  const double warps = b.counter_median(kWarpsLaunched);
  Row r = base_row(b);
  r.metric = "divergent_branch_targets_per_warp";
  r.value = (b.counter_median(kDivergent) - ref->counter_median(kDivergent)) / warps;
  r.unit = "per warp";
  r.model =
      "populated paths - 1 divergent branch targets a warp beyond the same kernel's one-path "
      "run: each path after the first is a target the warp's lanes split to (> 0: the branch "
      "is real)";
  r = with_prediction(r, static_cast<double>(s.populated - 1));
  const bool holds = std::fabs(r.value - *r.predicted) < 1e-9;
  r.kind = kind::kModel;
  r.verdict = holds ? verdict::kHolds : verdict::kFails;
  r.why = s.text + ": " + fixed(b.counter_median(kDivergent), 0) + " divergent targets over " +
          fixed(warps, 0) + " warps, " + fixed(ref->counter_median(kDivergent), 0) +
          " in the one-path run (each warp's lane-0 record and each block's clock sample)";
  rows.push_back(r);
}

// ---- streaming -------------------------------------------------------------------------------

void streaming_checks(const Run& run, const BenchmarkResult& b,
                      const std::map<std::string, std::string>& units, std::vector<Row>& rows,
                      std::set<std::string>& done) {
  if (b.has_counter(kWarpsActive)) {
    Row r = counter_row(b, kWarpsActive, units.count(kWarpsActive) ? units.at(kWarpsActive) : "warp");
    if (b.has_param("warps_per_sm")) {
      const double requested = b.param("warps_per_sm");
      r = relative_check(r, "the requested residency: a persistent grid holds warps/SM from start to end",
                         requested, kResidencyTolerance,
                         fixed(requested, 0) + " warps/SM requested, " + fixed(r.value, 2) +
                             " active on average (the ramp and drain lower it)");
    } else if (b.has_counter("resident_warps_per_sm")) {
      const double theoretical = b.counter_median("resident_warps_per_sm");
      r.model = "the occupancy API's resident warps/SM for the block size";
      r = with_prediction(r, theoretical);
      r.verdict = verdict::kInfo;
      r.why = fixed(r.value, 1) + " of " + fixed(theoretical, 0) + " warps/SM achieved (" +
              fixed(100 * r.value / theoretical, 0) +
              "%): one load a thread, so blocks retire and new ones launch all the time";
    } else {
      // read_peak: a grid that covers the buffer once, no residency requested, so no model.
      r.verdict = verdict::kInfo;
      r.why = fixed(r.value, 1) + " warps/SM active on average; no residency was requested";
    }
    rows.push_back(r);
    done.insert(kWarpsActive);
  }
  if (b.has_counter(kDramBytes) && b.has_counter("bytes_read")) {
    Row r = counter_row(b, kDramBytes, units.count(kDramBytes) ? units.at(kDramBytes) : "byte");
    const double expected = b.counter_median("bytes_read");
    r = relative_check(
        r, "the bytes the kernel reads (the buffer, 8x the L2 or more)", expected, kDramBytesTolerance,
        fixed(r.value / 1e9, 4) + " GB from DRAM for " + fixed(expected / 1e9, 4) + " GB read");
    rows.push_back(r);
    done.insert(kDramBytes);

    Row t = base_row(b);
    t.metric = "dram_read_pct_of_theoretical_peak";
    const double peak = detail::dram_peak(run);
    t.value = 100.0 * r.value / b.median_seconds() / peak;
    t.unit = "%";
    t.verdict = verdict::kInfo;
    t.why = "counted DRAM bytes over the median event-timed launch, against the theoretical peak " +
            fixed(peak / 1e12, 3) +
            " TB/s (CUPTI's elapsed-based throughput spans the range's launch "
            "and sync, so it is not used)";
    rows.push_back(t);
  }
}

}  // namespace

void evaluate_counters(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  std::vector<std::string> metrics;
  for (const auto& [name, values] : b.counters) {
    if (is_ncu_metric(name) && !values.empty()) metrics.push_back(name);
  }
  if (metrics.empty()) return;
  const auto units = counter_units(run);
  std::set<std::string> done;
  if (b.family == "partial_warp") partial_warp_checks(run, b, units, rows, done);
  if (b.family == "divergence") divergence_checks(run, b, rows, done);
  if (b.family == "streaming") streaming_checks(run, b, units, rows, done);
  for (const auto& m : metrics) {
    if (done.count(m) != 0) continue;
    Row r = counter_row(b, m, units.count(m) ? units.at(m) : "");
    r.verdict = verdict::kInfo;
    r.why = source_note();
    rows.push_back(r);
  }
}

}  // namespace warpcost::analysis
