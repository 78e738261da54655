// The warp-primitives kernels on the GPU: every point of this device's plan against the host
// reference (with a negative control that the check catches a wrong value), the clocks it reads,
// and the lesson's mask facts. Skipped, with the reason, without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/cuda_raii.hpp"
#include "bench/warp_primitives/plan.hpp"
#include "bench/warp_primitives/runner.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/warp_primitives/kernels.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost::warp_primitives {
namespace {

const DeviceInfo& device() {
  static const DeviceInfo d = query_device_info(0);
  return d;
}

TEST(GpuWarpPrimitives, EveryPlannedPointMatchesTheHostReference) {
  WARPCOST_REQUIRE_GPU();
  Stream stream;
  for (const Point& p : plan(primitive_facts(device()))) {
    SCOPED_TRACE(std::string(bench_name(p.kind)) + " primitive " + std::to_string(p.primitive) + " lanes " +
                 std::to_string(p.active_lanes) + " mask " + std::to_string(p.mask) + " warps " +
                 std::to_string(p.warps_per_sm));
    PrimitivesRunner runner(device(), p);
    EXPECT_NO_THROW(runner.check(stream));
    if (p.kind == Kind::kLatency) {
      const double c = runner.cycles_per_op(stream);
      EXPECT_GT(c, 0.5);
      EXPECT_LT(c, 5000.0);
    } else {
      const SmThroughput t = runner.throughput(stream);
      EXPECT_EQ(t.sms, device().sm_count);
      EXPECT_GT(t.median_ops_per_cycle, 0.0);
    }
  }
}

TEST(GpuWarpPrimitives, TheCheckCatchesAWrongChain) {
  WARPCOST_REQUIRE_GPU();
  // A plan point run with another primitive's kernel must fail the check: shfl_up instead of xor.
  Point p;
  p.primitive = 4;
  PrimitivesRunner runner(device(), p);
  Stream stream;
  kernels::PrimitiveChainArgs args;
  DeviceBuffer<unsigned long long> values(32 * static_cast<std::size_t>(device().sm_count));
  DeviceBuffer<kernels::WarpSideClock> clocks(2 * static_cast<std::size_t>(device().sm_count));
  DeviceBuffer<kernels::BlockSpan> spans(static_cast<std::size_t>(device().sm_count));
  DeviceBuffer<int> flag(1);
  args.mask_a = 0xffffffffu;
  args.ops = static_cast<std::uint32_t>(kLatencyOps);
  args.delta = kDelta;
  args.seed = kSeed;
  args.values = values.data();
  args.warp_clocks = clocks.data();
  args.block_spans = spans.data();
  args.not_on_this_gpu = flag.data();
  kernels::launch_primitive_chain(2, 1, args, static_cast<unsigned>(device().sm_count), 32, stream.get());
  stream.synchronize();
  std::vector<unsigned long long> got(values.size());
  WARPCOST_CUDA(cudaMemcpy(got.data(), values.data(), values.bytes(), cudaMemcpyDeviceToHost));
  const auto want = reference_warp(4, runner.shape());
  int differ = 0;
  for (int lane = 0; lane < 32; ++lane) differ += want[static_cast<std::size_t>(lane)] && got[static_cast<std::size_t>(lane)] != *want[static_cast<std::size_t>(lane)];
  EXPECT_GT(differ, 0);
}

TEST(GpuWarpPrimitives, MaskFactsInsideABranchOfA48ThreadBlock) {
  WARPCOST_REQUIRE_GPU();
  Stream stream;
  DeviceBuffer<kernels::MaskFacts> d(48);
  kernels::launch_mask_facts(d.data(), 48, 5, false, stream.get());
  stream.synchronize();
  std::vector<kernels::MaskFacts> f(48);
  WARPCOST_CUDA(cudaMemcpy(f.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 48; ++t) {
    const auto& x = f[static_cast<std::size_t>(t)];
    if (t % 32 >= 5) continue;
    // __activemask() names only lanes that took the branch (never one that did not); the ballot
    // over it has exactly the lanes it names, each of which took the branch.
    EXPECT_EQ(x.taken_activemask & ~0x1fu, 0u) << "thread " << t;
    EXPECT_EQ(x.taken_ballot, x.taken_activemask) << "thread " << t;
    RecordProperty("activemask_warp" + std::to_string(t / 32), std::to_string(x.taken_activemask));
  }
  // The active-mask shuffle from lane 0 reads lane 0's lane number in each warp.
  EXPECT_EQ(f[47].full_shuffle, 0u);
}

}  // namespace
}  // namespace warpcost::warp_primitives
