// Latency and load streaming against the latency-hiding models. The chase gives
// the unloaded latency of each level (its plateaus); the stream gives bandwidth
// against warps per SM for every W, whose knee (the fewest warps reaching 90%
// of the curve's plateau) is held against N = ceil(L/W) per scheduler, the
// scheduler demand N_sched·L/(T_issue·I_warp), L the unloaded latency and I the
// warp instructions a load the counter pass counted; Little's law at the knee is
// a consistency figure. Each knee row says by how much a model misses and why.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/metrics.hpp"
#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/statistics.hpp"
#include "analysis/evaluation_support.hpp"
#include "analysis/streaming/family.hpp"
#include "core/streaming/schema.hpp"
#include "core/streaming/model.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/calibration/schema.hpp"
#include "core/counters.hpp"

namespace warpcost::analysis::streaming {
namespace {

using namespace detail;
using namespace schema::metric;

constexpr double kKneeFraction = 0.90;
// A knee model holds within two warps per SM or 25% of the measured knee,
// whichever is larger: the sweep's own step near the knee is 1-4 warps.
constexpr double kKneeRelative = 0.25;
constexpr double kKneeAbsolute = 2.0;
// Ex 6: a stream with no compute between loads is memory-bound, so its plateau runs at the memory's
// rate, which the same run's device-to-device copy measures: the ratio is 1 within 10 % either way.
// The copy's read+write turnarounds cost it up to ~10 % against a pure read, so the stream may sit
// that far above it; 10 % under it is as far from memory-bound as the model allows. A stream far
// above the copy is as much a miss as one far under it (the copy ran slow, or the stream did not
// read DRAM).
constexpr double kEx6Tolerance = 0.10;
// Footprints that are L1-resident, L2-resident (relative to the run's L2) and
// DRAM-resident.
constexpr double kL1MaxBytes = 64.0 * 1024;
constexpr double kL2MinBytes = 1024.0 * 1024;
constexpr double kL2MaxShareOfL2 = 0.25;
constexpr double kDramMinMultipleOfL2 = 16.0;

struct Plateau {
  double cycles = 0;
  double ns = 0;
  std::vector<long long> footprints_kib;
};

// The chase's plateaus for one ring order: median cycles and ns over the
// footprints of each level.
std::map<std::string, Plateau> plateaus(const Run& run, const std::string& benchmark) {
  const double l2 = run.context.number(schema::key::kL2Bytes);
  std::map<std::string, std::vector<const BenchmarkResult*>> members;
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::latency::kFamily || b.benchmark != benchmark || b.error || b.seconds.empty() ||
        is_throttled(run, b))
      continue;
    const double bytes = b.param(schema::latency::param::kFootprintKib) * 1024.0;
    if (bytes <= kL1MaxBytes) members["L1"].push_back(&b);
    if (bytes >= kL2MinBytes && bytes <= kL2MaxShareOfL2 * l2) members["L2"].push_back(&b);
    if (bytes >= kDramMinMultipleOfL2 * l2) members["DRAM"].push_back(&b);
  }
  std::map<std::string, Plateau> out;
  for (const auto& [level, bs] : members) {
    std::vector<double> cycles;
    std::vector<double> ns;
    Plateau p;
    for (const auto* b : bs) {
      cycles.push_back(b->counter_median(schema::latency::counter::kCyclesPerLoad));
      ns.push_back(b->counter_median(schema::latency::counter::kNsPerLoad));
      p.footprints_kib.push_back(static_cast<long long>(b->param(schema::latency::param::kFootprintKib)));
    }
    p.cycles = median(cycles);
    p.ns = median(ns);
    out[level] = p;
  }
  return out;
}

// `values` that several rows' reasons share (a point's tag, the models' inputs) as the reason `code`.
Reason reason_of(std::string code, Reason values) {
  values.code = std::move(code);
  return values;
}

void evaluate_chase(const BenchmarkResult& b, std::vector<Row>& rows) {
  Reason chase;  // the ring's order and footprint, which every row of the point names first
  chase.flag("random_ring", b.benchmark == schema::latency::benchmark::kChaseRandom)
      .number("footprint_kib", b.param(schema::latency::param::kFootprintKib));
  Row c = base_row(b);
  c.metric = "latency_cycles";
  c.value = b.counter_median(schema::latency::counter::kCyclesPerLoad);
  c.unit = "cycles";
  c.verdict = verdict::kInfo;
  // warm_steps before steps, as the sentence always read them: a point lacking both names warm_steps.
  c.reason = reason_of("latency/chase_cycles", chase)
                 .number("warm_steps", b.counter_median(schema::latency::counter::kWarmSteps))
                 .number("steps", b.counter_median(schema::latency::counter::kSteps));
  rows.push_back(c);
  Row n = base_row(b);
  n.metric = "latency_ns";
  n.value = b.counter_median(schema::latency::counter::kNsPerLoad) * 1e-9;
  n.unit = "s";
  n.verdict = verdict::kInfo;
  n.reason = reason_of("latency/chase_ns", chase);
  rows.push_back(n);
}

// The loaded chase (issue 33): the chase's cycles a load and its background's DRAM rate, a row
// each, so the loaded-latency curve reads per GPU; then the second-order model at every point with
// a background: the unloaded point (bg_warps = 0, the input) plus what the streaming family's locus
// adds at the background's rate, C(0) + Λ(BW) − Λ(0), within 5 %.
void evaluate_loaded_chase(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  namespace counter = schema::latency::counter;
  namespace latency = schema::latency;
  const double bg_warps = b.param(latency::param::kBgWarps);
  Reason point;  // the background's size, which every row of the point names first
  point.number("bg_warps", bg_warps);
  Row c = base_row(b);
  c.metric = "loaded_latency_cycles";
  c.value = b.counter_median(counter::kCyclesPerLoad);
  c.unit = "cycles";
  c.verdict = verdict::kInfo;
  c.reason = reason_of("latency/loaded_chase_cycles", point)
                 .number("steps", b.counter_median(counter::kSteps))
                 .number("warm_steps", b.counter_median(counter::kWarmSteps))
                 .number("footprint_bytes", b.counter_median(counter::kFootprintBytes));
  rows.push_back(c);
  Row bw = base_row(b);
  bw.metric = "background_dram_bytes_per_second";
  bw.value = b.counter_median(counter::kBackgroundBytesPerSecond);
  bw.unit = "B/s";
  bw.verdict = verdict::kInfo;
  bw.reason = reason_of("latency/loaded_chase_background", point)
                  .number("lifetime", b.counter_median(counter::kBackgroundLifetimeBytesPerSecond))
                  .number("sms", b.counter_median(counter::kBackgroundSms));
  rows.push_back(bw);
  if (bg_warps == 0) return;  // the model's input, not judged
  Row m = base_row(b);
  m.metric = "second_order_loaded_latency_cycles";
  m.value = c.value;
  m.unit = "cycles";
  m.model = std::string(kSecondOrderPrefix) +
            "the unloaded chase plus the loaded-latency locus' rise at the background's rate, C(0) + Λ(BW) − Λ(0)";
  const BenchmarkResult* unloaded = find_benchmark(run, latency::kFamily, latency::benchmark::kChaseLoaded,
                                                   latency::descriptor().params_text(latency::benchmark::kChaseLoaded, {0}));
  std::string locus_text;  // the reason carries the locus' figures, not this text
  const std::optional<model::streaming::Locus> locus = loaded_latency_locus(run, locus_text);
  m.reason = reason_of("latency/second_order_loaded_latency", point)
                 .number("measured", m.value)
                 .number("background", bw.value)
                 .flag("unloaded_measured", unloaded != nullptr)
                 .flag("locus_measured", locus.has_value());
  if (unloaded == nullptr || !locus) {
    m.verdict = verdict::kInfo;
    rows.push_back(m);
    return;
  }
  const double c0 = unloaded->counter_median(counter::kCyclesPerLoad);
  const double loaded = locus->cycles_at(bw.value);
  m = with_prediction(m, c0 + loaded - locus->unloaded_cycles());
  const double miss = std::fabs(*m.rel_error);
  const double sigma = std::hypot(counter_uncertainty(b, counter::kCyclesPerLoad),
                                  counter_uncertainty(*unloaded, counter::kCyclesPerLoad));
  judge(m, miss, kSecondOrderLoadedLatencyTolerance, sigma);
  m.reason.number("unloaded", c0)
      .number("locus_at_background", loaded)
      .number("predicted", *m.predicted)
      .flag("past_ceiling", bw.value > locus->ceiling())
      .flag("holds", miss <= kSecondOrderLoadedLatencyTolerance)
      .number("miss", miss)
      .number("tolerance", kSecondOrderLoadedLatencyTolerance)
      .number("sigma", sigma)
      .number("locus_points", static_cast<double>(locus->points().size()))
      .number("locus_unloaded_cycles", locus->unloaded_cycles())
      .number("locus_ceiling", locus->ceiling());
  rows.push_back(m);
}

