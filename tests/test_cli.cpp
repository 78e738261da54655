// warpcost-analyze end to end on fixtures: the files it writes, the CSV read back by a CSV parser,
// and every bad input giving one message, a non-zero exit and nothing written.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/text_format.hpp"
#include "analysis/tidy_csv.hpp"
#include "analysis/units.hpp"
#include "tests/cli_test_support.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const fs::path kFixtures = WARPCOST_FIXTURES;

class AnalyzeCli : public CliTest {};


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
  // The run's own report.md has every table; what is printed is the summary, which links to it.
  EXPECT_NE(out_.str().find("# warpcost summary"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("newest run fixture-gpu/20260101T000000Z"), std::string::npos);
  EXPECT_NE(out_.str().find("20260101T000000Z/report.md)"), std::string::npos);
  EXPECT_LT(out_.str().size(), report.size());
  EXPECT_NE(report.find("| fixture-gpu/20260101T000000Z |"), std::string::npos);
  EXPECT_NE(report.find("dram__bytes.sum.per_second"), std::string::npos);
  // The worked examples are examples/worked-examples.toml's; no page was measured beside this run.
  EXPECT_NE(report.find("## Worked examples"), std::string::npos);
  EXPECT_NE(report.find("No measured page beside these runs yet."), std::string::npos);
}

// A run the user interrupted (context run_status "partial: ...") and one during which another
// process used the GPU (other_gpu_processes): the summary names both, for the run they concern.
TEST_F(AnalyzeCli, TheSummaryNamesAPartialRunAndAnotherProcessOnTheGpu) {
  for (const char* stamp : {"20260101T000000Z", "20260102T000000Z"}) {
    const fs::path json = dir_ / "results" / "fixture-gpu" / stamp / "bench.json";
    std::string text = slurp(json);
    const std::size_t at = text.find("\"context\": {");
    ASSERT_NE(at, std::string::npos);
    text.insert(at + std::string("\"context\": {").size(),
                "\"run_status\": \"partial: interrupted by SIGINT during the timing phase\", "
                "\"other_gpu_processes\": \"pid 4242 (python3)\", ");
    std::ofstream(json) << text;
  }
  const fs::path report = dir_ / "summary.md";
  ASSERT_EQ(analyze({"--quiet", "--report", report.string(), (dir_ / "results").string()}), kExitOk) << err_.str();
  const std::string md = slurp(report);
  EXPECT_NE(md.find("**A partial run** (partial: interrupted by SIGINT during the timing phase)"), std::string::npos) << md;
  EXPECT_NE(md.find("**Another process used this GPU during the run** (pid 4242 (python3))"), std::string::npos) << md;
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
  ASSERT_GE(rows[0].size(), csv_header().size());
  EXPECT_EQ(std::vector<std::string>(rows[0].begin(), rows[0].begin() + csv_header().size()), csv_header());
  const std::size_t value_col = 13, predicted_col = 16, rel_col = 17, kind_col = 18, verdict_col = 19,
                    status_col = 20;
  std::set<std::string> run_ids;
  bool saw_quoted_gpu = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ASSERT_EQ(r.size(), rows[0].size()) << "row " << i;
    EXPECT_EQ(r[0], "1");
    EXPECT_EQ(r[status_col], "current") << "row " << i;
    EXPECT_EQ(r[8], "g0123456789ab") << "row " << i;  // git_rev, never a bare number
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

TEST_F(AnalyzeCli, ABrokenRunAmongManyIsNamedAndSkippedTheOthersAnalysed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated.json", "truncated or malformed JSON"},
      {"missing_metadata.json", "context.sm_clock_max_khz: missing run metadata"},
      {"schema_v3.json", "schema version 3"},
      {"aggregates_only.json", "no iteration results"},
  };
  for (const auto& [fixture, expected] : cases) {
    const fs::path bad_dir = dir_ / "results/bad-gpu/20260105T000000Z";
    fs::create_directories(bad_dir);
    fs::copy_file(kFixtures / fixture, bad_dir / "bench.json", fs::copy_options::overwrite_existing);
    fs::remove(dir_ / "all.csv");
    EXPECT_EQ(analyze({"--per-run", "--csv", (dir_ / "all.csv").string(), (dir_ / "results").string()}),
              kExitSkippedRuns)
        << fixture;
    EXPECT_NE(err_.str().find((bad_dir / "bench.json").string()), std::string::npos) << err_.str();
    EXPECT_NE(err_.str().find(expected), std::string::npos) << err_.str();
    // The summary names it too, and the two good runs were analysed and written.
    EXPECT_NE(out_.str().find("Skipped 1 unreadable run"), std::string::npos) << out_.str();
    EXPECT_NE(out_.str().find((bad_dir / "bench.json").string()), std::string::npos);
    const std::string csv = slurp(dir_ / "all.csv");
    EXPECT_NE(csv.find("fixture-gpu/20260101T000000Z"), std::string::npos) << fixture;
    EXPECT_NE(csv.find("fixture-gpu/20260102T000000Z"), std::string::npos) << fixture;
    EXPECT_TRUE(fs::exists(dir_ / "results/fixture-gpu/20260102T000000Z/report.md"));
    EXPECT_FALSE(fs::exists(bad_dir / "report.md")) << fixture;
  }
}

