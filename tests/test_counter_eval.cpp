// The counter rows of the analysis on real H200 counter-pass rows (tests/fixtures/counters.json,
// cut from the committed runs by make_counters_fixture.py): each metric under its Nsight Compute
// name and unit, and each model check's verdict, including the ones the hardware fails.
#include <gtest/gtest.h>

#include "tests/temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/report.hpp"
#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {
namespace {

const std::filesystem::path kFixtures = WARPCOST_FIXTURES;
const std::string kLanes = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
const std::string kWarps = "smsp__warps_launched.sum";
const std::string kActive = "sm__warps_active.avg.per_cycle_active";
const std::string kDiv = "divergent_branch_targets_per_warp";

const Row* find_row(const std::vector<Row>& rows, const std::string& benchmark, const std::string& params,
                    const std::string& metric) {
  for (const Row& r : rows) {
    if (r.benchmark == benchmark && r.params == params && r.metric == metric) return &r;
  }
  return nullptr;
}

Row row(const std::vector<Row>& rows, const std::string& benchmark, const std::string& params,
        const std::string& metric) {
  const Row* r = find_row(rows, benchmark, params, metric);
  if (r == nullptr) {
    ADD_FAILURE() << "no row " << benchmark << " " << params << " " << metric;
    return Row{};
  }
  return *r;
}

class CounterEvaluation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rows_ = new std::vector<Row>(evaluate_run(read_run(kFixtures / "counters.json")));
  }
  static void TearDownTestSuite() { delete rows_; }
  static std::vector<Row>* rows_;
};
std::vector<Row>* CounterEvaluation::rows_ = nullptr;

TEST_F(CounterEvaluation, WarpsLaunchedAreCeilPOver32ABlock) {
  const Row s = row(*rows_, "schedule", "x=48;y=1;z=1", kWarps);
  EXPECT_EQ(s.value, 2);
  EXPECT_EQ(s.kind, "check") << "the launch configuration fixes it: an instrument check";
  EXPECT_EQ(s.verdict, "passes");
  EXPECT_EQ(s.unit, "warp") << "the unit comes from the run's counter_units";
  const Row st = row(*rows_, "staircase", "block_threads=48", kWarps);
  EXPECT_EQ(st.value, 16896 * 2);
  EXPECT_EQ(st.verdict, "passes");
}

TEST_F(CounterEvaluation, LanesPerInstructionFollowPOverCeilPOver32) {
  const Row r = row(*rows_, "staircase", "block_threads=48", kLanes);
  EXPECT_DOUBLE_EQ(*r.predicted, 24.0);
  EXPECT_NEAR(r.value, 24.0, 0.05);
  EXPECT_EQ(r.verdict, "holds");
  const Row tail = row(*rows_, "grid_tail", "block_threads=256;total_threads=33", kLanes);
  EXPECT_DOUBLE_EQ(*tail.predicted, 16.5);
  EXPECT_EQ(tail.verdict, "holds");
}

TEST_F(CounterEvaluation, AOneThreadGridTailFailsAndSaysWhy) {
  const Row r = row(*rows_, "grid_tail", "block_threads=256;total_threads=1", kLanes);
  EXPECT_DOUBLE_EQ(*r.predicted, 1.0);
  EXPECT_GT(r.value, 1.1);
  EXPECT_EQ(r.verdict, "fails");
  EXPECT_NE(r.why.find("guard"), std::string::npos) << r.why;
}

TEST_F(CounterEvaluation, A48ThreadBlockAchievesTheWarpsOfA64ThreadOne) {
  const Row r = row(*rows_, "staircase", "block_threads=48", "achieved_warps_vs_whole_warp_block");
  EXPECT_NEAR(r.value, 1.0, 0.02);
  EXPECT_EQ(r.verdict, "holds");
  const Row a = row(*rows_, "staircase", "block_threads=48", kActive);
  EXPECT_DOUBLE_EQ(*a.predicted, 64.0) << "32 blocks x 2 warp slots";
  EXPECT_LE(a.value, 64.0);
}

