#include "analysis/warp_primitives/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/text_format.hpp"
#include "analysis/evaluation_support.hpp"
#include "analysis/tidy_csv.hpp"
#include "core/warp_primitives/model.hpp"
#include "core/warp_primitives/schema.hpp"

namespace warpcost::analysis {

namespace wp = warpcost::warp_primitives;
namespace tol = warp_primitives_tolerance;

namespace {

int iparam(const BenchmarkResult& b, const char* key) { return static_cast<int>(std::lround(b.param(key))); }

std::string latency_params(int primitive, int lanes, int mask) {
  return std::string(wp::param::kPrimitive) + "=" + std::to_string(primitive) + ";" + wp::param::kActiveLanes + "=" +
         std::to_string(lanes) + ";" + wp::param::kMask + "=" + std::to_string(mask);
}

std::string throughput_params(int primitive, int warps, int lanes, int mask) {
  return std::string(wp::param::kPrimitive) + "=" + std::to_string(primitive) + ";" + wp::param::kWarpsPerSm + "=" +
         std::to_string(warps) + ";" + wp::param::kActiveLanes + "=" + std::to_string(lanes) + ";" + wp::param::kMask +
         "=" + std::to_string(mask);
}

const BenchmarkResult* find(const Run& run, const char* benchmark, const std::string& params) {
  return detail::find_benchmark(run, wp::kFamily, benchmark, params);
}

// A usable statistic: the point has the counter and it is positive.
bool has_positive(const BenchmarkResult* b, const char* counter) {
  return b != nullptr && b->has_counter(counter) && b->counter_median(counter) > 0;
}

Row row_of(const BenchmarkResult& b, const char* metric, double value, const char* unit) {
  Row r = detail::base_row(b);
  r.metric = metric;
  r.value = value;
  r.unit = unit;
  return r;
}

// The uncertainty of a ratio of two medians: their relative uncertainties in quadrature.
double ratio_sigma(const BenchmarkResult& a, const BenchmarkResult& b, const char* counter) {
  return std::hypot(counter_uncertainty(a, counter), counter_uncertainty(b, counter));
}

std::string name_of(int primitive) {
  return wp::is_primitive_id(primitive) ? wp::info(static_cast<wp::Primitive>(primitive)).name
                                        : "primitive " + std::to_string(primitive);
}

// A reason naming a point's primitive and, where its sentence shows them, its active lanes and
// mask shape (texts primitive, numbers lanes and mask).
Reason point_reason(const char* sentence, int primitive) {
  return Reason(std::string("warp_primitives/") + sentence).text("primitive", name_of(primitive));
}
Reason point_reason(const char* sentence, int primitive, int lanes, int mask) {
  return point_reason(sentence, primitive).number("lanes", lanes).number("mask", mask);
}

// A check's relative error and the noise that may leave it undecided (detail::noise_note).
void add_miss(Reason& r, double rel_error, double tolerance, double sigma) {
  r.number("rel_error", rel_error).number("miss", std::fabs(rel_error)).number("tolerance", tolerance).number("sigma", sigma);
}

int cc_of(const Run& run) {
  const std::string& cc = run.context.text(schema::key::kCc);
  const auto dot = cc.find('.');
  return 10 * std::stoi(cc.substr(0, dot)) + (dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1)));
}

int warps_cap_of(const Run& run, const BenchmarkResult& b) {
  if (b.has_counter(wp::work::kResidentWarpsCap)) return static_cast<int>(std::lround(b.counter_median(wp::work::kResidentWarpsCap)));
  return static_cast<int>(std::lround(run.context.number(schema::key::kMaxWarpsPerSm)));
}