void plateau_rows(const Run& run, std::vector<Row>& rows) {
  for (const char* benchmark : {"chase_random", "chase_stride"}) {
    for (const auto& [level, p] : plateaus(run, benchmark)) {
      Row r;
      r.family = schema::latency::kFamily;
      r.benchmark = "latency_plateau";
      r.params = std::string("order=") + (std::string(benchmark) == "chase_random" ? "random" : "stride") +
                 ";level=" + level;
      r.metric = "latency_cycles";
      r.value = p.cycles;
      r.unit = "cycles";
      r.verdict = verdict::kInfo;
      r.reason = Reason("latency/plateau")
                     .text("level", level)
                     .number("ns", p.ns)
                     .number("footprints", static_cast<double>(p.footprints_kib.size()));
      for (std::size_t i = 0; i < p.footprints_kib.size(); ++i) {
        r.reason.number(footprint_key(i), static_cast<double>(p.footprints_kib[i]));
      }
      rows.push_back(r);
    }
  }
}

// The values a stream point's rows open their sentences with (its tag, report.cpp's point_tag),
// which the benchmark's name selects: the block size and residency of the one-load-per-thread
// stream, the loads and block size of the plain read, else the warps/SM, load width and W (or loads
// in flight) of a curve's point.
Reason stream_point(const BenchmarkResult& b) {
  namespace param = schema::streaming::param;
  namespace counter = schema::streaming::counter;
  namespace benchmark = schema::streaming::benchmark;
  Reason point;
  point.text("benchmark", b.benchmark);
  if (b.benchmark == benchmark::kReadOnePerThread) {
    point.number("block_threads", b.param(param::kBlockThreads))
        .number("resident_blocks", b.counter_median(counter::kResidentBlocksPerSm))
        .number("resident_warps", b.counter_median(counter::kResidentWarpsPerSm));
    return point;
  }
  // A tag's parameters are read from its last to its first, so a point that lacks several names
  // the same one in its error row as it always did.
  if (b.benchmark == benchmark::kReadPeak) {
    point.number("block_threads", b.param(param::kBlockThreads)).number("loads_per_thread", b.param(param::kLoadsPerThread));
    return point;
  }
  if (b.benchmark == benchmark::kCopyIndependent) {
    point.number("load_bytes", b.param(param::kLoadBytes)).number("warps_per_sm", b.param(param::kWarpsPerSm));
    return point;
  }
  if (b.benchmark == benchmark::kReadBatched) {
    point.number("loads_in_flight", b.param(param::kLoadsInFlight));
  } else {
    point.number("alu_per_load", b.param(param::kAluPerLoad));
  }
  point.number("load_bytes", b.param(param::kLoadBytes)).number("warps_per_sm", b.param(param::kWarpsPerSm));
  return point;
}

// A bandwidth row beside the theoretical peak. Staying under a peak tests no model, so it is info;
// above it, the data did not come from DRAM, which the why says.
Row bandwidth_row(const BenchmarkResult& b, double peak, const Reason& point) {
  Row bw = base_row(b);
  bw.metric = "dram__bytes_read.sum.per_second";
  bw.value = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
  bw.unit = "B/s";
  bw.model = "bound: the theoretical peak, memory clock x bus width/8 x 2";
  bw = with_prediction(bw, peak);
  const double share = bw.value / peak;
  // Under the peak it is info; past it (beyond the measurement's own tolerance) the number is
  // impossible for DRAM, an error of the measurement, never a result.
  const bool impossible = share > 1.0 + kPeakMeasurementTolerance;
  bw.verdict = impossible ? verdict::kError : verdict::kInfo;
  bw.reason = reason_of("streaming/bandwidth_share_of_peak", point).number("share", share).flag("impossible", impossible);
  return bw;
}

// The one-load-per-thread stream: bandwidth at a block size, with the residency
// that size allows.
void evaluate_one_per_thread(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const Reason point = stream_point(b);
  const auto blocks = static_cast<long long>(b.counter_median(schema::streaming::counter::kResidentBlocksPerSm));
  const auto warps = static_cast<long long>(b.counter_median(schema::streaming::counter::kResidentWarpsPerSm));
  rows.push_back(bandwidth_row(b, dram_peak(run), point));
  Row r = base_row(b);
  r.metric = "resident_warps_per_sm";
  r.value = static_cast<double>(warps);
  r.unit = "count";
  r.verdict = verdict::kInfo;
  const auto cap = static_cast<long long>(run.context.number(schema::key::kMaxWarpsPerSm));
  const auto block_cap = static_cast<long long>(run.context.number(schema::key::kMaxBlocksPerSm));
  r.reason = reason_of("streaming/resident_warps", point)
                 .flag("block_cap_binds", warps < cap && blocks == block_cap)
                 .flag("warp_cap_reached", warps >= cap)
                 .number("block_cap", static_cast<double>(block_cap))
                 .number("warp_cap", static_cast<double>(cap));
  rows.push_back(r);
}

// The block-turnover parameter (docs/models.md, "one load a thread"): cycles an SM spends a block of
// the one-load-a-thread grid without its load, from the grid's time, its blocks and the SM count.
std::optional<double> turnover_cycles(const Run& run, const BenchmarkResult& b) {
  return detail::block_turnover_cycles(run, b);
}

void evaluate_turnover(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const std::optional<double> cycles = turnover_cycles(run, b);
  if (!cycles) return;
  Row r = base_row(b);
  r.metric = "block_turnover_cycles";
  r.value = *cycles;
  r.unit = "cycles";
  r.verdict = verdict::kInfo;
  r.reason = Reason("streaming/block_turnover")
                 .number("block_threads", b.param(schema::streaming::param::kBlockThreads))
                 .number("ns", 1e9 * *cycles / (run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3))
                 .number("blocks", b.counter_median(schema::counter::kBlocks))
                 .number("resident_blocks", b.counter_median(schema::streaming::counter::kResidentBlocksPerSm));
  rows.push_back(r);
}

// A point of the copy locus (EXPLAIN-7): its loads' Little's-law latency at its total DRAM rate;
// a parameter of explain's kernel model, never judged here.
void evaluate_copy(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const auto point = detail::copy_locus_point(run, b);
  if (!point) return;
  Row r = base_row(b);
  r.metric = "copy_loaded_latency_cycles";
  r.value = point->second;
  r.unit = "cycles";
  r.verdict = verdict::kInfo;
  r.reason = Reason("streaming/copy_locus")
                 .number("warps_per_sm", b.param(schema::streaming::param::kWarpsPerSm))
                 .number("total_bandwidth", point->first)
                 .number("read_bandwidth", b.counter_median(schema::counter::kBytesRead) / b.median_seconds());
  rows.push_back(r);
}

