// The CSV's schema as data (analysis/csv-schema.json): the writer refuses what it does not allow,
// the header and vocabulary are the file's, every family parameter has its column; and the parts of
// warpcost-analyze issue 23 added: unknown benchmarks rejected (or passed through), --samples,
// --version, the compare summary, the headline column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_reader.hpp"
#include "analysis/csv_schema.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/family.hpp"
#include "analysis/tidy_csv.hpp"
#include "analysis/units.hpp"
#include "tests/cli_test_support.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const fs::path kFixtureDir = WARPCOST_FIXTURES;

EvaluatedRun evaluated(const fs::path& file) {
  EvaluatedRun er{read_run(file), {}};
  er.rows = evaluate_run(er.run);
  use_vocabulary_units(er.rows);
  return er;
}

// The message tidy_csv throws for these rows, or "" when it writes them.
std::string refusal(const EvaluatedRun& er) {
  try {
    (void)tidy_csv({er});
  } catch (const CsvSchemaError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvSchema, TheFixedColumnsAndUnitsAreTheSchemaFiles) {
  // Written out by hand from docs/csv.md's table: the order a dashboard may rely on.
  const std::vector<std::string> fixed = {
      "schema_version", "run_id", "utc",   "gpu",       "cc",        "sm_count", "driver", "cuda_runtime",
      "git_rev",        "family", "benchmark", "params", "metric",   "value",    "unit",   "model",
      "predicted",      "rel_error", "kind", "verdict", "run_status", "headline", "machine_state"};
  EXPECT_EQ(csv_header(), fixed);
  EXPECT_EQ(unit_vocabulary().front(), "s");
  EXPECT_EQ(unit_vocabulary().back(), "1");
  // 22, then warp-ops/cycle/SM (the primitives' throughput), requests/s (the request ceiling's row)
  // and inst/cycle/scheduler (r_sat's row)
  EXPECT_EQ(unit_vocabulary().size(), 25u);
  // The kinds and their verdicts (docs/verdicts.md), from the schema.
  const auto& by_kind = csv_schema().verdicts_by_kind;
  EXPECT_EQ(by_kind.at("target"), (std::vector<std::string>{"met", "missed", "error"}));
  EXPECT_EQ(by_kind.at("check"), (std::vector<std::string>{"passes", "fails"}));
  // info/throttled: the marker row of a point whose SM clock fell (issue 31: the writer refused it).
  EXPECT_EQ(by_kind.at("info"), (std::vector<std::string>{"info", "throttled", "error"}));
}

TEST(CsvSchema, EveryFamilyParameterHasATypedColumn) {
  const CsvSchema& s = csv_schema();
  for (const Family* f : families()) {
    for (const auto& p : f->descriptor().parameters) {
      const CsvField* field = s.field(p.name);
      ASSERT_NE(field, nullptr) << f->descriptor().name << " parameter " << p.name
                                << " has no field in analysis/csv-schema.json";
      EXPECT_EQ(field->role, "parameter") << p.name;
      EXPECT_EQ(field->type, "integer") << p.name << ": benchmark parameters are whole numbers";
    }
  }
}

TEST(CsvSchema, TheWriterRefusesWhatTheSchemaDoesNotAllow) {
  const EvaluatedRun real = evaluated(kFixtureDir / "partial_warp.json");
  ASSERT_EQ(refusal(real), "");
  const auto planted = [&real](auto edit) {
    EvaluatedRun er = real;
    edit(er.rows.front());
    return refusal(er);
  };
  EXPECT_NE(planted([](Row& r) { r.kind = "model"; r.verdict = "met"; })
                .find("verdict 'met' for kind 'model'; allowed: 'holds', 'fails'"),
            std::string::npos);
  EXPECT_NE(planted([](Row& r) { r.verdict = "holds-per-warp"; }).find("'holds-per-warp'"), std::string::npos);
  // A unit outside the vocabulary is never renamed into a wrong one: the writer marks it as CUPTI's.
  EXPECT_EQ(planted([](Row& r) { r.unit = "furlongs"; }), "");
  EvaluatedRun odd_unit = real;
  odd_unit.rows.front().unit = "furlongs";
  EXPECT_NE(tidy_csv({odd_unit}).find(",cupti:furlongs,"), std::string::npos);
  try {
    check_unit(csv_schema(), "furlongs", "here");
    ADD_FAILURE() << "a unit outside the vocabulary passed";
  } catch (const CsvSchemaError& e) {
    EXPECT_NE(std::string(e.what()).find("unit 'furlongs'; allowed: 's'"), std::string::npos) << e.what();
  }
  EXPECT_NE(planted([](Row& r) { r.params = "block_threads=1..32"; })
                .find("column 'block_threads' holds '1..32'; allowed: a whole number"),
            std::string::npos);
  EXPECT_NE(planted([](Row& r) { r.params = "example=7;x=2.5"; }).find("column 'x' holds '2.5'"),
            std::string::npos);
  EXPECT_NE(planted([](Row& r) { r.params = "colour=3"; }).find("parameter 'colour'"), std::string::npos);
  EXPECT_NE(planted([](Row& r) { r.metric.clear(); }).find("column 'metric' is empty"), std::string::npos);
  // Text is allowed where the schema says text: the worked examples' names.
  EXPECT_EQ(planted([](Row& r) { r.params = "example=3b"; }), "");
}

TEST(CsvSchema, StaircaseStepsWriteTheirRangeAsTwoWholeNumbers) {
  const EvaluatedRun er = evaluated(kFixtureDir / "partial_warp.json");
  const auto rows = parse_csv(tidy_csv({er}));
  const auto& header = rows.front();
  const auto col = [&header](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  int steps = 0;
  std::set<std::string> ranges;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i][col("benchmark")] != "staircase_step") continue;
    ++steps;
    ranges.insert(rows[i][col("block_threads_min")] + "-" + rows[i][col("block_threads_max")]);
    EXPECT_EQ(rows[i][col("block_threads")], "");
    EXPECT_GT(std::stoi(rows[i][col("block_threads_max")]), std::stoi(rows[i][col("block_threads_min")]));
  }
  // Block sizes 33, 48, 64 (2 warps) and 65, 96 (3 warps): steps 33..64 and 65..96, a time row
  // each and a cycle row where every point has its clock.
  EXPECT_GE(steps, 2);
  EXPECT_EQ(ranges, (std::set<std::string>{"33-64", "65-96"}));
}

