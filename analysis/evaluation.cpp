#include "analysis/evaluation.hpp"

#include "analysis/evaluation_support.hpp"

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "analysis/core/models.hpp"
#include "analysis/core/result_schema.hpp"
#include "analysis/core/statistics.hpp"

namespace warpcost::analysis {
namespace detail {

double cv_of(const BenchmarkResult& b) { return point_uncertainty(b); }

// A miss past its tolerance by no more than kWarnNoiseMultiple x the uncertainty of the compared
// statistic cannot be decided by this run: warn (repeat with more samples), not a failure of the
// model. What is held against the noise is the excess over the tolerance, not the whole miss: the
// tolerance already absorbs the model's own slack, and noise can only blur the tolerance's edge.
bool undecided(double miss, double tolerance, double sigma) {
  return miss - tolerance <= kWarnNoiseMultiple * sigma;
}

const char* miss_verdict(double miss, double tolerance, double sigma) {
  return undecided(miss, tolerance, sigma) ? verdict::kWarn : verdict::kFails;
}

std::string noise_note(double miss, double tolerance, double sigma) {
  return undecided(miss, tolerance, sigma)
             ? ", " + fixed(100 * (miss - tolerance), 2) +
                   "% past the tolerance, within twice the statistic's uncertainty (" +
                   fixed(100 * sigma, 2) + "%): too noisy to decide"
             : "";
}

void judge(Row& r, double miss, double tolerance, double sigma) {
  r.kind = kind::kModel;
  r.verdict = miss <= tolerance ? verdict::kHolds : miss_verdict(miss, tolerance, sigma);
}

Row base_row(const BenchmarkResult& b) {
  Row r;
  r.family = b.family;
  r.benchmark = b.benchmark;
  r.params = b.params_text();
  return r;
}

Row with_prediction(Row r, double predicted) {
  r.predicted = predicted;
  if (predicted != 0.0) r.rel_error = (r.value - predicted) / predicted;
  return r;
}

const BenchmarkResult* find_benchmark(const Run& run, const std::string& family,
                                      const std::string& benchmark, const std::string& params) {
  for (const auto& other : run.benchmarks) {
    if (other.family == family && other.benchmark == benchmark && other.params_text() == params &&
        !other.error && !other.seconds.empty() && !is_throttled(run, other)) {
      return &other;
    }
  }
  return nullptr;
}

long long iparam(const BenchmarkResult& b, const std::string& key) {
  return std::llround(b.param(key));
}

double dram_peak(const Run& run) {
  return model::theoretical_dram_peak_bytes_per_s(
      static_cast<long long>(run.context.number(schema::key::kMemoryClockKhz)),
      static_cast<int>(run.context.number(schema::key::kMemoryBusWidthBits)));
}

}  // namespace detail

double point_noise(const BenchmarkResult& b) {
  if (b.has_counter("warpcost_noise")) return b.counter_median("warpcost_noise");
  return coefficient_of_variation(b.seconds);
}

double point_uncertainty(const BenchmarkResult& b) {
  // The bench's own samples: their relative standard deviation over the square root of their count.
  if (b.has_counter("warpcost_noise") && b.has_counter("warpcost_samples") &&
      b.counter_median("warpcost_samples") >= 1.0) {
    return b.counter_median("warpcost_noise") / std::sqrt(b.counter_median("warpcost_samples"));
  }
  return relative_median_standard_error(b.seconds);
}

double counter_uncertainty(const BenchmarkResult& b, const std::string& counter) {
  const auto it = b.counters.find(counter);
  return it == b.counters.end() ? 0.0 : relative_median_standard_error(it->second);
}

bool is_throttled(const Run& run, const BenchmarkResult& b) {
  const auto lowest = b.counters.find("warpcost_sm_clock_mhz");
  if (lowest == b.counters.end() || lowest->second.empty()) return false;
  double max_mhz = 0.0;
  if (run.context.values.count("sm_clock_max_mhz") != 0) {
    max_mhz = run.context.number("sm_clock_max_mhz");
  } else if (run.context.values.count(schema::key::kSmClockMaxKhz) != 0) {
    max_mhz = run.context.number(schema::key::kSmClockMaxKhz) / 1e3;
  }
  if (max_mhz <= 0.0) return false;
  const double low = *std::min_element(lowest->second.begin(), lowest->second.end());
  return low < kThrottleFraction * max_mhz;
}

namespace {

using detail::base_row;
using detail::cv_of;
using detail::miss_verdict;
using detail::noise_note;
using detail::with_prediction;
using detail::judge;


void add_time_rows(const BenchmarkResult& b, std::vector<Row>& rows) {
  Row t = base_row(b);
  t.metric = "gpu__time_duration.median";
  t.value = b.median_seconds();
  t.unit = "s";
  t.verdict = verdict::kInfo;
  t.why = std::to_string(b.seconds.size()) + " repetition(s)";
  rows.push_back(t);
  if (b.seconds.size() < 2) return;

  Row cv = base_row(b);
  cv.metric = "gpu__time_duration.cv";
  cv.value = coefficient_of_variation(b.seconds);
  cv.unit = "ratio";
  cv.model = "target: cv <= 0.5% for kernels of 50 us or more";
  cv.predicted = kCvTarget;
  if (t.value < kCvMinSeconds) {
    cv.verdict = verdict::kInfo;
    cv.why = "kernel shorter than 50 us: launch jitter dominates, no CV target";
  } else {
    cv.kind = kind::kTarget;
    const bool met = cv.value <= kCvTarget;
    cv.verdict = met ? verdict::kMet : verdict::kMissed;
    cv.why = "CV " + fixed(100 * cv.value, 3) + "% over " + std::to_string(b.seconds.size()) +
             " repetitions" + (met ? "" : ": above 0.5%, noisy, repeat the run");
  }
  rows.push_back(cv);
}

void evaluate_sm_clock(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  Row r = base_row(b);
  r.metric = "sm__cycles_elapsed.avg.per_second";
  r.value = b.counter_median("sm_clock_hz");
  r.unit = "Hz";
  r.model = "max SM clock (cudaDevAttrClockRate)";
  const double max_hz = run.context.number(schema::key::kSmClockMaxKhz) * 1e3;
  r = with_prediction(r, max_hz);
  const double share = r.value / max_hz;
  // A bound, not a model: the clock cannot exceed its maximum, and a low clock flags the point as
  // throttled (is_throttled) rather than failing anything here.
  r.verdict = verdict::kInfo;
  r.why = "ran at " + fixed(100 * share, 1) + "% of the maximum clock" +
          (share > 1.02 ? ": above the maximum, so clock64 and %globaltimer disagree with the "
                          "attribute"
                        : "");
  rows.push_back(r);
}

void evaluate_d2d_copy(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const double bytes = b.counter_median("bytes_read") + b.counter_median("bytes_written");
  const double peak = model::theoretical_dram_peak_bytes_per_s(
      static_cast<long long>(run.context.number(schema::key::kMemoryClockKhz)),
      static_cast<int>(run.context.number(schema::key::kMemoryBusWidthBits)));
  Row r = base_row(b);
  r.metric = "dram__bytes.sum.per_second";
  r.value = bytes / b.median_seconds();
  r.unit = "B/s";
  r.model = "peak = memory clock x bus width/8 x 2";
  r = with_prediction(r, peak);
  const double share = r.value / peak;
  // A bound: reaching it or not tests no model; passing it is impossible, so the measurement is wrong.
  const bool impossible = share > 1.0 + kPeakMeasurementTolerance;
  r.verdict = impossible ? verdict::kError : verdict::kInfo;
  r.why = "the copy (bytes read + written) reached " + fixed(100 * share, 1) +
          "% of the theoretical peak" +
          (impossible ? ": above the peak by more than 2%, impossible for DRAM, so the bytes, the "
                        "timing or the memory clock is wrong, or the copy ran from L2"
                      : "");
  rows.push_back(r);

  Row pct = base_row(b);
  pct.metric = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  pct.value = 100.0 * share;
  pct.unit = "%";
  pct.model = "share of memory clock x bus width/8 x 2";
  pct.verdict = verdict::kInfo;
  pct.why = "device-to-device cudaMemcpy, the reference the streaming family is held against";
  rows.push_back(pct);
}

void evaluate_launch_overhead(const BenchmarkResult& b, std::vector<Row>& rows) {
  const double launches = b.counter_median("launches");
  Row r = base_row(b);
  r.metric = "gpu__time_duration.per_launch";
  r.value = b.median_seconds() / launches;
  r.unit = "s";
  r.verdict = verdict::kInfo;
  r.why = launches == 1 ? "one empty kernel between two events: the launch latency floor"
                        : fixed(launches, 0) + " empty kernels back to back: the issue rate";
  rows.push_back(r);
}

// ---- partial_warp ----------------------------------------------------------------------------

std::string hex_mask(double v) { return analysis::hex_mask(static_cast<std::uint32_t>(v)); }

// Which worked example or lesson case a recorded shape answers.
std::string example_of(long long x, long long y, long long z) {
  if (y == 1 && z == 1) {
    switch (x) {
      case 256: return "Ex 1";
      case 100: return "Ex 2";
      case 16: return "Ex 4";
      case 72: return "self-test";
      default: return "lesson";
    }
  }
  if (x == 48 && y == 4 && z == 1) return "Ex 3";
  if (x == 8 && y == 4 && z == 3) return "Ex 3b / self-test";
  if ((x == 30 && y == 30) || (x == 32 && y == 8)) return "Ex 9";
  return "shape";
}

Row exact_row(const BenchmarkResult& b, const std::string& metric, double measured,
              const std::string& model, double predicted, const std::string& why_holds,
              const std::string& why_fails, const char* on_miss = verdict::kFails) {
  Row r = base_row(b);
  r.metric = metric;
  r.value = measured;
  r.unit = "count";
  r.model = model;
  r = with_prediction(r, predicted);
  const bool same = measured == predicted;
  r.kind = kind::kModel;
  r.verdict = same ? verdict::kHolds : on_miss;
  r.why = same ? why_holds : why_fails;
  return r;
}

// A count the kernel cannot get other than the model says (one block on one SM, the tail's thread
// count it computes itself): shown as info, with the model beside it.
Row construction_row(Row r, const std::string& note) {
  r.kind = kind::kInfo;
  r.verdict = verdict::kInfo;
  r.why += " (" + note + ")";
  return r;
}

void evaluate_schedule(const BenchmarkResult& b, std::vector<Row>& rows) {
  const long long x = static_cast<long long>(b.param("x"));
  const long long y = static_cast<long long>(b.param("y"));
  const long long z = static_cast<long long>(b.param("z"));
  const long long p = model::threads_per_block({x, y, z});
  const std::string tag = example_of(x, y, z) + ", P = " + std::to_string(p) + ": ";
  const double warps = b.counter_median("warps_observed");
  const long long model_warps = model::warps_per_block(p);
  rows.push_back(exact_row(b, "warps_per_block", warps, "ceil(P/32)", static_cast<double>(model_warps),
                           tag + fixed(warps, 0) + " threads read %laneid 0: one per warp, as ceil(" +
                               std::to_string(p) + "/32) = " + std::to_string(model_warps),
                           tag + fixed(warps, 0) + " warps observed, model " +
                               std::to_string(model_warps)));
  const double mask = b.counter_median("tail_mask_observed");
  Row m = exact_row(b, "tail_mask", mask, "(1 << (P mod 32)) - 1, all 32 bits when P mod 32 = 0",
                    static_cast<double>(model::tail_mask(p)),
                    tag + "the last warp's mask is " + hex_mask(mask) + ", " +
                        std::to_string(model::tail_lanes(p)) + " lanes",
                    tag + "the last warp's mask is " + hex_mask(mask) + ", model " +
                        hex_mask(model::tail_mask(p)));
  m.unit = "mask";
  rows.push_back(m);
  const double mapped = b.counter_median("threads_mapped_as_model");
  rows.push_back(exact_row(
      b, "threads_mapped_as_model", mapped,
      "lane = linear mod 32, (x,y,z) = inverse of linear (x fastest), mask of its warp",
      static_cast<double>(p), tag + "every thread's %laneid, coordinates and mask match the model",
      tag + fixed(static_cast<double>(p) - mapped, 0) + " threads off the model"));
  const double one_clock = b.counter_median("warps_with_one_clock");
  // Independent thread scheduling may split a warp's lanes (allowed since cc 7.0), so one clock
  // value per warp is no model the hardware owes: info.
  Row one = exact_row(b, "warps_with_one_clock", one_clock,
                      "the lanes of a warp issue together: one clock64 value per warp",
                      static_cast<double>(model_warps),
                      tag + "every warp's lanes read one clock64 value",
                      tag + fixed(static_cast<double>(model_warps) - one_clock, 0) +
                          " warps read several clock64 values: independent thread scheduling "
                          "split them");
  rows.push_back(construction_row(one, "allowed since cc 7.0, not a model check"));
  rows.push_back(construction_row(
      exact_row(b, "distinct_sms", b.counter_median("distinct_sms"), "one block runs on one SM", 1.0,
                tag + "all threads on one SM", tag + "threads of one block reported several SMs"),
      "true by the programming model, not a test of warps"));

  // The worked examples this shape answers, as rows of their own for the report's table.
  const char* example = nullptr;
  const char* metric = "warps_per_block";
  if (y == 1 && z == 1 && x == 256) example = "1";
  if (y == 1 && z == 1 && x == 100) example = "2";
  if (y == 1 && z == 1 && x == 16) example = "4";
  if (y == 1 && z == 1 && x == 72) example = "self-test";
  if ((x == 30 && y == 30 && z == 1) || (x == 32 && y == 8 && z == 1)) example = "9";
  if ((x == 48 && y == 4 && z == 1) || (x == 8 && y == 4 && z == 3)) {
    example = x == 48 ? "3" : "3b";
    metric = "threads_mapped_as_model";
  }
  if (example != nullptr) {
    const bool mapping = std::string(metric) == "threads_mapped_as_model";
    Row e = exact_row(b, metric, mapping ? mapped : warps,
                      mapping ? "every thread's lane, warp and (x,y,z) as the inverse of linear"
                              : "ceil(P/32)",
                      static_cast<double>(mapping ? p : model_warps),
                      tag + (mapping ? fixed(mapped, 0) + " of " + std::to_string(p) +
                                           " threads where the model puts them"
                                     : fixed(warps, 0) + " warps, the last with mask " +
                                           hex_mask(mask)),
                      tag + "the hardware disagrees with the model");
    e.benchmark = "worked_example";
    e.params = std::string("example=") + example + ";measured_by=schedule/" + b.params_text();
    rows.push_back(e);
  }
}

const BenchmarkResult* find_benchmark(const Run& run, const std::string& benchmark,
                                      const std::string& params) {
  return detail::find_benchmark(run, "partial_warp", benchmark, params);
}

double useful_fma_rate(const BenchmarkResult& b) {
  return b.counter_median("useful_threads") * b.counter_median("fma_per_thread") / b.median_seconds();
}

void evaluate_staircase(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const long long p = static_cast<long long>(b.param("threads"));
  const long long warps = model::warps_per_block(p);
  const long long next = model::kWarpSize * warps;

  Row rate = base_row(b);
  rate.metric = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_second";
  rate.value = useful_fma_rate(b);
  rate.unit = "inst/s";
  rate.verdict = verdict::kInfo;
  rate.why = "useful thread-FMAs per second: " + fixed(b.counter_median("useful_threads"), 0) +
             " threads x " + fixed(b.counter_median("fma_per_thread"), 0) + " FMAs";
  rows.push_back(rate);

  if (p % model::kWarpSize != 0) {
    if (const BenchmarkResult* ref = find_benchmark(run, "staircase", "threads=" + std::to_string(next))) {
      Row f = base_row(b);
      f.metric = "useful_fraction";
      f.value = rate.value / useful_fma_rate(*ref);
      f.unit = "ratio";
      f.model = "P / (32 ceil(P/32)), against P = " + std::to_string(next);
      f = with_prediction(f, model::lane_efficiency(p));
      // With equal block counts this is (P/next)·(t_next/t_P): the step-flatness check restated,
      // so it is shown, not judged (step_time_spread judges it).
      f.verdict = verdict::kInfo;
      f.why = "useful rate at P = " + std::to_string(p) + " is " + fixed(100 * f.value, 2) +
              "% of P = " + std::to_string(next) + "'s; P/32ceil(P/32) = " +
              fixed(100 * *f.predicted, 2) + "% (" + std::to_string(warps) + " warps carry " +
              std::to_string(p) + " useful lanes); judged as step_time_spread";
      rows.push_back(f);
    }
  }

  const double max_blocks = run.context.number(schema::key::kMaxBlocksPerSm);
  const double max_warps = run.context.number(schema::key::kMaxWarpsPerSm);
  const double by_warps = std::floor(max_warps / static_cast<double>(warps));
  const double predicted = std::min(max_blocks, by_warps);
  Row occ = base_row(b);
  occ.metric = "resident_blocks_per_sm";
  occ.value = b.counter_median("blocks_per_sm");
  occ.unit = "count";
  occ.model = "min(max blocks/SM, floor(max warps/SM / ceil(P/32)))";
  occ = with_prediction(occ, predicted);
  const bool same = occ.value == predicted;
  occ.kind = kind::kModel;
  occ.verdict = same ? verdict::kHolds : verdict::kFails;
  occ.why = std::string(same ? "the occupancy API reserves " : "the occupancy API gives ") +
            fixed(occ.value, 0) + " blocks of " + std::to_string(warps) + " warp slots (" +
            fixed(occ.value * static_cast<double>(warps), 0) + " of " + fixed(max_warps, 0) +
            " warps)" +
            (same ? (by_warps < max_blocks ? ": the warp cap binds, counted in whole warps"
                                           : ": the block cap binds")
                  : "; the model predicts " + fixed(predicted, 0) +
                        ": registers or shared memory bind first");
  rows.push_back(occ);
}

// One row per staircase step k (P in (32(k-1), 32k]): the launches of one step have the same warps
// per block and the same waves, so their times should agree within 1 %. The statistic is
// (max - min) / min over the step's points (the rule declared before the H200 runs; a commit just
// before run 020936Z had moved it to the largest deviation from the median, which halves it), in
// seconds and again in SM cycles. A miss is warn only inside twice the noise of the two points that
// set it (their own samples), never the noisiest point of the step.
void evaluate_staircase_steps(const Run& run, std::vector<Row>& rows) {
  std::map<long long, std::vector<const BenchmarkResult*>> steps;
  for (const auto& b : run.benchmarks) {
    if (b.family == "partial_warp" && b.benchmark == "staircase" && !b.error && !b.seconds.empty() &&
        !is_throttled(run, b)) {
      steps[model::warps_per_block(static_cast<long long>(b.param("threads")))].push_back(&b);
    }
  }
  struct Spread {
    double value = 0.0;
    double noise = 0.0;
  };
  auto spread_of = [](const std::vector<const BenchmarkResult*>& members, auto measure) {
    const BenchmarkResult* lo = members.front();
    const BenchmarkResult* hi = members.front();
    for (const auto* m : members) {
      if (measure(*m) < measure(*lo)) lo = m;
      if (measure(*m) > measure(*hi)) hi = m;
    }
    return Spread{(measure(*hi) - measure(*lo)) / measure(*lo), std::hypot(cv_of(*lo), cv_of(*hi))};
  };
  for (const auto& [k, members] : steps) {
    if (members.size() < 2) continue;
    long long p_lo = 1LL << 30;
    long long p_hi = 0;
    bool all_clocked = true;
    for (const auto* m : members) {
      p_lo = std::min(p_lo, static_cast<long long>(m->param("threads")));
      p_hi = std::max(p_hi, static_cast<long long>(m->param("threads")));
      all_clocked = all_clocked && m->has_counter("sm_clock_hz");
    }
    const Spread time = spread_of(members, [](const BenchmarkResult& m) { return m.median_seconds(); });
    Row r;
    r.family = "partial_warp";
    r.benchmark = "staircase_step";
    r.params = "warps=" + std::to_string(k) + ";threads=" + std::to_string(p_lo) + ".." +
               std::to_string(p_hi);
    r.metric = "step_time_spread";
    r.value = time.value;
    r.unit = "ratio";
    r.model = "one step, one time: same warps per block ((max - min) / min of the step's times)";
    r.predicted = 0.0;
    const bool holds = r.value <= kStepSpreadTolerance;
    judge(r, r.value, kStepSpreadTolerance, time.noise);
    r.why = std::to_string(members.size()) + " block sizes of " + std::to_string(k) +
            " warps: times spread " + fixed(100 * r.value, 2) + "% (max - min) / min" +
            (holds ? "" : " (more than 1%)" + noise_note(r.value, kStepSpreadTolerance, time.noise));
    rows.push_back(r);
    if (!all_clocked) continue;

    // The same in SM cycles (time x the clock each launch measured): what is left once the
    // clock's drift between benchmarks is taken out.
    const Spread cyc = spread_of(members, [](const BenchmarkResult& m) {
      return m.median_seconds() * m.counter_median("sm_clock_hz");
    });
    Row c = r;
    c.metric = "step_cycle_spread";
    c.value = cyc.value;
    const bool cycles_hold = c.value <= kStepSpreadTolerance;
    judge(c, c.value, kStepSpreadTolerance, cyc.noise);
    c.why = std::to_string(members.size()) + " block sizes of " + std::to_string(k) +
            " warps: SM cycles spread " + fixed(100 * c.value, 2) + "% (times " +
            fixed(100 * r.value, 2) + "%)" +
            (holds || !cycles_hold ? "" : ": the time spread is the SM clock moving between benchmarks") +
            (cycles_hold ? "" : noise_note(c.value, kStepSpreadTolerance, cyc.noise));
    rows.push_back(c);
  }
}

void evaluate_grid_tail(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const long long block = static_cast<long long>(b.param("block"));
  const long long total = static_cast<long long>(b.param("threads"));
  const model::GridTail g = model::grid_tail(total, block);
  const std::string tag = "N = " + std::to_string(total) + ", B = " + std::to_string(block) + ": ";
  // The bench counts the threads that passed the kernel's own guard i < N: equal to the model by
  // construction, so shown, not judged.
  rows.push_back(construction_row(
      exact_row(b, "tail_active_threads", b.counter_median("tail_active_threads_observed"),
                "N - B(ceil(N/B) - 1)", static_cast<double>(g.last_block_threads),
                tag + "the last block runs " + std::to_string(g.last_block_threads) + " threads",
                tag + "the last block ran a different number of threads"),
      "the guard i < N sets it"));
  rows.push_back(exact_row(b, "tail_full_warps", b.counter_median("tail_full_warps_observed"),
                           "floor(last / 32)", static_cast<double>(g.last_block_full_warps),
                           tag + std::to_string(g.last_block_full_warps) + " full warps + " +
                               std::to_string(g.last_block_partial_lanes) + " lanes",
                           tag + "full warps in the last block differ from the model"));
  if (total == 1000 && block == 256) {
    Row e = exact_row(b, "tail_full_warps", b.counter_median("tail_full_warps_observed"),
                      "floor(last / 32), last = N - B(ceil(N/B) - 1)",
                      static_cast<double>(g.last_block_full_warps),
                      tag + "the last block ran " + std::to_string(g.last_block_threads) +
                          " threads: 7 full warps and one of 8 lanes",
                      tag + "the last block's full warps differ from the model");
    e.benchmark = "worked_example";
    e.params = "example=note;measured_by=grid_tail/" + b.params_text();
    rows.push_back(e);
  }
  const std::uint32_t tail_mask = model::tail_mask(g.last_block_threads);
  Row m = exact_row(b, "tail_mask", b.counter_median("tail_last_mask_observed"),
                    "(1 << (last mod 32)) - 1", static_cast<double>(tail_mask),
                    tag + "the last warp runs with mask " + hex_mask(tail_mask),
                    tag + "the last warp's mask differs from " + hex_mask(tail_mask));
  m.unit = "mask";
  rows.push_back(m);

  // Time: the blocks run on separate SMs at once, and a block's warps spread over the SM's
  // schedulers, so the grid takes as long as its block with the most warps per scheduler.
  const BenchmarkResult* full = find_benchmark(run, "grid_tail",
                                               "block=" + std::to_string(block) + ";threads=" +
                                                   std::to_string(block));
  if (full == nullptr) return;
  const std::string& cc = run.context.text(schema::key::kCc);
  const auto dot = cc.find('.');
  const auto arch = model::arch_params(std::stoi(cc.substr(0, dot)),
                                       dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1)));
  auto per_scheduler = [&](long long warps) {
    return static_cast<double>((warps + arch.schedulers_per_sm - 1) / arch.schedulers_per_sm);
  };
  const long long busiest = g.blocks > 1 ? model::warps_per_block(block)
                                         : model::warps_per_block(g.last_block_threads);
  // The launch floor (one empty kernel, measured by the calibration family of the same run) is not
  // part of the work the model times: it is taken off every grid-tail time before a ratio or a rate.
  const BenchmarkResult* floor_b = detail::find_benchmark(run, "calibration", "launch_overhead", "launches=1");
  const double floor_s = floor_b != nullptr ? floor_b->median_seconds() : 0.0;
  auto work = [floor_s](const BenchmarkResult& x) { return x.median_seconds() - floor_s; };
  const std::string floor_note =
      floor_b != nullptr ? " (launch floor " + fixed(floor_s * 1e6, 2) + " us taken off each time)"
                         : " (no launch floor in this run: times include it)";
  // The partial warp's claim itself: N threads cost what 32·ceil(N/32) cost.
  const long long whole = model::kWarpSize * model::warps_per_block(total);
  if (whole != total) {
    if (const BenchmarkResult* w = find_benchmark(run, "grid_tail",
                                                  "block=" + std::to_string(block) + ";threads=" +
                                                      std::to_string(whole))) {
      Row ww = base_row(b);
      ww.metric = "time_vs_whole_warps";
      ww.value = work(b) / work(*w);
      ww.unit = "ratio";
      ww.model = "a partial warp costs a whole warp: time(N) = time(32 ceil(N/32))";
      ww = with_prediction(ww, 1.0);
      const bool same = std::fabs(*ww.rel_error) <= kFractionTolerance;
      const double noise = std::hypot(cv_of(b), cv_of(*w));
      judge(ww, std::fabs(*ww.rel_error), kFractionTolerance, noise);
      ww.why = tag + "took " + fixed(100 * ww.value, 2) + "% of N = " + std::to_string(whole) +
               "'s time" + floor_note +
               (same ? "" : ": more than 2% apart" + noise_note(std::fabs(*ww.rel_error), kFractionTolerance, noise));
      rows.push_back(ww);
      if (b.has_counter("sm_clock_hz") && w->has_counter("sm_clock_hz")) {
        // The same in SM cycles, taking out the clock's drift between the two benchmarks.
        Row wc = ww;
        wc.metric = "cycles_vs_whole_warps";
        wc.value = ww.value * b.counter_median("sm_clock_hz") / w->counter_median("sm_clock_hz");
        wc = with_prediction(wc, 1.0);
        const bool same_cycles = std::fabs(*wc.rel_error) <= kFractionTolerance;
        judge(wc, std::fabs(*wc.rel_error), kFractionTolerance, noise);
        wc.why = tag + "took " + fixed(100 * wc.value, 2) + "% of N = " + std::to_string(whole) +
                 "'s SM cycles" +
                 (same_cycles ? "" : ": more than 2% apart" + noise_note(std::fabs(*wc.rel_error), kFractionTolerance, noise));
        rows.push_back(wc);
      }
    }
  }

