// The run reader on committed fixtures: a good run, and every way a file can be bad.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "evaluation.hpp"
#include "run_reader.hpp"
#include "statistics.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const fs::path kFixtures = WARPCOST_FIXTURES;
const fs::path kGoodRun = kFixtures / "runs/fixture-gpu/20260101T000000Z/bench.json";

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
  ASSERT_EQ(run.benchmarks.size(), 4u);  // aggregates are not benchmarks of their own

  const BenchmarkResult clock = find(run, "calibration/sm_clock/spin_cycles:20000000");
  ASSERT_EQ(clock.seconds.size(), 3u);
  EXPECT_NEAR(clock.median_seconds(), 10.11e-3, 1e-12);
  EXPECT_DOUBLE_EQ(clock.counter_median("sm_clock_hz"), 1.978e9);

  const BenchmarkResult copy = find(run, "calibration/d2d_copy/mib:1024");
  EXPECT_NEAR(copy.median_seconds(), 0.5005e-3, 1e-12);
  EXPECT_DOUBLE_EQ(copy.counter_median("bytes_read"), 1073741824.0);

  const BenchmarkResult other = find(run, "family2/unmodelled/k:3");
  ASSERT_EQ(other.seconds.size(), 1u);
  EXPECT_NEAR(other.seconds[0], 2.0e-3, 1e-15);  // 2e6 ns
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
  expect_format_error("schema_v2.json", "context.warpcost_schema_version",
                      "schema version 2; this analysis reads version 1");
  expect_format_error("plain_google_benchmark.json", "context.warpcost_schema_version",
                      "not a warpcost run");
  expect_format_error("aggregates_only.json", "benchmarks", "no iteration results");
  expect_format_error("bad_time_unit.json", "benchmarks[0].time_unit",
                      "time unit 'fortnights'; allowed: ns, us, ms, s");
  expect_format_error("missing_real_time.json", "benchmarks[5].real_time", "missing");
  expect_format_error("no_such_file.json", "(file)", "cannot be opened");
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

  const Row clock = row(rows, "spin_cycles=20000000", "sm__cycles_elapsed.avg.per_second");
  EXPECT_EQ(clock.verdict, verdict::kHolds);
  EXPECT_DOUBLE_EQ(*clock.predicted, 1.98e9);
  EXPECT_NEAR(*clock.rel_error, (1.978e9 - 1.98e9) / 1.98e9, 1e-12);

  const Row copy = row(rows, "mib=1024", "dram__bytes.sum.per_second");
  EXPECT_NEAR(copy.value, 2.0 * 1073741824.0 / 0.5005e-3, 1.0);
  EXPECT_NEAR(*copy.predicted, 3.201e9 * 768 * 2, 1.0);
  EXPECT_EQ(copy.verdict, verdict::kHolds);  // 87 % of peak: under the bound

  const Row launch = row(rows, "launches=64", "gpu__time_duration.per_launch");
  EXPECT_NEAR(launch.value, 130.0e-6 / 64, 1e-12);

  const Row cv = row(rows, "mib=1024", "gpu__time_duration.cv");
  EXPECT_EQ(cv.verdict, verdict::kHolds);  // 0.1 % over 3 repetitions of a 500 us copy

  const Row unmodelled = row(rows, "k=3", "gpu__time_duration.median");
  EXPECT_EQ(unmodelled.verdict, verdict::kInfo);
}

TEST(Evaluation, ClockBelowNinetyPercentIsFlaggedAndACopyAbovePeakFails) {
  analysis::Run run = read_run(kGoodRun);
  for (auto& b : run.benchmarks) {
    if (b.benchmark == "sm_clock") b.counters["sm_clock_hz"] = {1.5e9, 1.5e9, 1.5e9};
    if (b.benchmark == "d2d_copy") b.seconds = {0.2e-3, 0.2e-3, 0.2e-3};  // 10.7 TB/s
  }
  const std::vector<Row> rows = evaluate_run(run);
  EXPECT_EQ(row(rows, "spin_cycles=20000000", "sm__cycles_elapsed.avg.per_second").verdict,
            verdict::kWarn);
  EXPECT_EQ(row(rows, "mib=1024", "dram__bytes.sum.per_second").verdict, verdict::kFails);
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
