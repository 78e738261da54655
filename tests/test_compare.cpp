// Comparing two runs: the U test's exact p-values, the same / faster / slower / unclear verdicts
// on a real run and altered copies of it, the CSV, and warpcost-analyze --compare's bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/compare.hpp"
#include "core/run_reader.hpp"
#include "tests/cli_test_support.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const fs::path kFixtures = WARPCOST_FIXTURES;

analysis::Run base_run() { return read_run(kFixtures / "divergence.json"); }

template <class F>
analysis::Run altered(F&& change) {
  analysis::Run r = base_run();
  for (auto& b : r.benchmarks) change(b);
  return r;
}

TEST(MannWhitney, ExactPValuesOfSmallSamples) {
  // Five against five, fully separated: 2 of the 252 splits are as extreme.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252.0, 1e-12);
  // Three against three can never go below 2/20 = 0.1.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  // Interleaved and identical samples are not different at all.
  EXPECT_GT(mann_whitney_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.5);
  EXPECT_DOUBLE_EQ(mann_whitney_p({2, 2, 2}, {2, 2, 2}), 1.0);
  // Beyond 20 values, the normal approximation.
  std::vector<double> low;
  std::vector<double> high;
  for (int i = 0; i < 12; ++i) {
    low.push_back(i);
    high.push_back(100 + i);
  }
  EXPECT_LT(mann_whitney_p(low, high), 1e-4);
  EXPECT_THROW(mann_whitney_p({}, {1.0}), std::invalid_argument);
}

TEST(CompareRuns, ARunAgainstItselfIsTheSameEverywhere) {
  const RunComparison c = compare_runs(base_run(), base_run());
  ASSERT_FALSE(c.rows.empty());
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.verdict, compare_verdict::kSame) << r.benchmark << " " << r.params;
    EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  }
  EXPECT_TRUE(c.only_in_base.empty());
  EXPECT_TRUE(c.only_in_new.empty());
}

TEST(CompareRuns, TenPercentFasterSeparatesAndHalfAPercentIsTheSame) {
  const RunComparison faster = compare_runs(
      base_run(), altered([](BenchmarkResult& b) { for (double& s : b.seconds) s *= 0.9; }));
  for (const auto& r : faster.rows) {
    EXPECT_EQ(r.verdict, compare_verdict::kFaster) << r.why;
    EXPECT_NEAR(r.ratio, 0.9, 1e-9);
    EXPECT_LT(r.p_value, kSignificance);
  }
  const RunComparison slower = compare_runs(
      base_run(), altered([](BenchmarkResult& b) { for (double& s : b.seconds) s *= 1.1; }));
  for (const auto& r : slower.rows) EXPECT_EQ(r.verdict, compare_verdict::kSlower) << r.why;
  const RunComparison same = compare_runs(
      base_run(), altered([](BenchmarkResult& b) { for (double& s : b.seconds) s *= 1.005; }));
  for (const auto& r : same.rows) EXPECT_EQ(r.verdict, compare_verdict::kSame) << r.why;
}

TEST(CompareRuns, ADifferenceInsideTheNoiseIsUnclear) {
  // Base repetitions 1.00, 1.10, 0.90, 1.05, 0.95; new ones 4% higher in the median but spread
  // across the base's range: the medians differ, the repetitions do not separate.
  analysis::Run a = base_run();
  analysis::Run b = base_run();
  a.benchmarks.resize(1);
  b.benchmarks.resize(1);
  a.benchmarks[0].seconds = {1.00, 1.10, 0.90, 1.05, 0.95};
  b.benchmarks[0].seconds = {1.04, 0.92, 1.12, 0.97, 1.08};
  const RunComparison c = compare_runs(a, b);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, compare_verdict::kUnclear) << c.rows[0].why;
  EXPECT_NEAR(c.rows[0].ratio, 1.04, 1e-12);
  EXPECT_GE(c.rows[0].p_value, kSignificance);

  // Three repetitions a side can never separate: the reason says so.
  a.benchmarks[0].seconds = {1.00, 1.01, 0.99};
  b.benchmarks[0].seconds = {1.20, 1.21, 1.19};
  const RunComparison few = compare_runs(a, b);
  EXPECT_EQ(few.rows[0].verdict, compare_verdict::kUnclear);
  EXPECT_NE(few.rows[0].why.find("the smallest possible p is 0.1"), std::string::npos) << few.rows[0].why;
}

