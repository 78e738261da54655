// The partial-warp kernels on the GPU: the recorder's gates and mapping for every shape, the FMA
// work against its host replay, the grid tail's masks, and warp-granular residency.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/partial_warp/runner.hpp"
#include "kernels/partial_warp/kernels.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost {
namespace {

const model::BlockShape kShapes[] = {{32, 1, 1},  {33, 1, 1},  {48, 1, 1}, {64, 1, 1},  {100, 1, 1},
                                     {256, 1, 1}, {1023, 1, 1}, {1024, 1, 1}, {16, 1, 1}, {72, 1, 1},
                                     {48, 4, 1},  {8, 4, 3},   {30, 30, 1}, {32, 8, 1},  {7, 5, 3}};

TEST(GpuRecorder, GatesPassAndEveryThreadMapsAsTheModelSays) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  for (const auto& shape : kShapes) {
    const RecordedBlock r = record_schedule(device, shape, stream);
    const auto& c = r.check;
    const long long p = model::threads_per_block(shape);
    EXPECT_TRUE(c.gates_passed()) << analysis::shape_text(shape) << ": " << c.gate_failures.front();
    EXPECT_EQ(c.warps_observed, model::warps_per_block(p)) << analysis::shape_text(shape);
    EXPECT_EQ(c.tail_mask_observed, model::tail_mask(p)) << analysis::shape_text(shape);
    EXPECT_EQ(c.threads_mapped_as_model, p) << analysis::shape_text(shape);
    EXPECT_EQ(c.distinct_sms, 1) << analysis::shape_text(shape);
  }
}

TEST(GpuRecorder, Ex3Warp1StraddlesRows0And1) {
  WARPCOST_REQUIRE_GPU();
  Stream stream;
  const RecordedBlock r = record_schedule(query_device_info(0), {48, 4, 1}, stream);
  for (unsigned t = 32; t < 64; ++t) {
    const auto& s = r.slots[t];
    EXPECT_EQ(s.lane_id, t - 32);
    EXPECT_EQ(s.active_mask, model::warp_mask(48 * 4, 1));  // warp 1 of 192 threads: full
    if (t < 48) {
      EXPECT_EQ(s.ty, 0u);
      EXPECT_EQ(s.tx, t);
    } else {
      EXPECT_EQ(s.ty, 1u);
      EXPECT_EQ(s.tx, t - 48);
    }
  }
}

TEST(GpuRecorder, Ex3bLinear70IsThread6_0_2InWarp2) {
  WARPCOST_REQUIRE_GPU();
  Stream stream;
  const RecordedBlock r = record_schedule(query_device_info(0), {8, 4, 3}, stream);
  const auto& s = r.slots[70];
  EXPECT_EQ(s.tx, 6u);
  EXPECT_EQ(s.ty, 0u);
  EXPECT_EQ(s.tz, 2u);
  EXPECT_EQ(s.lane_id, 6u);
  EXPECT_EQ(r.slots[64].lane_id, 0u);  // warp 2 starts at the third z-slice
  EXPECT_EQ(r.slots[64].tz, 2u);
}

TEST(GpuRecorder, ImpossibleShapesAreRejectedBeforeLaunch) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  EXPECT_THROW(record_schedule(device, {2048, 1, 1}, stream), std::invalid_argument);
  EXPECT_EQ(block_shape_problem(device, 1, 1, 65),
            "block z = 65; allowed on " + device.name + ": 1..64");
  EXPECT_EQ(block_shape_problem(device, 0, 1, 1),
            "block x = 0; allowed on " + device.name + ": 1..1024");
  EXPECT_EQ(block_shape_problem(device, 64, 32, 1),
            "block (64,32,1) has 2048 threads; allowed on " + device.name + ": at most 1024");
  EXPECT_EQ(block_shape_problem(device, 32, 32, 1), "");
}