TEST_F(CounterEvaluation, DivergentTargetsPerWarpArePopulatedPathsMinusOne) {
  const Row split = row(*rows_, "split_low", "k=20;if_trips=384;else_trips=384;warps_per_sm=4", kDiv);
  EXPECT_EQ(split.value, 1);
  EXPECT_EQ(split.kind, "check") << "an exact count the kernel fixes (ISSUE-33-CHECKS)";
  EXPECT_EQ(split.verdict, "passes");
  const Row uniform = row(*rows_, "warp_uniform", "if_trips=384;else_trips=384;warps_per_sm=4", kDiv);
  EXPECT_EQ(uniform.value, 0) << "the control branches per warp, not per lane";
  EXPECT_EQ(uniform.verdict, "passes");
  EXPECT_EQ(row(*rows_, "switch", "paths=3;first_path=0;trips=384;warps_per_sm=4", kDiv).value, 2);
  EXPECT_EQ(row(*rows_, "nested", "leaves=2;trips=384;warps_per_sm=4", kDiv).value, 1);
}

TEST_F(CounterEvaluation, DivergenceLanesFollowThePopulatedPaths) {
  const Row r = row(*rows_, "split_low", "k=20;if_trips=384;else_trips=384;warps_per_sm=4", kLanes);
  EXPECT_DOUBLE_EQ(*r.predicted, 16.0) << "(20 x 384 + 12 x 384) / (2 x 384)";
  EXPECT_EQ(r.verdict, "holds");
  const Row sw = row(*rows_, "switch", "paths=3;first_path=0;trips=384;warps_per_sm=4", kLanes);
  EXPECT_NEAR(*sw.predicted, 32.0 / 3, 1e-12);
  EXPECT_EQ(sw.verdict, "holds");
}

TEST_F(CounterEvaluation, StreamingDramBytesAndResidency) {
  const std::string p = "load_bytes=16;alu_per_load=0;warps_per_sm=8";
  const Row bytes = row(*rows_, "read_independent", p, "dram__bytes_read.sum");
  EXPECT_EQ(bytes.kind, "check") << "the buffer's bytes, guaranteed by its size (ISSUE-33-CHECKS)";
  EXPECT_EQ(bytes.verdict, "passes");
  EXPECT_EQ(bytes.unit, "byte");
  const Row active = row(*rows_, "read_independent", p, kActive);
  EXPECT_DOUBLE_EQ(*active.predicted, 8.0);
  EXPECT_EQ(active.verdict, "holds");
  const Row pct = row(*rows_, "read_independent", p, "dram_read_pct_of_theoretical_peak");
  EXPECT_GT(pct.value, 20.0);
  EXPECT_LT(pct.value, 30.0);
  // 48 warps/SM with 4 loads in flight average 39 active: the H200 misses the requested residency.
  const Row batched = row(*rows_, "read_batched", "load_bytes=16;loads_in_flight=4;warps_per_sm=48", kActive);
  EXPECT_EQ(batched.verdict, "fails");
  const Row one = row(*rows_, "read_one_per_thread", "block_threads=256", kActive);
  EXPECT_EQ(one.verdict, "info");
  EXPECT_DOUBLE_EQ(*one.predicted, 64.0);
}