TEST(CompareRuns, ErrorsAndBenchmarksOnOneSideOnly) {
  analysis::Run next = base_run();
  next.benchmarks[0].error = true;
  next.benchmarks[0].error_message = "thread 7 computed 1, host replay 2";
  const std::string dropped = next.benchmarks.back().run_name;
  next.benchmarks.pop_back();
  const RunComparison c = compare_runs(base_run(), next);
  EXPECT_EQ(c.rows[0].verdict, compare_verdict::kError);
  EXPECT_NE(c.rows[0].why.find("host replay"), std::string::npos);
  ASSERT_EQ(c.only_in_base.size(), 1u);
  EXPECT_EQ(c.only_in_base[0], dropped);

  analysis::Run unrelated = base_run();
  for (auto& b : unrelated.benchmarks) b.run_name += "/other";
  EXPECT_THROW(compare_runs(base_run(), unrelated), std::runtime_error);
}

TEST(CompareRuns, CsvHasOneRowPerBenchmarkAndTheDocumentedColumns) {
  const RunComparison c = compare_runs(base_run(), base_run());
  std::istringstream csv(comparison_csv(c));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line,
            "family,benchmark,params,base_run,new_run,base_median_s,new_median_s,ratio,base_cv,"
            "new_cv,p_value,verdict,base_sm_clock_hz,new_sm_clock_hz,cycles_ratio,cycles_p_value,"
            "cycles_verdict");
  std::size_t rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(line.substr(line.rfind(',') + 1), "same");
  }
  EXPECT_EQ(rows, c.rows.size());
  EXPECT_NE(comparison_markdown(c).find("benchmarks in both"), std::string::npos);
}

// Across GPUs: the same work at a lower clock takes longer in time but not in cycles.
TEST(CompareCycles, ALowerClockIsSlowerInTimeAndTheSameInCycles) {
  // divergence.json's points each read their SM clock; without those readings the run's stands in.
  auto without_point_clocks = [](analysis::Run r) {
    for (auto& b : r.benchmarks) b.counters.erase("sm_clock_hz");
    return r;
  };
  const analysis::Run base = without_point_clocks(base_run());
  analysis::Run slow = without_point_clocks(
      altered([](BenchmarkResult& b) { for (double& s : b.seconds) s *= 1.1; }));
  const double base_khz = slow.context.number("sm_clock_measured_khz");
  slow.context.values["sm_clock_measured_khz"] = std::to_string(base_khz / 1.1);
  for (const auto& r : compare_runs(base, slow).rows) {
    EXPECT_EQ(r.verdict, compare_verdict::kSlower) << r.why;
    EXPECT_EQ(r.cycles_verdict, compare_verdict::kSame) << r.cycles_why;
    EXPECT_NEAR(r.cycles_ratio, 1.0, 1e-6);
    EXPECT_EQ(r.base_clock_source, "run");
    EXPECT_NEAR(r.new_clock_hz, base_khz * 1e3 / 1.1, 1.0);
  }
  // The same times at a 10% higher clock are 10% more cycles: slower in cycles only.
  analysis::Run fast_clock = base;
  fast_clock.context.values["sm_clock_measured_khz"] = std::to_string(base_khz * 1.1);
  for (const auto& r : compare_runs(base, fast_clock).rows) {
    EXPECT_EQ(r.verdict, compare_verdict::kSame);
    EXPECT_EQ(r.cycles_verdict, compare_verdict::kSlower) << r.cycles_why;
    EXPECT_NEAR(r.cycles_ratio, 1.1, 1e-6);
  }
  // With the points' own readings, those decide and the run's clock does not matter.
  analysis::Run throttled = altered([](BenchmarkResult& b) {
    for (double& s : b.seconds) s *= 1.1;
    for (double& hz : b.counters["sm_clock_hz"]) hz /= 1.1;
  });
  throttled.context.values["sm_clock_measured_khz"] = std::to_string(base_khz * 2);
  for (const auto& r : compare_runs(base_run(), throttled).rows) {
    EXPECT_EQ(r.new_clock_source, "point");
    EXPECT_EQ(r.verdict, compare_verdict::kSlower) << r.why;
    EXPECT_EQ(r.cycles_verdict, compare_verdict::kSame) << r.cycles_why;
  }
}