TEST(GpuFma, EveryThreadMatchesTheHostReplay) {
  WARPCOST_REQUIRE_GPU();
  constexpr unsigned kBlocks = 7;
  constexpr unsigned kThreads = 33;
  constexpr int kIterations = 64;
  DeviceBuffer<float> out(kBlocks * kThreads);
  DeviceBuffer<kernels::ClockSample> clocks(2);
  Stream stream;
  kernels::launch_fma_blocks(kBlocks, kThreads, kIterations, out.data(), clocks.data(), stream.get());
  std::vector<float> h(out.size());
  WARPCOST_CUDA(cudaMemcpyAsync(h.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  kernels::ClockSample probes[2];
  WARPCOST_CUDA(cudaMemcpyAsync(probes, clocks.data(), sizeof probes, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  for (std::size_t g = 0; g < h.size(); ++g) {
    ASSERT_EQ(h[g], kernels::fma_reference(g, kIterations)) << "thread " << g;
  }
  // Both probe threads wrote a sample on one SM whose clock advanced.
  for (const auto& p : probes) {
    EXPECT_EQ(p.smid_start, p.smid_end);
    EXPECT_GT(p.clock_end, p.clock_start);
    EXPECT_GE(p.ns_end, p.ns_start);
  }
}

TEST(GpuGridTail, NoteExample1000In256HasSevenFullWarpsAndEightLanes) {
  WARPCOST_REQUIRE_GPU();
  constexpr unsigned long long kTotal = 1000;
  constexpr unsigned kBlock = 256;
  DeviceBuffer<unsigned int> masks(4 * kBlock);
  Stream stream;
  WARPCOST_CUDA(cudaMemsetAsync(masks.data(), 0, masks.bytes(), stream.get()));
  kernels::launch_record_tail_masks(kTotal, kBlock, masks.data(), stream.get());
  std::vector<unsigned int> h(masks.size());
  WARPCOST_CUDA(cudaMemcpyAsync(h.data(), masks.data(), masks.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  for (unsigned long long g = 0; g < 4 * kBlock; ++g) {
    const unsigned expected = g < 992 ? 0xffffffffu : g < kTotal ? 0x000000ffu : 0u;
    ASSERT_EQ(h[g], expected) << "thread " << g;
  }
  DeviceBuffer<float> out(4 * kBlock);
  DeviceBuffer<kernels::ClockSample> clocks(2);
  WARPCOST_CUDA(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream.get()));
  kernels::launch_fma_grid(kTotal, kBlock, 16, out.data(), clocks.data(), stream.get());
  std::vector<float> f(out.size());
  WARPCOST_CUDA(cudaMemcpyAsync(f.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  for (unsigned long long g = 0; g < kTotal; ++g) ASSERT_EQ(f[g], kernels::fma_reference(g, 16));
  for (unsigned long long g = kTotal; g < f.size(); ++g) ASSERT_NE(f[g], f[g]) << "tail thread wrote";
}

TEST(GpuGridTail, ASingleBlockGridFillsBothClockProbes) {
  WARPCOST_REQUIRE_GPU();
  for (const unsigned long long total : {1ull, 33ull, 256ull, 1000ull}) {
    DeviceBuffer<float> out(1024);
    DeviceBuffer<kernels::ClockSample> clocks(2);
    Stream stream;
    WARPCOST_CUDA(cudaMemsetAsync(clocks.data(), 0, clocks.bytes(), stream.get()));
    kernels::launch_fma_grid(total, 256, 64, out.data(), clocks.data(), stream.get());
    kernels::ClockSample probes[2];
    WARPCOST_CUDA(cudaMemcpyAsync(probes, clocks.data(), sizeof probes, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    for (const auto& p : probes) {
      EXPECT_GT(p.clock_end, p.clock_start) << "N = " << total;
      EXPECT_EQ(p.smid_start, p.smid_end) << "N = " << total;
    }
  }
}

TEST(GpuResidency, WarpSlotsAreReservedInWholeWarps) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  // 48 and 64 threads both take 2 warp slots; 65 takes 3, as 96 does.
  EXPECT_EQ(kernels::fma_blocks_per_sm(48), kernels::fma_blocks_per_sm(64));
  EXPECT_EQ(kernels::fma_blocks_per_sm(65), kernels::fma_blocks_per_sm(96));
  EXPECT_EQ(kernels::fma_blocks_per_sm(65), device.max_warps_per_sm / 3);
}

// warpcost-record --grid's recorder, each expectation worked by hand from the launch: ceil(N/B)
// blocks of ceil(B/32) warps launch; the threads below N pass the guard.
struct GridCase {
  unsigned long long n;
  unsigned b;
  long long blocks, launched_warps, launched_threads, working_warps, working_threads;
  long long last_threads, last_full, last_partial;
  unsigned last_mask;
};
const GridCase kGridCases[] = {
    // the note: 4 blocks of 8 warps; the last holds 232 = 7·32 + 8
    {1000, 256, 4, 32, 1024, 32, 1000, 232, 7, 8, 0x000000ffu},
    // the course sample's C7: 27 blocks of 6 warps; the last holds 8 threads, 5 of its warps only launch
    {5000, 192, 27, 162, 27 * 192, 157, 5000, 8, 0, 8, 0x000000ffu},
    // one thread in a block of 256: 8 warps launch, 1 works
    {1, 256, 1, 8, 256, 1, 1, 1, 0, 1, 0x00000001u},
    // exact: no tail
    {1024, 256, 4, 32, 1024, 32, 1024, 256, 8, 0, 0xffffffffu},
    // blocks of 100 (warps of 32, 32, 32, 4 lanes): 250 = 2·100 + 50, the last block's 50 = 32 + 18
    {250, 100, 3, 12, 300, 10, 250, 50, 1, 18, 0x0003ffffu},
};

TEST(GpuGridRecorder, CountsWhatTheLaunchStartsAndWhatPassesTheGuard) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  for (const auto& c : kGridCases) {
    const RecordedGrid g = record_grid(device, c.n, c.b, stream);
    const std::string at = "N = " + std::to_string(c.n) + ", B = " + std::to_string(c.b);
    EXPECT_TRUE(g.gate_failures.empty()) << at << ": " << (g.gate_failures.empty() ? "" : g.gate_failures.front());
    EXPECT_EQ(g.blocks, c.blocks) << at;
    EXPECT_EQ(g.launched_warps, c.launched_warps) << at;
    EXPECT_EQ(g.launched_threads, c.launched_threads) << at;
    EXPECT_EQ(g.working_warps, c.working_warps) << at;
    EXPECT_EQ(g.working_threads, c.working_threads) << at;
    EXPECT_EQ(g.last_block_threads, c.last_threads) << at;
    EXPECT_EQ(g.last_block_full_warps, c.last_full) << at;
    EXPECT_EQ(g.last_block_partial_lanes, c.last_partial) << at;
    EXPECT_EQ(g.last_mask, c.last_mask) << at;
  }
}

TEST(GpuGridRecorder, RefusesABlockTheDeviceCannotLaunch) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  EXPECT_THROW(record_grid(device, 5000, 2048, stream), std::invalid_argument);
  EXPECT_THROW(time_grid_tail(device, 5000, 2048, 4, stream), std::invalid_argument);
}

TEST(GpuGridTailTiming, TimesTheLastBlockAFullBlockTheFloorAndTheIssuePoints) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  const TailTiming t = time_grid_tail(device, 5000, 192, 4, stream);
  EXPECT_EQ(t.tail_threads, 8);
  EXPECT_EQ(t.tail_warps, 1);
  EXPECT_EQ(t.full_warps, 6);
  EXPECT_DOUBLE_EQ(t.fma_per_thread, 4096.0 * kernels::kFmaChains);
  EXPECT_GT(t.floor_seconds, 0.0);
  // Facts, not targets: 32k FMAs a thread cost more than an empty launch, the longer loop of each
  // fma_issue pair costs more than the shorter.
  EXPECT_GT(t.tail_seconds, t.floor_seconds);
  EXPECT_GT(t.full_seconds, t.floor_seconds);
  EXPECT_GT(t.tail_issue_long, t.tail_issue_short);
  EXPECT_GT(t.full_issue_long, t.full_issue_short);
}

}  // namespace
}  // namespace warpcost
