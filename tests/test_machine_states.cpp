// Issue 31: every state a real GPU can be in, planted into a committed H200 run, and how the
// analysis reads it (docs/running.md, "Machine states"). Nothing here changes a clock, a power
// limit or a MIG mode: the states are written into the run's data, as the bench records them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/cli.hpp"
#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "tests/cli_test_support.hpp"
#include "tests/committed_runs.hpp"
#include "tests/temp_dir.hpp"

namespace warpcost::analysis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::TempDir;

std::string slurp(const fs::path& p) { return test_support::slurp_file(p); }
fs::path newest_committed_run() { return test_support::newest_committed_run(WARPCOST_RESULTS); }

// A CSV read into rows of named cells, with the strict reader of cli_test_support.hpp.
std::vector<std::map<std::string, std::string>> csv_rows(const fs::path& file) {
  const auto table = parse_csv(slurp(file));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 1; i < table.size(); ++i) {
    std::map<std::string, std::string> r;
    for (std::size_t c = 0; c < table[0].size() && c < table[i].size(); ++c) r[table[0][c]] = table[i][c];
    rows.push_back(r);
  }
  return rows;
}

// A row's identity: what it is about, and the how-manieth such row it is.
using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, int>;
std::map<Key, std::map<std::string, std::string>> by_key(const std::vector<std::map<std::string, std::string>>& rows) {
  std::map<Key, std::map<std::string, std::string>> out;
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, int> seen;
  for (const auto& r : rows) {
    const auto base = std::make_tuple(r.at("family"), r.at("benchmark"), r.at("params"), r.at("metric"), r.at("model"));
    const int n = seen[base]++;
    out[std::tuple_cat(base, std::make_tuple(n))] = r;
  }
  return out;
}

struct Analysed {
  int exit_code = -1;
  std::string err;
  fs::path folder;
};

// The run's JSON with `edit` applied, analysed as `./warpcost run` does one run (its folder's CSV,
// report and lock) plus the summary.
template <class Edit>
Analysed analyse_planted(const TempDir& dir, const std::string& label, Edit edit) {
  json j = json::parse(replace_nonfinite_tokens(slurp(newest_committed_run())));
  edit(j);
  Analysed a;
  a.folder = dir.path() / label / "run";
  fs::create_directories(a.folder);
  std::ofstream(a.folder / "bench.json", std::ios::binary) << j.dump();
  std::ostringstream out;
  std::ostringstream err;
  a.exit_code = analyze_main({"--quiet", "--per-run", "--csv", (dir.path() / label / "all.csv").string(), "--report",
                              (dir.path() / label / "summary.md").string(), a.folder.string()},
                             out, err);
  a.err = err.str();
  return a;
}

bool is_iteration(const json& b) { return b.value("run_type", std::string("iteration")) == "iteration"; }

const char* const kPlanted[] = {
    "partial_warp/staircase/block_threads:1/",
    "streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:8/",
    "divergence/split_low/k:0/if_trips:384/else_trips:384/warps_per_sm:4/",
    "coalescing/load_dram/elem_bytes:1/stride:1/offset:0/",
};

bool planted(const std::string& family, const std::string& benchmark, const std::string& params) {
  for (const char* p : kPlanted) {
    std::string name = p;
    std::string expect = family + "/" + benchmark + "/";
    std::string rest = params;
    std::replace(rest.begin(), rest.end(), '=', ':');
    std::replace(rest.begin(), rest.end(), ';', '/');
    expect += rest + "/";
    if (name == expect) return true;
  }
  return false;
}