void latency_rows(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (!b.has_counter(wp::work::kCyclesPerOp)) return;
  const int p = iparam(b, wp::param::kPrimitive);
  const int lanes = iparam(b, wp::param::kActiveLanes);
  const int mask = iparam(b, wp::param::kMask);
  const double cycles = b.counter_median(wp::work::kCyclesPerOp);
  Row lat = row_of(b, wp::row::kLatency, cycles, "cycles");
  lat.verdict = verdict::kInfo;
  const bool dependent = wp::is_primitive_id(p) && wp::info(static_cast<wp::Primitive>(p)).data_dependent;
  lat.reason = point_reason("latency", p, lanes, mask).flag("data_dependent", dependent);
  rows.push_back(lat);
  if (lanes == wp::kWarpSize && mask == static_cast<int>(wp::MaskShape::kContiguous)) return;

  const BenchmarkResult* ref = find(run, wp::bench::kLatency, latency_params(p, wp::kWarpSize, 0));
  if (mask == static_cast<int>(wp::MaskShape::kDivergent)) {
    Row d = row_of(b, wp::row::kDivergentSides, has_positive(ref, wp::work::kCyclesPerOp) ? cycles / ref->counter_median(wp::work::kCyclesPerOp) : 0.0, "ratio");
    d.verdict = verdict::kInfo;
    d.model = "serialized sides: 2; interleaved sides: 1";
    d.reason = has_positive(ref, wp::work::kCyclesPerOp) ? Reason("warp_primitives/divergent_sides")
                                                         : point_reason("divergent_sides_no_reference", p);
    rows.push_back(d);
    return;
  }
  Row g = row_of(b, wp::row::kGranularityLatency, cycles, "cycles");
  g.model = "warp granularity: the 32-lane contiguous latency of the same primitive";
  if (!has_positive(ref, wp::work::kCyclesPerOp)) {
    g.verdict = verdict::kInfo;
    g.reason = point_reason("granularity_latency_no_reference", p);
    rows.push_back(g);
    return;
  }
  g = detail::with_prediction(g, ref->counter_median(wp::work::kCyclesPerOp));
  detail::judge(g, std::fabs(*g.rel_error), tol::kGranularityLatency, ratio_sigma(b, *ref, wp::work::kCyclesPerOp));
  g.reason = point_reason("granularity_latency", p, lanes, mask).flag("holds", g.verdict == verdict::kHolds);
  add_miss(g.reason, *g.rel_error, tol::kGranularityLatency, ratio_sigma(b, *ref, wp::work::kCyclesPerOp));
  rows.push_back(g);
}

void throughput_rows(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (!b.has_counter(wp::work::kOpsPerCycleSm)) return;
  const int p = iparam(b, wp::param::kPrimitive);
  const int warps = iparam(b, wp::param::kWarpsPerSm);
  const int lanes = iparam(b, wp::param::kActiveLanes);
  const int mask = iparam(b, wp::param::kMask);
  const double thr = b.counter_median(wp::work::kOpsPerCycleSm);
  Row t = row_of(b, wp::row::kThroughput, thr, "warp-ops/cycle/SM");
  t.verdict = verdict::kInfo;
  t.reason = point_reason("throughput", p, lanes, mask).number("warps_per_sm", warps);
  rows.push_back(t);

  if (lanes != wp::kWarpSize || mask != 0) {
    const BenchmarkResult* ref = find(run, wp::bench::kThroughput, throughput_params(p, warps, wp::kWarpSize, 0));
    Row g = row_of(b, wp::row::kGranularityThroughput, thr, "warp-ops/cycle/SM");
    g.model = "warp granularity: the 32-lane contiguous throughput at the same warps/SM";
    if (!has_positive(ref, wp::work::kOpsPerCycleSm)) {
      g.verdict = verdict::kInfo;
      g.reason = point_reason("granularity_throughput_no_reference", p).number("warps_per_sm", warps);
    } else {
      g = detail::with_prediction(g, ref->counter_median(wp::work::kOpsPerCycleSm));
      const double sigma = ratio_sigma(b, *ref, wp::work::kOpsPerCycleSm);
      detail::judge(g, std::fabs(*g.rel_error), tol::kGranularityThroughput, sigma);
      g.reason = point_reason("granularity_throughput", p, lanes, mask);
      add_miss(g.reason, *g.rel_error, tol::kGranularityThroughput, sigma);
    }
    rows.push_back(g);
    return;
  }
  if (!wp::is_primitive_id(p)) return;
  const wp::PrimitiveInfo& pi = wp::info(static_cast<wp::Primitive>(p));
  if (!(pi.shuffle32 || pi.shuffle64) || warps != warps_cap_of(run, b)) return;
  Row g = row_of(b, wp::row::kTableThroughput, thr, "warp-ops/cycle/SM");
  g.model = "Programming Guide table: 32 results/clock/SM (cc 9.0) = 1 SHFL/clock/SM, / SHFLs an op";
  const std::optional<double> predicted = wp::guide_shuffle_ops_per_cycle(cc_of(run), pi.sass_per_op);
  if (!predicted) {
    g.verdict = verdict::kUntestable;
    g.kind = kind::kModel;
    g.reason = Reason("warp_primitives/guide_table_undeclared").text("cc", run.context.text(schema::key::kCc));
    rows.push_back(g);
    return;
  }
  g = detail::with_prediction(g, *predicted);
  const double sigma = counter_uncertainty(b, wp::work::kOpsPerCycleSm);
  detail::judge(g, std::fabs(*g.rel_error), tol::kGuideTable, sigma);
  g.reason = point_reason("guide_table", p).number("warps_per_sm", warps).number("shfl_per_op", pi.sass_per_op);
  add_miss(g.reason, *g.rel_error, tol::kGuideTable, sigma);
  rows.push_back(g);
}

