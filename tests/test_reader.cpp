// The run reader on committed fixtures: a good run, and every way a file can be bad.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/run_reader.hpp"
#include "core/statistics.hpp"
#include "analysis/evaluation.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const fs::path kFixtures = WARPCOST_FIXTURES;
const fs::path kGoodRun = kFixtures / "runs/fixture-gpu/20260101T000000Z/bench.json";
// The same run plus a benchmark of no warpcost family (family2/unmodelled/k:3): the reader and the
// evaluator pass it through (warpcost-analyze refuses it unless --allow-unknown).
const fs::path kUnknownFamilyRun = kFixtures / "unknown_family.json";

// Returned by value: a reference into the run would be one more thing for a test to get wrong.
BenchmarkResult find(const analysis::Run& run, const std::string& name) {
  for (const auto& b : run.benchmarks) {
    if (b.run_name == name) return b;
  }
  throw std::runtime_error("no benchmark " + name);
}

TEST(RunName, SplitsFamilyBenchmarkAndParamsAndDropsGoogleBenchmarkSuffixes) {
  const BenchmarkResult r =
      parse_run_name("partial_warp/staircase/threads:33/blocks:4224/min_time:0.100/repeats:5/manual_time");
  EXPECT_EQ(r.family, "partial_warp");
  EXPECT_EQ(r.benchmark, "staircase");
  EXPECT_EQ(r.run_name, "partial_warp/staircase/threads:33/blocks:4224");
  ASSERT_EQ(r.params.size(), 2u);
  EXPECT_EQ(r.params_text(), "threads=33;blocks=4224");
  EXPECT_DOUBLE_EQ(r.param("blocks"), 4224.0);
  EXPECT_THROW(r.param("lanes"), std::out_of_range);
}

TEST(RunReader, ReadsRepetitionsCountersAndContext) {
  const analysis::Run run = read_run(kGoodRun);
  EXPECT_EQ(run.run_id(), "fixture-gpu/20260101T000000Z");
  EXPECT_EQ(run.context.text("cc"), "9.0");
  EXPECT_DOUBLE_EQ(run.context.number("sm_count"), 132.0);
  ASSERT_EQ(run.benchmarks.size(), 3u);  // aggregates are not benchmarks of their own

  const BenchmarkResult clock = find(run, "calibration/sm_clock/spin_cycles:20000000");
  ASSERT_EQ(clock.seconds.size(), 3u);
  EXPECT_NEAR(clock.median_seconds(), 10.11e-3, 1e-12);
  EXPECT_DOUBLE_EQ(clock.counter_median("sm_clock_hz"), 1.978e9);

  const BenchmarkResult copy = find(run, "calibration/d2d_copy/mib:1024");
  EXPECT_NEAR(copy.median_seconds(), 0.5005e-3, 1e-12);
  EXPECT_DOUBLE_EQ(copy.counter_median("bytes_read"), 1073741824.0);

  const BenchmarkResult other = find(read_run(kUnknownFamilyRun), "family2/unmodelled/k:3");
  ASSERT_EQ(other.seconds.size(), 1u);
  EXPECT_NEAR(other.seconds[0], 2.0e-3, 1e-15);  // 2e6 ns
}

TEST(RunReader, ReadsGoogleBenchmarksNaNAndInfinityTokens) {
  const analysis::Run run = read_run(kFixtures / "nonfinite_aggregate.json");
  EXPECT_EQ(run.benchmarks.size(), 4u);
  EXPECT_EQ(replace_nonfinite_tokens(R"({"a": NaN, "b": [-Infinity, inf], "c": "NaN inf", "d": -nan})"),
            R"({"a": null, "b": [null, null], "c": "NaN inf", "d": null})");
  EXPECT_EQ(replace_nonfinite_tokens(R"({"e": "quote \" NaN"})"), R"({"e": "quote \" NaN"})");
}

TEST(RunReader, KeepsAnErroredBenchmarkAsAnError) {
  const analysis::Run run = read_run(kFixtures / "runs/fixture-gpu/20260102T000000Z/bench.json");
  const BenchmarkResult failed = find(run, "calibration/d2d_copy/mib:4096");
  EXPECT_TRUE(failed.error);
  EXPECT_NE(failed.error_message.find("12 of 1073741824 words differ"), std::string::npos);
}

