// The divergence kernels on the GPU: outputs against the host replay, every warp's ballot against
// its planned mask, exact residency, and the proof that a split warp really runs both sides.
#include <gtest/gtest.h>

#include "bench/divergence/runner.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost {
namespace {

WarpCycleSummary run_once(const DivergenceConfig& config) {
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  DivergenceRunner runner(device, config);
  runner.launch(stream);  // warm-up: the clock ramps, the code is loaded
  runner.launch(stream);
  runner.check_outputs(stream);
  return runner.read_warps(stream);
}

DivergenceConfig split(kernels::SplitPattern pattern, int k, int warps_per_sm = 4) {
  DivergenceConfig c;
  c.kind = BranchKind::kIfElse;
  c.pattern = pattern;
  c.k = k;
  c.warps_per_sm = warps_per_sm;
  return c;
}

TEST(GpuDivergence, OutputsMatchTheHostReplayAndWarpsVoteTheirPlannedMasks) {
  WARPCOST_REQUIRE_GPU();
  DivergenceConfig sw;
  sw.kind = BranchKind::kSwitch;
  sw.paths = 7;
  sw.trips = 300;
  DivergenceConfig nest;
  nest.kind = BranchKind::kNested;
  nest.leaves = 3;
  nest.trips = 300;
  DivergenceConfig unequal = split(kernels::SplitPattern::kRandom, 20);
  unequal.if_trips = 400;
  unequal.else_trips = 100;
  for (const DivergenceConfig& c :
       {split(kernels::SplitPattern::kLowLanes, 5), split(kernels::SplitPattern::kInterleaved, 16),
        unequal, split(kernels::SplitPattern::kWarpUniform, 0), sw, nest}) {
    const WarpCycleSummary w = run_once(c);  // check_outputs throws on a wrong result
    EXPECT_EQ(w.votes_as_planned, w.warps);
    EXPECT_GT(w.median_cycles, 0.0);
  }
}

TEST(GpuDivergence, ResidencyIsExactlyTheRequestedWarpsPerSm) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  for (const int warps : {4, 64}) {
    const WarpCycleSummary w = run_once(split(kernels::SplitPattern::kLowLanes, 16, warps));
    EXPECT_EQ(w.sms, device.sm_count) << warps << " warps/SM";
    EXPECT_EQ(w.max_warps_on_one_sm, warps);
    EXPECT_EQ(w.min_warps_on_one_sm, warps);
  }
}

// The gate: a 16/16 split whose warps take less than 1.8x the uniform warp's cycles did
// not diverge (the compiler predicated or merged the two sides). Per warp with one warp per
// scheduler, where a warp's cycles are its own; at full residency a warp's cycles include its
// neighbours' issue slots, so there the grid's time in the region is held instead.
TEST(GpuDivergence, SixteenSixteenSplitTakesAtLeast1_8TimesTheUniformWarp) {
  WARPCOST_REQUIRE_GPU();
  const WarpCycleSummary uniform = run_once(split(kernels::SplitPattern::kLowLanes, 32));
  const WarpCycleSummary halves = run_once(split(kernels::SplitPattern::kLowLanes, 16));
  const WarpCycleSummary odd_even = run_once(split(kernels::SplitPattern::kInterleaved, 16));
  EXPECT_GE(halves.median_cycles / uniform.median_cycles, 1.8);
  EXPECT_GE(odd_even.median_cycles / uniform.median_cycles, 1.8);
  // The control: half the threads on each side, but whole warps, so no warp pays for both.
  const WarpCycleSummary control = run_once(split(kernels::SplitPattern::kWarpUniform, 0));
  EXPECT_LT(control.median_cycles / uniform.median_cycles, 1.2);

  const WarpCycleSummary full_uniform = run_once(split(kernels::SplitPattern::kLowLanes, 32, 64));
  const WarpCycleSummary full_halves = run_once(split(kernels::SplitPattern::kLowLanes, 16, 64));
  EXPECT_GE(full_halves.region_span_s / full_uniform.region_span_s, 1.8);
}

TEST(GpuDivergence, SwitchAndNestedIfSerialiseTheirPopulatedPaths) {
  WARPCOST_REQUIRE_GPU();
  DivergenceConfig c;
  c.kind = BranchKind::kSwitch;
  c.paths = 1;
  const double one = run_once(c).median_cycles;
  c.paths = 4;
  EXPECT_GE(run_once(c).median_cycles / one, 3.6);
  DivergenceConfig n;
  n.kind = BranchKind::kNested;
  n.leaves = 1;
  const double leaf = run_once(n).median_cycles;
  n.leaves = 4;
  EXPECT_GE(run_once(n).median_cycles / leaf, 3.6);
}

// warpcost-diverge --cases (check --measure's runner for a switch whose cases differ): every lane's
// output is its own case's chain at its own trips (check_outputs), every warp votes lanes 0..9, and
// a case with more trips costs more: a gate, not a verdict (the 3 % rule is judged by check).
TEST(GpuDivergence, SwitchTableRunsEachCaseAtItsOwnTripsOnItsOwnLanes) {
  WARPCOST_REQUIRE_GPU();
  DivergenceConfig t;
  t.kind = BranchKind::kSwitchTable;
  t.warps_per_sm = 4;
  t.cases = {{10, 384}, {12, 192}, {10, 192}};
  const WarpCycleSummary diverged = run_once(t);
  EXPECT_EQ(diverged.votes_as_planned, diverged.warps);
  DivergenceConfig alone = t;
  alone.cases = {{32, 384}};
  const WarpCycleSummary one = run_once(alone);
  EXPECT_EQ(one.votes_as_planned, one.warps);
  alone.cases = {{32, 192}};
  const WarpCycleSummary half = run_once(alone);
  EXPECT_EQ(half.votes_as_planned, half.warps);
  // Serialised: 384 + 192 + 192 trips against 384, at least 1.8x; 192 trips alone at most 0.6x.
  EXPECT_GE(diverged.median_cycles / one.median_cycles, 1.8);
  EXPECT_LE(half.median_cycles / one.median_cycles, 0.6);
}

TEST(GpuDivergence, RunnerRejectsMoreWarpsPerSmThanFit) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  DivergenceConfig c = split(kernels::SplitPattern::kLowLanes, 16, device.max_warps_per_sm + 4);
  try {
    DivergenceRunner runner(device, c);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("warps per SM = " + std::to_string(c.warps_per_sm)),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace warpcost