void evaluate_stream(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (b.benchmark == schema::streaming::benchmark::kBlockTurnover) {
    evaluate_turnover(run, b, rows);
    return;
  }
  if (b.benchmark == schema::streaming::benchmark::kCopyIndependent) {
    evaluate_copy(run, b, rows);
    return;
  }
  if (b.benchmark == schema::streaming::benchmark::kReadOnePerThread) {
    evaluate_one_per_thread(run, b, rows);
    return;
  }
  const double peak = dram_peak(run);
  if (b.benchmark == schema::streaming::benchmark::kReadPeak) {  // the plain storeless read: its rate only (no residency model)
    rows.push_back(bandwidth_row(b, peak, stream_point(b)));
    return;
  }
  const Reason point = stream_point(b);
  rows.push_back(bandwidth_row(b, peak, point));

  Row ins = base_row(b);
  ins.metric = "useful_instructions_per_second";
  ins.value = (b.has_counter(schema::streaming::counter::kUsefulInstructions) ? b.counter_median(schema::streaming::counter::kUsefulInstructions)
                                                    : b.counter_median(schema::streaming::counter::kLoads)) /
              b.median_seconds();
  ins.unit = "inst/s";
  ins.verdict = verdict::kInfo;
  ins.reason = reason_of("streaming/useful_instruction_rate", point)
                   .flag("useful_instructions_counted", b.has_counter(schema::streaming::counter::kUsefulInstructions));
  rows.push_back(ins);

  Row lat = base_row(b);
  lat.metric = "loaded_latency_cycles";
  lat.value = b.counter_median(schema::streaming::counter::kLoadedLatencyCycles);
  lat.unit = "cycles";
  lat.verdict = verdict::kInfo;
  lat.reason = reason_of("streaming/loaded_latency_probe", point);
  rows.push_back(lat);
}

// One curve: the benchmark (use) x width x W x loads in flight, bandwidth
// against warps per SM.
using CurveKey = std::tuple<std::string, long long, long long, long long>;

double param_or(const BenchmarkResult& b, const std::string& key, double otherwise) {
  return b.has_param(key) ? b.param(key) : otherwise;
}

// Why a curve is or is not flat over its end (models.hpp: kKneePlateau*): the knee's flatness
// figures, which report.cpp's flatness_text says.
Reason& add_flatness(Reason& r, const model::Knee& k) {
  return r.flag("flat", k.saturated)
      .number("flat_from", k.flat_from)
      .number("flat_points", k.flat_points)
      .number("outliers", k.outliers)
      .number("flat_span", k.flat_span);
}

// A knee model's row: the measured knee against a prediction from the unloaded latency and the
// instructions per load, by the knee rule (docs/verdicts.md). t = max(2 warps, 25 % of the knee).
// On a curve flat over its end the knee is measured: within t holds, else fails, inside the sweep
// or beyond it; only a prediction under the first swept point, when the knee is that point, cannot
// be decided. On a curve not flat the knee is a lower bound: a prediction under knee - t fails, any
// other is untestable here. The knee is one pick among the sweep's points, with no noise of its
// own, so a miss fails (no warn).
Row knee_row(const std::string& params, const std::string& metric, const model::Knee& knee,
             double predicted, double swept_min, double swept_max, const std::string& model_text,
             Reason reason) {
  const double measured = knee.warps;
  Row r;
  r.family = schema::streaming::kFamily;
  r.benchmark = "knee";
  r.params = params;
  r.metric = metric;
  r.value = measured;
  r.unit = "count";
  r.model = model_text;
  r.kind = kind::kModel;
  r = with_prediction(r, predicted);
  const double tolerance = std::max(kKneeAbsolute, kKneeRelative * measured);
  const double miss = std::fabs(measured - predicted);
  // The model's own sentence, then how the knee rule judged it (report.cpp: knee_judgement).
  r.reason = std::move(reason);
  r.reason.number("knee", measured)
      .number("knee_predicted", predicted)
      .number("knee_tolerance", tolerance)
      .number("swept_min", swept_min)
      .number("swept_max", swept_max)
      .flag("predicted_beyond_sweep", predicted > swept_max);
  add_flatness(r.reason, knee);
  if (!knee.saturated) {
    const bool under = predicted < measured - tolerance;
    r.reason.flag("predicted_under_knee", under);
    r.verdict = under ? verdict::kFails : verdict::kUntestable;
    return r;
  }
  const bool first_point = predicted < swept_min && measured <= swept_min;
  r.reason.flag("knee_at_first_point", first_point);
  if (first_point) {
    r.verdict = verdict::kUntestable;
    return r;
  }
  const bool holds = miss <= tolerance;
  r.reason.flag("knee_holds", holds);
  r.verdict = holds ? verdict::kHolds : verdict::kFails;
  return r;
}

constexpr const char* kInstExecuted = schema::metric::kWarpInstructions;

// Warp instructions a warp issues per load, from the counter pass: instructions issued over the
// launch's warp loads (its thread loads / 32), median over the curve's points. 0 when the run's
// counter pass did not count instructions.
double instructions_per_load(const std::vector<const BenchmarkResult*>& members) {
  std::vector<double> per_load;
  for (const auto* b : members) {
    if (!b->has_counter(kInstExecuted) || !b->has_counter(schema::streaming::counter::kLoads)) continue;
    const double warp_loads = b->counter_median(schema::streaming::counter::kLoads) / model::kWarpSize;
    if (warp_loads > 0) per_load.push_back(b->counter_median(kInstExecuted) / warp_loads);
  }
  return per_load.empty() ? 0.0 : median(per_load);
}