void expect_format_error(const std::string& fixture, const std::string& expected_field,
                         const std::string& expected_problem) {
  const fs::path path = kFixtures / fixture;
  try {
    read_run(path);
    ADD_FAILURE() << fixture << " was accepted";
  } catch (const RunFormatError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path.string() + ": " + expected_field + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(expected_problem), std::string::npos) << message;
  }
}

TEST(RunReader, RejectsBadFilesNamingTheFileAndTheField) {
  expect_format_error("truncated.json", "(document)", "truncated or malformed JSON at byte");
  expect_format_error("not_json.json", "(document)", "truncated or malformed JSON at byte");
  expect_format_error("missing_metadata.json", "context.sm_clock_max_khz", "missing run metadata");
  expect_format_error("schema_v3.json", "context.warpcost_schema_version",
                      "schema version 3; this analysis reads versions 1 to 2");
  expect_format_error("plain_google_benchmark.json", "context.warpcost_schema_version",
                      "not a warpcost run");
  expect_format_error("aggregates_only.json", "benchmarks", "no iteration results");
  expect_format_error("bad_time_unit.json", "benchmarks[0].time_unit",
                      "time unit 'fortnights'; allowed: ns, us, ms, s");
  expect_format_error("missing_real_time.json", "benchmarks[5].real_time", "missing");
  expect_format_error("no_such_file.json", "(file)", "cannot be opened");
}

// Each of `bads` planted in the good run in place of its first `original` is refused, the message
// naming `field` and `allowed`.
void expect_planted_refused(const std::string& original, const std::vector<std::string>& bads, const std::string& field,
                            const std::string& allowed) {
  std::ifstream in(kGoodRun);
  std::stringstream text;
  text << in.rdbuf();
  const std::string good = text.str();
  ASSERT_NE(good.find(original), std::string::npos);
  test_support::TempDir dir("reader");
  for (const std::string& bad : bads) {
    const fs::path path = dir.path() / "bench.json";
    std::string planted = good;
    planted.replace(planted.find(original), original.size(), bad);
    std::ofstream(path) << planted;
    try {
      read_run(path);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const RunFormatError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(field), std::string::npos) << message;
      EXPECT_NE(message.find(allowed), std::string::npos) << message;
    }
  }
}

// A counter of an iteration that lost its number (Google Benchmark's NaN token, read as null, or
// the text "nan") is refused by name: dropped, it would take that point's rows with it unsaid.
TEST(RunReader, RefusesACounterThatLostItsNumber) {
  expect_planted_refused("\"sm_clock_hz\": 1978000000.0",
                         {"\"sm_clock_hz\": NaN", "\"sm_clock_hz\": null", "\"sm_clock_hz\": \"nan\"",
                          "\"sm_clock_hz\": -Infinity", "\"sm_clock_hz\": \"Inf\"", "\"sm_clock_hz\": \"12\"",
                          "\"sm_clock_hz\": true", "\"sm_clock_hz\": {}"},
                         "benchmarks[0].sm_clock_hz", "allowed: a finite number");
}

// A benchmark entry whose run_type is neither Google Benchmark's "iteration" nor "aggregate" was
// dropped with its rows and no word; it is refused by name. The fixture's aggregates stay out.
TEST(RunReader, RefusesARunTypeGoogleBenchmarkNeverWrites) {
  EXPECT_FALSE(read_run(kGoodRun).benchmarks.empty());
  expect_planted_refused("\"run_type\": \"iteration\"",
                         {"\"run_type\": \"itertion\"", "\"run_type\": 5", "\"run_type\": null"},
                         "benchmarks[0].run_type", "allowed: \"iteration\" or \"aggregate\"");
}

