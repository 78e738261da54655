// The divergence family's host side: which lanes take which path, the checks on a configuration,
// the summary of per-warp records, and the host replay's constants. No GPU needed.
#include <gtest/gtest.h>

#include "tests/message_of.hpp"

#include <bitset>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/divergence/runner.hpp"
#include "kernels/divergence/kernels.hpp"

namespace warpcost {
namespace {

using kernels::SplitPattern;

int popcount(std::uint32_t m) { return static_cast<int>(std::bitset<32>(m).count()); }

TEST(SplitMasks, EveryPatternPutsExactlyKLanesOnTheIfSide) {
  for (const auto p : {SplitPattern::kLowLanes, SplitPattern::kInterleaved, SplitPattern::kRandom}) {
    for (int k = 0; k <= 32; ++k) {
      const kernels::SplitMasks m = kernels::split_masks(p, k, 7);
      for (const std::uint32_t mask : m.lanes) {
        EXPECT_EQ(popcount(mask), k) << kernels::pattern_name(p) << " k = " << k;
      }
    }
  }
}

TEST(SplitMasks, LowLanesAndInterleavedHaveTheirShapes) {
  EXPECT_EQ(kernels::split_masks(SplitPattern::kLowLanes, 20, 0).lanes[0], 0x000fffffu);
  EXPECT_EQ(kernels::split_masks(SplitPattern::kLowLanes, 32, 0).lanes[5], 0xffffffffu);
  EXPECT_EQ(kernels::split_masks(SplitPattern::kLowLanes, 0, 0).lanes[5], 0u);
  EXPECT_EQ(kernels::split_masks(SplitPattern::kInterleaved, 16, 0).lanes[3], 0xaaaaaaaau);
  EXPECT_EQ(kernels::split_masks(SplitPattern::kInterleaved, 8, 0).lanes[0], 0x88888888u);
}

TEST(SplitMasks, RandomDrawsDifferPerEntryAndPerSeedAndRepeatPerSeed) {
  const auto a = kernels::split_masks(SplitPattern::kRandom, 16, 1);
  const auto b = kernels::split_masks(SplitPattern::kRandom, 16, 1);
  const auto c = kernels::split_masks(SplitPattern::kRandom, 16, 2);
  std::set<std::uint32_t> distinct(std::begin(a.lanes), std::end(a.lanes));
  EXPECT_GT(distinct.size(), 16u);
  EXPECT_TRUE(std::equal(std::begin(a.lanes), std::end(a.lanes), std::begin(b.lanes)));
  EXPECT_FALSE(std::equal(std::begin(a.lanes), std::end(a.lanes), std::begin(c.lanes)));
}

TEST(SplitMasks, WarpUniformSendsWholeWarpsToEachSide) {
  const auto m = kernels::split_masks(SplitPattern::kWarpUniform, 0, 0);
  for (int w = 0; w < kernels::kMaskTableSize; ++w) {
    EXPECT_EQ(m.lanes[w], w % 2 == 0 ? 0xffffffffu : 0u) << w;
  }
}

TEST(SplitMasks, RejectsSplitsOutside0To32) {
  EXPECT_NE(message_of([] { kernels::split_masks(SplitPattern::kLowLanes, 33, 0); })
                .find("lane split k = 33; allowed: 0..32"),
            std::string::npos);
  EXPECT_NE(message_of([] { kernels::split_masks(SplitPattern::kRandom, -1, 0); }).find("k = -1"),
            std::string::npos);
  EXPECT_EQ(kernels::parse_pattern("interleaved"), SplitPattern::kInterleaved);
  EXPECT_NE(message_of([] { kernels::parse_pattern("diagonal"); })
                .find("'diagonal'; allowed: low, interleaved, random, warp_uniform"),
            std::string::npos);
}

TEST(NestedMasks, PopulateOneToFourLeaves) {
  for (int leaves = 1; leaves <= 4; ++leaves) {
    const auto n = kernels::nested_masks(leaves);
    std::set<int> seen;
    for (int lane = 0; lane < 32; ++lane) seen.insert(kernels::nested_leaf(n.outer, n.inner, lane));
    EXPECT_EQ(static_cast<int>(seen.size()), leaves);
  }
  EXPECT_NE(message_of([] { kernels::nested_masks(5); }).find("nested leaves = 5; allowed: 1..4"),
            std::string::npos);
}

TEST(DivergenceConfig, ProblemsNameTheValueAndWhatIsAllowed) {
  DivergenceConfig ok;
  ok.warps_per_sm = 64;  // (the default, 0, is the device's full residency, resolved by the runner)
  EXPECT_EQ(divergence_config_problem(ok, 64, 16), "");
  DivergenceConfig c = ok;
  c.k = 33;
  EXPECT_EQ(divergence_config_problem(c, 64, 16),
            "lane split k = 33; allowed: 0..32 lanes of a 32-lane warp on the if side");
  c = ok;
  c.else_trips = -5;
  EXPECT_EQ(divergence_config_problem(c, 64, 16), "trip count else_trips = -5; allowed: 0 or more");
  c = ok;
  c.kind = BranchKind::kSwitch;
  c.paths = 33;
  EXPECT_EQ(divergence_config_problem(c, 64, 16),
            "paths = 33; allowed: 1..32 distinct paths per 32-lane warp");
  c.paths = 0;
  EXPECT_NE(divergence_config_problem(c, 64, 16).find("paths = 0"), std::string::npos);
  c.paths = 4;
  c.first_path = 32;
  EXPECT_EQ(divergence_config_problem(c, 64, 16), "first path = 32; allowed: 0..31");
  c = ok;
  c.kind = BranchKind::kNested;
  c.trips = -1;
  EXPECT_EQ(divergence_config_problem(c, 64, 16), "trip count trips = -1; allowed: 0 or more");
  c = ok;
  c.warps_per_sm = 68;
  EXPECT_EQ(divergence_config_problem(c, 64, 16),
            "warps per SM = 68; allowed: a multiple of 4 from 4 to 64 (the device holds 64 "
            "warps/SM and this kernel 16 blocks/SM)");
  // Without a device only the shape of the residency is checked.
  EXPECT_EQ(divergence_config_problem(c, 0, 0), "");
  c.warps_per_sm = 6;
  EXPECT_EQ(divergence_config_problem(c, 0, 0),
            "warps per SM = 6; allowed: a multiple of 4 (blocks of 128 threads), at least 4");
  // Registers or shared memory can bind before the warp cap.
  c.warps_per_sm = 48;
  EXPECT_NE(divergence_config_problem(c, 64, 8).find("from 4 to 32"), std::string::npos);
  // The warp-uniform control has no k.
  c = ok;
  c.pattern = SplitPattern::kWarpUniform;
  c.k = 99;
  EXPECT_EQ(divergence_config_problem(c, 64, 16), "");
}

TEST(DivergencePlan, PathsVotesAndPopulatedCounts) {
  DivergenceConfig c;
  c.pattern = SplitPattern::kLowLanes;
  c.k = 20;
  c.if_trips = 30;
  c.else_trips = 10;
  const auto masks = kernels::split_masks(c.pattern, c.k, c.seed);
  EXPECT_EQ(thread_path(c, masks, 32 * 5 + 19).path, 0);
  EXPECT_EQ(thread_path(c, masks, 32 * 5 + 19).trips, 30);
  EXPECT_EQ(thread_path(c, masks, 32 * 5 + 20).path, 1);
  EXPECT_EQ(thread_path(c, masks, 32 * 5 + 20).trips, 10);
  EXPECT_EQ(planned_vote(c, masks, 5), 0x000fffffu);
  EXPECT_EQ(populated_paths(c, masks, 5), 2);
  c.k = 32;
  EXPECT_EQ(populated_paths(c, kernels::split_masks(c.pattern, 32, 0), 0), 1);

  DivergenceConfig s;
  s.kind = BranchKind::kSwitch;
  s.paths = 7;
  EXPECT_EQ(populated_paths(s, masks, 3), 7);
  EXPECT_EQ(thread_path(s, masks, 32 * 3 + 9).path, 2);
  EXPECT_EQ(planned_vote(s, masks, 0), 0x10204081u);  // lanes 0, 7, 14, 21, 28
  // A uniform run of one case: paths = 1 from first path 29; and the wrap past case 31.
  s.paths = 1;
  s.first_path = 29;
  EXPECT_EQ(thread_path(s, masks, 77).path, 29);
  EXPECT_EQ(populated_paths(s, masks, 2), 1);
  EXPECT_EQ(planned_vote(s, masks, 2), 0xffffffffu);
  s.paths = 4;
  EXPECT_EQ(thread_path(s, masks, 3).path, 0);  // (29 + 3) mod 32

  DivergenceConfig n;
  n.kind = BranchKind::kNested;
  n.leaves = 3;
  EXPECT_EQ(populated_paths(n, masks, 0), 3);
  EXPECT_EQ(planned_vote(n, masks, 0), 0x0000ffffu);
}

TEST(WarpSummary, MediansPerKindOfWarpAndWarpsPerSm) {
  DivergenceConfig c;
  c.pattern = SplitPattern::kWarpUniform;
  const auto masks = kernels::split_masks(c.pattern, 0, 0);
  // Warps 0, 2 all-if (vote full) on SM 0; warps 1, 3 all-else on SM 1; warp 3 votes wrongly.
  const std::vector<kernels::WarpRecord> records = {
      {400, 1000, 1300, 0, 0xffffffffu},
      {100, 1010, 1100, 1, 0u},
      {410, 990, 1250, 0, 0xffffffffu},
      {120, 1005, 1120, 1, 0x1u}};
  const WarpCycleSummary s = summarize_warps(c, masks, records);
  EXPECT_EQ(s.warps, 4);
  EXPECT_DOUBLE_EQ(s.median_cycles, 260.0);
  EXPECT_DOUBLE_EQ(s.all_first_path_median, 405.0);
  EXPECT_DOUBLE_EQ(s.no_first_path_median, 100.0);
  EXPECT_EQ(s.votes_as_planned, 3);
  EXPECT_EQ(s.sms, 2);
  EXPECT_EQ(s.max_warps_on_one_sm, 2);
  EXPECT_EQ(s.min_warps_on_one_sm, 2);
  EXPECT_DOUBLE_EQ(s.p10_cycles, 100.0);
  EXPECT_DOUBLE_EQ(s.p90_cycles, 410.0);
  EXPECT_DOUBLE_EQ(s.region_span_s, 310e-9);  // first start 990 ns, last stop 1300 ns
}

TEST(PathReference, ConstantsAreExactAndChainsDifferPerPath) {
  EXPECT_EQ(kernels::path_multiplier(0), 4095.0f / 4096.0f);
  EXPECT_EQ(kernels::path_addend(31), 32.0f / 1024.0f);
  EXPECT_EQ(kernels::path_reference(1000, 3, 0), 1000.0f / 1024.0f);
  // One trip is kFmasPerTrip FMAs.
  float a = 7.0f / 1024.0f;
  for (int i = 0; i < kernels::kFmasPerTrip; ++i) {
    a = std::fma(a, kernels::path_multiplier(2), kernels::path_addend(2));
  }
  EXPECT_EQ(kernels::path_reference(7, 2, 1), a);
  EXPECT_NE(kernels::path_reference(7, 0, 100), kernels::path_reference(7, 1, 100));
  // The chain heads for its fixed point addend / (1 - multiplier) = 4 and stays finite.
  EXPECT_NEAR(kernels::path_reference(7, 5, 50000), 4.0f, 1e-3f);
}

// The switch with a lane table (warpcost-diverge --cases), worked by hand: C2's 10:384,12:192,10:192
// puts lanes 0-9 on case 0, 10-21 on case 1, 22-31 on case 2.
TEST(SwitchTable, CasesTakeConsecutiveLanesAndTheirOwnTrips) {
  const std::vector<kernels::SwitchCase> cases = parse_switch_cases("10:384,12:192,10:192");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[1].lanes, 12);
  EXPECT_EQ(cases[1].trips, 192);
  const kernels::SwitchTable t = kernels::switch_table(cases);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(t.lane_path[l], l < 10 ? 0 : l < 22 ? 1 : 2) << "lane " << l;
  EXPECT_EQ(t.trips[0], 384);
  EXPECT_EQ(t.trips[1], 192);
  EXPECT_EQ(t.trips[2], 192);
  EXPECT_EQ(t.trips[3], 0);
  DivergenceConfig c;
  c.kind = BranchKind::kSwitchTable;
  c.cases = cases;
  c.warps_per_sm = 4;
  EXPECT_EQ(divergence_config_problem(c, 64, 16), "");
  const kernels::SplitMasks none{};
  // Global thread 47 is lane 15 of warp 1: case 1, 192 trips.
  EXPECT_EQ(thread_path(c, none, 47).path, 1);
  EXPECT_EQ(thread_path(c, none, 47).trips, 192);
  EXPECT_EQ(thread_path(c, none, 63).path, 2);
  EXPECT_EQ(planned_vote(c, none, 5), 0x3ffu);
  EXPECT_EQ(populated_paths(c, none, 5), 3);
  // A case with no lanes is not populated; every lane on case 1.
  c.cases = {{0, 384}, {32, 192}};
  EXPECT_EQ(planned_vote(c, none, 0), 0u);
  EXPECT_EQ(populated_paths(c, none, 0), 1);
  EXPECT_EQ(thread_path(c, none, 3).trips, 192);
}

TEST(SwitchTable, BadCasesAreNamed) {
  EXPECT_EQ(kernels::switch_cases_problem({{10, 1}, {21, 1}}),
            "the cases' lanes add to 31; allowed: 32 (every lane of the warp takes one case)");
  EXPECT_EQ(kernels::switch_cases_problem({{33, 1}}), "case 0's lanes = 33; allowed: 0..32");
  EXPECT_EQ(kernels::switch_cases_problem({{16, 1}, {16, -2}}), "trip count of case 1 = -2; allowed: 0 or more");
  EXPECT_EQ(kernels::switch_cases_problem({}), "switch cases = 0; allowed: 1..32 cases (LANES:TRIPS each)");
  std::vector<kernels::SwitchCase> many(33, kernels::SwitchCase{1, 1});
  EXPECT_NE(kernels::switch_cases_problem(many).find("switch cases = 33"), std::string::npos);
  EXPECT_THROW(kernels::switch_table({{10, 1}}), std::invalid_argument);
  DivergenceConfig c;
  c.kind = BranchKind::kSwitchTable;
  c.cases = {{10, 1}};
  c.warps_per_sm = 4;
  EXPECT_NE(divergence_config_problem(c, 0, 0).find("add to 10"), std::string::npos);
  for (const char* bad : {"10-384", "10:", ":5", "a:1", "10:384,", "10:-1", "+1:2", "10:384;12:1"}) {
    try {
      parse_switch_cases(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("allowed: LANES:TRIPS"), std::string::npos) << bad << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace warpcost
