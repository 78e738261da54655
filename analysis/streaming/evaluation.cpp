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

void evaluate_chase(const BenchmarkResult& b, std::vector<Row>& rows) {
  const std::string tag = std::string(b.benchmark == schema::latency::benchmark::kChaseRandom ? "random ring" : "fixed stride") + ", " +
                          std::to_string(static_cast<long long>(b.param(schema::latency::param::kFootprintKib))) + " KiB: ";
  Row c = base_row(b);
  c.metric = "latency_cycles";
  c.value = b.counter_median(schema::latency::counter::kCyclesPerLoad);
  c.unit = "cycles";
  c.verdict = verdict::kInfo;
  c.why = tag + "one thread, " + fixed(b.counter_median(schema::latency::counter::kSteps), 0) + " dependent loads after " +
          fixed(b.counter_median(schema::latency::counter::kWarmSteps), 0) + " untimed";
  rows.push_back(c);
  Row n = base_row(b);
  n.metric = "latency_ns";
  n.value = b.counter_median(schema::latency::counter::kNsPerLoad) * 1e-9;
  n.unit = "s";
  n.verdict = verdict::kInfo;
  n.why = tag + "%globaltimer over the same loads";
  rows.push_back(n);
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
      std::string kib;
      for (const long long f : p.footprints_kib) kib += (kib.empty() ? "" : ", ") + std::to_string(f);
      r.why = level + " plateau: median over footprints of " + kib + " KiB, " + fixed(p.ns, 1) + " ns";
      rows.push_back(r);
    }
  }
}

// A bandwidth row beside the theoretical peak. Staying under a peak tests no model, so it is info;
// above it, the data did not come from DRAM, which the why says.
Row bandwidth_row(const BenchmarkResult& b, double peak, const std::string& tag) {
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
  bw.why = tag + fixed(100 * share, 1) + "% of the theoretical peak" +
           (impossible ? ": above the peak by more than 2%, impossible for DRAM: the stream did not "
                         "come from DRAM or the bytes or the timing are wrong"
                       : "");
  return bw;
}

// The one-load-per-thread stream: bandwidth at a block size, with the residency
// that size allows.
void evaluate_one_per_thread(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const auto threads = static_cast<long long>(b.param(schema::streaming::param::kBlockThreads));
  const auto blocks = static_cast<long long>(b.counter_median(schema::streaming::counter::kResidentBlocksPerSm));
  const auto warps = static_cast<long long>(b.counter_median(schema::streaming::counter::kResidentWarpsPerSm));
  const std::string tag = std::to_string(threads) + " threads a block, " + std::to_string(blocks) +
                          " blocks = " + std::to_string(warps) + " warps/SM resident: ";
  rows.push_back(bandwidth_row(b, dram_peak(run), tag));
  Row r = base_row(b);
  r.metric = "resident_warps_per_sm";
  r.value = static_cast<double>(warps);
  r.unit = "count";
  r.verdict = verdict::kInfo;
  const auto cap = static_cast<long long>(run.context.number(schema::key::kMaxWarpsPerSm));
  const auto block_cap = static_cast<long long>(run.context.number(schema::key::kMaxBlocksPerSm));
  r.why = tag + (warps < cap && blocks == block_cap
                     ? "the " + std::to_string(block_cap) + "-block cap binds before the " +
                           std::to_string(cap) + "-warp cap"
                 : warps < cap ? "the warp cap leaves room for less than one more block"
                               : "the warp cap is reached");
  rows.push_back(r);
}