// The run's identity and state order, key and label it in every report: an id that is not
// <gpu>/<stamp>, a utc that is not a time, a run_status warpcost-bench never writes are refused by
// name (a typo would order a run wrongly or call a partial run complete, without a word).
TEST(RunReader, RefusesRunMetadataWarpcostBenchNeverWrites) {
  expect_planted_refused("\"run_id\": \"fixture-gpu/20260101T000000Z\"",
                         {"\"run_id\": \"fixture-gpu/../x\"", "\"run_id\": \"..\"", "\"run_id\": \"\"",
                          "\"run_id\": \"fixture-gpu/\"", "\"run_id\": \"a/b/c\"", "\"run_id\": \"a b/c\"",
                          "\"run_id\": \"fixture-gpu/..\"", "\"run_id\": \"x/2026\\n01\""},
                         "context.run_id", "allowed: <gpu>/<stamp>");
  expect_planted_refused("\"utc\": \"2026-01-01T00:00:00Z\"",
                         {"\"utc\": \"yesterday\"", "\"utc\": \"2026-01-01 00:00:00\"", "\"utc\": \"2026-13-01T00:00:00Z\"",
                          "\"utc\": \"2026-01-01T24:00:00Z\"", "\"utc\": \"2026-01-00T00:00:00Z\"",
                          "\"utc\": \"2026-01-01T00:00:00+01\"", "\"utc\": \"2026-01-01T00:0a:00Z\"",
                          "\"utc\": \"2026-02-29T00:00:00Z\"", "\"utc\": \"2026-04-31T00:00:00Z\"",
                          "\"utc\": \"0000-01-01T00:00:00Z\"", "\"utc\": \"2026-01-01T12:00:60Z\""},
                         "context.utc", "allowed: a UTC time YYYY-MM-DDTHH:MM:SSZ");
  expect_planted_refused("\"utc\": \"2026-01-01T00:00:00Z\"",
                         {"\"run_status\": \"completed\", \"utc\": \"2026-01-01T00:00:00Z\"",
                          "\"run_status\": \"partial\", \"utc\": \"2026-01-01T00:00:00Z\"",
                          "\"run_status\": \"\", \"utc\": \"2026-01-01T00:00:00Z\"",
                          "\"run_status\": \"partial: \", \"utc\": \"2026-01-01T00:00:00Z\""},
                         "context.run_status", "allowed: \"complete\" or \"partial: <why>\"");
  // Not text at all: dropped before, and the run read as complete.
  expect_planted_refused("\"utc\": \"2026-01-01T00:00:00Z\"",
                         {"\"run_status\": null, \"utc\": \"2026-01-01T00:00:00Z\"",
                          "\"run_status\": [\"partial: x\"], \"utc\": \"2026-01-01T00:00:00Z\"",
                          "\"run_status\": {}, \"utc\": \"2026-01-01T00:00:00Z\""},
                         "context.run_status", "allowed: text");
  expect_planted_refused("\"run_id\": \"fixture-gpu/20260101T000000Z\"", {"\"run_id\": null", "\"run_id\": 7"},
                         "context.run_id", "allowed: text");
  expect_planted_refused("\"utc\": \"2026-01-01T00:00:00Z\"", {"\"utc\": 20260101", "\"utc\": null"}, "context.utc",
                         "allowed: text");
  // What warpcost-bench writes is read.
  test_support::TempDir dir("reader-status");
  std::ifstream in(kGoodRun);
  std::stringstream text;
  text << in.rdbuf();
  for (const std::string status : {"complete", "partial: interrupted by SIGINT during the timing phase"}) {
    std::string run = text.str();
    const std::string utc = "\"utc\": \"2026-01-01T00:00:00Z\"";
    run.replace(run.find(utc), utc.size(), "\"run_status\": \"" + status + "\", \"utc\": \"2024-02-29T23:59:60Z\"");
    std::ofstream(dir.path() / "bench.json") << run;
    EXPECT_EQ(read_run(dir.path() / "bench.json").context.text("run_status"), status);
  }
}

