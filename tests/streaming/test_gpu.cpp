// The latency and streaming kernels on the GPU: the ring is the ring the host
// planned and a lap visits every node; the stream's sums match the host replay
// at several widths, W values and residencies; the residency the occupancy API
// confirms; impossible requests refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "bench/streaming/runner.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/pattern.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost {
namespace {

TEST(GpuChase, TheRingIsBuiltAsPlannedAndALapVisitsEveryNode) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  for (const auto order : {kernels::RingOrder::kRandom, kernels::RingOrder::kStride}) {
    for (const std::uint64_t bytes : {64ull << 10, 16ull << 20, 1ull << 30}) {
      ChaseConfig c;
      c.footprint_bytes = bytes;
      c.order = order;
      c.steps = 4096;
      ChaseRunner runner(device, c, stream);
      EXPECT_NO_THROW(runner.check_ring(stream)) << kernels::ring_order_name(order) << " " << bytes;
      runner.launch(stream);
      EXPECT_NO_THROW(runner.result(stream));  // ends on the node the ring predicts
    }
  }
}

TEST(GpuChase, A16KiBRingIsFasterPerLoadThanA1GiBRing) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  auto cycles = [&](std::uint64_t bytes) {
    ChaseConfig c;
    c.footprint_bytes = bytes;
    ChaseRunner runner(device, c, stream);
    runner.launch(stream);
    const kernels::ChaseResult r = runner.result(stream);
    return static_cast<double>(r.cycles) / static_cast<double>(c.steps);
  };
  const double near = cycles(16ull << 10);
  const double far = cycles(1ull << 30);
  EXPECT_GT(near, 5.0);
  EXPECT_GT(far, 3.0 * near) << "L1-resident " << near << " cycles, DRAM " << far;
}

// Found on the H200 (run 20261130T140428Z): rings of 256 MiB and more read ~290 cycles a load, an
// L2 hit, because every sample re-chased the same 128 Ki nodes the sample before had left in the
// L2 (only rings up to 2^19 nodes are warmed by a whole lap). Each launch now walks on along the
// ring, so back-to-back launches on a ring far larger than the L2 both read DRAM latency.
TEST(GpuChase, BackToBackLaunchesOnARingLargerThanTheL2BothMissIt) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  ChaseConfig c;
  c.footprint_bytes = 1ull << 30;
  ChaseRunner runner(device, c, stream);
  auto cycles = [&] {
    runner.launch(stream);
    const kernels::ChaseResult r = runner.result(stream);  // checks where the walk ended
    return static_cast<double>(r.cycles) / static_cast<double>(c.steps);
  };
  const double first = cycles();
  const double second = cycles();
  const double third = cycles();
  ChaseConfig l2;
  l2.footprint_bytes = 4ull << 20;
  ChaseRunner l2_runner(device, l2, stream);
  l2_runner.launch(stream);
  const double l2_cycles = static_cast<double>(l2_runner.result(stream).cycles) / static_cast<double>(l2.steps);
  EXPECT_GT(second, 1.5 * l2_cycles) << "first " << first << ", second " << second << ", L2 " << l2_cycles;
  EXPECT_GT(third, 1.5 * l2_cycles) << "first " << first << ", third " << third << ", L2 " << l2_cycles;
  EXPECT_GT(second, 0.8 * first) << "first " << first << ", second " << second;
}

// The loaded chase (issue 33): every launch ends on the node the ring predicts, with every
// background block begun before the chase and none stopped by its watchdog (result() checks it);
// a background loads, and more warps of it load faster and make the chase no faster.
TEST(GpuLoadedChase, TheChaseEndsWhereTheRingSaysAndTheBackgroundLoadsAndSlowsIt) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  const std::uint64_t background_bytes = std::max<std::uint64_t>(2048ull << 20, 8ull * static_cast<std::uint64_t>(device.l2_bytes));
  DeviceBuffer<std::uint32_t> background(background_bytes / 4);
  WARPCOST_CUDA(cudaMemsetAsync(background.data(), 0, background.bytes(), stream.get()));
  double unloaded = 0;
  double previous_rate = 0;
  for (const int warps : {0, 1, 8, kernels::kMostBackgroundWarps}) {
    if (2 * warps > device.max_warps_per_sm) continue;
    LoadedChaseConfig c;
    c.background_warps = warps;
    c.footprint_bytes = 1ull << 30;
    LoadedChaseRunner runner(device, c, background.data(), background_bytes / 16, stream);
    double cycles = 0;
    for (int launch = 0; launch < 3; ++launch) {
      runner.launch(stream);
      LoadedChaseSample s;
      ASSERT_NO_THROW(s = runner.result(stream)) << warps << " background warps";
      cycles = static_cast<double>(s.result.chase.cycles) / static_cast<double>(c.steps);
      if (warps == 0) {
        EXPECT_EQ(s.result.background_loads, 0u);
        continue;
      }
      const double rate = 16.0 * static_cast<double>(s.result.window_loads) / (static_cast<double>(s.result.chase.ns) * 1e-9);
      EXPECT_GT(rate, previous_rate) << warps << " background warps";
      EXPECT_GT(s.background_sms, 0u);
      if (launch == 2) previous_rate = rate;
    }
    if (warps == 0) unloaded = cycles;
    EXPECT_GT(cycles, 0.95 * unloaded) << warps << " background warps: " << cycles << " cycles, alone " << unloaded;
  }
}