double latency_of(const Run& run, wp::Primitive p, const BenchmarkResult** point) {
  *point = find(run, wp::bench::kLatency, latency_params(static_cast<int>(p), wp::kWarpSize, 0));
  return has_positive(*point, wp::work::kCyclesPerOp) ? (*point)->counter_median(wp::work::kCyclesPerOp) : 0.0;
}

void composition_rows(const Run& run, std::vector<Row>& rows) {
  const BenchmarkResult *bfly = nullptr, *shfl = nullptr, *alu = nullptr, *redux = nullptr;
  const double l_bfly = latency_of(run, wp::Primitive::kSumButterfly, &bfly);
  const double l_shfl = latency_of(run, wp::Primitive::kShflXor32, &shfl);
  const double l_alu = latency_of(run, wp::Primitive::kAlu, &alu);
  const double l_redux = latency_of(run, wp::Primitive::kReduceAdd, &redux);
  if (l_bfly > 0) {
    Row c = row_of(*bfly, wp::row::kComposition, l_bfly, "cycles");
    c.model = "5 x (shfl_xor32 latency + alu_add latency)";
    if (l_shfl > 0 && l_alu > 0) {
      c = detail::with_prediction(c, wp::butterfly_latency(l_shfl, l_alu));
      const double sigma = std::sqrt(std::pow(counter_uncertainty(*bfly, wp::work::kCyclesPerOp), 2) +
                                     std::pow(counter_uncertainty(*shfl, wp::work::kCyclesPerOp), 2) +
                                     std::pow(counter_uncertainty(*alu, wp::work::kCyclesPerOp), 2));
      detail::judge(c, std::fabs(*c.rel_error), tol::kComposition, sigma);
      c.reason = Reason("warp_primitives/composition").number("shuffle_latency", l_shfl).number("alu_latency", l_alu);
      add_miss(c.reason, *c.rel_error, tol::kComposition, sigma);
    } else {
      c.verdict = verdict::kInfo;
      c.reason = Reason("warp_primitives/composition_missing_inputs");
    }
    rows.push_back(c);
  }
  if (l_redux > 0 && l_bfly > 0) {
    Row r = row_of(*redux, wp::row::kReduxVsButterfly, l_redux / l_bfly, "ratio");
    r.verdict = verdict::kInfo;
    r.model = "__reduce_add_sync latency / shuffle-butterfly latency";
    r.reason = Reason("warp_primitives/redux_vs_butterfly");
    rows.push_back(r);
  }
}