// One entry a repetition: a point's repetition written twice would be pooled as two measurements.
TEST(RunReader, RefusesARepetitionWrittenTwice) {
  expect_planted_refused("\"repetition_index\": 1", {"\"repetition_index\": 0"}, "benchmarks[1].repetition_index",
                         "'calibration/sm_clock/spin_cycles:20000000' repetition 0 appears twice");
  expect_planted_refused("\"repetition_index\": 1", {"\"repetition_index\": -1", "\"repetition_index\": 1.5",
                                                     "\"repetition_index\": \"1\""},
                         "benchmarks[1].repetition_index", "allowed: a whole number of 0 or more");
}

// Every counter of warpcost's families is a count, size, time, clock, rate or mask: a negative
// one is refused by name rather than judged (a clock of -1.978 GHz read as throttled).
TEST(RunReader, RefusesANegativeCounterOfAWarpcostFamily) {
  expect_planted_refused("\"sm_clock_hz\": 1978000000.0", {"\"sm_clock_hz\": -1978000000.0", "\"sm_clock_hz\": -1e-300"},
                         "benchmarks[0].sm_clock_hz", "allowed: 0 or more");
}

TEST(Statistics, MedianMeanAndCv) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(mean({1, 2, 3}), 2.0);
  EXPECT_DOUBLE_EQ(coefficient_of_variation({5}), 0.0);
  EXPECT_NEAR(coefficient_of_variation({1, 2, 3}), 0.5, 1e-12);  // sd 1, mean 2
  EXPECT_THROW(median({}), std::invalid_argument);
}

Row row(const std::vector<Row>& rows, const std::string& params, const std::string& metric) {
  for (const auto& r : rows) {
    if (r.params == params && r.metric == metric) return r;
  }
  throw std::runtime_error("no row " + params + " " + metric);
}

TEST(Evaluation, CalibrationVerdicts) {
  const analysis::Run run = read_run(kGoodRun);
  const std::vector<Row> rows = evaluate_run(run);

  // The clock and the copy's rate are bounds: shown beside their maximum, never a "holds".
  const Row clock = row(rows, "spin_cycles=20000000", "sm__cycles_elapsed.avg.per_second");
  EXPECT_EQ(clock.verdict, verdict::kInfo);
  EXPECT_DOUBLE_EQ(*clock.predicted, 1.98e9);
  EXPECT_NEAR(*clock.rel_error, (1.978e9 - 1.98e9) / 1.98e9, 1e-12);

  const Row copy = row(rows, "mib=1024", "dram__bytes.sum.per_second");
  EXPECT_NEAR(copy.value, 2.0 * 1073741824.0 / 0.5005e-3, 1.0);
  EXPECT_NEAR(*copy.predicted, 3.201e9 * 768 * 2, 1.0);
  EXPECT_EQ(copy.verdict, verdict::kInfo);
  // 2 GiB moved in 0.5005 ms against 3.201 GHz x 768 B x 2: 87.27 %.
  EXPECT_NE(copy.why.find("87.3% of the theoretical peak"), std::string::npos) << copy.why;

  const Row launch = row(rows, "launches=64", "gpu__time_duration.per_launch");
  EXPECT_NEAR(launch.value, 130.0e-6 / 64, 1e-12);

  const Row cv = row(rows, "mib=1024", "gpu__time_duration.cv");
  EXPECT_EQ(cv.kind, kind::kTarget);
  EXPECT_EQ(cv.verdict, verdict::kMet);  // 0.1 % over 3 repetitions of a 500 us copy

  const Row unmodelled = row(evaluate_run(read_run(kUnknownFamilyRun)), "k=3", "gpu__time_duration.median");
  EXPECT_EQ(unmodelled.verdict, verdict::kInfo);
}

TEST(Evaluation, ALowClockAndACopyAbovePeakAreSaidButJudgeNoModel) {
  analysis::Run run = read_run(kGoodRun);
  for (auto& b : run.benchmarks) {
    if (b.benchmark == "sm_clock") b.counters["sm_clock_hz"] = {1.5e9, 1.5e9, 1.5e9};
    if (b.benchmark == "d2d_copy") b.seconds = {0.2e-3, 0.2e-3, 0.2e-3};  // 10.7 TB/s
  }
  const std::vector<Row> rows = evaluate_run(run);
  const Row clock = row(rows, "spin_cycles=20000000", "sm__cycles_elapsed.avg.per_second");
  EXPECT_EQ(clock.verdict, verdict::kInfo);
  EXPECT_NE(clock.why.find("75.8% of the maximum"), std::string::npos) << clock.why;
  const Row copy = row(rows, "mib=1024", "dram__bytes.sum.per_second");
  EXPECT_NE(copy.kind, kind::kModel);
  EXPECT_EQ(copy.verdict, verdict::kError);  // above the peak: the measurement is wrong
  EXPECT_NE(copy.why.find("above the peak"), std::string::npos) << copy.why;
}