// A background past kMostBackgroundWarps is refused before anything is allocated or launched.
TEST(GpuLoadedChase, ABackgroundPastItsRangeIsRefused) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  DeviceBuffer<std::uint32_t> background(1 << 20);
  LoadedChaseConfig c;
  c.footprint_bytes = 1ull << 20;
  c.background_warps = kernels::kMostBackgroundWarps + 1;
  EXPECT_THROW(LoadedChaseRunner(device, c, background.data(), background.bytes() / 16, stream), std::invalid_argument);
}

TEST(GpuStream, SumsMatchTheHostReplayAtEveryWidthAndUse) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  const StreamConfig configs[] = {
      {{16, 0, kernels::AluUse::kIndependent}, device.max_warps_per_sm, 64ull << 20, 5},
      {{4, 8, kernels::AluUse::kDependent}, 4, 16ull << 20, 6},
      {{8, 256, kernels::AluUse::kIndependent}, 33, 16ull << 20, 7},
      {{16, 1, kernels::AluUse::kDependent}, 1, 16ull << 20, 8},
      {{16, 0, kernels::AluUse::kIndependent, 4}, 11, 16ull << 20, 9},
      {{16, 0, kernels::AluUse::kIndependent, 8}, 32, (16ull << 20) + 16 * 7, 10},
  };
  for (const auto& c : configs) {
    StreamRunner runner(device, c, stream);
    runner.launch(stream);
    EXPECT_NO_THROW(runner.check_sums(stream)) << c.kernel.load_bytes << " B, W " << c.kernel.alu_per_load;
    // A global load that misses L1 takes some hundreds of cycles; two back-to-back clock reads
    // (a probe that did not wait for the value) take a few.
    EXPECT_GT(runner.loaded_latency_cycles(stream), 100.0) << c.kernel.load_bytes << " B, W " << c.kernel.alu_per_load;
    EXPECT_EQ(runner.plan().warps_per_block * runner.plan().blocks_per_sm, c.warps_per_sm);
  }
}

// The run-time-W kernel (warpcost-stream's W without an unrolled kernel) against the same host
// replay as the unrolled ones. Each configuration gives a thread 7 or 8 loads, so an independent
// side chain gets about 2·W FFMAs, too few for any but the first ~70 threads to reach the chain's
// fixed point 1.0, and one FFMA more or less a load changes the sum (test_plan.cpp counts it on the
// replay); a dependent chain starts afresh from every loaded word. W = 16 forced run-time must give
// the unrolled kernel's sums.
TEST(GpuStream, TheRunTimeAluKernelMatchesTheHostReplay) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  const StreamConfig configs[] = {
      {{16, 12, kernels::AluUse::kIndependent, 1, true}, 33, 16ull << 20, 11},
      {{4, 15, kernels::AluUse::kDependent, 1, true}, 20, 16ull << 20, 12},
      {{8, 3, kernels::AluUse::kIndependent, 1, true}, 64, 16ull << 20, 13},
      {{16, 25, kernels::AluUse::kDependent, 1, true}, 4, 16ull << 20, 14},
      {{16, 16, kernels::AluUse::kIndependent, 1, true}, 32, 16ull << 20, 15},
      {{16, 0, kernels::AluUse::kIndependent, 1, true}, 64, 16ull << 20, 16},
  };
  for (const auto& c : configs) {
    StreamRunner runner(device, c, stream);
    runner.launch(stream);
    EXPECT_NO_THROW(runner.check_sums(stream)) << c.kernel.load_bytes << " B, run-time W " << c.kernel.alu_per_load;
    EXPECT_GT(runner.loaded_latency_cycles(stream), 100.0) << c.kernel.load_bytes << " B, W " << c.kernel.alu_per_load;
    EXPECT_EQ(runner.plan().warps_per_block * runner.plan().blocks_per_sm, c.warps_per_sm);
  }
}

TEST(GpuStream, CountsThatCannotBeHeldAreRefusedWithTheReason) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  StreamConfig c{{16, 0, kernels::AluUse::kIndependent}, 37, 16ull << 20, 5};
  try {
    StreamRunner runner(device, c, stream);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("warps per SM = 37"), std::string::npos) << e.what();
  }
  c.warps_per_sm = device.max_warps_per_sm + 1;
  EXPECT_THROW(StreamRunner(device, c, stream), std::invalid_argument);
}