  Row t = base_row(b);
  t.metric = "relative_time";
  t.value = work(b) / work(*full);
  t.unit = "ratio";
  t.model = "ceil(warps of the busiest block / N_sched) relative to one full block";
  t = with_prediction(t, per_scheduler(busiest) / per_scheduler(model::warps_per_block(block)));
  const bool holds = std::fabs(*t.rel_error) <= kTailTimeTolerance;
  judge(t, std::fabs(*t.rel_error), kTailTimeTolerance, std::hypot(cv_of(b), cv_of(*full)));
  // FMAs one scheduler issued per cycle, for this launch and for one full block: below 1, its warps
  // waited on their own FMA latency instead of filling every issue slot.
  // Each launch's own clock where its probe measured one, the run's start-up clock otherwise.
  auto clock_of = [&run](const BenchmarkResult& x) {
    return x.has_counter("sm_clock_hz") ? x.counter_median("sm_clock_hz")
                                        : run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  };
  const double fma = b.counter_median("fma_per_thread");
  const double issue_here = per_scheduler(busiest) * fma / (work(b) * clock_of(b));
  const double issue_full =
      per_scheduler(model::warps_per_block(block)) * fma / (work(*full) * clock_of(*full));
  t.why = tag + "took " + fixed(100 * t.value, 1) + "% of one full block's time; the busiest block has " +
          std::to_string(busiest) + " warps, " + fixed(per_scheduler(busiest), 0) +
          " per scheduler, issuing " + fixed(issue_here, 2) + " FMA/cycle per scheduler (full block: " +
          fixed(issue_full, 2) + ")" + floor_note +
          (holds ? "" : ": off by more than 5%, because so few warps per scheduler cannot cover the "
                        "FMA latency, so time is not proportional to warps per scheduler");
  rows.push_back(t);
}

