// warpcost-analyze end to end on fixtures: the files it writes, the CSV read back by a CSV parser,
// and every bad input giving one message, a non-zero exit and nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "tidy_csv.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const fs::path kFixtures = WARPCOST_FIXTURES;

class AnalyzeCli : public CliTest {};

// A strict RFC 4180 reader: the test's own, so the writer is checked against an independent parser.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  EXPECT_TRUE(field.empty() && row.empty()) << "last line has no newline";
  return rows;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  std::size_t used = 0;
  try {
    std::stod(s, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == s.size();
}

TEST_F(AnalyzeCli, SingleRunWritesCsvAndReportIntoItsFolder) {
  const fs::path run = dir_ / "results/fixture-gpu/20260101T000000Z";
  ASSERT_EQ(analyze({run.string()}), kExitOk) << err_.str();
  EXPECT_TRUE(fs::exists(run / "warpcost.csv"));
  EXPECT_TRUE(fs::exists(run / "report.md"));
  const std::string report = slurp(run / "report.md");
  EXPECT_EQ(report, out_.str());  // printed and written alike
  EXPECT_NE(report.find("| fixture-gpu/20260101T000000Z |"), std::string::npos);
  EXPECT_NE(report.find("dram__bytes.sum.per_second"), std::string::npos);
  EXPECT_NE(report.find("| 10 | N_sched 4, L 400, T_issue 1, I_warp 20, cap 64 |"),
            std::string::npos);
  EXPECT_NE(report.find("1600 slots, 80 warps > 64: short 16"), std::string::npos);
}

TEST_F(AnalyzeCli, MergedCsvHasTheFixedHeaderAndTypedColumns) {
  const fs::path csv = dir_ / "all.csv";
  ASSERT_EQ(analyze({"--quiet", "--csv", csv.string(), "--report", (dir_ / "all.md").string(),
                     (dir_ / "results").string()}),
            kExitOk)
      << err_.str();
  EXPECT_TRUE(out_.str().empty());  // --quiet
  const auto rows = parse_csv(slurp(csv));
  ASSERT_GT(rows.size(), 10u);
  EXPECT_EQ(rows[0], csv_header());
  const std::size_t value_col = 13, predicted_col = 16, rel_col = 17, kind_col = 18, verdict_col = 19;
  std::set<std::string> run_ids;
  bool saw_quoted_gpu = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ASSERT_EQ(r.size(), csv_header().size()) << "row " << i;
    EXPECT_EQ(r[0], "1");
    run_ids.insert(r[1]);
    saw_quoted_gpu |= r[3] == "Fixture GPU, rev \"A\"";
    EXPECT_TRUE(is_number(r[value_col])) << "row " << i << " value '" << r[value_col] << "'";
    EXPECT_TRUE(r[predicted_col].empty() || is_number(r[predicted_col])) << "row " << i;
    EXPECT_TRUE(r[rel_col].empty() || is_number(r[rel_col])) << "row " << i;
    EXPECT_TRUE(std::set<std::string>({"model", "target", "info"}).count(r[kind_col])) << r[kind_col];
    EXPECT_TRUE(std::set<std::string>({"holds", "fails", "warn", "untestable here", "throttled", "met",
                                       "missed", "info", "error"})
                    .count(r[verdict_col]))
        << r[verdict_col];
  }
  EXPECT_EQ(run_ids, (std::set<std::string>{"fixture-gpu/20260101T000000Z",
                                           "fixture-gpu/20260102T000000Z"}));
  EXPECT_TRUE(saw_quoted_gpu);  // a comma and quotes in a field survive the round trip
}

TEST_F(AnalyzeCli, SeveralRunsNeedANamedOutput) {
  EXPECT_EQ(analyze({(dir_ / "results").string()}), kExitUsage);
  EXPECT_NE(err_.str().find("2 runs: name --csv and --report"), std::string::npos);
}

TEST_F(AnalyzeCli, PerRunWritesEveryRunsOwnFiles) {
  ASSERT_EQ(analyze({"--quiet", "--per-run", (dir_ / "results").string()}), kExitOk) << err_.str();
  EXPECT_TRUE(fs::exists(dir_ / "results/fixture-gpu/20260101T000000Z/warpcost.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "results/fixture-gpu/20260102T000000Z/report.md"));
}

TEST_F(AnalyzeCli, FailedAndPartialRunFoldersAreSkipped) {
  fs::create_directories(dir_ / "results/fixture-gpu/20260103T000000Z.failed");
  fs::copy_file(kFixtures / "truncated.json",
                dir_ / "results/fixture-gpu/20260103T000000Z.failed/bench.json");
  fs::create_directories(dir_ / "results/fixture-gpu/.20260104T000000Z.partial");
  fs::copy_file(kFixtures / "truncated.json",
                dir_ / "results/fixture-gpu/.20260104T000000Z.partial/bench.json");
  EXPECT_EQ(analyze({"--quiet", "--per-run", (dir_ / "results").string()}), kExitOk) << err_.str();
}

TEST_F(AnalyzeCli, BadInputNamesTheFileExitsNonZeroAndWritesNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated.json", "truncated or malformed JSON"},
      {"missing_metadata.json", "context.sm_clock_max_khz: missing run metadata"},
      {"schema_v2.json", "schema version 2"},
      {"aggregates_only.json", "no iteration results"},
  };
  for (const auto& [fixture, expected] : cases) {
    const fs::path bad_dir = dir_ / "results/bad-gpu/20260105T000000Z";
    fs::create_directories(bad_dir);
    fs::copy_file(kFixtures / fixture, bad_dir / "bench.json", fs::copy_options::overwrite_existing);
    const auto before = files();
    EXPECT_EQ(analyze({"--per-run", "--csv", (dir_ / "all.csv").string(), (dir_ / "results").string()}),
              kExitBadInput)
        << fixture;
    EXPECT_NE(err_.str().find((bad_dir / "bench.json").string()), std::string::npos) << err_.str();
    EXPECT_NE(err_.str().find(expected), std::string::npos) << err_.str();
    EXPECT_EQ(files(), before) << fixture << ": something was written";
  }
}

TEST_F(AnalyzeCli, EmptyFolderMissingPathAndDuplicateRunsAreErrors) {
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(analyze({(dir_ / "empty").string()}), kExitBadInput);
  EXPECT_NE(err_.str().find("empty: no runs in this folder"), std::string::npos) << err_.str();

  EXPECT_EQ(analyze({(dir_ / "nowhere").string()}), kExitBadInput);
  EXPECT_NE(err_.str().find("nowhere: no such file or folder"), std::string::npos);

  const fs::path copy = dir_ / "copy";
  fs::create_directories(copy);
  fs::copy_file(dir_ / "results/fixture-gpu/20260101T000000Z/bench.json", copy / "bench.json");
  EXPECT_EQ(analyze({"--csv", (dir_ / "x.csv").string(), (dir_ / "results").string(), copy.string()}),
            kExitBadInput);
  EXPECT_NE(err_.str().find("'fixture-gpu/20260101T000000Z' is also the id of"), std::string::npos)
      << err_.str();
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

TEST_F(AnalyzeCli, UsageErrors) {
  EXPECT_EQ(analyze({}), kExitUsage);
  EXPECT_NE(err_.str().find("usage: warpcost-analyze"), std::string::npos);
  EXPECT_EQ(analyze({"--frobnicate", "x"}), kExitUsage);
  EXPECT_NE(err_.str().find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_EQ(analyze({"--csv"}), kExitUsage);
  EXPECT_EQ(analyze({"--help"}), kExitOk);
}

}  // namespace
}  // namespace warpcost::analysis