TEST(GpuStream, OneLoadPerThreadMatchesTheHostReplayAndSmallBlocksHitTheBlockCap) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  // 96 threads a block does not divide the buffer: the last block has lanes
  // past the end.
  for (const int threads : {32, 96, 1024}) {
    OnePerThreadConfig c{threads, (16ull << 20) + 16 * 40, 11};
    OnePerThreadRunner runner(device, c, stream);
    runner.launch(stream);
    EXPECT_NO_THROW(runner.check_sums(stream)) << threads << " threads a block";
    const int warps_per_block = threads / 32;
    const int expected_blocks = std::min(device.max_blocks_per_sm, device.max_warps_per_sm / warps_per_block);
    EXPECT_EQ(runner.resident_blocks_per_sm(), expected_blocks) << threads << " threads a block";
  }
  // The block-turnover grid (the same blocks without the load): checked against its own replay,
  // and an SM holds as many of its blocks as of the loading kernel's, so its time a block is the
  // loading grid's turnover at the same residency (docs/models.md).
  for (const int threads : {32, 96, 544, 1024}) {
    OnePerThreadConfig c{threads, (16ull << 20) + 16 * 40, 11};
    c.load = false;
    OnePerThreadRunner turnover(device, c, stream);
    turnover.launch(stream);
    EXPECT_NO_THROW(turnover.check_sums(stream)) << threads << " threads a block, no load";
    EXPECT_EQ(turnover.bytes_read(), 0u);
    OnePerThreadRunner loading(device, {threads, c.bytes, 11}, stream);
    EXPECT_EQ(turnover.resident_blocks_per_sm(), loading.resident_blocks_per_sm()) << threads << " threads a block";
  }
  // One-warp blocks: the block cap (32 on the H200) holds the SM below its warp
  // cap (64).
  OnePerThreadRunner small(device, {32, 16ull << 20, 11}, stream);
  EXPECT_EQ(small.resident_warps_per_sm(), std::min(device.max_blocks_per_sm, device.max_warps_per_sm));
}

// EXPLAIN-7's copy stream (bench/streaming/bench.cpp, copy_independent): at a pinned residency it
// copies every 16-byte element, which the pattern check sees word for word; a destination with one
// word changed, or a copy stopped short by one element, is counted (the check the suite runs before
// any timed launch can fail).
TEST(GpuStream, TheCopyStreamCopiesEveryWordAndTheCheckCountsAWrongOne) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  const std::uint64_t bytes = 16ull << 20, words = bytes / 4, elements = bytes / 16;
  DeviceBuffer<std::uint32_t> src(words), dst(words);
  DeviceBuffer<unsigned long long> bad(1);
  kernels::launch_fill_pattern(src.data(), words, 5, stream.get());
  kernels::launch_fill_pattern(dst.data(), words, 6, stream.get());
  const ResidencyPlan plan = plan_residency(8, residency_limits(device));
  ASSERT_TRUE(plan.problem.empty()) << plan.problem;
  const void* kernel = kernels::copy_stream_kernel_function();
  WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.shared_bytes)));
  const auto blocks = static_cast<unsigned int>(device.sm_count * plan.blocks_per_sm);
  auto mismatches = [&] {
    WARPCOST_CUDA(cudaMemsetAsync(bad.data(), 0, bad.bytes(), stream.get()));
    kernels::launch_count_pattern_mismatches(dst.data(), words, 5, bad.data(), stream.get());
    unsigned long long n = 0;
    WARPCOST_CUDA(cudaMemcpyAsync(&n, bad.data(), sizeof n, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    return n;
  };
  kernels::launch_copy_stream(src.data(), dst.data(), elements - 1, blocks, static_cast<unsigned int>(plan.warps_per_block * 32),
                              static_cast<std::size_t>(plan.shared_bytes), stream.get());
  EXPECT_EQ(mismatches(), 4u) << "the last element's four words were not copied";
  kernels::launch_copy_stream(src.data(), dst.data(), elements, blocks, static_cast<unsigned int>(plan.warps_per_block * 32),
                              static_cast<std::size_t>(plan.shared_bytes), stream.get());
  EXPECT_EQ(mismatches(), 0u);
  const std::uint32_t wrong = ~pattern_word(12345, 5);  // differs from the source's word
  WARPCOST_CUDA(cudaMemcpyAsync(dst.data() + 12345, &wrong, sizeof wrong, cudaMemcpyHostToDevice, stream.get()));
  EXPECT_EQ(mismatches(), 1u);
  EXPECT_THROW(kernels::launch_copy_stream(src.data(), dst.data(), elements, 0, 32, 0, stream.get()), std::invalid_argument);
}

}  // namespace
}  // namespace warpcost