void knee_rows(const Run& run, std::vector<Row>& rows) {
  std::map<int, std::vector<const BenchmarkResult*>> sweeps;
  for (const BenchmarkResult& b : run.benchmarks) {
    if (b.family != wp::kFamily || b.benchmark != wp::bench::kThroughput || b.error || b.seconds.empty()) continue;
    if (is_throttled(run, b) || !b.has_counter(wp::work::kOpsPerCycleSm)) continue;
    if (iparam(b, wp::param::kActiveLanes) != wp::kWarpSize || iparam(b, wp::param::kMask) != 0) continue;
    sweeps[iparam(b, wp::param::kPrimitive)].push_back(&b);
  }
  for (const auto& [p, points] : sweeps) {
    if (points.size() < 3) continue;  // a full-residency point alone is no sweep
    std::vector<std::pair<double, double>> curve;
    const BenchmarkResult* best = points.front();
    double min_w = 1e9, max_w = 0;
    for (const BenchmarkResult* b : points) {
      const double w = b->param(wp::param::kWarpsPerSm);
      curve.emplace_back(w, b->counter_median(wp::work::kOpsPerCycleSm));
      if (b->counter_median(wp::work::kOpsPerCycleSm) > best->counter_median(wp::work::kOpsPerCycleSm)) best = b;
      min_w = std::min(min_w, w);
      max_w = std::max(max_w, w);
    }
    const std::optional<double> knee = wp::measured_knee(curve, tol::kKneeFraction);
    const BenchmarkResult* lat_point = nullptr;
    const double lat = p >= 0 && p < wp::kPrimitiveCount ? latency_of(run, static_cast<wp::Primitive>(p), &lat_point) : 0.0;
    Row k = row_of(*best, wp::row::kKnee, knee.value_or(0.0), "warps/SM");
    k.params = std::string(wp::param::kPrimitive) + "=" + std::to_string(p);
    k.model = "Little's law: latency x best throughput / chains a warp";
    if (!knee || lat <= 0 || !best->has_counter(wp::work::kChainsPerWarp)) {
      k.verdict = verdict::kInfo;
      k.reason = point_reason("knee_no_inputs", p);
      rows.push_back(k);
      continue;
    }
    const int chains = static_cast<int>(std::lround(best->counter_median(wp::work::kChainsPerWarp)));
    const double peak = best->counter_median(wp::work::kOpsPerCycleSm);
    const double predicted = wp::little_knee_warps(lat, peak, chains);
    k = detail::with_prediction(k, predicted);
    k.kind = kind::kModel;
    // The prediction's inputs and the measured knee, which both knee sentences start with.
    const Reason inputs = point_reason("knee", p)
                              .number("latency", lat)
                              .number("peak", peak)
                              .number("chains", chains)
                              .number("predicted", predicted)
                              .number("knee_fraction", tol::kKneeFraction)
                              .number("knee", *knee);
    // The knee rule of docs/verdicts.md (issue 21), as the streaming knees: on a curve flat over
    // the sweep's end (the plateau rule, model::measured_knee) every prediction is judged, past the
    // sweep too; on a curve still rising, the measured knee is only a lower bound, so a prediction
    // under it by more than the tolerance fails and any other is untestable here.
    const double miss = std::fabs(std::log2(*knee / std::max(predicted, min_w)));
    const bool flat = model::measured_knee(curve, tol::kKneeFraction).saturated;
    const bool under = std::log2(*knee / std::max(predicted, min_w)) > tol::kKneeLog2;
    if (flat || under) {
      detail::judge(k, miss, tol::kKneeLog2, 0.0);
      k.reason = Reason(inputs).number("miss", miss).flag("flat", flat);
    } else {
      k.verdict = verdict::kUntestable;
      k.reason = Reason(inputs).number("max_warps_per_sm", max_w);
      k.reason.code = "warp_primitives/knee_untestable";
    }
    rows.push_back(k);
  }
}