void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (b.error || b.seconds.empty()) {
    Row e = base_row(b);
    e.metric = "error";
    e.value = 1.0;
    e.verdict = verdict::kError;
    e.why = b.error ? b.error_message : "no timed repetitions";
    rows.push_back(e);
    return;
  }
  add_time_rows(b, rows);
  // Any benchmark that measured its SM clock is held against the maximum like the calibration one.
  if (b.has_counter("sm_clock_hz")) evaluate_sm_clock(run, b, rows);
  if (b.family == "calibration") {
    if (b.benchmark == "d2d_copy") evaluate_d2d_copy(run, b, rows);
    if (b.benchmark == "launch_overhead") evaluate_launch_overhead(b, rows);
  }
  if (b.family == "divergence") evaluate_divergence(run, b, rows);
  if (b.family == "latency") evaluate_latency(b, rows);
  if (b.family == "streaming") evaluate_streaming(run, b, rows);
  if (b.family == "partial_warp") {
    if (b.benchmark == "schedule") evaluate_schedule(b, rows);
    if (b.benchmark == "staircase") evaluate_staircase(run, b, rows);
    if (b.benchmark == "grid_tail") evaluate_grid_tail(run, b, rows);
  }
  evaluate_counters(run, b, rows);
}

}  // namespace