void knee_rows(const Run& run, std::vector<Row>& rows) {
  std::map<CurveKey, std::vector<const BenchmarkResult*>> curves;
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.benchmark == schema::streaming::benchmark::kReadOnePerThread || b.benchmark == schema::streaming::benchmark::kReadPeak ||
        b.benchmark == schema::streaming::benchmark::kBlockTurnover || b.benchmark == schema::streaming::benchmark::kCopyIndependent ||
        b.error || b.seconds.empty() || is_throttled(run, b))
      continue;
    curves[{b.benchmark, static_cast<long long>(b.param(schema::streaming::param::kLoadBytes)),
            static_cast<long long>(param_or(b, schema::streaming::param::kAluPerLoad, 0)),
            static_cast<long long>(param_or(b, schema::streaming::param::kLoadsInFlight, 1))}]
        .push_back(&b);
  }
  const auto dram = plateaus(run, "chase_random");
  const auto found = dram.find("DRAM");
  const model::ArchParams arch = arch_of(run);
  const auto cap = static_cast<long long>(run.context.number(schema::key::kMaxWarpsPerSm));
  const double sms = run.context.number(schema::key::kSmCount);
  for (const auto& [key, members] : curves) {
    if (members.size() < 3) continue;
    const auto& [benchmark, width, w, in_flight] = key;
    std::vector<std::pair<double, double>> points;
    double swept_min = 1e300;
    double swept_max = 0;
    for (const auto* b : members) {
      points.emplace_back(b->param(schema::streaming::param::kWarpsPerSm), b->counter_median(schema::counter::kBytesRead) / b->median_seconds());
      swept_min = std::min(swept_min, points.back().first);
      swept_max = std::max(swept_max, points.back().first);
    }
    const model::Knee knee = model::measured_knee(points, kKneeFraction);
    const std::string use = benchmark == schema::streaming::benchmark::kReadDependent ? "dependent"
                            : benchmark == schema::streaming::benchmark::kReadBatched ? "batched"
                                                          : "independent";
    const std::string params = "use=" + use + ";load_bytes=" + std::to_string(width) +
                               ";alu_per_load=" + std::to_string(w) +
                               (in_flight > 1 ? ";loads_in_flight=" + std::to_string(in_flight) : "");
    const BenchmarkResult* at_knee = nullptr;
    for (const auto* b : members) {
      if (b->param(schema::streaming::param::kWarpsPerSm) == knee.warps) at_knee = b;
    }
    Row m;
    m.family = schema::streaming::kFamily;
    m.benchmark = "knee";
    m.params = params;
    m.metric = "knee_warps_per_sm";
    m.value = knee.warps;
    m.unit = "count";
    m.verdict = verdict::kInfo;
    m.reason = Reason("streaming/knee")
                   .number("plateau", knee.plateau)
                   .number("residencies", static_cast<double>(members.size()))
                   .number("swept_min", swept_min)
                   .number("swept_max", swept_max);
    add_flatness(m.reason, knee);
    rows.push_back(m);
    if (found == dram.end()) continue;  // no chase in this run: no unloaded latency to hold against
    const double latency = found->second.cycles;
    const double loaded = at_knee ? at_knee->counter_median(schema::streaming::counter::kLoadedLatencyCycles) : latency;
    // ceil(L/W) and the scheduler demand count one load per I warp instructions; a batch of U
    // loads is Little's law's case alone. I is counted, not W + 1: the compiled loop adds address
    // arithmetic, the loop test and the probe (36 instructions a load at W = 16 on the H200).
    const double inst = instructions_per_load(members);
    if (in_flight == 1 && inst <= 0) {
      Row n = m;
      n.metric = "knee_model_ceil_l_over_w";
      n.reason = Reason("streaming/knee_no_instruction_count").text("instructions_metric", kInstExecuted);
      rows.push_back(n);
    } else if (in_flight == 1) {
      const long long per_scheduler = model::warps_to_hide_latency(latency, inst);
      const double n_sm = static_cast<double>(per_scheduler * arch.schedulers_per_sm);
      Reason inputs;  // what both knee models are fed, which both sentences open with
      inputs.number("latency", latency).number("instructions_per_load", inst).number("alu_per_load", static_cast<double>(w));
      rows.push_back(knee_row(params, "knee_model_ceil_l_over_w", knee, n_sm, swept_min, swept_max,
                              "N = ceil(L/I) per scheduler x N_sched, L unloaded, I counted",
                              reason_of("streaming/knee_ceil_l_over_i", inputs)
                                  .number("per_scheduler", static_cast<double>(per_scheduler))
                                  .number("per_sm", n_sm)
                                  .number("cap", static_cast<double>(cap))
                                  .flag("over_cap", n_sm > static_cast<double>(cap))));
      const model::SchedulerDemand d = model::scheduler_demand(
          arch.schedulers_per_sm, latency, arch.issue_interval_cycles, inst, cap);
      rows.push_back(knee_row(params, "knee_model_scheduler_demand", knee,
                              static_cast<double>(d.warps_needed_whole), swept_min, swept_max,
                              "N_sched·L/(T_issue·I), L unloaded, I counted",
                              reason_of("streaming/knee_scheduler_demand", inputs)
                                  .number("instruction_slots", d.instruction_slots)
                                  .number("warps_needed", d.warps_needed)
                                  .flag("fits", d.fits)
                                  .number("deficit", static_cast<double>(d.deficit))));
    }
    // Little's law fed the latency measured at the measured knee: a consistency figure between
    // two measurements of the same point, not a prediction, so it is info.
    const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
    const double per_warp_bytes = 32.0 * static_cast<double>(width) * static_cast<double>(in_flight);
    const model::LittlesLaw little = model::littles_law(knee.plateau, loaded / clock, per_warp_bytes);
    const double little_sm = little.warps_needed / sms;
    Row l = m;
    l.metric = "littles_law_consistency";
    l.model = "bytes in flight = plateau bandwidth x loaded latency at the knee, over 32 lanes x width "
              "x loads in flight a warp (consistency, not a prediction)";
    l = with_prediction(l, little_sm);
    l.reason = Reason("streaming/littles_law_consistency")
                   .number("plateau", knee.plateau)
                   .number("loaded_latency", loaded)
                   .number("bytes_in_flight", little.bytes_in_flight)
                   .number("warps_per_sm", little_sm)
                   .number("loads_in_flight", static_cast<double>(in_flight))
                   .number("load_bytes", static_cast<double>(width))
                   .number("knee", knee.warps);
    rows.push_back(l);
  }
}

// A stream with no compute between its loads cannot hide its latency (the reference page's Ex 6:
// W = 1 needs 400 warps > 64), so it is bandwidth-bound: its plateau should be the copy's rate of
// the same run. (Ex 5 and Ex 10 are the knee models' own rows; the worked examples themselves are
// examples/worked-examples.toml, checked and measured by `warpcost check`.)
void memory_bound_rows(const Run& run, std::vector<Row>& rows) {
  auto find_row = [&rows](const std::string& params, const std::string& metric) -> const Row* {
    for (const Row& r : rows) {
      if (r.benchmark == "knee" && r.params == params && r.metric == metric) return &r;
    }
    return nullptr;
  };
  const std::string w0 = "use=independent;load_bytes=16;alu_per_load=0";
  const Row* knee0 = find_row(w0, "knee_warps_per_sm");
  const BenchmarkResult* copy = find_benchmark(run, schema::calibration::kFamily, "d2d_copy", schema::calibration::descriptor().params_text(schema::calibration::benchmark::kD2dCopy, {4096}));
  if (knee0 != nullptr && copy != nullptr) {
    double plateau = 0;
    const BenchmarkResult* best0 = nullptr;
    for (const auto& b : run.benchmarks) {
      if (b.family == schema::streaming::kFamily && b.benchmark == schema::streaming::benchmark::kReadIndependent && !b.error && !b.seconds.empty() &&
          !is_throttled(run, b) && b.param(schema::streaming::param::kLoadBytes) == 16 && b.param(schema::streaming::param::kAluPerLoad) == 0 &&
          b.counter_median(schema::counter::kBytesRead) / b.median_seconds() > plateau) {
        plateau = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
        best0 = &b;
      }
    }
    if (best0 == nullptr) return;
    const double copy_rate =
        (copy->counter_median(schema::counter::kBytesRead) + copy->counter_median(schema::calibration::counter::kBytesWritten)) / copy->median_seconds();
    Row e;
    e.family = schema::streaming::kFamily;
    e.benchmark = "memory_bound";
    e.params = "measured_by=knee/" + w0;
    e.metric = "bandwidth_vs_copy";
    e.value = plateau / copy_rate;
    e.unit = "ratio";
    e.model =
        "L/W warps exceed the cap: memory-bound, the stream runs at the "
        "memory's rate";
    e = with_prediction(e, 1.0);
    const double miss = std::fabs(*e.rel_error);
    const bool holds = miss <= kEx6Tolerance;
    const double sigma = std::hypot(cv_of(*best0), cv_of(*copy));
    judge(e, miss, kEx6Tolerance, sigma);
    e.reason = Reason("streaming/memory_bound_vs_copy")
                   .number("plateau", plateau)
                   .number("copy_rate", copy_rate)
                   .flag("holds", holds)
                   .flag("under_copy", *e.rel_error < 0)
                   .number("miss", miss)
                   .number("tolerance", kEx6Tolerance)
                   .number("sigma", sigma);
    // A rate above the theoretical peak cannot be judged against a model: the measurement is wrong.
    const double peak = dram_peak(run);
    const double over = std::max(plateau, copy_rate) / peak;
    const bool impossible = over > 1.0 + kPeakMeasurementTolerance;
    e.reason.flag("impossible", impossible);
    if (impossible) {
      e.verdict = verdict::kError;
      e.reason.flag("plateau_over_copy", plateau >= copy_rate).number("share_of_peak", over).number("peak", peak);
    }
    rows.push_back(e);
  }
}

// The issue's targets for the stream: the best read of the run against 96% of
// the theoretical peak and against the same run's device-to-device copy, naming
// the configuration; and the whole persistent sweep's GPU time against a
// minute.
// ---- the second-order model (docs/models.md) -------------------------------------------------

bool is_locus_curve(const CurveKey& key) {
  return std::get<0>(key) == schema::streaming::benchmark::kReadIndependent && std::get<1>(key) == 16 &&
         std::get<2>(key) == 0 && std::get<3>(key) == 1;
}