TEST(CompareCycles, APointsOwnClockReadingIsUsedForEachRepetition) {
  analysis::Run run = read_run(kFixtures / "partial_warp.json");
  analysis::BenchmarkResult b = run.benchmarks.front();
  b.seconds = {1e-3, 1e-3, 1e-3};
  b.counters.erase("sm_clock_hz");
  std::string source;
  EXPECT_EQ(repetition_clocks_hz(run, b, &source),
            std::vector<double>(3, run.context.number("sm_clock_measured_khz") * 1e3));
  EXPECT_EQ(source, "run");
  b.counters["sm_clock_hz"] = {1.9e9, 1.8e9, 1.7e9};
  EXPECT_EQ(repetition_clocks_hz(run, b, &source), (std::vector<double>{1.9e9, 1.8e9, 1.7e9}));
  EXPECT_EQ(source, "point");
  // The bench's per-point reading (MHz) comes before the calibrated families' own.
  b.counters["warpcost_sm_clock_mhz"] = {1500, 1600, 1700};
  EXPECT_EQ(repetition_clocks_hz(run, b, &source), (std::vector<double>{1.5e9, 1.6e9, 1.7e9}));

  // Two points of one run, one at a throttled clock: the cycles agree where the times do not.
  analysis::Run base = run;
  analysis::Run next = run;
  base.benchmarks = {b};
  next.benchmarks = {b};
  base.benchmarks[0].seconds = {1.00e-3, 1.01e-3, 0.99e-3, 1.00e-3, 1.00e-3};
  base.benchmarks[0].counters["warpcost_sm_clock_mhz"] = {1980, 1980, 1980, 1980, 1980};
  next.benchmarks[0].seconds = {1.32e-3, 1.33e-3, 1.31e-3, 1.32e-3, 1.32e-3};
  next.benchmarks[0].counters["warpcost_sm_clock_mhz"] = {1500, 1500, 1500, 1500, 1500};
  const RunComparison c = compare_runs(base, next);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, compare_verdict::kSlower);
  EXPECT_EQ(c.rows[0].cycles_verdict, compare_verdict::kSame) << c.rows[0].cycles_why;
  EXPECT_NE(c.rows[0].cycles_why.find("1980 MHz (point) and 1500 MHz (point)"), std::string::npos)
      << c.rows[0].cycles_why;
}

