// Comparing two runs: the U test's exact p-values, the same / faster / slower / unclear verdicts
// on a real run and altered copies of it, the CSV, and warpcost-analyze --compare's bad inputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "compare.hpp"
#include "run_reader.hpp"

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
            "new_cv,p_value,verdict");
  std::size_t rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(line.substr(line.rfind(',') + 1), "same");
  }
  EXPECT_EQ(rows, c.rows.size());
  EXPECT_NE(comparison_markdown(c).find("benchmarks in both"), std::string::npos);
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
