// The family registry and descriptors (issue 16): every family the bench writes is registered,
// its descriptor spells the parameters the committed runs carry, and the reference keys the
// evaluators build are the keys the reader makes of a run name.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "analysis/core/families.hpp"
#include "analysis/core/run_reader.hpp"
#include "analysis/divergence/schema.hpp"
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

TEST(Registry, TheSplitReferenceKeyIsTheReadersParameterText) {
  const BenchmarkResult parsed =
      parse_run_name("divergence/split_low/k:0/if_trips:384/else_trips:96/warps_per_sm:16");
  EXPECT_EQ(schema::divergence::split_params(0, 384, 96, 16), parsed.params_text());
  EXPECT_NE(schema::divergence::split_params(32, 384, 96, 16), parsed.params_text());
  EXPECT_THROW(schema::divergence::descriptor().params_text("split_low", {1, 2}), std::invalid_argument);
  EXPECT_THROW(schema::divergence::descriptor().arg_names("no_such_benchmark"), std::out_of_range);
}

}  // namespace
}  // namespace warpcost::analysis