std::vector<Row> evaluate_run(const Run& run) {
  std::vector<Row> rows;
  for (const auto& b : run.benchmarks) {
    try {
      const std::size_t first = rows.size();
      evaluate_benchmark(run, b, rows);
      if (!b.error && is_throttled(run, b)) {
        // nvbench discards such samples; here the point stays visible but judges no model.
        const auto low = b.counters.at("warpcost_sm_clock_mhz");
        const std::string note = "throttled: SM clock fell to " +
                                 fixed(*std::min_element(low.begin(), low.end()), 0) +
                                 " MHz, under 95% of the maximum";
        for (std::size_t i = first; i < rows.size(); ++i) {
          if (rows[i].kind != kind::kModel) continue;
          rows[i].verdict = verdict::kThrottled;
          rows[i].why = note + "; " + rows[i].why;
        }
        Row t = base_row(b);
        t.metric = "sm_clock_low_mhz";
        t.value = *std::min_element(low.begin(), low.end());
        t.unit = "MHz";
        t.verdict = verdict::kThrottled;
        t.why = note + ": kept out of every model verdict";
        rows.push_back(t);
      }
    } catch (const std::exception& e) {
      throw RunFormatError(run.source.string(), b.run_name, e.what());
    }
  }
  evaluate_staircase_steps(run, rows);
  evaluate_divergence_examples(run, rows);
  evaluate_streaming_curves(run, rows);
  return rows;
}

}  // namespace warpcost::analysis