// The second-order throughput curve (docs/models.md, "Warp primitives"; ISSUE-33-PRIMITIVES): each
// primitive's full-warp sweep priced from its own chain latency (the latency benchmark) and its pipe
// rate at 64 warps/SM (the declared fit point, info), as a closed queue at the SM's pipe; the knee
// of the predicted curve against the measured knee, on the same swept point.
void second_order_rows(const Run& run, std::vector<Row>& rows) {
  std::map<int, std::vector<const BenchmarkResult*>> sweeps;
  for (const BenchmarkResult& b : run.benchmarks) {
    if (b.family != wp::kFamily || b.benchmark != wp::bench::kThroughput || b.error || b.seconds.empty()) continue;
    if (!b.has_counter(wp::work::kOpsPerCycleSm) || !b.has_counter(wp::work::kChainsPerWarp)) continue;
    if (iparam(b, wp::param::kActiveLanes) != wp::kWarpSize || iparam(b, wp::param::kMask) != 0) continue;
    sweeps[iparam(b, wp::param::kPrimitive)].push_back(&b);
  }
  for (auto& [p, points] : sweeps) {
    if (points.size() < 3 || p < 0 || p >= wp::kPrimitiveCount) continue;
    std::sort(points.begin(), points.end(), [](const BenchmarkResult* a, const BenchmarkResult* b) {
      return a->param(wp::param::kWarpsPerSm) < b->param(wp::param::kWarpsPerSm);
    });
    const BenchmarkResult* fit = points.back();
    const BenchmarkResult* lat_point = nullptr;
    const double lat = latency_of(run, static_cast<wp::Primitive>(p), &lat_point);
    if (lat <= 0 || iparam(*fit, wp::param::kWarpsPerSm) != tol::kSecondOrderFitWarps || is_throttled(run, *fit)) continue;
    const double pipe = fit->counter_median(wp::work::kOpsPerCycleSm);
    if (!(pipe > 0)) continue;
    std::vector<std::pair<double, double>> measured;
    std::vector<std::pair<double, double>> predicted;
    for (const BenchmarkResult* b : points) {
      const int warps = iparam(*b, wp::param::kWarpsPerSm);
      const int chains = static_cast<int>(std::lround(b->counter_median(wp::work::kChainsPerWarp)));
      const double value = b->counter_median(wp::work::kOpsPerCycleSm);
      // ISSUE-33-PRIMITIVES-SERIAL: chains that serialise at a __syncwarp wait c x L an iteration.
      const bool serial = wp::chains_serialise(static_cast<wp::Primitive>(p));
      const double pred = wp::second_order_throughput(warps, chains, serial ? chains * lat : lat, pipe);
      measured.emplace_back(warps, value);
      predicted.emplace_back(warps, pred);
      Row r = row_of(*b, "second_order_throughput", value, "warp-ops/cycle/SM");
      r.model = std::string(kSecondOrderPrefix) +
                (serial ? "a closed queue of W warps x c chains at the SM's pipe, the chains one after another (__syncwarp): "
                          "c W / T(W), demand c/P, delay max(c L - c/P, 0)"
                        : "a closed queue of W warps x c chains at the SM's pipe: c W / T(W), demand c/P, delay max(L - c/P, 0)");
      r = detail::with_prediction(r, pred);
      // The queue model's inputs and both throughputs, which both sentences start with.
      r.reason = point_reason(b == fit ? "second_order_fit_point" : "second_order_throughput", p)
                     .number("latency", lat)
                     .number("pipe_rate", pipe)
                     .number("chains", chains)
                     .flag("serial_chains", serial)
                     .number("warps_per_sm", warps)
                     .number("predicted", pred)
                     .number("measured", value);
      if (b == fit) {
        r.verdict = verdict::kInfo;
      } else {
        const double sigma = counter_uncertainty(*b, wp::work::kOpsPerCycleSm);
        const double miss = std::fabs(*r.rel_error);
        detail::judge(r, miss, tol::kSecondOrderThroughput, sigma);
        r.reason.flag("holds", r.verdict == verdict::kHolds);
        add_miss(r.reason, *r.rel_error, tol::kSecondOrderThroughput, sigma);
      }
      rows.push_back(r);
    }
    const std::optional<double> knee = wp::measured_knee(measured, tol::kKneeFraction);
    const std::optional<double> pknee = wp::measured_knee(predicted, tol::kKneeFraction);
    if (!knee || !pknee) continue;
    Row k = row_of(*fit, "second_order_knee_warps_per_sm", *knee, "warps/SM");
    k.params = std::string(wp::param::kPrimitive) + "=" + std::to_string(p);
    k.model = std::string(kSecondOrderPrefix) + "the first swept warps/SM whose predicted throughput reaches 90% of the predicted curve's largest";
    k = detail::with_prediction(k, *pknee);
    const double steps = std::fabs(std::log2(*knee / *pknee));
    detail::judge(k, steps, 0.0, 0.0);
    k.reason = point_reason("second_order_knee", p).number("knee", *knee).number("predicted", *pknee);
    rows.push_back(k);
  }
}

}  // namespace

void evaluate_warp_primitives(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (b.benchmark == wp::bench::kLatency) latency_rows(run, b, rows);
  if (b.benchmark == wp::bench::kThroughput) throughput_rows(run, b, rows);
}