void evaluate_stream(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (b.benchmark == schema::streaming::benchmark::kReadOnePerThread) {
    evaluate_one_per_thread(run, b, rows);
    return;
  }
  const double peak = dram_peak(run);
  if (b.benchmark == schema::streaming::benchmark::kReadPeak) {  // the plain storeless read: its rate only (no residency model)
    rows.push_back(bandwidth_row(b, peak,
                                 std::to_string(static_cast<long long>(b.param(schema::streaming::param::kLoadsPerThread))) +
                                     " 16-byte loads a thread, " +
                                     std::to_string(static_cast<long long>(b.param(schema::streaming::param::kBlockThreads))) +
                                     " threads a block, no store: "));
    return;
  }
  const std::string tag =
      std::to_string(static_cast<long long>(b.param(schema::streaming::param::kWarpsPerSm))) + " warps/SM, " +
      std::to_string(static_cast<long long>(b.param(schema::streaming::param::kLoadBytes))) + "-byte loads, " +
      (b.benchmark == schema::streaming::benchmark::kReadBatched
           ? std::to_string(static_cast<long long>(b.param(schema::streaming::param::kLoadsInFlight))) + " loads in flight a thread"
           : "W = " + std::to_string(static_cast<long long>(b.param(schema::streaming::param::kAluPerLoad)))) +
      ": ";
  rows.push_back(bandwidth_row(b, peak, tag));

  Row ins = base_row(b);
  ins.metric = "useful_instructions_per_second";
  ins.value = (b.has_counter(schema::streaming::counter::kUsefulInstructions) ? b.counter_median(schema::streaming::counter::kUsefulInstructions)
                                                    : b.counter_median(schema::streaming::counter::kLoads)) /
              b.median_seconds();
  ins.unit = "inst/s";
  ins.verdict = verdict::kInfo;
  ins.why = tag + "(W + 1) thread instructions per load over the launch";
  if (!b.has_counter(schema::streaming::counter::kUsefulInstructions)) ins.why = tag + "loads only";
  rows.push_back(ins);

  Row lat = base_row(b);
  lat.metric = "loaded_latency_cycles";
  lat.value = b.counter_median(schema::streaming::counter::kLoadedLatencyCycles);
  lat.unit = "cycles";
  lat.verdict = verdict::kInfo;
  lat.why = tag +
            "median clock64 around one lane's load and first use, recorded by every block's lane 0 "
            "while the whole of its warp 0 takes the probe path (8 samples spread over the run)";
  rows.push_back(lat);
}

// One curve: the benchmark (use) x width x W x loads in flight, bandwidth
// against warps per SM.
using CurveKey = std::tuple<std::string, long long, long long, long long>;

double param_or(const BenchmarkResult& b, const std::string& key, double otherwise) {
  return b.has_param(key) ? b.param(key) : otherwise;
}