TEST_F(AnalyzeCli, AnOnlyRunThatIsBrokenIsBadInputAndNothingIsWritten) {
  for (const std::string fixture : {"truncated.json", "schema_v3.json"}) {
    const fs::path bad_dir = dir_ / "bad-gpu/20260105T000000Z";
    fs::create_directories(bad_dir);
    fs::copy_file(kFixtures / fixture, bad_dir / "bench.json", fs::copy_options::overwrite_existing);
    const auto before = files();
    EXPECT_EQ(analyze({"--csv", (dir_ / "one.csv").string(), bad_dir.string()}), kExitBadInput) << fixture;
    EXPECT_NE(err_.str().find((bad_dir / "bench.json").string()), std::string::npos) << err_.str();
    EXPECT_EQ(files(), before) << fixture << ": something was written";
  }
}

TEST_F(AnalyzeCli, AnOutputThatIsAnInputIsAUsageErrorAndTheInputStays) {
  const fs::path run = dir_ / "results/fixture-gpu/20260101T000000Z";
  const std::string raw = slurp(run / "bench.json");
  const auto before = files();
  EXPECT_EQ(analyze({"--csv", (run / "bench.json").string(), run.string()}), kExitUsage);
  EXPECT_NE(err_.str().find("bench.json is also an input"), std::string::npos) << err_.str();
  EXPECT_EQ(analyze({"--report", (run / "bench.json").string(), (dir_ / "results").string()}), kExitUsage);
  // The same file by another name is the same file.
  EXPECT_EQ(analyze({"--csv", (run / ".." / "20260101T000000Z" / "bench.json").string(), run.string()}),
            kExitUsage);
  EXPECT_EQ(slurp(run / "bench.json"), raw);
  EXPECT_EQ(files(), before);
}

