// The family registry and descriptors (issue 16): every family the bench writes is registered,
// its descriptor spells the parameters the committed runs carry, and the reference keys the
// evaluators build are the keys the reader makes of a run name.
#include <gtest/gtest.h>

#include "tests/temp_dir.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include "core/counters.hpp"
#include "core/families.hpp"
#include "core/run_reader.hpp"
#include "core/divergence/schema.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/family.hpp"

namespace warpcost::analysis {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = WARPCOST_FIXTURES;

TEST(Registry, EachDescriptorHasOneAnalysisFamilyInTheSameOrder) {
  const auto& descriptors = schema::family_descriptors();
  const auto& all = families();
  ASSERT_EQ(descriptors.size(), all.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(&all[i]->descriptor(), descriptors[i]) << descriptors[i]->name;
    EXPECT_TRUE(names.insert(descriptors[i]->name).second) << "two families named " << descriptors[i]->name;
    EXPECT_EQ(family_named(descriptors[i]->name), all[i]);
    EXPECT_EQ(schema::family_descriptor(descriptors[i]->name), descriptors[i]);
  }
  EXPECT_EQ(family_named("no_such_family"), nullptr);
}

TEST(Registry, EveryBenchmarkParameterIsDeclaredWithAUnit) {
  for (const schema::FamilyDescriptor* d : schema::family_descriptors()) {
    for (const auto& b : d->benchmarks) {
      for (const char* p : b.parameters) {
        EXPECT_NO_THROW(d->parameter(p)) << d->name << "/" << b.name << " uses undeclared " << p;
        EXPECT_NE(std::string(d->parameter(p).unit), "") << d->name << "/" << p;
      }
    }
  }
}

// The committed runs were written by the bench's registrations: each of their benchmarks must be
// one a registered descriptor declares, with its parameters in the declared order.
TEST(Registry, DescriptorsSpellTheCommittedRunsParameters) {
  std::set<std::string> seen;
  // Real H200 subsets (the fixture-gpu runs are synthetic and carry a family of no registration).
  for (const char* fixture : {"partial_warp.json", "divergence.json", "streaming.json", "counters.json"}) {
    const analysis::Run run = read_run(kFixtures / fixture);
    for (const auto& b : run.benchmarks) {
      const schema::FamilyDescriptor* d = schema::family_descriptor(b.family);
      ASSERT_NE(d, nullptr) << fixture << ": " << b.run_name << " is of no registered family";
      const auto names = d->arg_names(b.benchmark.c_str());
      ASSERT_EQ(names.size(), b.params.size()) << b.run_name;
      for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], b.params[i].first) << b.run_name;
      seen.insert(b.family);
    }
  }
  // The four real fixtures hold points of every family registered today.
  for (const char* family : {"calibration", "partial_warp", "divergence", "latency", "streaming"}) {
    EXPECT_EQ(seen.count(family), 1u) << family << " has no point in the fixtures";
  }
}