TEST(CsvSchema, TheHeadlineColumnMarksOneRowPerFigureAndGpu) {
  const std::vector<EvaluatedRun> runs = {evaluated(kFixtureDir / "streaming.json"),
                                          evaluated(kFixtureDir / "partial_warp.json")};
  const auto rows = parse_csv(tidy_csv(runs));
  const auto& header = rows.front();
  const std::size_t h = static_cast<std::size_t>(std::find(header.begin(), header.end(), "headline") - header.begin());
  const std::size_t g = static_cast<std::size_t>(std::find(header.begin(), header.end(), "gpu") - header.begin());
  std::map<std::string, int> marked;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (!rows[i][h].empty()) ++marked[rows[i][g] + " " + rows[i][h]];
  }
  // streaming.json (an H200): DRAM latency, best read, knee; partial_warp.json (the fixture GPU):
  // the staircase. Each once.
  const std::map<std::string, int> expected = {{"NVIDIA H200 best_read", 1},
                                               {"NVIDIA H200 dram_latency", 1},
                                               {"NVIDIA H200 knee", 1},
                                               {"Fixture GPU, rev \"A\" staircase", 1}};
  EXPECT_EQ(marked, expected);
}

class Issue23Cli : public CliTest {
 protected:
  // The first fixture run with `edit` applied to its bench.json.
  fs::path edited_run(const std::function<void(nlohmann::json&)>& edit) {
    const fs::path file = dir_ / "results/fixture-gpu/20260101T000000Z/bench.json";
    nlohmann::json j = nlohmann::json::parse(slurp(file));
    edit(j);
    std::ofstream(file) << j.dump(1);
    return file.parent_path();
  }
};

nlohmann::json copy_with_name(const nlohmann::json& entry, const std::string& name) {
  nlohmann::json e = entry;
  e["name"] = name;
  e["run_name"] = name;
  return e;
}

TEST_F(Issue23Cli, AnUnknownFamilyOrBenchmarkIsAnErrorNamingIt) {
  const fs::path run = edited_run([](nlohmann::json& j) {
    j["benchmarks"].push_back(copy_with_name(j["benchmarks"][0], "BM_Foo/8/manual_time"));
  });
  EXPECT_EQ(analyze({run.string()}), kExitBadInput);
  EXPECT_NE(err_.str().find("'BM_Foo/8' (family 'BM_Foo' is none of warpcost's: calibration"), std::string::npos)
      << err_.str();
  EXPECT_FALSE(fs::exists(run / "warpcost.csv"));
  // Passed through as info rows when asked.
  EXPECT_EQ(analyze({"--allow-unknown", run.string()}), kExitOk) << err_.str();
  const auto rows = parse_csv(slurp(run / "warpcost.csv"));
  int foo = 0;
  for (const auto& r : rows) {
    if (r[9] != "BM_Foo") continue;
    ++foo;
    EXPECT_EQ(r[18], "info");
  }
  EXPECT_GT(foo, 0);
}