void second_order_rows(const Run& run, std::vector<Row>& rows) {
  std::map<CurveKey, std::vector<const BenchmarkResult*>> curves;
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.error || b.seconds.empty() || !b.has_param(schema::streaming::param::kWarpsPerSm) ||
        (b.benchmark != schema::streaming::benchmark::kReadIndependent && b.benchmark != schema::streaming::benchmark::kReadDependent &&
         b.benchmark != schema::streaming::benchmark::kReadBatched))
      continue;
    curves[{b.benchmark, static_cast<long long>(b.param(schema::streaming::param::kLoadBytes)),
            static_cast<long long>(param_or(b, schema::streaming::param::kAluPerLoad, 0)),
            static_cast<long long>(param_or(b, schema::streaming::param::kLoadsInFlight, 1))}]
        .push_back(&b);
  }
  const model::ArchParams arch = arch_of(run);
  const double sms = run.context.number(schema::key::kSmCount);
  const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  std::string rate_source;
  const auto rate = saturated_issue_rate(run, arch.schedulers_per_sm, rate_source);
  auto bandwidth = [](const BenchmarkResult* b) { return b->counter_median(schema::counter::kBytesRead) / b->median_seconds(); };
  auto warps = [](const BenchmarkResult* b) { return static_cast<int>(b->param(schema::streaming::param::kWarpsPerSm)); };
  std::string locus_text;  // the rows' reasons carry the locus' figures, not this text
  const std::optional<model::streaming::Locus> found = loaded_latency_locus(run, locus_text);
  if (!rate || !found) return;  // no parameter points in this run: no rows
  const model::streaming::Locus& locus = *found;
  // The model's GPU-side parameters, each a row of its own (docs/models.md).
  rows.push_back(parameter_row(schema::streaming::kFamily, "", "saturated_issue_rate", *rate, "inst/cycle/scheduler",
                               "r_sat, warp instructions a cycle a scheduler of saturated FMA chains", rate_source));
  rows.push_back(parameter_row(schema::streaming::kFamily, "", "loaded_latency_unloaded_cycles", locus.unloaded_cycles(), "cycles",
                               "Λ(0), the loaded-latency locus at its slowest point", locus_text));
  rows.push_back(parameter_row(schema::streaming::kFamily, "", "loaded_latency_ceiling", locus.ceiling(), "B/s",
                               "BW_max, the loaded-latency locus' largest DRAM throughput", locus_text));
  Reason parameters;  // r_sat and the locus, which every second-order bandwidth sentence ends with
  parameters.number("issue_rate", *rate)
      .text("issue_rate_source", rate_source)
      .number("locus_points", static_cast<double>(locus.points().size()))
      .number("locus_unloaded_cycles", locus.unloaded_cycles())
      .number("locus_ceiling", locus.ceiling());
  const std::optional<detail::GreedyRunInputs> greedy_in = detail::greedy_run_inputs(run, locus);
  if (greedy_in) {
    const std::string source = "ISSUE-33-GREEDY-ISSUE: " + locus_text;
    rows.push_back(parameter_row(schema::streaming::kFamily, "", "greedy_memory_latency_cycles", greedy_in->memory_latency,
                                 "cycles", "M0, a load's unloaded latency from its issue to its use: Λ(0) less the W = 0 loop's other stall counts",
                                 source));
    rows.push_back(parameter_row(schema::streaming::kFamily, "", "greedy_latency_sigma_cycles", greedy_in->sigma, "cycles",
                                 "sigma, a load's latency spread: sqrt(pi) x the probe's loaded_latency_max_excess_w2_cycles "
                                 "at W = 0, 4 warps/SM",
                                 "streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:4"));
  }
  for (auto& [key, members] : curves) {
    std::sort(members.begin(), members.end(), [&](const auto* a, const auto* b) { return warps(a) < warps(b); });
    const auto& [benchmark, width, w, in_flight] = key;
    const BenchmarkResult* first = members.front();
    if (warps(first) != 1 || members.size() < 3) continue;  // T0 is the curve's own 1-warp point
    const bool consistency = is_locus_curve(key);
    const double bytes_per_iteration = 32.0 * static_cast<double>(width) * static_cast<double>(in_flight);
    const double t0 = sms * 1.0 * bytes_per_iteration * clock / bandwidth(first);
    // ISSUE-33-GREEDY-ISSUE: the 16-byte read_independent curves whose loop the suite knows are
    // priced by greedy issue over that loop; every other curve by the queue.
    std::optional<model::streaming::GreedyStream> greedy;
    std::vector<model::streaming::LoopStep> program;
    double constant_latency = 0;
    // A throttled 1-warp point would carry its state into C and every row of the curve: the queue
    // prices such a curve (its T0 the same point, as before this rule).
    if (greedy_in && benchmark == schema::streaming::benchmark::kReadIndependent && width == 16 && in_flight == 1 &&
        !is_throttled(run, *first)) {
      if (const auto text = model::streaming::suite_read_independent_program(static_cast<int>(w))) {
        program = model::streaming::parse_loop_program(*text);
        constant_latency = model::streaming::greedy_constant_latency(t0, greedy_in->memory_latency, program);
        model::streaming::GreedyStreamInputs gi;
        gi.sms = static_cast<int>(sms);
        gi.schedulers_per_sm = arch.schedulers_per_sm;
        gi.bytes_per_warp_iteration = bytes_per_iteration;
        gi.clock_hz = clock;
        gi.memory_latency = greedy_in->memory_latency;
        gi.sigma = greedy_in->sigma;
        gi.constant_latency = constant_latency;
        greedy.emplace(program, gi, locus);
        if (model::streaming::waits_for_constant(program)) {
          rows.push_back(parameter_row(schema::streaming::kFamily, "load_bytes=16;alu_per_load=" + std::to_string(w),
                                       "greedy_constant_latency_cycles", constant_latency, "cycles",
                                       "C, the loop's constant load from its issue to its use: T0 less M0 less the loop's other stall counts",
                                       "the curve's 1-warp/SM point"));
        }
      }
    }
    std::vector<std::pair<int, double>> measured;
    std::vector<std::pair<int, double>> predicted;
    for (const auto* b : members) {
      if (!b->has_counter(kInstExecuted) || !b->has_counter(schema::streaming::counter::kLoads)) continue;
      const double iterations = b->counter_median(schema::streaming::counter::kLoads) / model::kWarpSize / static_cast<double>(in_flight);
      model::streaming::StreamPoint p;
      p.sms = static_cast<int>(sms);
      p.schedulers_per_sm = arch.schedulers_per_sm;
      p.warps_per_sm = warps(b);
      p.bytes_per_warp_iteration = bytes_per_iteration;
      p.instructions_per_iteration = b->counter_median(kInstExecuted) / iterations;
      p.unloaded_iteration_cycles = t0;
      p.clock_hz = clock;
      const model::streaming::StreamPrediction pred =
          greedy ? greedy->predict(p.warps_per_sm) : model::streaming::predict_stream(p, locus, *rate);
      measured.emplace_back(p.warps_per_sm, bandwidth(b));
      predicted.emplace_back(p.warps_per_sm, pred.bandwidth);
      Row r = base_row(*b);
      r.metric = "second_order_bandwidth";
      r.value = bandwidth(b);
      r.unit = "bytes/s";
      r.model = std::string(kSecondOrderPrefix) +
                (greedy ? "Little's law in bytes as a fixed point with the loaded-latency locus, greedy-then-oldest issue "
                          "over the loop's stall counts"
                        : "Little's law in bytes as a fixed point with the loaded-latency locus, the busiest scheduler's "
                          "issue as a queue");
      r = with_prediction(r, pred.bandwidth);
      Reason reason = reason_of(greedy ? "streaming/second_order_greedy" : "streaming/second_order_bandwidth", parameters);
      reason.number("warps_per_sm", p.warps_per_sm).number("warps_per_scheduler", pred.warps_per_scheduler);
      if (greedy) {
        reason.number("loop_cycles", model::streaming::loop_cycles(program))
            .text("loop", model::streaming::format_loop_program(program))
            .number("memory_latency", greedy_in->memory_latency)
            .number("constant_latency", constant_latency)
            .number("latency_sigma", greedy_in->sigma);
      } else {
        reason.number("instructions_per_iteration", p.instructions_per_iteration);
      }
      r.reason = reason.number("t0", t0)
                     .number("loaded_cycles", pred.loaded_cycles)
                     .number("iteration_cycles", pred.iteration_cycles)
                     .flag("at_ceiling", pred.at_ceiling)
                     .number("predicted", pred.bandwidth)
                     .number("measured", r.value)
                     .flag("locus_curve", consistency)
                     .flag("fit_point", b == first);
      if (consistency || b == first) {
        r.verdict = verdict::kInfo;
      } else {
        const bool holds = std::fabs(*r.rel_error) <= kSecondOrderStreamTolerance;
        judge(r, std::fabs(*r.rel_error), kSecondOrderStreamTolerance, cv_of(*b));
        r.reason.flag("holds", holds)
            .number("miss", std::fabs(*r.rel_error))
            .number("tolerance", kSecondOrderStreamTolerance)
            .number("sigma", cv_of(*b));
      }
      rows.push_back(r);
    }
    if (measured.size() < 3) continue;
    const std::string use = benchmark == schema::streaming::benchmark::kReadDependent ? "dependent"
                            : benchmark == schema::streaming::benchmark::kReadBatched ? "batched"
                                                                                    : "independent";
    Row k;
    k.family = schema::streaming::kFamily;
    k.benchmark = "knee";
    k.params = "use=" + use + ";load_bytes=" + std::to_string(width) + ";alu_per_load=" + std::to_string(w) +
               (in_flight > 1 ? ";loads_in_flight=" + std::to_string(in_flight) : "");
    k.metric = "second_order_knee_warps_per_sm";
    // ISSUE-33-KNEE-CROSSING: the warps/SM where each curve, linear between its swept points,
    // first reaches 90 % of its largest (the batched sweeps step 8 warps/SM past 16, wider than the
    // ±3 the knee is judged at).
    k.value = model::streaming::knee_crossing_of(measured, kKneeFraction);
    k.unit = "warps/SM";  // a crossing between swept points, not a count (the CSV says warps)
    k.model = std::string(kSecondOrderPrefix) +
              "the warps/SM where the predicted curve, linear between swept points, first reaches 90% of its largest";
    const double predicted_knee = model::streaming::knee_crossing_of(predicted, kKneeFraction);
    k = with_prediction(k, predicted_knee);
    const double off = std::fabs(k.value - predicted_knee);
    k.reason = Reason("streaming/second_order_knee")
                   .number("knee", k.value)
                   .number("plateau", std::max_element(measured.begin(), measured.end(), [](auto& a, auto& b) { return a.second < b.second; })->second)
                   .number("predicted_knee", predicted_knee)
                   .flag("locus_curve", consistency);
    if (consistency) {
      k.verdict = verdict::kInfo;
    } else {
      k.kind = kind::kModel;
      judge(k, off, kSecondOrderKneeWarps, 0.0);
      k.reason.flag("holds", off <= kSecondOrderKneeWarps);
    }
    rows.push_back(k);
  }
}