TEST_F(CounterEvaluation, MetricsWithoutAModelAreKeptUnderTheirNames) {
  const Row* stall = find_row(*rows_, "read_independent", "load_bytes=16;alu_per_load=0;warps_per_sm=8",
                              "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
  ASSERT_NE(stall, nullptr);
  EXPECT_EQ(stall->verdict, "info");
}

TEST_F(CounterEvaluation, TheReportOpensWithEachJudgedMetricsVerdictCounts) {
  EvaluatedRun er{read_run(kFixtures / "counters.json"), *rows_};
  const std::string md = markdown_report({er});
  const auto glance = md.find("## Verdicts at a glance");
  ASSERT_NE(glance, std::string::npos);
  EXPECT_LT(glance, md.find("— partial_warp")) << "before the per-family tables";
  const auto line = [&](const std::string& metric) {
    const auto at = md.find("`" + metric + "` |", glance);
    return at == std::string::npos ? std::string() : md.substr(at, md.find('\n', at) - at);
  };
  // The glance's counts are the rows' own verdicts, per family and metric. The totals come from the
  // fixture, not from a run of the program: every divergence benchmark but the one-path runs (k = 0,
  // one switch path, one leaf) has a divergent-target row, and every partial-warp benchmark with the
  // lanes counter has a lanes row.
  const analysis::Run run = read_run(kFixtures / "counters.json");
  int divergent_rows = 0, lane_rows = 0;
  for (const auto& b : run.benchmarks) {
    if (b.family == "divergence") {
      const bool one_path = (b.has_param("k") && b.param("k") == 0) ||
                            (b.has_param("paths") && b.param("paths") == 1) ||
                            (b.has_param("leaves") && b.param("leaves") == 1);
      divergent_rows += !one_path || b.benchmark == "warp_uniform";
    }
    lane_rows += b.family == "partial_warp" && b.has_counter(kLanes);
  }
  auto count = [&](const std::string& family, const std::string& metric, const char* verdict) {
    int n = 0;
    for (const Row& r : *rows_) n += r.family == family && r.metric == metric && r.verdict == verdict;
    return n;
  };
  EXPECT_EQ(count("divergence", kDiv, "passes") + count("divergence", kDiv, "fails"), divergent_rows);
  EXPECT_NE(line(kDiv).find("| check | "), std::string::npos) << line(kDiv);
  // holds (none: a check) | passes | fails | fails, per-warp holds | warn | untestable | throttled
  EXPECT_NE(line(kDiv).find(" | 0 | " + std::to_string(count("divergence", kDiv, "passes")) + " | " +
                            std::to_string(count("divergence", kDiv, "fails")) + " | 0 | 0 | 0 | 0 |"),
            std::string::npos)
      << line(kDiv);
  // Lanes: the one-thread grid tail fails (its 7 idle warps still issue their guard with all lanes
  // on, so the average is above 1 lane); it is the first partial-warp miss the glance names.
  const Row tail = row(*rows_, "grid_tail", "block_threads=256;total_threads=1", kLanes);
  EXPECT_GT(tail.value, 1.02);
  EXPECT_EQ(tail.verdict, "fails");
  EXPECT_EQ(count("partial_warp", kLanes, "holds") + count("partial_warp", kLanes, "fails"), lane_rows);
  const auto lanes = md.find("| partial_warp | `" + kLanes + "` |", glance);
  ASSERT_NE(lanes, std::string::npos);
  const std::string l = md.substr(lanes, md.find('\n', lanes) - lanes);
  EXPECT_NE(l.find(" | " + std::to_string(count("partial_warp", kLanes, "holds")) + " | 0 | " +
                   std::to_string(count("partial_warp", kLanes, "fails")) + " | 0 |"),
            std::string::npos)
      << l;
  EXPECT_NE(l.find("grid_tail block_threads=256;total_threads=1: fails"), std::string::npos) << l;
}

TEST(CounterEvaluationWithoutCounters, ARunWithoutTheCounterPassHasNoCounterRows) {
  for (const Row& r : evaluate_run(read_run(kFixtures / "partial_warp.json"))) {
    EXPECT_NE(r.metric, kWarps);
    EXPECT_NE(r.metric, kLanes);
  }
}

TEST(CounterEvaluationWithoutCounters, AWrongWarpCountFails) {
  // The fixture with the 48-thread block's warps launched changed from 2 to 3.
  std::ifstream in(kFixtures / "counters.json");
  std::stringstream text;
  text << in.rdbuf();
  const std::string original = text.str();
  // Only the 48-thread block's rows (its repetitions and their mean and median) launch 2 warps.
  const std::string from = "\"smsp__warps_launched.sum\": 2.0,";
  std::string changed = original;
  int replaced = 0;
  for (auto at = changed.find(from); at != std::string::npos; at = changed.find(from, at)) {
    changed.replace(at, from.size(), "\"smsp__warps_launched.sum\": 3.0,");
    ++replaced;
  }
  ASSERT_EQ(replaced, 7) << "5 repetitions, the mean and the median";
  const test_support::TempDir temp("counter-eval");
  const auto dir = temp.path();
  std::ofstream(dir / "bench.json") << changed;
  const auto rows = evaluate_run(read_run(dir / "bench.json"));
  const Row r = row(rows, "schedule", "x=48;y=1;z=1", kWarps);
  EXPECT_EQ(r.value, 3);
  EXPECT_EQ(r.verdict, "fails");
}

}  // namespace
}  // namespace warpcost::analysis