TEST_F(Issue23Cli, ABenchmarkItsFamilyDoesNotHaveIsAnError) {
  const fs::path run = edited_run([](nlohmann::json& j) {
    j["benchmarks"].push_back(copy_with_name(j["benchmarks"][0], "calibration/sm_spin_forever/manual_time"));
  });
  EXPECT_EQ(analyze({run.string()}), kExitBadInput);
  EXPECT_NE(err_.str().find("family calibration has no benchmark 'sm_spin_forever'; it has "), std::string::npos)
      << err_.str();
}

TEST_F(Issue23Cli, SamplesAreWrittenLongForm) {
  // Three timed launches for each repetition of every point, planted, so the count is known.
  int entries = 0;
  const fs::path run = edited_run([&entries](nlohmann::json& j) {
    for (auto& e : j["benchmarks"]) {
      if (e.value("run_type", "") != "iteration") continue;
      const double t = e["real_time"].get<double>() * 1e-3;  // the fixture's time unit is ms
      e["warpcost_sample_seconds"] = {t, 1.01 * t, 0.99 * t};
      ++entries;
    }
  });
  ASSERT_GT(entries, 0);
  const fs::path samples = dir_ / "samples.csv";
  ASSERT_EQ(analyze({"--quiet", "--samples", samples.string(), run.string()}), kExitOk) << err_.str();
  const auto rows = parse_csv(slurp(samples));
  ASSERT_EQ(rows.size(), 1u + 3u * static_cast<unsigned>(entries));
  EXPECT_EQ(rows[0], (std::vector<std::string>{"run_id", "family", "benchmark", "params", "repetition", "sample",
                                                "seconds"}));
  EXPECT_EQ(rows[1][0], "fixture-gpu/20260101T000000Z");
  EXPECT_EQ(rows[1][1], "calibration");
  EXPECT_EQ(rows[1][4], "0");
  EXPECT_EQ(rows[4][4], "1") << "the second repetition of the same point";
  EXPECT_NEAR(std::stod(rows[2][6]) / std::stod(rows[1][6]), 1.01, 1e-9);
}

TEST_F(Issue23Cli, VersionPrintsTheVersionAndRevision) {
  EXPECT_EQ(analyze({"--version"}), kExitOk);
  EXPECT_EQ(out_.str().rfind("warpcost-analyze (warpcost ", 0), 0u) << out_.str();
  EXPECT_NE(out_.str().find(", git "), std::string::npos);
  EXPECT_EQ(analyze({"--full", (dir_ / "results").string()}), kExitUsage) << "--full goes with --compare";
}

TEST_F(Issue23Cli, CompareSummarisesFirstAndTheTableOnlyWithFull) {
  const fs::path a = dir_ / "results/fixture-gpu/20260101T000000Z";
  const fs::path b = dir_ / "results/fixture-gpu/20260102T000000Z";
  const fs::path csv = dir_ / "compare.csv";
  ASSERT_EQ(analyze({"--compare", a.string(), b.string(), "--csv", csv.string()}), kExitOk) << err_.str();
  const std::string summary = out_.str();
  EXPECT_NE(summary.find("| family | same | faster | slower | unclear | error |"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("## Every benchmark in both"), std::string::npos);
  // The counts per family are the CSV's verdicts, counted here from the CSV.
  std::map<std::string, std::map<std::string, int>> counts;
  const auto rows = parse_csv(slurp(csv));
  for (std::size_t i = 1; i < rows.size(); ++i) ++counts[rows[i][0]][rows[i][11]];
  for (const auto& [family, c] : counts) {
    const auto n = [&c](const char* v) { return std::to_string(c.count(v) ? c.at(v) : 0); };
    const std::string line = "| " + family + " | " + n("same") + " | " + n("faster") + " | " + n("slower") +
                             " | " + n("unclear") + " | " + n("error") + " |";
    EXPECT_NE(summary.find(line), std::string::npos) << line << "\n" << summary;
  }
  EXPECT_NE(summary.find("largest changes in time"), std::string::npos);
  ASSERT_EQ(analyze({"--compare", a.string(), b.string(), "--full"}), kExitOk);
  EXPECT_NE(out_.str().find("## Every benchmark in both"), std::string::npos);
  // --quiet still prints the summary, never nothing.
  ASSERT_EQ(analyze({"--compare", a.string(), b.string(), "--quiet", "--full"}), kExitOk);
  EXPECT_EQ(out_.str(), summary);
}

}  // namespace
}  // namespace warpcost::analysis