// The one-load-a-thread stream's second-order rows (docs/models.md, "one load a thread"): each
// read_one_per_thread point priced from the block_turnover point of its block size and the locus.
void one_per_thread_second_order_rows(const Run& run, std::vector<Row>& rows) {
  std::string locus_text;
  const std::optional<model::streaming::Locus> locus = loaded_latency_locus(run, locus_text);
  const double sms = run.context.number(schema::key::kSmCount);
  const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  if (!locus || !(sms > 0) || !(clock > 0)) return;  // no locus in this run: no rows
  std::map<long long, const BenchmarkResult*> turnover;
  bool planned = false;  // the run's plan has the turnover benchmark (runs since ISSUE-33-ONE-PER-THREAD)
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.benchmark != schema::streaming::benchmark::kBlockTurnover) continue;
    planned = true;
    if (!b.error && !b.seconds.empty() && !is_throttled(run, b)) {
      turnover[static_cast<long long>(b.param(schema::streaming::param::kBlockThreads))] = &b;
    }
  }
  if (!planned) return;  // no parameter benchmark in this run: no rows
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.benchmark != schema::streaming::benchmark::kReadOnePerThread || b.error ||
        b.seconds.empty() || b.median_seconds() <= 0 || !b.has_counter(schema::counter::kBytesRead) ||
        !b.has_counter(schema::streaming::counter::kResidentBlocksPerSm) || !b.has_counter(schema::streaming::counter::kResidentWarpsPerSm))
      continue;  // a point without its counts is not priced (its own rows say what it lacks)
    const auto threads = static_cast<long long>(b.param(schema::streaming::param::kBlockThreads));
    Row r = base_row(b);
    r.metric = "second_order_bandwidth";
    r.value = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
    r.unit = "bytes/s";
    r.model = std::string(kSecondOrderPrefix) +
              "short-lived blocks as a closed queue at the SM: the measured block turnover, the load at the loaded-latency locus";
    const auto found = turnover.find(threads);
    // Cycles an SM spends a block of the turnover grid; 0 where that point is missing.
    const double d = found == turnover.end() ? 0.0 : turnover_cycles(run, *found->second).value_or(0.0);
    const bool counted = b.has_counter(schema::counter::kBlocks) && b.counter_median(schema::counter::kBlocks) > 0 &&
                         b.has_counter(schema::streaming::counter::kResidentBlocksPerSm) && r.value > 0;
    const int resident =
        counted ? static_cast<int>(std::lround(b.counter_median(schema::streaming::counter::kResidentBlocksPerSm))) : 0;
    if (!(d > 0) || resident < 1) {
      r.verdict = verdict::kInfo;
      r.reason = reason_of("streaming/second_order_block_unpriced", stream_point(b)).flag("turnover_measured", d > 0);
      rows.push_back(r);
      continue;
    }
    model::streaming::BlockStreamPoint p;
    p.sms = static_cast<int>(sms);
    p.resident_blocks = resident;
    p.bytes_per_block = b.counter_median(schema::counter::kBytesRead) / b.counter_median(schema::counter::kBlocks);
    p.turnover_cycles = d;
    p.clock_hz = clock;
    const model::streaming::BlockStreamPrediction pred = model::streaming::predict_block_stream(p, *locus);
    r = with_prediction(r, pred.bandwidth);
    const double miss = std::fabs(*r.rel_error);
    const bool holds = miss <= kSecondOrderStreamTolerance;
    // The miss's noise: the read point's and its turnover point's, together.
    const double sigma = std::hypot(cv_of(b), cv_of(*found->second));
    judge(r, miss, kSecondOrderStreamTolerance, sigma);
    r.reason = reason_of("streaming/second_order_block_bandwidth", stream_point(b))
                   .number("turnover_cycles", d)
                   .number("bytes_per_block", p.bytes_per_block)
                   .number("loaded_cycles", pred.loaded_cycles)
                   .number("block_cycles", pred.block_cycles)
                   .flag("at_ceiling", pred.at_ceiling)
                   .number("locus_ceiling", locus->ceiling())
                   .number("predicted", pred.bandwidth)
                   .flag("holds", holds)
                   .number("miss", miss)
                   .number("tolerance", kSecondOrderStreamTolerance)
                   .number("sigma", sigma);
    rows.push_back(r);
  }
}

constexpr double kPeakShareTarget = 0.96;
constexpr double kSweepGpuSecondsTarget = 60.0;