TEST_F(AnalyzeCli, AnOutputThatIsAFolderOrNamedTwiceIsAUsageErrorWithNothingWritten) {
  fs::create_directories(dir_ / "out");
  const auto before = files();
  EXPECT_EQ(analyze({"--csv", (dir_ / "all.csv").string(), "--report", (dir_ / "out").string(),
                     (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_NE(err_.str().find("out is a folder"), std::string::npos) << err_.str();
  EXPECT_EQ(analyze({"--csv", (dir_ / "same").string(), "--report", (dir_ / "same").string(),
                     (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_NE(err_.str().find("named for two outputs"), std::string::npos) << err_.str();
  // --per-run writes each run's warpcost.csv; --csv may not name one of them.
  EXPECT_EQ(analyze({"--per-run", "--csv", (dir_ / "results/fixture-gpu/20260101T000000Z/warpcost.csv").string(),
                     (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_EQ(analyze({"--csv", (dir_ / "nowhere/all.csv").string(), (dir_ / "results").string()}), kExitUsage);
  EXPECT_NE(err_.str().find("does not exist"), std::string::npos) << err_.str();
  // --plots names a folder: a file there is refused (and left as it was).
  EXPECT_EQ(analyze({"--plots", (dir_ / "results/fixture-gpu/20260101T000000Z/bench.json").string(), "--csv",
                     (dir_ / "all.csv").string(), (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_NE(err_.str().find("20260101T000000Z/bench.json is not a folder); allowed: a folder"), std::string::npos)
      << err_.str();
  EXPECT_EQ(analyze({"--plots", (dir_ / "results/fixture-gpu/20260101T000000Z/bench.json/sub").string(), "--csv",
                     (dir_ / "all.csv").string(), (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_EQ(analyze({"--plots", (dir_ / "pp").string(), "--csv", (dir_ / "." / "pp").string(),
                     (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_NE(err_.str().find("also named for another output"), std::string::npos) << err_.str();
  // One output given twice: the first name was dropped without a word; now both are named.
  EXPECT_EQ(analyze({"--csv", (dir_ / "a.csv").string(), "--csv", (dir_ / "b.csv").string(), (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_NE(err_.str().find("--csv given twice ('" + (dir_ / "a.csv").string() + "' and '" + (dir_ / "b.csv").string() +
                            "'); allowed: each output once"),
            std::string::npos)
      << err_.str();
  EXPECT_EQ(files(), before);  // no CSV, no temporary
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
}

// A folder that takes no new file, or an output that is a device, is found before the analysis
// runs, with the reason; the probe that finds the first leaves nothing in a folder that takes one.
TEST_F(AnalyzeCli, AnOutputInAFolderThatTakesNoFileIsAUsageError) {
  // /proc takes no new file from any process, root included (chmod does not stop root).
  EXPECT_EQ(analyze({"--csv", "/proc/warpcost-test.csv", (dir_ / "results").string()}), kExitUsage);
  EXPECT_NE(err_.str().find("/proc/warpcost-test.csv: its folder /proc takes no new file ("), std::string::npos)
      << err_.str();
  // A device is not replaced by a plain file: /dev/null stays the device it is.
  EXPECT_EQ(analyze({"--csv", "/dev/null", (dir_ / "results").string()}), kExitUsage);
  EXPECT_NE(err_.str().find("/dev/null is not a regular file"), std::string::npos) << err_.str();
  // --plots under a folder that takes no new file cannot be made after the analysis.
  EXPECT_EQ(analyze({"--plots", "/proc/warpcost-plots", "--csv", (dir_ / "all.csv").string(), (dir_ / "results").string()}),
            kExitUsage);
  EXPECT_NE(err_.str().find("--plots /proc/warpcost-plots cannot be a folder here (/proc takes no new file ("),
            std::string::npos) << err_.str();
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const auto before = files();
  EXPECT_EQ(output_problem({{dir_ / "fine.csv", ""}}, {}), "");
  EXPECT_EQ(files(), before);  // no probe left behind
}

TEST_F(AnalyzeCli, AFailedWriteLeavesNoTemporaryBehind) {
  // The second target is a folder with a file in it: nothing may be renamed into place.
  fs::create_directories(dir_ / "busy");
  std::ofstream(dir_ / "busy/keep") << "x";
  const auto before = files();
  EXPECT_THROW(write_files_atomically({{dir_ / "first.csv", "a"}, {dir_ / "busy", "b"}}), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir_ / "first.csv"));  // every file or none
  for (const auto& f : files()) {
    EXPECT_EQ(f.string().find(".tmp."), std::string::npos) << f << " left behind";
  }
  // A target whose folder is missing: nothing is left either.
  EXPECT_THROW(write_files_atomically({{dir_ / "second.csv", "a"}, {dir_ / "missing/x.csv", "b"}}),
               std::runtime_error);
  for (const auto& f : files()) {
    EXPECT_EQ(f.string().find(".tmp."), std::string::npos) << f << " left behind";
  }
  EXPECT_FALSE(fs::exists(dir_ / "second.csv"));
}

// Ctrl-C or a kill while the outputs are being written: the handler removes the temporaries before
// the process dies of the signal, and no output appears.
TEST_F(AnalyzeCli, ASignalDuringTheWriteLeavesNoTemporaryBehind) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path target = dir_ / "big.csv";
  const fs::path dir = dir_;
  auto write_until_killed = [&] {
    // A watcher sends the signal once the temporary exists, i.e. in the middle of the write.
    std::thread watcher([&] {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (std::chrono::steady_clock::now() < give_up) {
        for (const auto& e : fs::directory_iterator(dir)) {
          if (e.path().filename().string().rfind("big.csv.tmp.", 0) == 0) {
            ::kill(::getpid(), SIGTERM);
            std::this_thread::sleep_for(std::chrono::seconds(5));
          }
        }
      }
    });
    write_files_atomically({{target, std::string(std::size_t{64} << 20, 'x')}});
    watcher.join();
    std::exit(0);  // the write finished before the signal: the test below then fails
  };
  EXPECT_EXIT(write_until_killed(), ::testing::KilledBySignal(SIGTERM), "");
  for (const auto& f : files()) {
    EXPECT_EQ(f.filename().string().find(".tmp."), std::string::npos) << f << " left behind";
  }
  EXPECT_FALSE(fs::exists(target));
}

TEST_F(AnalyzeCli, AFolderWithoutRunsGivesTheSummaryWhenAllowed) {
  fs::create_directories(dir_ / "empty/archive");
  ASSERT_EQ(analyze({"--allow-no-runs", "--csv", (dir_ / "all.csv").string(), "--report",
                     (dir_ / "summary.md").string(), (dir_ / "empty").string()}),
            kExitOk)
      << err_.str();
  EXPECT_NE(out_.str().find("No current run yet"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("## Worked examples"), std::string::npos);
  EXPECT_EQ(parse_csv(slurp(dir_ / "all.csv")).size(), 1u);  // the header alone
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

// Every fixture run, each in a run folder of its own under dir_/all (one per family at least).
std::vector<std::string> fixture_runs(const fs::path& dir) {
  std::vector<std::string> runs;
  int n = 0;
  for (const char* f : {"partial_warp.json", "divergence.json", "streaming.json", "counters.json"}) {
    const fs::path run = dir / "all" / ("run" + std::to_string(n++));
    fs::create_directories(run);
    fs::copy_file(kFixtures / f, run / "bench.json");
    runs.push_back(run.string());
  }
  return runs;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << "no column " << name;
  return static_cast<std::size_t>(it - header.begin());
}

TEST_F(AnalyzeCli, EveryUnitWrittenIsInTheVocabulary) {
  auto args = fixture_runs(dir_);
  args.push_back((dir_ / "results").string());
  args.insert(args.end(), {"--quiet", "--csv", (dir_ / "all.csv").string()});
  ASSERT_EQ(analyze(args), kExitOk) << err_.str();
  const auto rows = parse_csv(slurp(dir_ / "all.csv"));
  const std::size_t unit = column(rows[0], "unit");
  std::set<std::string> seen;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_TRUE(unit_in_vocabulary(rows[i][unit])) << "row " << i << " unit '" << rows[i][unit] << "'";
    seen.insert(rows[i][unit]);
  }
  // The ones the issue found written other ways come out as the vocabulary spells them.
  for (const char* u : {"%", "1", "warps", "branches", "B", "s", "cycles", "B/s"}) {
    EXPECT_TRUE(seen.count(u)) << u << " not among " << seen.size() << " units";
  }
  for (const char* u : {"percent", "", "per warp", "branch_target", "ratio", "count"}) {
    EXPECT_FALSE(seen.count(u)) << "'" << u << "' written";
  }
}

TEST(Units, TheAliasesMapIntoTheVocabulary) {
  auto unit_of = [](const std::string& unit, const std::string& metric) {
    Row r;
    r.unit = unit;
    r.metric = metric;
    return vocabulary_unit(r);
  };
  EXPECT_EQ(unit_of("percent", "smsp__issue_active.avg.pct_of_peak_sustained_active"), "%");
  EXPECT_EQ(unit_of("", "smsp__average_thread_inst_executed_per_inst_executed.ratio"), "1");
  EXPECT_EQ(unit_of("branch_target", "smsp__sass_branch_targets.sum"), "branches");
  EXPECT_EQ(unit_of("per warp", "divergent_branch_targets_per_warp"), "branches");
  EXPECT_EQ(unit_of("cta", "sm__ctas_launched.sum"), "blocks");
  EXPECT_EQ(unit_of("count", "warps_per_block"), "warps");
  EXPECT_EQ(unit_of("count", "distinct_sms"), "SMs");
  EXPECT_EQ(unit_of("count", "a_count_not_in_the_table"), "1");
  EXPECT_EQ(unit_of("B/s", "dram__bytes.sum.per_second"), "B/s");
  // A CUPTI unit outside the table is kept, marked, never renamed into a wrong one.
  EXPECT_EQ(unit_of("furlong", "x"), "cupti:furlong");
  for (const auto& u : unit_vocabulary()) EXPECT_EQ(unit_of(u, "x"), u);
  // The evaluators' own spellings (the second-order rows wrote "cupti:cupti:bytes/s" before).
  EXPECT_EQ(unit_of("bytes/s", "second_order_bandwidth"), "B/s");
  EXPECT_EQ(unit_of("warps/SM", "second_order_knee_warps_per_sm"), "warps");
  EXPECT_EQ(unit_of("warp-ops/cycle/SM", "throughput"), "warp-ops/cycle/SM");
  EXPECT_EQ(unit_of("instructions", "smsp__inst_executed.sum"), "inst");
  // Asked twice (the CLI, then the CSV writer), a unit stays what the first answer was.
  for (const char* u : {"furlong", "bytes/s", "gpc_cycle", "count", "percent", "B/s"}) {
    const std::string once = unit_of(u, "warps_per_block");
    EXPECT_EQ(unit_of(once, "warps_per_block"), once) << u;
  }
}

TEST_F(AnalyzeCli, EachParameterHasItsOwnColumn) {
  auto args = fixture_runs(dir_);
  args.insert(args.end(), {"--quiet", "--csv", (dir_ / "all.csv").string()});
  ASSERT_EQ(analyze(args), kExitOk) << err_.str();
  const auto rows = parse_csv(slurp(dir_ / "all.csv"));
  const std::size_t params = column(rows[0], "params");
  const std::size_t warps = column(rows[0], "warps_per_sm");
  const std::size_t alu = column(rows[0], "alu_per_load");
  column(rows[0], "block_threads");
  column(rows[0], "if_trips");
  // A parameter named like a fixed column gets its own name; no header name appears twice.
  column(rows[0], "param_benchmark");
  EXPECT_EQ(std::set<std::string>(rows[0].begin(), rows[0].end()).size(), rows[0].size());
  int with_warps = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto kv = parse_key_values(rows[i][params]);
    const auto w = kv.find("warps_per_sm");
    EXPECT_EQ(rows[i][warps], w == kv.end() ? "" : w->second) << "row " << i << " " << rows[i][params];
    const auto a = kv.find("alu_per_load");
    EXPECT_EQ(rows[i][alu], a == kv.end() ? "" : a->second) << "row " << i;
    with_warps += w != kv.end();
  }
  EXPECT_GT(with_warps, 100);
}

TEST_F(AnalyzeCli, GitRevIsTextAndArchivedRunsAreMarked) {
  // A revision of digits only is what pandas read as a number.
  const fs::path run = dir_ / "results/fixture-gpu/20260101T000000Z/bench.json";
  std::string json = slurp(run);
  const std::string old_rev = "\"git_rev\": \"0123456789ab\"";
  ASSERT_NE(json.find(old_rev), std::string::npos);
  json.replace(json.find(old_rev), old_rev.size(), "\"git_rev\": \"1823362\"");
  std::ofstream(run) << json;
  // The second run as an extracted archive.
  fs::create_directories(dir_ / "results/archive/fixture-gpu");
  fs::rename(dir_ / "results/fixture-gpu/20260102T000000Z", dir_ / "results/archive/fixture-gpu/20260102T000000Z");
  ASSERT_EQ(analyze({"--csv", (dir_ / "all.csv").string(), (dir_ / "results").string()}), kExitOk) << err_.str();
  const auto rows = parse_csv(slurp(dir_ / "all.csv"));
  const std::size_t rev = column(rows[0], "git_rev"), status = column(rows[0], "run_status"),
                    id = column(rows[0], "run_id");
  std::set<std::string> archived, current;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    (rows[i][status] == "archived" ? archived : current).insert(rows[i][id]);
    EXPECT_TRUE(rows[i][status] == "archived" || rows[i][status] == "current") << rows[i][status];
    if (rows[i][id] == "fixture-gpu/20260101T000000Z") {
      EXPECT_EQ(rows[i][rev], "g1823362");
    }
  }
  EXPECT_EQ(archived, std::set<std::string>{"fixture-gpu/20260102T000000Z"});
  EXPECT_EQ(current, std::set<std::string>{"fixture-gpu/20260101T000000Z"});
  // The summary's newest run is the current one, though the archived one is newer.
  EXPECT_NE(out_.str().find("newest run fixture-gpu/20260101T000000Z"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("1 current, 1 archived"), std::string::npos);
}

TEST_F(AnalyzeCli, TheSummaryIsShortWhateverTheRuns) {
  auto args = fixture_runs(dir_);
  // Forty more runs of one GPU: only the newest gets a section, the others a line each, capped.
  for (int i = 0; i < 40; ++i) {
    const std::string stamp = "20260201T0000" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "Z";
    const fs::path run = dir_ / "many/fixture-gpu" / stamp;
    fs::create_directories(run);
    std::string json = slurp(kFixtures / "runs/fixture-gpu/20260101T000000Z/bench.json");
    const std::string id = "fixture-gpu/20260101T000000Z";
    json.replace(json.find(id), id.size(), "fixture-gpu/" + stamp);
    std::ofstream(run / "bench.json") << json;
  }
  args.push_back((dir_ / "many").string());
  args.push_back("--per-run");
  args.push_back("--report");
  args.push_back((dir_ / "summary.md").string());
  ASSERT_EQ(analyze(args), kExitOk) << err_.str();
  const std::string summary = slurp(dir_ / "summary.md");
  EXPECT_EQ(summary, out_.str());
  EXPECT_LT(std::count(summary.begin(), summary.end(), '\n'), 300);
  EXPECT_NE(summary.find("| family | model holds | model fails | warn | untestable here | throttled | "
                         "checks passed | checks failed | targets met | targets missed | error | info | "
                         "first miss | plots |"),
            std::string::npos);
  EXPECT_NE(summary.find("| partial_warp |"), std::string::npos);
  EXPECT_NE(summary.find("| divergence |"), std::string::npos);
  EXPECT_NE(summary.find("| streaming |"), std::string::npos);
  EXPECT_NE(summary.find("more runs (see the CSV)"), std::string::npos);
  EXPECT_NE(summary.find("## Headline figures per GPU"), std::string::npos);
  EXPECT_NE(summary.find("## Worked examples"), std::string::npos);
  // Links are relative to the summary's own folder and lead to files that exist.
  const std::string link = "](all/run0/report.md)";
  EXPECT_NE(summary.find(link), std::string::npos) << summary.substr(0, 2000);
  EXPECT_TRUE(fs::exists(dir_ / "all/run0/report.md"));
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