// The JSON the bench wrote names no counter its family's descriptor (or the shared core list)
// leaves out, so the descriptor is the whole contract, units included.
TEST(Registry, EveryCounterOfTheCommittedRunsIsDeclared) {
  const std::set<std::string> shared = {
      schema::counter::kBlocks,         schema::counter::kBlocksPerSm,
      schema::counter::kBytesRead,      schema::counter::kLaunchOverheadSeconds,
      schema::counter::kSmClockHz,      schema::counter::kWarpcostNoise,
      schema::counter::kWarpcostSamples, schema::counter::kWarpcostSmClockMhz};
  int checked = 0;
  for (const char* fixture : {"partial_warp.json", "divergence.json", "streaming.json", "counters.json"}) {
    const analysis::Run run = read_run(kFixtures / fixture);
    for (const auto& b : run.benchmarks) {
      const schema::FamilyDescriptor* d = schema::family_descriptor(b.family);
      ASSERT_NE(d, nullptr) << b.run_name;
      for (const auto& [name, values] : b.counters) {
        if (name.find("__") != std::string::npos) continue;  // a counter-pass metric
        bool declared = shared.count(name) != 0;
        for (const auto& c : d->counters) declared = declared || name == c.name;
        EXPECT_TRUE(declared) << fixture << ": " << b.run_name << " wrote " << name
                              << ", which analysis/" << d->name << "'s descriptor does not declare";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(Registry, TheSplitReferenceKeyIsTheReadersParameterText) {
  const BenchmarkResult parsed =
      parse_run_name("divergence/split_low/k:0/if_trips:384/else_trips:96/warps_per_sm:16");
  EXPECT_EQ(schema::divergence::split_params(0, 384, 96, 16), parsed.params_text());
  EXPECT_NE(schema::divergence::split_params(32, 384, 96, 16), parsed.params_text());
  EXPECT_THROW(schema::divergence::descriptor().params_text("split_low", {1, 2}), std::invalid_argument);
  EXPECT_THROW(schema::divergence::descriptor().arg_names("no_such_benchmark"), std::out_of_range);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Schema 2 renamed the partial-warp parameters (P is block_threads, the grid's N total_threads).
// The same points written under schema 1's names and under schema 2's read alike, and evaluate to
// the same rows; a schema-2 run keeps a parameter literally called "threads" as it is.
TEST(Registry, SchemaOneNamesAreReadAsSchemaTwos) {
  const fs::path v1 = kFixtures / "partial_warp.json";
  std::string text = slurp(v1);
  ASSERT_NE(text.find("\"warpcost_schema_version\": \"1\""), std::string::npos);
  text = replace_all(text, "\"warpcost_schema_version\": \"1\"", "\"warpcost_schema_version\": \"2\"");
  text = replace_all(text, "partial_warp/staircase/threads:", "partial_warp/staircase/block_threads:");
  text = replace_all(text, "partial_warp/grid_tail/block:256/threads:",
                     "partial_warp/grid_tail/block_threads:256/total_threads:");
  const test_support::TempDir temp("registry");
  const fs::path dir = temp.path();
  const fs::path v2 = dir / "bench.json";
  std::ofstream(v2) << text;
  const analysis::Run old_run = read_run(v1);
  const analysis::Run new_run = read_run(v2);
  ASSERT_EQ(old_run.benchmarks.size(), new_run.benchmarks.size());
  int renamed = 0;
  for (std::size_t i = 0; i < old_run.benchmarks.size(); ++i) {
    EXPECT_EQ(old_run.benchmarks[i].params, new_run.benchmarks[i].params) << new_run.benchmarks[i].run_name;
    if (new_run.benchmarks[i].has_param("block_threads")) ++renamed;
    EXPECT_FALSE(old_run.benchmarks[i].has_param("threads")) << old_run.benchmarks[i].run_name;
  }
  EXPECT_GT(renamed, 10);
  const auto old_rows = evaluate_run(old_run);
  const auto new_rows = evaluate_run(new_run);
  ASSERT_EQ(old_rows.size(), new_rows.size());
  for (std::size_t i = 0; i < old_rows.size(); ++i) {
    EXPECT_EQ(old_rows[i].params, new_rows[i].params);
    EXPECT_EQ(old_rows[i].verdict, new_rows[i].verdict) << old_rows[i].benchmark << " " << old_rows[i].metric;
  }
  // Schema 2 maps nothing: a "threads" parameter in a schema-2 run name stays "threads".
  std::ofstream(v2) << replace_all(text, "partial_warp/staircase/block_threads:", "partial_warp/staircase/threads:");
  const analysis::Run literal = read_run(v2);
  bool kept = false;
  for (const auto& b : literal.benchmarks) kept = kept || (b.benchmark == "staircase" && b.has_param("threads"));
  EXPECT_TRUE(kept);
}

}  // namespace
}  // namespace warpcost::analysis