void target_rows(const Run& run, std::vector<Row>& rows) {
  const BenchmarkResult* best = nullptr;
  double best_rate = 0;
  double sweep_seconds = 0;
  int sweep_points = 0;
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.error || b.seconds.empty() || is_throttled(run, b) ||
        b.benchmark == schema::streaming::benchmark::kBlockTurnover || b.benchmark == schema::streaming::benchmark::kCopyIndependent)
      continue;
    const double rate = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
    if (rate > best_rate) {
      best_rate = rate;
      best = &b;
    }
    if (b.benchmark == schema::streaming::benchmark::kReadIndependent && b.param(schema::streaming::param::kLoadBytes) == 16 && b.has_counter(schema::streaming::counter::kGpuSeconds)) {
      sweep_seconds += b.counter_median(schema::streaming::counter::kGpuSeconds);
      ++sweep_points;
    }
  }
  if (best == nullptr) return;
  const double peak = dram_peak(run);
  const BenchmarkResult* copy = find_benchmark(run, schema::calibration::kFamily, "d2d_copy", schema::calibration::descriptor().params_text(schema::calibration::benchmark::kD2dCopy, {4096}));
  const double copy_rate =
      copy == nullptr ? 0.0
                      : (copy->counter_median(schema::counter::kBytesRead) + copy->counter_median(schema::calibration::counter::kBytesWritten)) /
                            copy->median_seconds();
  // The target is judged on the best point's own bandwidth row (one row, one value, one kind),
  // not beside it as a copy of the same number.
  const std::string best_params = best->params_text();
  const auto own = std::find_if(rows.begin(), rows.end(), [&](const Row& x) {
    return x.family == schema::streaming::kFamily && x.benchmark == best->benchmark &&
           x.params == best_params && x.metric == "dram__bytes_read.sum.per_second" &&
           x.kind == kind::kInfo;
  });
  const std::size_t own_index = static_cast<std::size_t>(own - rows.begin());
  Row r;
  if (own != rows.end()) {
    r = *own;
  } else {
    r.family = schema::streaming::kFamily;
    r.benchmark = best->benchmark;
    r.params = best_params;
    r.metric = "dram__bytes_read.sum.per_second";
  }
  r.value = best_rate;
  r.unit = "B/s";
  r.model =
      "at least 96% of the theoretical DRAM peak, and above the same "
      "run's device-to-device copy";
  r = with_prediction(r, kPeakShareTarget * peak);
  const bool over_share = best_rate >= kPeakShareTarget * peak;
  const bool over_copy = copy != nullptr && best_rate > copy_rate;
  // A best read above the peak meets nothing: the measurement is impossible.
  const bool impossible = best_rate > (1.0 + kPeakMeasurementTolerance) * peak;
  r.kind = kind::kTarget;
  r.verdict = impossible ? verdict::kError : over_share && over_copy ? verdict::kMet : verdict::kMissed;
  // A MIG instance has a share of the GPU's memory slices, which the memory clock and bus the
  // device reports do not give: its best read is shown, not held to the whole GPU's peak.
  const std::string mig = mig_instance(run);
  if (!mig.empty() && !impossible) {
    r.kind = kind::kInfo;
    r.verdict = verdict::kInfo;
  }
  r.reason = Reason("streaming/best_read")
                 .text("benchmark", best->benchmark)
                 .text("params", best->params_text())
                 .number("rate", best_rate)
                 .number("peak", peak)
                 .flag("copy_measured", copy != nullptr)
                 .flag("impossible", impossible)
                 .flag("mig_instance", !mig.empty());
  if (copy != nullptr) r.reason.number("copy_rate", copy_rate);
  if (!mig.empty()) r.reason.text("mig", mig);
  if (own_index < rows.size()) {
    rows[own_index] = r;
  } else {
    rows.push_back(r);
  }
  if (sweep_points == 0) return;
  Row t;
  t.family = schema::streaming::kFamily;
  t.benchmark = "sweep_gpu_time";
  t.params = "benchmark=read_independent;load_bytes=16";
  t.metric = "gpu_seconds";
  t.value = sweep_seconds;
  t.unit = "s";
  t.model =
      "the full persistent sweep (every W x every warps/SM) in under a "
      "minute of GPU time";
  t = with_prediction(t, kSweepGpuSecondsTarget);
  t.kind = kind::kTarget;
  t.verdict = sweep_seconds < kSweepGpuSecondsTarget ? verdict::kMet : verdict::kMissed;
  t.reason = Reason("streaming/sweep_gpu_time").number("points", sweep_points);
  rows.push_back(t);
}

// ---- the counter pass ------------------------------------------------------------------------

void streaming_checks(const Run& run, const BenchmarkResult& b,
                      const std::map<std::string, std::string>& units, std::vector<Row>& rows,
                      std::set<std::string>& done) {
  if (b.has_counter(kWarpsActive)) {
    Row r = counter_row(b, kWarpsActive, units.count(kWarpsActive) ? units.at(kWarpsActive) : "warp");
    if (b.has_param(schema::streaming::param::kWarpsPerSm)) {
      const double requested = b.param(schema::streaming::param::kWarpsPerSm);
      r = relative_check(r, "the requested residency: a persistent grid holds warps/SM from start to end",
                         requested, kResidencyTolerance,
                         Reason("streaming/warps_active_vs_requested").number("requested", requested).number("active", r.value));
    } else if (b.has_counter(schema::streaming::counter::kResidentWarpsPerSm)) {
      const double theoretical = b.counter_median(schema::streaming::counter::kResidentWarpsPerSm);
      r.model = "the occupancy API's resident warps/SM for the block size";
      r = with_prediction(r, theoretical);
      r.verdict = verdict::kInfo;
      r.reason = Reason("streaming/warps_active_vs_occupancy").number("active", r.value).number("theoretical", theoretical);
    } else {
      // read_peak: a grid that covers the buffer once, no residency requested, so no model.
      r.verdict = verdict::kInfo;
      r.reason = Reason("streaming/warps_active_unrequested").number("active", r.value);
    }
    rows.push_back(r);
    done.insert(kWarpsActive);
  }
  if (b.has_counter(kDramBytes) && b.has_counter(schema::counter::kBytesRead)) {
    Row r = counter_row(b, kDramBytes, units.count(kDramBytes) ? units.at(kDramBytes) : "byte");
    const double expected = b.counter_median(schema::counter::kBytesRead);
    r = relative_check(r, "the bytes the kernel reads (the buffer, 8x the L2 or more)", expected, kDramBytesTolerance,
                       Reason("streaming/dram_bytes_vs_read").number("dram_bytes", r.value).number("read_bytes", expected));
    // Bookkeeping, not a prediction: a buffer of 8x the L2 guarantees the count (ISSUE-33-CHECKS).
    r.kind = kind::kCheck;
    r.verdict = r.verdict == verdict::kHolds ? verdict::kPasses : verdict::kFails;
    rows.push_back(r);
    done.insert(kDramBytes);

    Row t = base_row(b);
    t.metric = "dram_read_pct_of_theoretical_peak";
    const double peak = detail::dram_peak(run);
    t.value = 100.0 * r.value / b.median_seconds() / peak;
    t.unit = "%";
    t.verdict = verdict::kInfo;
    t.reason = Reason("streaming/dram_read_share_of_peak").number("peak", peak);
    rows.push_back(t);
  }
}

class Latency final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override { return schema::latency::descriptor(); }
  void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    if (b.benchmark == schema::latency::benchmark::kChaseLoaded) {
      evaluate_loaded_chase(run, b, rows);
    } else {
      evaluate_chase(b, rows);
    }
  }
  std::string render_reason(const Reason& reason) const override { return render(reason); }
};

// The curves read both families' points (the plateaus are the latency family's), once a run.
class Streaming final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override {
    return schema::streaming::descriptor();
  }
  void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    evaluate_stream(run, b, rows);
  }
  void evaluate_counters(const Run& run, const BenchmarkResult& b, const CounterUnits& units,
                         std::vector<Row>& rows, std::set<std::string>& judged) const override {
    streaming_checks(run, b, units, rows, judged);
  }
  void evaluate_run(const Run& run, std::vector<Row>& rows) const override {
    plateau_rows(run, rows);
    knee_rows(run, rows);
    second_order_rows(run, rows);
    one_per_thread_second_order_rows(run, rows);
    memory_bound_rows(run, rows);
    target_rows(run, rows);
  }
  std::string render_reason(const Reason& reason) const override { return render(reason); }
};

}  // namespace

std::vector<const Family*> families() {
  static const Latency latency;
  static const Streaming streaming;
  return {&latency, &streaming};
}

}  // namespace warpcost::analysis::streaming