TEST(CompareNoise, OneRepetitionASideIsDecidedByTheRecordedSampleNoise) {
  const Measurements base{{1.00}, true, 0.002, 50};
  // 3% apart with 0.2% noise over 50 samples a side: far beyond the standard errors.
  const Judgement slower = judge(base, {{1.03}, true, 0.002, 50});
  EXPECT_EQ(slower.test, compare_test::kSamples);
  EXPECT_EQ(slower.verdict, compare_verdict::kSlower) << slower.why;
  EXPECT_LT(slower.p_value, 1e-6);
  // 3% apart with 5% noise over 10 samples a side: z = log(1.03) / (1.2533 x 0.05 / sqrt(10) x
  // sqrt(2)) = 1.06, p = 0.29.
  const Judgement noisy = judge({{1.00}, true, 0.05, 10}, {{1.03}, true, 0.05, 10});
  EXPECT_EQ(noisy.verdict, compare_verdict::kUnclear) << noisy.why;
  EXPECT_NEAR(noisy.p_value, std::erfc(std::log(1.03) / (kMedianStandardErrorFactor * 0.05 /
                                                         std::sqrt(10.0) * std::sqrt(2.0)) /
                                       std::sqrt(2.0)),
              1e-12);
  // Within the band it is the same however small the noise.
  EXPECT_EQ(judge(base, {{1.005}, true, 0.0001, 1000}).verdict, compare_verdict::kSame);
  // Old runs record no sample noise: one repetition a side cannot separate, and the reason says so.
  const Judgement old = judge({{1.00}}, {{1.20}});
  EXPECT_EQ(old.test, compare_test::kNone);
  EXPECT_EQ(old.verdict, compare_verdict::kUnclear);
  EXPECT_NE(old.why.find("the runs record no sample noise"), std::string::npos) << old.why;
  // Enough repetitions: the U test decides even where sample noise is recorded.
  const Judgement reps = judge({{1.00, 1.01, 0.99, 1.00, 1.00}, true, 0.5, 2},
                               {{1.10, 1.11, 1.09, 1.10, 1.10}, true, 0.5, 2});
  EXPECT_EQ(reps.test, compare_test::kRepetitions);
  EXPECT_EQ(reps.verdict, compare_verdict::kSlower);
}

TEST(CompareRuns, TheMarkdownNamesBothGpusAndCountsCycleVerdicts) {
  analysis::Run other = base_run();
  other.context.values["gpu_uuid"] = "GPU-abcdef01-0000-0000-0000-000000000000";
  const std::string md = comparison_markdown(compare_runs(base_run(), other));
  EXPECT_NE(md.find("Base: NVIDIA H200 (GPU-3f952ab1); new: NVIDIA H200 (GPU-abcdef01)."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("In SM cycles: "), std::string::npos);
  EXPECT_NE(md.find("| cycles ratio | cycles verdict |"), std::string::npos);
}

class CompareCli : public CliTest {};

TEST_F(CompareCli, ComparesTwoRunFoldersAndWritesTheCsv) {
  const fs::path a = dir_ / "results/fixture-gpu/20260101T000000Z";
  const fs::path b = dir_ / "results/fixture-gpu/20260102T000000Z";
  const fs::path csv = dir_ / "compare.csv";
  EXPECT_EQ(analyze({"--compare", a.string(), b.string(), "--csv", csv.string()}), kExitOk)
      << err_.str();
  EXPECT_TRUE(fs::exists(csv));
  EXPECT_NE(out_.str().find("# warpcost compare: "), std::string::npos);
}

TEST_F(CompareCli, BadInputsNameTheProblemAndWriteNothing) {
  const fs::path csv = dir_ / "compare.csv";
  const fs::path a = dir_ / "results/fixture-gpu/20260101T000000Z";
  EXPECT_EQ(analyze({"--compare", a.string()}), kExitUsage);
  EXPECT_NE(err_.str().find("--compare takes exactly two runs"), std::string::npos);
  EXPECT_EQ(analyze({"--compare", a.string(), a.string(), "--per-run"}), kExitUsage);
  // A folder of two runs is not one side.
  EXPECT_EQ(analyze({"--compare", (dir_ / "results").string(), a.string(), "--csv", csv.string()}),
            kExitBadInput);
  EXPECT_NE(err_.str().find("holds 2 runs; --compare takes one run a side"), std::string::npos)
      << err_.str();
  EXPECT_EQ(analyze({"--compare", a.string(), (dir_ / "missing").string(), "--csv", csv.string()}),
            kExitBadInput);
  EXPECT_NE(err_.str().find("no such file or folder"), std::string::npos);
  // A truncated run names its file.
  const fs::path broken = dir_ / "broken.json";
  fs::copy(kFixtures / "truncated.json", broken);
  EXPECT_EQ(analyze({"--compare", a.string(), broken.string(), "--csv", csv.string()}), kExitBadInput);
  EXPECT_NE(err_.str().find("broken.json"), std::string::npos) << err_.str();
  EXPECT_FALSE(fs::exists(csv));
}

}  // namespace
}  // namespace warpcost::analysis
