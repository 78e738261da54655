// The partial-warp family against ceil(P/32): the schedule of one block (warps, tail mask, every
// thread's lane and coordinates), the staircase of block sizes (one step, one time), the grid tail
// (its last block's threads, warps and mask, its time against warps per scheduler) and the counter
// pass's warps launched, lanes per instruction and achieved warps.
#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/statistics.hpp"
#include "analysis/evaluation_support.hpp"
#include "analysis/partial_warp/family.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/counters.hpp"
#include "core/calibration/schema.hpp"

namespace warpcost::analysis::partial_warp {
namespace {

using detail::base_row;
using detail::counter_row;
using detail::cv_of;
using detail::iparam;
using detail::judge;
using detail::relative_check;
using detail::find_benchmark;
using detail::with_prediction;
using namespace schema::metric;
using schema::partial_warp::descriptor;
namespace bench = schema::partial_warp::benchmark;
namespace param = schema::partial_warp::param;

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

// An instrument check: a count the programming model fixes (warps of a block, the tail's mask and
// full warps, every thread's place), read back to prove the instrument reads what it should. No
// GPU measurement could move it, so it passes or fails apart from the model checks. Its reason is
// `reason` with flag matches (the count is the model's).
Row exact_row(const BenchmarkResult& b, const std::string& metric, double measured,
              const std::string& model, double predicted, Reason reason) {
  Row r = base_row(b);
  r.metric = metric;
  r.value = measured;
  r.unit = "count";
  r.model = model;
  r = with_prediction(r, predicted);
  const bool same = measured == predicted;
  r.kind = kind::kCheck;
  r.verdict = same ? verdict::kPasses : verdict::kFails;
  r.reason = std::move(reason);
  r.reason.flag("matches", same);
  return r;
}

// A count no model owes (one clock64 value per warp, which independent thread scheduling may
// split): shown as info, with the model beside it; flag not_a_model_check says so in its sentence.
Row construction_row(Row r) {
  r.kind = kind::kInfo;
  r.verdict = verdict::kInfo;
  r.reason.flag("not_a_model_check", true);
  return r;
}

// A schedule point's reason: its worked example and its threads a block P, which every sentence
// of the point opens with.
Reason schedule_reason(const char* sentence, const std::string& example, long long p) {
  return Reason(std::string("partial_warp/") + sentence).text("example", example).number("p", static_cast<double>(p));
}

// A grid-tail point's reason: its N and B, which every sentence of the point opens with.
Reason grid_tail_reason(const char* sentence, long long total, long long block) {
  return Reason(std::string("partial_warp/") + sentence)
      .number("total_threads", static_cast<double>(total))
      .number("block_threads", static_cast<double>(block));
}

void evaluate_schedule(const BenchmarkResult& b, std::vector<Row>& rows) {
  const long long x = static_cast<long long>(b.param(schema::partial_warp::param::kX));
  const long long y = static_cast<long long>(b.param(schema::partial_warp::param::kY));
  const long long z = static_cast<long long>(b.param(schema::partial_warp::param::kZ));
  const long long p = model::threads_per_block({x, y, z});
  const std::string example = example_of(x, y, z);
  const double warps = b.counter_median(schema::partial_warp::counter::kWarpsObserved);
  const long long model_warps = model::warps_per_block(p);
  rows.push_back(exact_row(b, "warps_per_block", warps, "ceil(P/32)", static_cast<double>(model_warps),
                           schedule_reason("schedule_warps_per_block", example, p)
                               .number("warps", warps)
                               .number("model_warps", static_cast<double>(model_warps))));
  const double mask = b.counter_median(schema::partial_warp::counter::kTailMaskObserved);
  Row m = exact_row(b, "tail_mask", mask, "(1 << (P mod 32)) - 1, all 32 bits when P mod 32 = 0",
                    static_cast<double>(model::tail_mask(p)),
                    schedule_reason("schedule_tail_mask", example, p)
                        .number("mask", mask)
                        .number("model_mask", static_cast<double>(model::tail_mask(p)))
                        .number("tail_lanes", static_cast<double>(model::tail_lanes(p))));
  m.unit = "mask";
  rows.push_back(m);
  const double mapped = b.counter_median(schema::partial_warp::counter::kThreadsMappedAsModel);
  rows.push_back(exact_row(
      b, "threads_mapped_as_model", mapped,
      "lane = linear mod 32, (x,y,z) = inverse of linear (x fastest), mask of its warp",
      static_cast<double>(p), schedule_reason("schedule_threads_mapped", example, p).number("mapped", mapped)));
  const double one_clock = b.counter_median(schema::partial_warp::counter::kWarpsWithOneClock);
  // Independent thread scheduling may split a warp's lanes (allowed since cc 7.0), so one clock
  // value per warp is no model the hardware owes: info.
  Row one = exact_row(b, "warps_with_one_clock", one_clock,
                      "the lanes of a warp issue together: one clock64 value per warp",
                      static_cast<double>(model_warps),
                      schedule_reason("schedule_one_clock", example, p)
                          .number("one_clock", one_clock)
                          .number("model_warps", static_cast<double>(model_warps)));
  rows.push_back(construction_row(one));
  // One block runs on one SM by the programming model: an instrument check of the %smid reads.
  rows.push_back(exact_row(b, "distinct_sms", b.counter_median(schema::partial_warp::counter::kDistinctSms),
                           "one block runs on one SM", 1.0, schedule_reason("schedule_one_sm", example, p)));
}

const BenchmarkResult* find_benchmark(const Run& run, const std::string& benchmark,
                                      const std::string& params) {
  return detail::find_benchmark(run, schema::partial_warp::kFamily, benchmark, params);
}

double useful_fma_rate(const BenchmarkResult& b) {
  return b.counter_median(schema::partial_warp::counter::kUsefulThreads) * b.counter_median(schema::partial_warp::counter::kFmaPerThread) / b.median_seconds();
}

void evaluate_staircase(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const long long p = static_cast<long long>(b.param(param::kBlockThreads));
  const long long warps = model::warps_per_block(p);
  const long long next = model::kWarpSize * warps;

  Row rate = base_row(b);
  rate.metric = std::string(schema::metric::kThreadFfma) + ".per_second";
  rate.value = useful_fma_rate(b);
  rate.unit = "inst/s";
  rate.verdict = verdict::kInfo;
  rate.reason = Reason("partial_warp/useful_fma_rate")
                    .number("useful_threads", b.counter_median(schema::partial_warp::counter::kUsefulThreads))
                    .number("fma_per_thread", b.counter_median(schema::partial_warp::counter::kFmaPerThread));
  rows.push_back(rate);

  if (p % model::kWarpSize != 0) {
    if (const BenchmarkResult* ref = find_benchmark(run, bench::kStaircase, descriptor().params_text(bench::kStaircase, {next}))) {
      Row f = base_row(b);
      f.metric = "useful_fraction";
      f.value = rate.value / useful_fma_rate(*ref);
      f.unit = "ratio";
      f.model = "P / (32 ceil(P/32)), against P = " + std::to_string(next);
      f = with_prediction(f, model::lane_efficiency(p));
      // With equal block counts this is (P/next)·(t_next/t_P): the step-flatness check restated,
      // so it is shown, not judged (step_time_spread judges it).
      f.verdict = verdict::kInfo;
      f.reason = Reason("partial_warp/useful_fraction")
                     .number("p", static_cast<double>(p))
                     .number("next", static_cast<double>(next))
                     .number("fraction", f.value)
                     .number("predicted", *f.predicted)
                     .number("warps", static_cast<double>(warps));
      rows.push_back(f);
    }
  }

  const double max_blocks = run.context.number(schema::key::kMaxBlocksPerSm);
  const double max_warps = run.context.number(schema::key::kMaxWarpsPerSm);
  const double by_warps = std::floor(max_warps / static_cast<double>(warps));
  const double predicted = std::min(max_blocks, by_warps);
  Row occ = base_row(b);
  occ.metric = "resident_blocks_per_sm";
  occ.value = b.counter_median(schema::counter::kBlocksPerSm);
  occ.unit = "count";
  occ.model = "min(max blocks/SM, floor(max warps/SM / ceil(P/32)))";
  occ = with_prediction(occ, predicted);
  const bool same = occ.value == predicted;
  // The occupancy API evaluates this very formula from the kernel's registers and shared memory:
  // an instrument check (the launch reserves what the sweep assumes), not a model of the GPU.
  occ.kind = kind::kCheck;
  occ.verdict = same ? verdict::kPasses : verdict::kFails;
  occ.reason = Reason("partial_warp/resident_blocks")
                   .number("blocks", occ.value)
                   .number("warps", static_cast<double>(warps))
                   .number("max_warps", max_warps)
                   .number("predicted", predicted)
                   .flag("matches", same)
                   .flag("warp_cap_binds", by_warps < max_blocks);
  rows.push_back(occ);
}

// One row per staircase step k (P in (32(k-1), 32k]): the launches of one step have the same warps
// per block and the same waves, so their times should agree within 1 %. The statistic is
// (max - min) / min over the step's points (the rule declared before the H200 runs; a commit just
// before run 020936Z had moved it to the largest deviation from the median, which halves it), in
// seconds and again in SM cycles. A miss is warn only inside twice the noise of the two points that
// set it (their own samples), never the noisiest point of the step.
void evaluate_staircase_steps(const Run& run, std::vector<Row>& rows) {
  // A throttled point stays in its step's name (the step is the same step) but not in its spread.
  std::map<long long, std::vector<const BenchmarkResult*>> steps;
  std::map<long long, std::vector<const BenchmarkResult*>> throttled;
  for (const auto& b : run.benchmarks) {
    if (b.family == schema::partial_warp::kFamily && b.benchmark == schema::partial_warp::benchmark::kStaircase && !b.error && !b.seconds.empty()) {
      const long long k = model::warps_per_block(static_cast<long long>(b.param(param::kBlockThreads)));
      (is_throttled(run, b) ? throttled[k] : steps[k]).push_back(&b);
      steps[k];
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
    const auto& left_out = throttled[k];
    if (members.size() + left_out.size() < 2) continue;
    long long p_lo = 1LL << 30;
    long long p_hi = 0;
    bool all_clocked = true;
    for (const auto* m : members) all_clocked = all_clocked && m->has_counter(schema::counter::kSmClockHz);
    for (const auto* group : {&members, &left_out}) {
      for (const auto* m : *group) {
        p_lo = std::min(p_lo, static_cast<long long>(m->param(param::kBlockThreads)));
        p_hi = std::max(p_hi, static_cast<long long>(m->param(param::kBlockThreads)));
      }
    }
    Row r;
    r.family = schema::partial_warp::kFamily;
    r.benchmark = "staircase_step";
    // The step's block sizes as two whole numbers (one type per CSV column, docs/csv.md).
    r.params = "warps_per_block=" + std::to_string(k) + ";" + std::string(param::kBlockThreads) + "_min=" +
               std::to_string(p_lo) + ";" + std::string(param::kBlockThreads) + "_max=" + std::to_string(p_hi);
    // What every row of the step says: its points, its warps, and the throttled points it left out.
    Reason step = Reason()
                      .number("points", static_cast<double>(members.size()))
                      .number("warps", static_cast<double>(k))
                      .number("left_out_count", static_cast<double>(left_out.size()));
    // Each left-out point's block size, in the step's order: left_out_0, left_out_1, ...
    for (std::size_t i = 0; i < left_out.size(); ++i) {
      step.number("left_out_" + std::to_string(i), left_out[i]->param(param::kBlockThreads));
    }
    auto step_reason = [&step](const char* sentence) {
      Reason reason = step;
      reason.code = std::string("partial_warp/") + sentence;
      return reason;
    };
    if (members.size() < 2) {
      // Too few unthrottled points to spread: the step's rows are throttled, not missing.
      r.unit = "ratio";
      r.model = "one step, one time: same warps per block ((max - min) / min of the step's times)";
      r.kind = kind::kModel;
      r.verdict = verdict::kThrottled;
      r.machine_state = machine_state::kThrottled;
      r.reason = step_reason("step_throttled");
      r.value = std::nan("");
      r.metric = "step_time_spread";
      rows.push_back(r);
      r.metric = "step_cycle_spread";
      rows.push_back(r);
      continue;
    }
    const Spread time = spread_of(members, [](const BenchmarkResult& m) { return m.median_seconds(); });
    r.metric = "step_time_spread";
    r.value = time.value;
    r.unit = "ratio";
    r.model = "one step, one time: same warps per block ((max - min) / min of the step's times)";
    r.predicted = 0.0;
    const bool holds = r.value <= kStepSpreadTolerance;
    judge(r, r.value, kStepSpreadTolerance, time.noise);
    r.reason = step_reason("step_time_spread")
                   .number("spread", r.value)
                   .number("tolerance", kStepSpreadTolerance)
                   .number("noise", time.noise)
                   .flag("holds", holds);
    rows.push_back(r);
    if (!all_clocked) continue;

    // The same in SM cycles (time x the clock each launch measured): what is left once the
    // clock's drift between benchmarks is taken out.
    const Spread cyc = spread_of(members, [](const BenchmarkResult& m) {
      return m.median_seconds() * m.counter_median(schema::counter::kSmClockHz);
    });
    Row c = r;
    c.metric = "step_cycle_spread";
    c.value = cyc.value;
    const bool cycles_hold = c.value <= kStepSpreadTolerance;
    judge(c, c.value, kStepSpreadTolerance, cyc.noise);
    c.reason = step_reason("step_cycle_spread")
                   .number("spread", c.value)
                   .number("time_spread", r.value)
                   .number("tolerance", kStepSpreadTolerance)
                   .number("noise", cyc.noise)
                   .flag("holds", cycles_hold)
                   .flag("time_holds", holds);
    rows.push_back(c);
  }
}

// The second-order model's parameters at n warps a scheduler (docs/models.md): the fma_issue
// points of a 4n-warp block, their fixed cost and cost an FMA (the two loop lengths furthest
// apart); nullopt when the run has fewer than two, or one of them is throttled.
std::optional<model::LinearCost> fma_cost(const Run& run, long long warps_per_scheduler, int schedulers,
                                          std::string& source) {
  std::vector<const BenchmarkResult*> points;
  for (const auto& x : run.benchmarks) {
    if (x.family != schema::partial_warp::kFamily || x.benchmark != bench::kFmaIssue || x.error || x.seconds.empty()) continue;
    if (static_cast<long long>(x.param(param::kWarpsPerBlock)) != warps_per_scheduler * schedulers) continue;
    if (!x.has_counter(schema::partial_warp::counter::kFmaPerThread)) continue;
    if (detail::find_benchmark(run, x.family, x.benchmark, x.params_text()) == nullptr) return std::nullopt;  // throttled
    points.push_back(&x);
  }
  return detail::two_point_cost(
      points, [](const BenchmarkResult* x) { return x->counter_median(schema::partial_warp::counter::kFmaPerThread); },
      source);
}

// The grid tail beside the textbook (docs/models.md): one warp a scheduler cannot cover the FMA
// latency, so a tail block costs its own measured cycles an FMA, plus the launch's fixed cost.
// `reason` is the row's, with the point's N, B and launch floor; the row adds its values.
void second_order_tail_row(const Run& run, const BenchmarkResult& b, long long busiest_warps,
                           long long full_warps, double floor_s, Reason reason, std::vector<Row>& rows) {
  const model::ArchParams arch = detail::arch_of(run);
  const long long n_tail = (busiest_warps + arch.schedulers_per_sm - 1) / arch.schedulers_per_sm;
  const long long n_full = (full_warps + arch.schedulers_per_sm - 1) / arch.schedulers_per_sm;
  std::string tail_source;
  std::string full_source;
  const auto tail = fma_cost(run, n_tail, arch.schedulers_per_sm, tail_source);
  const auto full = fma_cost(run, n_full, arch.schedulers_per_sm, full_source);
  const BenchmarkResult* full_b = find_benchmark(run, bench::kGridTail, descriptor().params_text(bench::kGridTail, {full_warps * model::kWarpSize, full_warps * model::kWarpSize}));
  if (!tail || !full || full_b == nullptr) return;  // no parameter points in this run: no row
  const double fma = b.counter_median(schema::partial_warp::counter::kFmaPerThread);
  Row r = base_row(b);
  r.metric = "second_order_relative_time";
  r.value = (b.median_seconds() - floor_s) / (full_b->median_seconds() - floor_s);
  r.unit = "ratio";
  r.model = std::string(kSecondOrderPrefix) +
            "per-scheduler issue: (F(n_tail) + FMA c(n_tail) - floor) / (F(n_full) + FMA c(n_full) - floor), "
            "F and c from partial_warp/fma_issue";
  r = with_prediction(r, model::grid_tail_relative_time(*tail, *full, fma, floor_s));
  const double noise = std::hypot(cv_of(b), cv_of(*full_b));
  const bool holds = std::fabs(*r.rel_error) <= kSecondOrderTailTolerance;
  judge(r, std::fabs(*r.rel_error), kSecondOrderTailTolerance, noise);
  r.reason = std::move(reason);
  r.reason.number("tail_warps_per_scheduler", static_cast<double>(n_tail))
      .number("tail_fixed_s", tail->fixed_seconds)
      .number("tail_fma_s", tail->seconds_per_unit)
      .text("tail_source", tail_source)
      .number("full_warps_per_scheduler", static_cast<double>(n_full))
      .number("full_fixed_s", full->fixed_seconds)
      .number("full_fma_s", full->seconds_per_unit)
      .number("predicted", *r.predicted)
      .number("measured", r.value)
      .number("miss", std::fabs(*r.rel_error))
      .number("tolerance", kSecondOrderTailTolerance)
      .number("noise", noise)
      .flag("holds", holds);
  rows.push_back(r);
}

void evaluate_grid_tail(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const long long block = static_cast<long long>(b.param(param::kBlockThreads));
  const long long total = static_cast<long long>(b.param(param::kTotalThreads));
  const model::GridTail g = model::grid_tail(total, block);
  // The bench counts the threads that passed the kernel's own guard i < N: equal to the model by
  // construction, an instrument check of the bench's own count.
  rows.push_back(exact_row(b, "tail_active_threads", b.counter_median(schema::partial_warp::counter::kTailActiveThreadsObserved),
                           "N - B(ceil(N/B) - 1)", static_cast<double>(g.last_block_threads),
                           grid_tail_reason("tail_active_threads", total, block)
                               .number("last_block_threads", static_cast<double>(g.last_block_threads))));
  rows.push_back(exact_row(b, "tail_full_warps", b.counter_median(schema::partial_warp::counter::kTailFullWarpsObserved),
                           "floor(last / 32)", static_cast<double>(g.last_block_full_warps),
                           grid_tail_reason("tail_full_warps", total, block)
                               .number("full_warps", static_cast<double>(g.last_block_full_warps))
                               .number("partial_lanes", static_cast<double>(g.last_block_partial_lanes))));
  const std::uint32_t tail_mask = model::tail_mask(g.last_block_threads);
  Row m = exact_row(b, "tail_mask", b.counter_median(schema::partial_warp::counter::kTailLastMaskObserved),
                    "(1 << (last mod 32)) - 1", static_cast<double>(tail_mask),
                    grid_tail_reason("grid_tail_mask", total, block).number("model_mask", static_cast<double>(tail_mask)));
  m.unit = "mask";
  rows.push_back(m);

  // Time: the blocks run on separate SMs at once, and a block's warps spread over the SM's
  // schedulers, so the grid takes as long as its block with the most warps per scheduler.
  const BenchmarkResult* full = find_benchmark(run, bench::kGridTail,
                                               descriptor().params_text(bench::kGridTail, {block, block}));
  if (full == nullptr) return;
  const model::ArchParams arch = detail::arch_of(run);
  auto per_scheduler = [&](long long warps) {
    return static_cast<double>((warps + arch.schedulers_per_sm - 1) / arch.schedulers_per_sm);
  };
  const long long busiest = g.blocks > 1 ? model::warps_per_block(block)
                                         : model::warps_per_block(g.last_block_threads);
  // The launch floor (one empty kernel, measured by the calibration family of the same run) is not
  // part of the work the model times: it is taken off every grid-tail time before a ratio or a rate.
  const BenchmarkResult* floor_b = detail::find_benchmark(run, schema::calibration::kFamily, schema::calibration::benchmark::kLaunchOverhead, schema::calibration::descriptor().params_text(schema::calibration::benchmark::kLaunchOverhead, {1}));
  const double floor_s = floor_b != nullptr ? floor_b->median_seconds() : 0.0;
  auto work = [floor_s](const BenchmarkResult& x) { return x.median_seconds() - floor_s; };
  // A time row's reason: the point's N and B, and the launch floor taken off (or none in the run).
  auto time_reason = [&](const char* sentence) {
    return grid_tail_reason(sentence, total, block).flag("launch_floor", floor_b != nullptr).number("launch_floor_s", floor_s);
  };
  // The partial warp's claim itself: N threads cost what 32·ceil(N/32) cost.
  const long long whole = model::kWarpSize * model::warps_per_block(total);
  if (whole != total) {
    if (const BenchmarkResult* w = find_benchmark(run, bench::kGridTail,
                                                  descriptor().params_text(bench::kGridTail, {block, whole}))) {
      Row ww = base_row(b);
      ww.metric = "time_vs_whole_warps";
      ww.value = work(b) / work(*w);
      ww.unit = "ratio";
      ww.model = "a partial warp costs a whole warp: time(N) = time(32 ceil(N/32))";
      ww = with_prediction(ww, 1.0);
      const bool same = std::fabs(*ww.rel_error) <= kFractionTolerance;
      const double noise = std::hypot(cv_of(b), cv_of(*w));
      judge(ww, std::fabs(*ww.rel_error), kFractionTolerance, noise);
      // What both rows against the whole-warp point say: its ratio, N's whole warps, the miss.
      auto against_whole = [&](Reason reason, const Row& r, bool holds) {
        return reason.number("ratio", r.value)
            .number("whole", static_cast<double>(whole))
            .number("miss", std::fabs(*r.rel_error))
            .number("tolerance", kFractionTolerance)
            .number("noise", noise)
            .flag("holds", holds);
      };
      ww.reason = against_whole(time_reason("time_vs_whole_warps"), ww, same);
      rows.push_back(ww);
      if (b.has_counter(schema::counter::kSmClockHz) && w->has_counter(schema::counter::kSmClockHz)) {
        // The same in SM cycles, taking out the clock's drift between the two benchmarks.
        Row wc = ww;
        wc.metric = "cycles_vs_whole_warps";
        wc.value = ww.value * b.counter_median(schema::counter::kSmClockHz) / w->counter_median(schema::counter::kSmClockHz);
        wc = with_prediction(wc, 1.0);
        const bool same_cycles = std::fabs(*wc.rel_error) <= kFractionTolerance;
        judge(wc, std::fabs(*wc.rel_error), kFractionTolerance, noise);
        wc.reason = against_whole(grid_tail_reason("cycles_vs_whole_warps", total, block), wc, same_cycles);
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
    return x.has_counter(schema::counter::kSmClockHz) ? x.counter_median(schema::counter::kSmClockHz)
                                        : run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  };
  const double fma = b.counter_median(schema::partial_warp::counter::kFmaPerThread);
  const double issue_here = per_scheduler(busiest) * fma / (work(b) * clock_of(b));
  const double issue_full =
      per_scheduler(model::warps_per_block(block)) * fma / (work(*full) * clock_of(*full));
  t.reason = time_reason("relative_time")
                 .number("share", t.value)
                 .number("busiest_warps", static_cast<double>(busiest))
                 .number("busiest_per_scheduler", per_scheduler(busiest))
                 .number("issue_here", issue_here)
                 .number("issue_full", issue_full)
                 .flag("holds", holds);
  rows.push_back(t);
  second_order_tail_row(run, b, busiest, model::warps_per_block(block), floor_s,
                        time_reason("second_order_relative_time"), rows);
}


// ---- the counter pass ------------------------------------------------------------------------

void partial_warp_checks(const Run& run, const BenchmarkResult& b,
                         const std::map<std::string, std::string>& units, std::vector<Row>& rows,
                         std::set<std::string>& done) {
  long long p = 0;      // threads of a block
  double blocks = 1.0;  // blocks launched
  double useful = 0.0;  // threads that do the work
  if (b.benchmark == schema::partial_warp::benchmark::kSchedule) {
    p = model::threads_per_block({iparam(b, schema::partial_warp::param::kX), iparam(b, schema::partial_warp::param::kY), iparam(b, schema::partial_warp::param::kZ)});
    useful = static_cast<double>(p);
  } else if (b.benchmark == schema::partial_warp::benchmark::kStaircase) {
    p = iparam(b, param::kBlockThreads);
    blocks = b.counter_median(schema::counter::kBlocks);
    useful = static_cast<double>(p);
  } else if (b.benchmark == schema::partial_warp::benchmark::kGridTail) {
    p = iparam(b, param::kBlockThreads);
    blocks = b.counter_median(schema::counter::kBlocks);
    useful = static_cast<double>(iparam(b, param::kTotalThreads));
  } else {
    return;
  }
  const long long warps = model::warps_per_block(p);
  // Every counter row's sentence opens with the point's P.
  auto counter_reason = [p](const char* sentence) {
    return Reason(std::string("partial_warp/") + sentence).number("p", static_cast<double>(p));
  };

  if (b.has_counter(kWarpsLaunched)) {
    Row r = counter_row(b, kWarpsLaunched, units.count(kWarpsLaunched) ? units.at(kWarpsLaunched) : "");
    r.model = "ceil(P/32) warps a block, x blocks";
    r = with_prediction(r, blocks * static_cast<double>(warps));
    const bool same = r.value == *r.predicted;
    // The launch configuration fixes the warps launched: an instrument check of the counter pass.
    r.kind = kind::kCheck;
    r.verdict = same ? verdict::kPasses : verdict::kFails;
    r.reason = counter_reason("warps_launched")
                   .number("launched", r.value)
                   .number("blocks", blocks)
                   .number("warps", static_cast<double>(warps))
                   .flag("matches", same);
    rows.push_back(r);
    done.insert(kWarpsLaunched);
  }
  if (b.has_counter(kLanes)) {
    // The work's lanes: `useful` threads in ceil(useful/32) warps (a grid tail's warps past the
    // total only run their guard).
    const long long working = b.benchmark == schema::partial_warp::benchmark::kGridTail
                                  ? model::warps_per_block(static_cast<long long>(useful))
                                  : static_cast<long long>(blocks) * warps;
    const double model_lanes =
        useful * (b.benchmark == schema::partial_warp::benchmark::kGridTail ? 1.0 : blocks) / static_cast<double>(working);
    Row r = counter_row(b, kLanes, "lanes");
    r = relative_check(r, "active lanes per warp instruction = P / ceil(P/32)", model_lanes, kLaneTolerance,
                       counter_reason("lanes_per_instruction")
                           .number("lanes", r.value)
                           .number("useful", useful)
                           .number("working_warps", static_cast<double>(working))
                           .number("model_lanes", model_lanes));
    if (r.verdict == std::string(verdict::kFails) && b.benchmark == schema::partial_warp::benchmark::kGridTail) {
      // The cause of the miss, said after it ("; off by more than N%").
      r.reason.after_check.push_back(Reason("partial_warp/idle_warps_issue_guard"));
    }
    rows.push_back(r);
    done.insert(kLanes);
  }
  if (b.benchmark == schema::partial_warp::benchmark::kStaircase && b.has_counter(kWarpsActive)) {
    const double slots = b.counter_median(schema::counter::kBlocksPerSm) * static_cast<double>(warps);
    Row r = counter_row(b, kWarpsActive, units.count(kWarpsActive) ? units.at(kWarpsActive) : "warp");
    r.model = "at most the warp slots the occupancy API reserves: blocks/SM x ceil(P/32)";
    r = with_prediction(r, slots);
    // At most the reserved slots is a bound the hardware cannot break: info.
    r.verdict = verdict::kInfo;
    r.reason = counter_reason("achieved_warps")
                   .number("achieved", r.value)
                   .number("slots", slots)
                   .flag("above_reservation", r.value > slots * 1.001);
    rows.push_back(r);
    done.insert(kWarpsActive);

    // The note's claim in hardware counts: a 48-thread block holds the warp slots of a 64-thread one.
    if (p % model::kWarpSize != 0) {
      const long long next = model::kWarpSize * warps;
      const BenchmarkResult* whole =
          find_benchmark(run, schema::partial_warp::kFamily, bench::kStaircase,
                         descriptor().params_text(bench::kStaircase, {next}));
      if (whole != nullptr && whole->has_counter(kWarpsActive)) {
        Row s = base_row(b);
        s.metric = "achieved_warps_vs_whole_warp_block";
        s.value = r.value / whole->counter_median(kWarpsActive);
        s.unit = "ratio";
        s = relative_check(s,
                           "ceil(P/32): a partial warp holds a whole warp slot, so P and 32 ceil(P/32) "
                           "threads achieve the same warps",
                           1.0, kSameSlotsTolerance,
                           counter_reason("achieved_warps_vs_whole_warp_block")
                               .number("achieved", r.value)
                               .number("whole_achieved", whole->counter_median(kWarpsActive))
                               .number("next", static_cast<double>(next)));
        rows.push_back(s);
      }
    }
  }
}

// The grid-tail model's parameters, each a row of its own (docs/models.md): F(n) and c(n) at one and
// two warps a scheduler (fma_issue blocks of 4 and 8 warps), where the run has their points.
void parameter_rows(const Run& run, std::vector<Row>& rows) {
  const model::ArchParams arch = detail::arch_of(run);
  const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  for (const long long n : {1LL, 2LL}) {
    std::string source;
    const auto cost = fma_cost(run, n, arch.schedulers_per_sm, source);
    if (!cost) continue;
    // Named by the fma_issue block it is measured on: n warps a scheduler = n x schedulers a block.
    const std::string params = "warps_per_block=" + std::to_string(n * arch.schedulers_per_sm);
    rows.push_back(detail::parameter_row(schema::partial_warp::kFamily, params, "launch_fixed_seconds", cost->fixed_seconds, "s",
                                         "F(n), a launch's fixed cost at n warps a scheduler", source));
    if (clock > 0) {
      rows.push_back(detail::parameter_row(schema::partial_warp::kFamily, params, "cycles_per_fma", cost->seconds_per_unit * clock,
                                           "cycles", "c(n), cycles an FMA a thread at n warps a scheduler", source));
    }
  }
}

class PartialWarp final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override {
    return schema::partial_warp::descriptor();
  }
  void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    namespace bench = schema::partial_warp::benchmark;
    if (b.benchmark == bench::kSchedule) evaluate_schedule(b, rows);
    if (b.benchmark == bench::kStaircase) evaluate_staircase(run, b, rows);
    if (b.benchmark == bench::kGridTail) evaluate_grid_tail(run, b, rows);
  }
  void evaluate_counters(const Run& run, const BenchmarkResult& b, const CounterUnits& units,
                         std::vector<Row>& rows, std::set<std::string>& judged) const override {
    partial_warp_checks(run, b, units, rows, judged);
  }
  void evaluate_run(const Run& run, std::vector<Row>& rows) const override {
    evaluate_staircase_steps(run, rows);
    parameter_rows(run, rows);
  }
  std::string render_reason(const Reason& reason) const override { return render(reason); }
};

}  // namespace

std::vector<const Family*> families() {
  static const PartialWarp family;
  return {&family};
}

}  // namespace warpcost::analysis::partial_warp