namespace warpcost::analysis {

// r_sat: warp instructions a cycle a scheduler of the FMA chains at 8 warps a scheduler
// (partial_warp/fma_issue, 32 warps a block on one SM), the slope between its two loop lengths.
std::optional<double> detail::saturated_issue_rate(const Run& run, int schedulers, std::string& source) {
  namespace pw = schema::partial_warp;
  std::vector<const BenchmarkResult*> points;
  for (const auto& x : run.benchmarks) {
    if (x.family != pw::kFamily || x.benchmark != pw::benchmark::kFmaIssue || x.error || x.seconds.empty()) continue;
    if (static_cast<long long>(x.param(pw::param::kWarpsPerBlock)) != 8LL * schedulers) continue;
    if (!x.has_counter(schema::metric::kWarpInstructions) || !x.has_counter(schema::counter::kSmClockHz)) continue;
    if (find_benchmark(run, x.family, x.benchmark, x.params_text()) == nullptr) return std::nullopt;  // throttled
    points.push_back(&x);
  }
  if (points.size() < 2) return std::nullopt;
  auto trips = [](const BenchmarkResult* x) { return x->param(pw::param::kTrips); };
  const auto [lo, hi] = std::minmax_element(points.begin(), points.end(),
                                            [&](const auto* a, const auto* b) { return trips(a) < trips(b); });
  const double cycles = (*hi)->median_seconds() * (*hi)->counter_median(schema::counter::kSmClockHz) -
                        (*lo)->median_seconds() * (*lo)->counter_median(schema::counter::kSmClockHz);
  const double inst = (*hi)->counter_median(schema::metric::kWarpInstructions) - (*lo)->counter_median(schema::metric::kWarpInstructions);
  if (!(cycles > 0) || !(inst > 0)) return std::nullopt;
  source = "fma_issue " + (*lo)->params_text() + " and " + (*hi)->params_text();
  return inst / cycles / schedulers;
}

std::optional<double> detail::block_turnover_cycles(const Run& run, const BenchmarkResult& b) {
  const double sms = run.context.number(schema::key::kSmCount);
  const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  if (!b.has_counter(schema::counter::kBlocks) || b.median_seconds() <= 0 || !(sms > 0) || !(clock > 0)) return std::nullopt;
  const double blocks = b.counter_median(schema::counter::kBlocks);
  if (!(blocks > 0)) return std::nullopt;
  return b.median_seconds() * clock * sms / blocks;
}

// The loaded-latency locus (docs/models.md): the 16-byte W = 0 sweep of read_independent, each
// unthrottled point's (bandwidth, cycles a load a warp waits); nullopt with fewer than two points.
std::optional<model::streaming::Locus> detail::loaded_latency_locus(const Run& run, std::string& description) {
  const double sms = run.context.number(schema::key::kSmCount);
  const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  std::vector<std::pair<double, double>> points;
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.error || b.seconds.empty() ||
        b.benchmark != schema::streaming::benchmark::kReadIndependent || !b.has_param(schema::streaming::param::kWarpsPerSm) ||
        !b.has_counter(schema::counter::kBytesRead) || b.median_seconds() <= 0)
      continue;
    const streaming::CurveKey key{b.benchmark, static_cast<long long>(b.param(schema::streaming::param::kLoadBytes)),
                       static_cast<long long>(streaming::param_or(b, schema::streaming::param::kAluPerLoad, 0)),
                       static_cast<long long>(streaming::param_or(b, schema::streaming::param::kLoadsInFlight, 1))};
    if (!streaming::is_locus_curve(key) || is_throttled(run, b)) continue;  // a throttled locus point is left out
    const double bandwidth = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
    if (!(bandwidth > 0)) continue;
    points.emplace_back(bandwidth, sms * b.param(schema::streaming::param::kWarpsPerSm) * 512.0 * clock / bandwidth);
  }
  if (points.size() < 2) return std::nullopt;
  model::streaming::Locus locus(points);
  description = streaming::locus_description(points.size(), locus.unloaded_cycles(), locus.ceiling());
  return locus;
}

// ISSUE-33-GREEDY-ISSUE: the greedy-issue model's run-wide inputs, where the run can give them: the
// suite's loops are known for cc 9.0 built by CUDA 13.0 (core/suite_loops.cpp), and the
// load latency's spread comes from the W = 0, 16-byte, 4-warps/SM point's
// loaded_latency_max_excess_w2_cycles (runs from 5 December 2026 20:30 UTC): sigma = sqrt(pi) times
// it (the expected excess of the slower of two normal draws over their mean is sigma / sqrt(pi)).
std::optional<detail::GreedyRunInputs> detail::greedy_run_inputs(const Run& run, const model::streaming::Locus& locus) {
  const std::string& cuda = run.context.text(schema::key::kCudaRuntime);
  if (run.context.text(schema::key::kCc) != "9.0" || (cuda != "13.0" && cuda.rfind("13.0.", 0) != 0)) return std::nullopt;
  std::optional<double> excess;
  for (const auto& b : run.benchmarks) {
    if (b.family != schema::streaming::kFamily || b.error || b.benchmark != schema::streaming::benchmark::kReadIndependent ||
        !b.has_param(schema::streaming::param::kWarpsPerSm) || b.param(schema::streaming::param::kWarpsPerSm) != 4 ||
        b.param(schema::streaming::param::kLoadBytes) != 16 || streaming::param_or(b, schema::streaming::param::kAluPerLoad, 0) != 0 ||
        streaming::param_or(b, schema::streaming::param::kLoadsInFlight, 1) != 1 ||
        !b.has_counter(schema::streaming::counter::kLoadedLatencyMaxExcessW2) || is_throttled(run, b))
      continue;  // a throttled point's spread is not the GPU's: the queue prices the run
    excess = b.counter_median(schema::streaming::counter::kLoadedLatencyMaxExcessW2);
  }
  if (!excess || !std::isfinite(*excess) || !(*excess >= 0)) return std::nullopt;
  GreedyRunInputs in;
  in.sigma = std::sqrt(std::acos(-1.0)) * *excess;
  in.memory_latency = model::streaming::greedy_memory_latency(locus.unloaded_cycles());
  return in;
}

// One copy_independent point's (read + write DRAM rate, cycles a load waits): Little's law with a
// 16-byte load in flight a lane (512 bytes a warp) at the read rate; nullopt for a point that
// cannot say (an error, throttled, no time or bytes).
std::optional<std::pair<double, double>> detail::copy_locus_point(const Run& run, const BenchmarkResult& b) {
  const double sms = run.context.number(schema::key::kSmCount);
  const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  if (b.family != schema::streaming::kFamily || b.benchmark != schema::streaming::benchmark::kCopyIndependent ||
      b.error || b.seconds.empty() || b.median_seconds() <= 0 || is_throttled(run, b) ||
      !b.has_param(schema::streaming::param::kWarpsPerSm) || !b.has_counter(schema::counter::kBytesRead) ||
      !b.has_counter(schema::streaming::counter::kBytesWritten) || !(sms > 0) || !(clock > 0))
    return std::nullopt;
  const double read = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
  const double written = b.counter_median(schema::streaming::counter::kBytesWritten) / b.median_seconds();
  if (!(read > 0) || !(written >= 0)) return std::nullopt;
  return std::make_pair(read + written, sms * b.param(schema::streaming::param::kWarpsPerSm) * 512.0 * clock / read);
}

std::optional<model::streaming::Locus> detail::copy_locus(const Run& run, std::string& description) {
  std::vector<std::pair<double, double>> points;
  for (const auto& b : run.benchmarks) {
    if (const auto p = copy_locus_point(run, b)) points.push_back(*p);
  }
  if (points.size() < 2) return std::nullopt;
  model::streaming::Locus locus(points);
  description = "copy locus of " + std::to_string(points.size()) + " points (copy_independent 16-byte), " +
                std::to_string(static_cast<long long>(std::lround(locus.unloaded_cycles()))) + " cycles unloaded, ceiling " +
                fixed(locus.ceiling() / 1e12, 3) + " TB/s (read + write)";
  return locus;
}

}  // namespace warpcost::analysis
