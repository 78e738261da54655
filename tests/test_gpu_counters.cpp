// The CUPTI counter backend on the GPU, against launches whose counts are known exactly: warps
// launched = ceil(P/32) a block, lanes per instruction = P/ceil(P/32) for a partial warp, and a
// 16/16 split that diverges where the warp-uniform control does not. Skipped, with the reason, where
// there is no GPU or the machine refuses counters.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/divergence/schema.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/streaming/schema.hpp"
#include "bench/common/counter_pass.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "bench/divergence/runner.hpp"
#include "kernels/partial_warp/kernels.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost::counters {
namespace {

const std::string kWarps = "smsp__warps_launched.sum";
const std::string kBlocks = "sm__ctas_launched.sum";
const std::string kLanes = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
const std::string kDivergent = "smsp__sass_branch_targets_threads_divergent.sum";

// The profiler, or a skip that says why the machine gives no counters.
#define WARPCOST_REQUIRE_COUNTERS(profiler)                      \
  WARPCOST_REQUIRE_GPU();                                        \
  std::unique_ptr<CuptiProfiler> profiler;                       \
  try {                                                          \
    profiler = std::make_unique<CuptiProfiler>();                \
  } catch (const CountersUnavailable& e) {                       \
    GTEST_SKIP() << "no counters on this machine: " << e.what(); \
  }

TEST(GpuCounters, WarpsLaunchedAndLanesPerInstructionFollowCeilPOver32) {
  WARPCOST_REQUIRE_COUNTERS(profiler);
  Stream stream;
  for (const unsigned p : {32u, 33u, 48u, 100u, 1024u}) {
    const unsigned blocks = 264;
    DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * p);
    DeviceBuffer<kernels::ClockSample> clocks(2);
    const Values v = profiler->profile(
        default_metrics(schema::partial_warp::descriptor()), "fma/" + std::to_string(p),
        [&] { kernels::launch_fma_blocks(blocks, p, 512, out.data(), clocks.data(), stream.get()); });
    const double warps_per_block = (p + 31) / 32;
    EXPECT_EQ(v.at(kWarps), blocks * warps_per_block) << "P = " << p;
    EXPECT_EQ(v.at(kBlocks), blocks) << "P = " << p;
    // Every warp runs the same instructions, the tail warp with P mod 32 lanes on; thread 0's clock
    // probe (one lane) is the 0.1 % the tolerance allows for at 512 rounds.
    EXPECT_NEAR(v.at(kLanes), p / warps_per_block, 0.01 * p / warps_per_block) << "P = " << p;
  }
}

TEST(GpuCounters, ASplitDivergesAndTheWarpUniformControlDoesNot) {
  WARPCOST_REQUIRE_COUNTERS(profiler);
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  DivergenceConfig split;
  split.k = 16;
  split.if_trips = split.else_trips = 8;
  split.warps_per_sm = 4;
  DivergenceConfig uniform = split;
  uniform.pattern = kernels::SplitPattern::kWarpUniform;

  DivergenceRunner split_runner(device, split);
  const Values s = profiler->profile(default_metrics(schema::divergence::descriptor()), "split/16",
                                     [&] { split_runner.launch(stream); });
  split_runner.check_outputs(stream);
  DivergenceRunner uniform_runner(device, uniform);
  const Values u = profiler->profile(default_metrics(schema::divergence::descriptor()), "uniform",
                                     [&] { uniform_runner.launch(stream); });
  uniform_runner.check_outputs(stream);

  // Both kernels also branch on lane 0 (each warp records its cycles) and on thread 0 (each block
  // samples the clock): the control's divergent targets are that bookkeeping, one a warp and one a
  // block. The split adds at least one a warp, its if/else.
  const double warps = s.at(kWarps);
  ASSERT_GT(warps, 0);
  EXPECT_EQ(u.at(kWarps), warps);
  EXPECT_LE(u.at(kDivergent), 2 * warps) << "warp-uniform: only the bookkeeping diverges";
  EXPECT_GE(s.at(kDivergent) - u.at(kDivergent), warps) << "every split warp diverges at its if/else";
  EXPECT_LT(s.at(kLanes), 20.0) << "16 of 32 lanes on through both bodies";
  EXPECT_GT(u.at(kLanes), 31.0);
}

}  // namespace
}  // namespace warpcost::counters