void evaluate_warp_primitives_counters(const Run&, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (!b.has_counter(wp::metric::kInstExecuted) || !b.has_counter(wp::work::kOpsPerWarp)) return;
  const double warps = b.has_counter(wp::metric::kWarpsLaunched) ? b.counter_median(wp::metric::kWarpsLaunched)
                       : b.has_counter(wp::work::kWarpsLaunched) ? b.counter_median(wp::work::kWarpsLaunched) : 0.0;
  const double chains = b.has_counter(wp::work::kChainsPerWarp) ? b.counter_median(wp::work::kChainsPerWarp) : 1.0;
  const double ops = warps * chains * b.counter_median(wp::work::kOpsPerWarp);
  if (ops <= 0) return;
  Row r = row_of(b, wp::row::kInstPerOp, b.counter_median(wp::metric::kInstExecuted) / ops, "instructions");
  r.model = "the chain body's SASS instructions an op (docs/warp-primitives.md)";
  if (b.has_counter(wp::work::kBodyInstPerOp) && b.counter_median(wp::work::kBodyInstPerOp) > 0) {
    r = detail::with_prediction(r, b.counter_median(wp::work::kBodyInstPerOp));
    detail::judge(r, std::fabs(*r.rel_error), tol::kInstPerOp, 0.0);
    r.reason = Reason("warp_primitives/inst_per_op")
                   .number("rel_error", *r.rel_error)
                   .flag("holds", r.verdict == verdict::kHolds);
  } else {
    r.verdict = verdict::kInfo;
    r.reason = Reason("warp_primitives/inst_per_op_no_body");
  }
  rows.push_back(r);
  if (b.has_counter(wp::metric::kIssueActive)) {
    Row i = row_of(b, wp::row::kIssuePerOp, b.counter_median(wp::metric::kIssueActive) / ops, "cycles");
    i.verdict = verdict::kInfo;
    i.reason = Reason("warp_primitives/issue_per_op");
    rows.push_back(i);
  }
}

void evaluate_warp_primitives_run(const Run& run, std::vector<Row>& rows) {
  bool any = false;
  for (const BenchmarkResult& b : run.benchmarks) any = any || b.family == wp::kFamily;
  if (!any) return;
  composition_rows(run, rows);
  knee_rows(run, rows);
  second_order_rows(run, rows);
  const int cc = cc_of(run);
  for (const wp::PrimitiveInfo& p : wp::primitives()) {
    if (wp::available(p, cc)) continue;
    Row r;
    r.family = wp::kFamily;
    r.benchmark = wp::bench::kLatency;
    r.params = std::string(wp::param::kPrimitive) + "=" + std::to_string(static_cast<int>(p.id));
    r.metric = wp::row::kNotOnThisGpu;
    r.unit = "";
    r.verdict = verdict::kInfo;
    r.reason = Reason("warp_primitives/not_on_this_gpu")
                   .text("primitive", p.name)
                   .number("min_cc", p.min_cc)
                   .text("cc", run.context.text(schema::key::kCc));
    rows.push_back(r);
  }
}

std::string warp_primitives_summary_markdown(const EvaluatedRun& run) {
  std::map<std::string, std::map<std::string, int>> counts;  // metric -> verdict -> n
  std::map<int, double> latency;
  for (const Row& r : run.rows) {
    if (r.family != wp::kFamily) continue;
    if (r.kind == kind::kModel) ++counts[r.metric][r.verdict];
    if (r.metric == wp::row::kLatency && r.params.find(";active_lanes=32;mask=0") != std::string::npos) {
      latency[std::stoi(r.params.substr(r.params.find('=') + 1))] = r.value;
    }
  }
  if (latency.empty() && counts.empty()) return {};
  std::ostringstream s;
  s << "| primitive | latency (cycles, 1 warp/SM, 32 lanes) |\n|---|---:|\n";
  for (const auto& [p, cycles] : latency) s << "| " << name_of(p) << " | " << fixed(cycles, 2) << " |\n";
  s << "\n| check | verdicts |\n|---|---|\n";
  for (const auto& [metric, verdicts] : counts) {
    s << "| " << metric << " |";
    for (const auto& [v, n] : verdicts) s << " " << v << " " << n << ";";
    s << " |\n";
  }
  return s.str();
}

}  // namespace warpcost::analysis
