// The warp-primitives verdicts on a fixture and a planted fault for each judged metric (warp
// granularity of latency and of throughput, the Guide's shuffle throughput, butterfly composition,
// Little's law knee, instructions per op) that must turn it to fails. The fixture is SYNTHETIC with
// hand-computed numbers (fixtures/make_primitives_fixture.py) until the first H200 run is cut by
// fixtures/make_primitives_h200_fixture.py: then kFixture names that cut and every test stays.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/core/result_schema.hpp"
#include "analysis/core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/warp_primitives/primitives_eval.hpp"
#include "analysis/warp_primitives/schema.hpp"

namespace warpcost::analysis {
namespace {

namespace wp = warpcost::warp_primitives;

// The one place the fixture is named (the real cut replaces it: see the file's header).
const char* const kFixture = "primitives-synthetic.json";

Run fixture() { return read_run(std::string(WARPCOST_FIXTURES) + "/" + kFixture); }

BenchmarkResult& bench(Run& run, const std::string& benchmark, const std::string& params) {
  for (auto& b : run.benchmarks) {
    if (b.family == wp::kFamily && b.benchmark == benchmark && b.params_text() == params) return b;
  }
  throw std::out_of_range("no " + benchmark + " " + params + " in the fixture");
}

Row row(const std::vector<Row>& rows, const std::string& benchmark, const std::string& params, const std::string& metric) {
  for (const Row& r : rows) {
    if (r.family == wp::kFamily && r.benchmark == benchmark && r.params == params && r.metric == metric) return r;
  }
  throw std::out_of_range("no row " + benchmark + " " + params + " " + metric);
}

void scale_counter(BenchmarkResult& b, const std::string& name, double factor) {
  for (double& v : b.counters.at(name)) v *= factor;
}
void set_counter(BenchmarkResult& b, const std::string& name, const std::vector<double>& values) {
  b.counters.at(name) = values;
}

const std::string kXor16 = "primitive=4;active_lanes=16;mask=0";
const std::string kXor16Scattered = "primitive=4;active_lanes=16;mask=1";
const std::string kXorCapFull = "primitive=4;warps_per_sm=64;active_lanes=32;mask=0";
const std::string kXorCap16 = "primitive=4;warps_per_sm=64;active_lanes=16;mask=0";
const std::string kXor64Cap = "primitive=8;warps_per_sm=64;active_lanes=32;mask=0";
const std::string kButterfly = "primitive=19;active_lanes=32;mask=0";

TEST(WarpPrimitivesEval, EveryModelHoldsOnTheFixture) {
  const std::vector<Row> rows = evaluate_run(fixture());
  int judged = 0;
  for (const Row& r : rows) {
    if (r.family != wp::kFamily || r.kind != kind::kModel) continue;
    ++judged;
    EXPECT_EQ(r.verdict, verdict::kHolds) << r.benchmark << " " << r.params << " " << r.metric << ": " << r.why;
  }
  // 6 latency lane/mask points, 2 throughput lane points, 8 table rows (4 + 4 shuffles at 64 warps/SM),
  // 1 composition, 2 knees, 7 counted points.
  EXPECT_EQ(judged, 6 + 2 + 8 + 1 + 2 + 7);
}

TEST(WarpPrimitivesEval, HandComputedPredictions) {
  const std::vector<Row> rows = evaluate_run(fixture());
  EXPECT_DOUBLE_EQ(*row(rows, "latency", kButterfly, wp::row::kComposition).predicted, 140.0);  // 5 x (24 + 4)
  EXPECT_DOUBLE_EQ(*row(rows, "throughput", kXorCapFull, wp::row::kTableThroughput).predicted, 1.0);
  EXPECT_DOUBLE_EQ(*row(rows, "throughput", kXor64Cap, wp::row::kTableThroughput).predicted, 0.5);
  const Row knee = row(rows, "throughput", "primitive=4", wp::row::kKnee);
  EXPECT_NEAR(*knee.predicted, 6.0, 1e-9);  // 24 cycles x 1.0 / 4 chains
  EXPECT_DOUBLE_EQ(knee.value, 8.0);
  EXPECT_NEAR(*row(rows, "throughput", "primitive=0", wp::row::kKnee).predicted, 2.0, 1e-9);  // 4 x 2 / 4
  const Row redux = row(rows, "latency", "primitive=14;active_lanes=32;mask=0", wp::row::kReduxVsButterfly);
  EXPECT_NEAR(redux.value, 35.0 / 140.0, 1e-9);
  EXPECT_EQ(redux.kind, kind::kInfo);
  const Row sides = row(rows, "latency", "primitive=4;active_lanes=16;mask=2", wp::row::kDivergentSides);
  EXPECT_NEAR(sides.value, 2.0, 1e-9);
  EXPECT_EQ(sides.kind, kind::kInfo);
  EXPECT_NEAR(*row(rows, "latency", "primitive=4;active_lanes=32;mask=0", wp::row::kInstPerOp).rel_error, 0.03, 1e-9);
}

TEST(WarpPrimitivesEval, PlantedLaneCostFailsLatencyGranularity) {
  auto run = fixture();
  scale_counter(bench(run, "latency", kXor16Scattered), wp::work::kCyclesPerOp, 1.10);
  const std::vector<Row> rows = evaluate_run(run);
  EXPECT_EQ(row(rows, "latency", kXor16Scattered, wp::row::kGranularityLatency).verdict, verdict::kFails);
  EXPECT_EQ(row(rows, "latency", kXor16, wp::row::kGranularityLatency).verdict, verdict::kHolds);
}

TEST(WarpPrimitivesEval, AMissInsideItsNoiseIsWarnOutsideFails) {
  // 2.5 % over, tolerance 2 %. Noisy repetitions (x 1.00, 1.025, 1.05): relative SE of the median
  // 1.2533 x 1.4826 x (0.025 / 1.025) / sqrt(3) = 2.6 %; 0.5 % past <= 2 x 2.6 %: warn.
  auto noisy = fixture();
  set_counter(bench(noisy, "latency", kXor16), wp::work::kCyclesPerOp, {24.0, 24.6, 25.2});
  EXPECT_EQ(row(evaluate_run(noisy), "latency", kXor16, wp::row::kGranularityLatency).verdict, verdict::kWarn);
  // Quiet repetitions (x 0.999, 1, 1.001 around 24.6): SE 0.1 %, hypot with the reference's 0.15 %: fails.
  auto quiet = fixture();
  set_counter(bench(quiet, "latency", kXor16), wp::work::kCyclesPerOp, {24.6 * 0.999, 24.6, 24.6 * 1.001});
  EXPECT_EQ(row(evaluate_run(quiet), "latency", kXor16, wp::row::kGranularityLatency).verdict, verdict::kFails);
}

TEST(WarpPrimitivesEval, PlantedLaneCostFailsThroughputGranularity) {
  auto run = fixture();
  scale_counter(bench(run, "throughput", kXorCap16), wp::work::kOpsPerCycleSm, 0.9);
  EXPECT_EQ(row(evaluate_run(run), "throughput", kXorCap16, wp::row::kGranularityThroughput).verdict, verdict::kFails);
}

TEST(WarpPrimitivesEval, PlantedSlowShuffleFailsTheGuideTable) {
  auto run = fixture();
  scale_counter(bench(run, "throughput", kXor64Cap), wp::work::kOpsPerCycleSm, 2.0);  // 64-bit at the 32-bit rate
  EXPECT_EQ(row(evaluate_run(run), "throughput", kXor64Cap, wp::row::kTableThroughput).verdict, verdict::kFails);
  auto slow = fixture();
  scale_counter(bench(slow, "throughput", kXorCapFull), wp::work::kOpsPerCycleSm, 0.9);
  EXPECT_EQ(row(evaluate_run(slow), "throughput", kXorCapFull, wp::row::kTableThroughput).verdict, verdict::kFails);
}

TEST(WarpPrimitivesEval, TheTableIsUntestableOffCc90AndReductionsAreNotThere) {
  auto run = fixture();
  run.context.values[schema::key::kCc] = "7.5";
  const std::vector<Row> rows = evaluate_run(run);
  EXPECT_EQ(row(rows, "throughput", kXorCapFull, wp::row::kTableThroughput).verdict, verdict::kUntestable);
  int missing = 0;
  for (const Row& r : rows) {
    if (r.family == wp::kFamily && r.metric == wp::row::kNotOnThisGpu) {
      ++missing;
      EXPECT_NE(r.why.find("not on this GPU"), std::string::npos);
    }
  }
  EXPECT_EQ(missing, 3);  // reduce add, min, max
  int on_h200 = 0;
  for (const Row& r : evaluate_run(fixture())) on_h200 += r.metric == wp::row::kNotOnThisGpu;
  EXPECT_EQ(on_h200, 0);
}

TEST(WarpPrimitivesEval, PlantedExtraStepCostFailsComposition) {
  auto run = fixture();
  scale_counter(bench(run, "latency", kButterfly), wp::work::kCyclesPerOp, 1.14);  // one more 4-cycle op a step
  EXPECT_EQ(row(evaluate_run(run), "latency", kButterfly, wp::row::kComposition).verdict, verdict::kFails);
}

TEST(WarpPrimitivesEval, PlantedLateKneeFailsLittlesLaw) {
  auto run = fixture();
  // The shuffle sweep now saturates only at 32 warps/SM: log2(32 / 6) = 2.4 sweep steps late.
  for (const int w : {8, 16}) {
    const std::string p = "primitive=4;warps_per_sm=" + std::to_string(w) + ";active_lanes=32;mask=0";
    scale_counter(bench(run, "throughput", p), wp::work::kOpsPerCycleSm, 0.5);
  }
  const Row knee = row(evaluate_run(run), "throughput", "primitive=4", wp::row::kKnee);
  EXPECT_DOUBLE_EQ(knee.value, 32.0);
  EXPECT_EQ(knee.verdict, verdict::kFails);
}

TEST(WarpPrimitivesEval, AKneeBeyondTheSweepIsUntestable) {
  auto run = fixture();
  // 24 x 1 / 4 = 6 warps; at 240 cycles the prediction (60) stays inside 64, at 480 (120) it does not.
  scale_counter(bench(run, "latency", "primitive=4;active_lanes=32;mask=0"), wp::work::kCyclesPerOp, 20.0);
  EXPECT_EQ(row(evaluate_run(run), "throughput", "primitive=4", wp::row::kKnee).verdict, verdict::kUntestable);
}

TEST(WarpPrimitivesEval, PlantedExtraInstructionsFailTheCounterCheck) {
  auto run = fixture();
  const std::string p = "primitive=12;active_lanes=32;mask=0";
  scale_counter(bench(run, "latency", p), wp::metric::kInstExecuted, 1.5);  // a compare the body should not have
  EXPECT_EQ(row(evaluate_run(run), "latency", p, wp::row::kInstPerOp).verdict, verdict::kFails);
}

}  // namespace
}  // namespace warpcost::analysis