TEST(Evaluation, AnErroredBenchmarkBecomesAnErrorRow) {
  const analysis::Run run = read_run(kFixtures / "runs/fixture-gpu/20260102T000000Z/bench.json");
  const std::vector<Row> rows = evaluate_run(run);
  const Row e = row(rows, "mib=4096", "error");
  EXPECT_EQ(e.verdict, verdict::kError);
  EXPECT_NE(e.why.find("words differ"), std::string::npos);
}

}  // namespace
}  // namespace warpcost::analysis

namespace warpcost::analysis {
namespace {

class PartialWarpEvaluation : public ::testing::Test {
 protected:
  void SetUp() override { rows_ = evaluate_run(read_run(kFixtures / "partial_warp.json")); }
  Row at(const std::string& params, const std::string& metric) const { return row(rows_, params, metric); }
  std::vector<Row> rows_;
};

TEST_F(PartialWarpEvaluation, RecorderCountersAgainstCeilAndTailMask) {
  EXPECT_EQ(at("x=48;y=4;z=1", "warps_per_block").verdict, verdict::kPasses);
  EXPECT_DOUBLE_EQ(*at("x=48;y=4;z=1", "warps_per_block").predicted, 6.0);
  EXPECT_NE(at("x=48;y=4;z=1", "warps_per_block").why.find("Ex 3"), std::string::npos);
  EXPECT_EQ(at("x=33;y=1;z=1", "tail_mask").verdict, verdict::kPasses);
  EXPECT_DOUBLE_EQ(*at("x=33;y=1;z=1", "tail_mask").predicted, 1.0);
  EXPECT_EQ(at("x=33;y=1;z=1", "threads_mapped_as_model").verdict, verdict::kPasses);
  // One warp of two split its clock: allowed since cc 7.0, so shown as info with the count.
  const Row one_clock = at("x=33;y=1;z=1", "warps_with_one_clock");
  EXPECT_EQ(one_clock.verdict, verdict::kInfo);
  EXPECT_NE(one_clock.why.find("1 warps read several clock64 values"), std::string::npos) << one_clock.why;
}

TEST_F(PartialWarpEvaluation, StaircaseUsefulFractionIsShownNotJudged) {
  // With equal block counts it is (P/next)·(t_next/t_P): step_time_spread restated, so info.
  const Row f33 = at("block_threads=33", "useful_fraction");
  EXPECT_NEAR(f33.value, 33.0 / 64.0, 1e-12);
  EXPECT_NEAR(*f33.predicted, 33.0 / 64.0, 1e-12);
  EXPECT_EQ(f33.verdict, verdict::kInfo);
  const Row f65 = at("block_threads=65", "useful_fraction");
  EXPECT_NEAR(f65.value, 65.0 * 1.03 / 96.0, 1e-12);
  EXPECT_EQ(f65.verdict, verdict::kInfo);
  EXPECT_NE(f65.why.find("judged as step_time_spread"), std::string::npos) << f65.why;
  EXPECT_THROW(at("block_threads=64", "useful_fraction"), std::runtime_error);  // the reference itself
}

TEST_F(PartialWarpEvaluation, ResidencyIsCountedInWholeWarps) {
  EXPECT_EQ(at("block_threads=48", "resident_blocks_per_sm").verdict, verdict::kPasses);  // block cap: 32
  const Row r65 = at("block_threads=65", "resident_blocks_per_sm");
  EXPECT_DOUBLE_EQ(*r65.predicted, 21.0);  // floor(64 / 3), not floor(2048 / 65) = 31
  EXPECT_EQ(r65.verdict, verdict::kPasses);
  EXPECT_NE(r65.why.find("the warp cap binds"), std::string::npos);
}

TEST_F(PartialWarpEvaluation, StepSpreadWithinOnePercent) {
  // Times T, 1.005 T, T: (max - min) / min = 0.5 %.
  const Row two = at("warps_per_block=2;block_threads_min=33;block_threads_max=64", "step_time_spread");
  EXPECT_NEAR(two.value, 0.005, 1e-12);
  EXPECT_EQ(two.verdict, verdict::kHolds);
  // Two points, 150 and 154.5 us: 3 % apart.
  const Row three = at("warps_per_block=3;block_threads_min=65;block_threads_max=96", "step_time_spread");
  EXPECT_NEAR(three.value, 4.5 / 150, 1e-12);
  EXPECT_EQ(three.verdict, verdict::kFails);
  // The fixture's 3 % is all clock: 96 ran 3 % slower clocked, so the cycles agree.
  const Row cycles = at("warps_per_block=3;block_threads_min=65;block_threads_max=96", "step_cycle_spread");
  EXPECT_NEAR(cycles.value, 0.0, 1e-12);
  EXPECT_EQ(cycles.verdict, verdict::kHolds);
  EXPECT_NE(cycles.why.find("the SM clock moving between benchmarks"), std::string::npos);
  EXPECT_THROW(at("warps_per_block=2;block_threads_min=33;block_threads_max=64", "step_cycle_spread"), std::runtime_error);  // no clocks
  // A benchmark that measured its clock shows it beside the maximum (a bound: info).
  EXPECT_EQ(at("block_threads=96", "sm__cycles_elapsed.avg.per_second").verdict, verdict::kInfo);
}

TEST_F(PartialWarpEvaluation, GridTailMasksAndTimePerScheduler) {
  // The bench counts the threads past its own guard: equal to the model by construction, info.
  EXPECT_EQ(at("block_threads=256;total_threads=1000", "tail_active_threads").verdict, verdict::kPasses);
  EXPECT_DOUBLE_EQ(*at("block_threads=256;total_threads=1000", "tail_active_threads").predicted, 232.0);
  EXPECT_EQ(at("block_threads=256;total_threads=1000", "tail_full_warps").verdict, verdict::kPasses);
  EXPECT_DOUBLE_EQ(*at("block_threads=256;total_threads=1000", "tail_mask").predicted, 255.0);
  EXPECT_EQ(at("block_threads=256;total_threads=1000", "tail_mask").verdict, verdict::kPasses);
  EXPECT_EQ(at("block_threads=256;total_threads=1000", "relative_time").verdict, verdict::kHolds);  // 1.005 vs 1
  const Row one_warp = at("block_threads=256;total_threads=32", "relative_time");
  EXPECT_DOUBLE_EQ(*one_warp.predicted, 0.5);  // 1 warp per scheduler against 2
  EXPECT_EQ(one_warp.verdict, verdict::kHolds);
  const Row five_warps = at("block_threads=256;total_threads=129", "relative_time");
  EXPECT_DOUBLE_EQ(*five_warps.predicted, 1.0);  // 5 warps: 2 on one scheduler
  EXPECT_EQ(five_warps.verdict, verdict::kFails);  // the fixture says 0.7
  EXPECT_EQ(at("block_threads=256;total_threads=129", "tail_mask").verdict, verdict::kPasses);  // 0x00000001
  // 33 threads took 3 % longer than 64, but both times spread 2 % over their repetitions.
  const Row noisy = at("block_threads=256;total_threads=33", "time_vs_whole_warps");
  EXPECT_NEAR(noisy.value, 1.03, 1e-12);
  EXPECT_EQ(noisy.verdict, verdict::kWarn);
  EXPECT_NE(noisy.why.find("too noisy to decide"), std::string::npos);
  EXPECT_THROW(at("block_threads=256;total_threads=1000", "time_vs_whole_warps"), std::runtime_error);  // no 1024 here
}

}  // namespace
}  // namespace warpcost::analysis