// The reproduction: four points of the committed run (a staircase point, a streaming point,
// a divergence and a coalescing point) ran at 60-70 % of the maximum SM clock. The run is analysed:
// those points' model rows and the rows that depend on them read throttled, every other verdict is
// the unplanted run's, and the summary counts the throttled points.
TEST(MachineStates, ThrottledPointsOfACommittedRunAreThrottledAndEveryOtherVerdictStands) {
  if (newest_committed_run().empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  TempDir dir("states");
  const Analysed clean = analyse_planted(dir, "clean", [](json&) {});
  ASSERT_EQ(clean.exit_code, kExitOk) << clean.err;
  const Analysed hot = analyse_planted(dir, "hot", [](json& j) {
    int n = 0;
    for (auto& b : j["benchmarks"]) {
      for (const char* p : kPlanted) {
        if (is_iteration(b) && b.value("name", std::string()).rfind(p, 0) == 0) {
          b["warpcost_sm_clock_mhz"] = n++ % 2 ? 1190.0 : 1385.0;  // 60 % and 70 % of 1980
        }
      }
    }
    ASSERT_EQ(n, 4);
  });
  ASSERT_EQ(hot.exit_code, kExitOk) << hot.err;
  for (const char* f : {"warpcost.csv", "report.md", "verdict-lock.txt"}) EXPECT_TRUE(fs::exists(hot.folder / f)) << f;
  const auto before = by_key(csv_rows(clean.folder / "warpcost.csv"));
  const auto after = by_key(csv_rows(hot.folder / "warpcost.csv"));
  int markers = 0;
  int throttled_elsewhere = 0;
  for (const auto& [key, r] : after) {
    const bool own = planted(r.at("family"), r.at("benchmark"), r.at("params"));
    if (r.at("metric") == "sm_clock_low_mhz") {
      EXPECT_TRUE(own) << r.at("benchmark") << " " << r.at("params");
      EXPECT_EQ(r.at("kind") + "/" + r.at("verdict"), "info/throttled");
      EXPECT_EQ(r.at("unit"), "MHz");
      ++markers;
      continue;
    }
    const auto was = before.find(key);
    ASSERT_NE(was, before.end()) << "a row the unthrottled run does not have: " << r.at("benchmark") << " "
                                 << r.at("params") << " " << r.at("metric");
    if (own) {
      EXPECT_NE(r.at("machine_state").find("throttled"), std::string::npos) << r.at("metric");
      const std::string expected = r.at("kind") == "model" ? "throttled" : was->second.at("verdict");
      EXPECT_EQ(r.at("verdict"), expected) << r.at("metric");
      continue;
    }
    if (r.at("verdict") != was->second.at("verdict")) {
      // Only a row judged against a throttled point moves, and only to throttled.
      EXPECT_EQ(r.at("verdict"), "throttled") << r.at("benchmark") << " " << r.at("params") << " " << r.at("metric");
      EXPECT_EQ(r.at("machine_state"), "throttled");
      ++throttled_elsewhere;
    } else {
      EXPECT_EQ(r.at("machine_state"), "") << r.at("benchmark") << " " << r.at("params") << " " << r.at("metric");
    }
  }
  EXPECT_EQ(markers, 4);
  EXPECT_EQ(after.size(), before.size() + 4) << "every row of the unthrottled run is still there";
  // The divergence point is the one-path reference of the split_low sweep at 4 warps/SM: the rows
  // held against it (each split's fixed cost, the warp-uniform control's else side) read throttled.
  // By hand: 31 splits k = 1..31 x 1 row + the warp-uniform control's 1 row. The branch-target rows
  // held against it are counts (kind check since ISSUE-33-CHECKS): a clock does not move a count.
  EXPECT_EQ(throttled_elsewhere, 32);
  const std::string summary = slurp(dir.path() / "hot" / "summary.md");
  EXPECT_NE(summary.find("**4 point(s) ran throttled**"), std::string::npos) << summary.substr(0, 3000);
  const std::string report = slurp(hot.folder / "report.md");
  EXPECT_NE(report.find("throttled: SM clock fell to 1190 MHz, under 95% of the maximum"), std::string::npos);
}

// Clocks an administrator set (application clocks): the run's clock is the reference. Every point
// at 1500 MHz is then not throttled; one at 1300 MHz (under 95 % of 1500) is; the report and the
// summary say which clock is the reference.
TEST(MachineStates, ApplicationClocksAreTheReferenceNotTheMaximum) {
  if (newest_committed_run().empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  TempDir dir("states");
  const Analysed a = analyse_planted(dir, "app", [](json& j) {
    j["context"]["sm_clock_reference_mhz"] = "1500";
    j["context"]["sm_clock_reference"] = "application clocks: 1500 MHz set by an administrator (maximum 1980 MHz)";
    for (auto& b : j["benchmarks"]) {
      if (is_iteration(b) && b.contains("warpcost_sm_clock_mhz")) b["warpcost_sm_clock_mhz"] = 1500.0;
    }
    for (auto& b : j["benchmarks"]) {
      if (b.value("name", std::string()).rfind(kPlanted[0], 0) == 0) b["warpcost_sm_clock_mhz"] = 1300.0;
    }
  });
  ASSERT_EQ(a.exit_code, kExitOk) << a.err;
  int throttled_points = 0;
  for (const auto& r : csv_rows(a.folder / "warpcost.csv")) {
    EXPECT_NE(r.at("machine_state").find("application_clocks"), std::string::npos);
    if (r.at("metric") == "sm_clock_low_mhz") {
      ++throttled_points;
      EXPECT_EQ(r.at("benchmark"), "staircase");
      EXPECT_EQ(r.at("params"), "block_threads=1");
    }
  }
  EXPECT_EQ(throttled_points, 1);
  const std::string report = slurp(a.folder / "report.md");
  // The measured clock is the run's own (1.98 or 1.978 GHz on the committed runs); the maximum is 1.98.
  EXPECT_NE(report.find(" GHz / 1.98 GHz (judged against 1.5 GHz: application clocks)"), std::string::npos);
  EXPECT_NE(report.find("under 95% of the application clock"), std::string::npos);
  const std::string summary = slurp(dir.path() / "app" / "summary.md");
  EXPECT_NE(summary.find("**SM clock held by application clocks**"), std::string::npos);
  EXPECT_NE(summary.find("judged against 1500 MHz"), std::string::npos);
}

// Another process computed on the GPU: per point where the bench counted it (warpcost_other_processes),
// else on every row of a run whose context names it. The verdicts stand; the rows say so.
TEST(MachineStates, AnotherProcessIsOnTheRowsItMayTouch) {
  if (newest_committed_run().empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  TempDir dir("states");
  const Analysed per_point = analyse_planted(dir, "point", [](json& j) {
    j["context"]["other_gpu_processes"] = "pid 4242 (python3)";
    for (auto& b : j["benchmarks"]) {
      if (is_iteration(b)) b["warpcost_other_processes"] = b.value("name", std::string()).rfind(kPlanted[2], 0) == 0 ? 1.0 : 0.0;
    }
  });
  ASSERT_EQ(per_point.exit_code, kExitOk) << per_point.err;
  int marked = 0;
  for (const auto& r : csv_rows(per_point.folder / "warpcost.csv")) {
    const bool own = r.at("benchmark") == "split_low" && r.at("params") == "k=0;if_trips=384;else_trips=384;warps_per_sm=4";
    EXPECT_EQ(r.at("machine_state") == "other_process", own) << r.at("benchmark") << " " << r.at("params");
    marked += own;
  }
  EXPECT_GT(marked, 5);
  // The judged rows of that point say so in their reason (the report's and the summary's text).
  const analysis::Run run = read_run(per_point.folder / "bench.json");
  int said = 0;
  for (const Row& r : evaluate_run(run)) {
    if (r.benchmark == "split_low" && r.params == "k=0;if_trips=384;else_trips=384;warps_per_sm=4" && r.kind == kind::kModel) {
      EXPECT_EQ(r.why.rfind("another process computed on the GPU while this point ran; ", 0), 0u) << r.why;
      ++said;
    }
  }
  EXPECT_GT(said, 2);
  const Analysed per_run = analyse_planted(dir, "run", [](json& j) {
    // A run of the suite before per-point process counters: the run's own record is all there is
    // (a run that has the counters is judged point by point, above).
    j["context"]["other_gpu_processes"] = "pid 4242 (python3)";
    for (auto& b : j["benchmarks"]) b.erase("warpcost_other_processes");
  });
  ASSERT_EQ(per_run.exit_code, kExitOk);
  for (const auto& r : csv_rows(per_run.folder / "warpcost.csv")) EXPECT_EQ(r.at("machine_state"), "other_process");
  EXPECT_NE(slurp(dir.path() / "run" / "summary.md").find("**Another process used this GPU during the run** (pid 4242"),
            std::string::npos);
}

// A MIG instance (here the committed H200 run relabelled as an A100 MIG 1g.5gb slice, the profile
// data/device-profiles.csv has): its own name in the folder, the summary and the headline; its best
// read is shown, not held to a whole GPU's peak.
TEST(MachineStates, AMigInstanceIsNeverJudgedAsTheWholeGpu) {
  if (newest_committed_run().empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  TempDir dir("states");
  const Analysed a = analyse_planted(dir, "mig", [](json& j) {
    j["context"]["gpu_name"] = "NVIDIA A100-SXM4-40GB MIG 1g.5gb";
    j["context"]["mig_instance"] = "1g.5gb";
    j["context"]["sm_count"] = "14";
  });
  ASSERT_EQ(a.exit_code, kExitOk) << a.err;
  bool best_read_seen = false;
  for (const auto& r : csv_rows(a.folder / "warpcost.csv")) {
    EXPECT_NE(r.at("machine_state").find("mig_instance"), std::string::npos);
    EXPECT_EQ(r.at("gpu"), "NVIDIA A100-SXM4-40GB MIG 1g.5gb");
    if (r.at("model").find("at least 96% of the theoretical DRAM peak") != std::string::npos) {
      best_read_seen = true;
      EXPECT_EQ(r.at("kind"), "info") << "a MIG slice is never held to the whole GPU's peak";
    }
  }
  EXPECT_TRUE(best_read_seen);
  const std::string summary = slurp(dir.path() / "mig" / "summary.md");
  EXPECT_NE(summary.find("**A MIG instance** (1g.5gb, 14 SMs)"), std::string::npos);
  const std::string run_id = newest_committed_run().parent_path().filename().string();  // <stamp>-<uuid8>
  EXPECT_NE(summary.find("| NVIDIA A100-SXM4-40GB MIG 1g.5gb (GPU-" + run_id.substr(run_id.rfind('-') + 1) + ") |"),
            std::string::npos)
      << "the headline names it";
  EXPECT_NE(summary.find("a MIG instance: no peak target (read_"), std::string::npos) << "its best read, unjudged";
  const analysis::Run run = read_run(a.folder / "bench.json");
  bool reason = false;
  for (const Row& r : evaluate_run(run)) {
    reason = reason || r.why.find("a MIG instance (1g.5gb): the reported memory clock and bus do not give its share") != std::string::npos;
  }
  EXPECT_TRUE(reason);
}

// A device lost mid-run: the bench files what it measured before, the failed point with its error
// and run_status saying where (bench/common/machine_state.cpp, device_lost_status). The analysis
// judges what is there and names the partial run.
TEST(MachineStates, ARunWhoseDeviceWasLostIsAnalysedAsAPartialRun) {
  if (newest_committed_run().empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  TempDir dir("states");
  const Analysed a = analyse_planted(dir, "lost", [](json& j) {
    json kept = json::array();
    for (auto& b : j["benchmarks"]) {
      if (kept.size() == 300) {
        b["error_occurred"] = true;
        b["error_message"] = "kernel_launch: cudaErrorLaunchFailure: unspecified launch failure";
      }
      if (kept.size() <= 300) kept.push_back(b);
    }
    j["benchmarks"] = kept;
    j["context"]["run_status"] =
        "partial: the device was lost during the timing phase (kernel_launch: cudaErrorLaunchFailure: unspecified "
        "launch failure (afterwards cudaErrorLaunchFailure: the CUDA context is lost)); the points measured before it "
        "are kept";
  });
  ASSERT_EQ(a.exit_code, kExitOk) << a.err;
  int errors = 0;
  for (const auto& r : csv_rows(a.folder / "warpcost.csv")) errors += r.at("verdict") == "error" && r.at("metric") == "error";
  EXPECT_EQ(errors, 1);
  const std::string summary = slurp(dir.path() / "lost" / "summary.md");
  EXPECT_NE(summary.find("**A partial run** (partial: the device was lost during the timing phase"), std::string::npos);
}

// One bad row never costs the rest: a point whose evaluator throws (a split without its residency
// parameter) becomes one evaluation_error row; a row the CSV schema refuses (a parameter the schema
// has no column for) becomes an error row naming the refusal. Every other row is written; the
// summary names both; the exit code is 4.
TEST(MachineStates, ABadRowIsAnErrorRowAndTheRunIsStillWritten) {
  if (newest_committed_run().empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  TempDir dir("states");
  const Analysed clean = analyse_planted(dir, "clean", [](json&) {});
  const Analysed a = analyse_planted(dir, "bad", [](json& j) {
    for (auto& b : j["benchmarks"]) {
      const std::string name = b.value("name", std::string());
      if (name.rfind("divergence/split_low/k:20/if_trips:384/else_trips:384/warps_per_sm:4/", 0) == 0) {
        b["name"] = b["run_name"] = "divergence/split_low/k:20/if_trips:384/else_trips:384";
      }
      if (name.rfind("partial_warp/staircase/block_threads:7/", 0) == 0) {
        b["name"] = b["run_name"] = "partial_warp/staircase/block_threads:7/bogus:3";
      }
    }
  });
  ASSERT_EQ(a.exit_code, kExitIncompleteRows) << a.err;
  int evaluation_errors = 0;
  int refused = 0;
  const auto rows = csv_rows(a.folder / "warpcost.csv");
  for (const auto& r : rows) {
    if (r.at("metric") == "evaluation_error") {
      ++evaluation_errors;
      EXPECT_EQ(r.at("params"), "k=20;if_trips=384;else_trips=384");
      EXPECT_EQ(r.at("verdict"), "error");
    }
    if (r.at("model") == "refused by analysis/csv-schema.json") {
      ++refused;
      EXPECT_EQ(r.at("params"), "block_threads=7;bogus=3");
      EXPECT_EQ(r.at("verdict"), "error");
    }
  }
  EXPECT_EQ(evaluation_errors, 1);
  EXPECT_GT(refused, 3);
  EXPECT_GT(rows.size(), csv_rows(clean.folder / "warpcost.csv").size() - 40) << "the other rows are all written";
  const std::string summary = slurp(dir.path() / "bad" / "summary.md");
  EXPECT_NE(summary.find("row(s) could not be written as evaluated**"), std::string::npos);
  EXPECT_NE(summary.find("has no parameter 'warps_per_sm'"), std::string::npos) << summary.substr(0, 4000);
  EXPECT_NE(summary.find("parameter 'bogus'"), std::string::npos);
  EXPECT_NE(a.err.find("exit 4"), std::string::npos) << a.err;
}

}  // namespace
}  // namespace warpcost::analysis