// Why a curve is or is not flat over its end (models.hpp: kKneePlateau*).
std::string plateau_text(const model::Knee& k) {
  return "95% of the second-largest rate first at " + fixed(k.flat_from, 0) + " warps/SM, " +
         std::to_string(k.flat_points) + " point(s) past it within 5%, " + std::to_string(k.outliers) +
         " outside, the sweep ending at " + fixed(k.flat_span, 2) + "x its warps (flat needs >= " +
         std::to_string(model::kKneePlateauPoints) + " points within 5%, at most " +
         std::to_string(model::kKneePlateauOutliers) + " outside, over >= " +
         fixed(model::kKneePlateauSpan, 2) + "x the warps)";
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
             const std::string& why) {
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
  const std::string sweep = fixed(swept_min, 0) + ".." + fixed(swept_max, 0) + " warps/SM swept";
  if (!knee.saturated) {
    if (predicted < measured - tolerance) {
      r.verdict = verdict::kFails;
      r.why = why + "; the curve is not flat over the sweep's end (" + plateau_text(knee) +
              "), so the knee lies at " + fixed(measured, 0) +
              " warps/SM or later: the prediction is under it by " + fixed(measured - predicted, 0) +
              " (more than " + fixed(tolerance, 0) + ")";
      return r;
    }
    r.verdict = verdict::kUntestable;
    r.why = why + "; the knee is not reached in the sweep (" + plateau_text(knee) + "): it lies at " +
            fixed(measured, 0) + " warps/SM or later, " +
            (predicted > swept_max ? "the prediction beyond the " + sweep
                                   : std::string("the prediction not under it")) +
            ", so the data cannot decide";
    return r;
  }
  if (predicted < swept_min && measured <= swept_min) {
    r.verdict = verdict::kUntestable;
    r.why = why + "; the knee is the sweep's first point (" + sweep +
            "), so it may lie anywhere under it, where the prediction lies";
    return r;
  }
  const bool holds = miss <= tolerance;
  r.verdict = holds ? verdict::kHolds : verdict::kFails;
  r.why = why + (holds ? "" : "; the model misses by " + fixed(miss, 0) + " warps/SM") +
          (predicted > swept_max ? " (the prediction lies beyond the " + sweep +
                                       ", on a curve flat over its end)"
                                 : "");
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
    m.why = "fewest warps/SM reaching 90% of the curve's plateau " + fixed(knee.plateau / 1e12, 3) +
            " TB/s (" + std::to_string(members.size()) + " residencies, " + fixed(swept_min, 0) + ".." +
            fixed(swept_max, 0) + ")" +
            (knee.saturated ? ", flat from " + fixed(knee.flat_from, 0) + " warps/SM"
                            : ": not flat over the sweep's end (a lower bound of the knee), " +
                                  plateau_text(knee));
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
      n.why = "no prediction: the run's counter pass has no " + std::string(kInstExecuted) +
              " for this curve, so the instructions per load are not known (W + 1 is not used)";
      rows.push_back(n);
    } else if (in_flight == 1) {
      const long long per_scheduler = model::warps_to_hide_latency(latency, inst);
      const double n_sm = static_cast<double>(per_scheduler * arch.schedulers_per_sm);
      const std::string numbers = "unloaded L = " + fixed(latency, 0) +
                                  " cycles (random-chase DRAM plateau), I = " + fixed(inst, 1) +
                                  " warp instructions a load (counter pass), W = " + std::to_string(w);
      rows.push_back(knee_row(params, "knee_model_ceil_l_over_w", knee, n_sm, swept_min, swept_max,
                              "N = ceil(L/I) per scheduler x N_sched, L unloaded, I counted",
                              numbers + ": ceil(L/I) = " + std::to_string(per_scheduler) +
                                  " a scheduler, " + fixed(n_sm, 0) + " an SM" +
                                  (n_sm > static_cast<double>(cap)
                                       ? " > the cap of " + std::to_string(cap)
                                       : "")));
      const model::SchedulerDemand d = model::scheduler_demand(
          arch.schedulers_per_sm, latency, arch.issue_interval_cycles, inst, cap);
      rows.push_back(knee_row(params, "knee_model_scheduler_demand", knee,
                              static_cast<double>(d.warps_needed_whole), swept_min, swept_max,
                              "N_sched·L/(T_issue·I), L unloaded, I counted",
                              numbers + ": " + fixed(d.instruction_slots, 0) + " slots / " +
                                  fixed(inst, 1) + " = " + fixed(d.warps_needed, 1) + " warps" +
                                  (d.fits ? "" : ", short " + std::to_string(d.deficit) + " of the cap")));
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
    l.why = "plateau " + fixed(knee.plateau / 1e12, 3) + " TB/s x loaded " + fixed(loaded, 0) +
            " cycles = " + fixed(little.bytes_in_flight / 1024, 0) + " KiB in flight, " +
            fixed(little_sm, 1) + " warps/SM at " + std::to_string(in_flight) + " " +
            std::to_string(width) + "-byte load(s) per lane in flight, against the knee's " +
            fixed(knee.warps, 0);
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
    e.why = "Ex 6 (W = 1: 400 warps > 64): the W = 0 stream's plateau " + fixed(plateau / 1e12, 3) +
            " TB/s against the device-to-device copy's " + fixed(copy_rate / 1e12, 3) + " TB/s" +
            (holds ? ": bandwidth-bound, as the example says"
                   : std::string(": more than 10% ") + (*e.rel_error < 0 ? "under" : "over") + " the copy" +
                         noise_note(miss, kEx6Tolerance, sigma));
    // A rate above the theoretical peak cannot be judged against a model: the measurement is wrong.
    const double peak = dram_peak(run);
    const double over = std::max(plateau, copy_rate) / peak;
    if (over > 1.0 + kPeakMeasurementTolerance) {
      e.verdict = verdict::kError;
      e.why = "the " + std::string(plateau >= copy_rate ? "stream's plateau" : "copy") + " ran at " +
              fixed(100 * over, 1) + "% of the theoretical peak " + fixed(peak / 1e12, 3) +
              " TB/s: impossible for DRAM, the measurement is wrong; " + e.why;
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
  std::string locus_text;
  const std::optional<model::streaming::Locus> found = loaded_latency_locus(run, locus_text);
  if (!rate || !found) return;  // no parameter points in this run: no rows
  const model::streaming::Locus& locus = *found;
  const std::string params_text = fixed(*rate, 3) + " warp instructions a cycle a scheduler (" + rate_source + "), " + locus_text;
  for (auto& [key, members] : curves) {
    std::sort(members.begin(), members.end(), [&](const auto* a, const auto* b) { return warps(a) < warps(b); });
    const auto& [benchmark, width, w, in_flight] = key;
    const BenchmarkResult* first = members.front();
    if (warps(first) != 1 || members.size() < 3) continue;  // T0 is the curve's own 1-warp point
    const bool consistency = is_locus_curve(key);
    const double bytes_per_iteration = 32.0 * static_cast<double>(width) * static_cast<double>(in_flight);
    const double t0 = sms * 1.0 * bytes_per_iteration * clock / bandwidth(first);
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
      const model::streaming::StreamPrediction pred = model::streaming::predict_stream(p, locus, *rate);
      measured.emplace_back(p.warps_per_sm, bandwidth(b));
      predicted.emplace_back(p.warps_per_sm, pred.bandwidth);
      Row r = base_row(*b);
      r.metric = "second_order_bandwidth";
      r.value = bandwidth(b);
      r.unit = "bytes/s";
      r.model = std::string(kSecondOrderPrefix) +
                "Little's law in bytes as a fixed point with the loaded-latency locus, the busiest scheduler's issue as a queue";
      r = with_prediction(r, pred.bandwidth);
      const std::string numbers = std::to_string(p.warps_per_sm) + " warps/SM (" + std::to_string(pred.warps_per_scheduler) +
                                  " a scheduler), I = " + fixed(p.instructions_per_iteration, 1) + " instructions an iteration, T0 = " +
                                  fixed(t0, 0) + " cycles; at the fixed point a load waits " + fixed(pred.loaded_cycles, 0) +
                                  " cycles and an iteration takes " + fixed(pred.iteration_cycles, 0) +
                                  (pred.at_ceiling ? " (the locus' ceiling bounds it)" : "") + ": predicted " +
                                  fixed(pred.bandwidth / 1e12, 3) + " TB/s, measured " + fixed(r.value / 1e12, 3) + " TB/s";
      if (consistency) {
        r.verdict = verdict::kInfo;
        r.why = numbers + "; not judged: this curve is the locus the model reads (consistency)";
      } else if (b == first) {
        r.verdict = verdict::kInfo;
        r.why = numbers + "; not judged: this 1-warp/SM point sets the curve's T0 (the declared fit point)";
      } else {
        const bool holds = std::fabs(*r.rel_error) <= kSecondOrderStreamTolerance;
        judge(r, std::fabs(*r.rel_error), kSecondOrderStreamTolerance, cv_of(*b));
        r.why = numbers + (holds ? "" : ": more than 5% apart" + noise_note(std::fabs(*r.rel_error), kSecondOrderStreamTolerance, cv_of(*b)));
      }
      r.why += "; " + params_text;
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
    k.value = model::streaming::knee_of(measured, kKneeFraction);
    k.unit = "count";
    k.model = std::string(kSecondOrderPrefix) + "the first swept warps/SM whose predicted bandwidth reaches 90% of the predicted curve's largest";
    const int predicted_knee = model::streaming::knee_of(predicted, kKneeFraction);
    k = with_prediction(k, predicted_knee);
    const double off = std::fabs(k.value - predicted_knee);
    k.why = "measured knee " + fixed(k.value, 0) + " warps/SM (90% of " + fixed(std::max_element(measured.begin(), measured.end(), [](auto& a, auto& b) { return a.second < b.second; })->second / 1e12, 3) +
            " TB/s), predicted " + std::to_string(predicted_knee) + " (90% of the predicted curve's largest)";
    if (consistency) {
      k.verdict = verdict::kInfo;
      k.why += "; not judged: this curve is the locus the model reads (consistency)";
    } else {
      k.kind = kind::kModel;
      judge(k, off, kSecondOrderKneeWarps, 0.0);
      k.why += off <= kSecondOrderKneeWarps ? "" : ": more than 3 warps/SM apart";
    }
    rows.push_back(k);
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
    if (b.family != schema::streaming::kFamily || b.error || b.seconds.empty() || is_throttled(run, b)) continue;
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
  r.why = "best read " + best->benchmark + " " + best->params_text() + ": " + fixed(best_rate / 1e12, 3) +
          " TB/s, " + fixed(100 * best_rate / peak, 1) + "% of the " + fixed(peak / 1e12, 3) + " TB/s peak" +
          (copy == nullptr ? "; no device-to-device copy in this run"
                           : ", " + fixed(best_rate / copy_rate, 3) + "x the copy's " +
                                 fixed(copy_rate / 1e12, 3) + " TB/s") +
          (impossible ? ": above the peak by more than 2%, impossible for DRAM, so the measurement is "
                        "wrong, not the target met"
                      : "") +
          (!mig.empty() && !impossible
               ? "; a MIG instance (" + mig + "): the reported memory clock and bus do not give its share of "
                 "the GPU's memory slices, so no peak target"
               : "");
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
  t.why = std::to_string(sweep_points) + " points, every launch timed by events (checked, warm-up and timed)";
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
                         fixed(requested, 0) + " warps/SM requested, " + fixed(r.value, 2) +
                             " active on average (the ramp and drain lower it)");
    } else if (b.has_counter(schema::streaming::counter::kResidentWarpsPerSm)) {
      const double theoretical = b.counter_median(schema::streaming::counter::kResidentWarpsPerSm);
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
  if (b.has_counter(kDramBytes) && b.has_counter(schema::counter::kBytesRead)) {
    Row r = counter_row(b, kDramBytes, units.count(kDramBytes) ? units.at(kDramBytes) : "byte");
    const double expected = b.counter_median(schema::counter::kBytesRead);
    r = relative_check(
        r, "the bytes the kernel reads (the buffer, 8x the L2 or more)", expected, kDramBytesTolerance,
        fixed(r.value / 1e9, 4) + " GB from DRAM for " + fixed(expected / 1e9, 4) + " GB read");
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
    t.why = "counted DRAM bytes over the median event-timed launch, against the theoretical peak " +
            fixed(peak / 1e12, 3) +
            " TB/s (CUPTI's elapsed-based throughput spans the range's launch "
            "and sync, so it is not used)";
    rows.push_back(t);
  }
}

class Latency final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override { return schema::latency::descriptor(); }
  void evaluate_benchmark(const Run&, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    evaluate_chase(b, rows);
  }
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
    memory_bound_rows(run, rows);
    target_rows(run, rows);
  }
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
  description = "locus of " + std::to_string(points.size()) + " points (read_independent 16-byte W = 0), " +
                fixed(locus.unloaded_cycles(), 0) + " cycles unloaded, ceiling " + fixed(locus.ceiling() / 1e12, 3) + " TB/s";
  return locus;
}

}  // namespace warpcost::analysis
