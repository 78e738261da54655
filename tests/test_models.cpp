// Every worked example of ../shared/reference/worked-examples-warps-and-scheduling.txt, asserting
// each number the example states, then the properties the examples rest on, then bad arguments.
#include <gtest/gtest.h>

#include "tests/message_of.hpp"

#include <stdexcept>
#include <string>

#include "core/models.hpp"
#include "core/statistics.hpp"

namespace warpcost::model {
namespace {

TEST(WorkedExample, Ex1CleanBlock256) {
  EXPECT_EQ(threads_per_block({256, 1, 1}), 256);
  EXPECT_EQ(linear_index({256, 1, 1}, {255, 0, 0}), 255);  // 1D: linear = tx
  EXPECT_EQ(warps_per_block(256), 8);
  EXPECT_EQ(last_warp_id(256), 7);
  EXPECT_EQ(tail_lanes(256), 32);
  EXPECT_EQ(tail_mask(256), 0xffffffffu);
  EXPECT_EQ(wasted_lanes(256), 0);
  EXPECT_DOUBLE_EQ(lane_efficiency(256), 1.0);
  for (long long w = 0; w < 8; ++w) EXPECT_EQ(warp_mask(256, w), kFullWarpMask) << w;
  EXPECT_EQ(lane_of(255), 31);
}

TEST(WorkedExample, Ex2TailWarpOf100) {
  EXPECT_EQ(warps_per_block(100), 4);
  EXPECT_EQ(last_warp_id(100), 3);
  EXPECT_EQ(warp_of(95), 2);  // warps 0..2 hold 0..95
  EXPECT_EQ(warp_of(96), 3);
  EXPECT_EQ(warp_of(99), 3);
  EXPECT_EQ(tail_lanes(100), 4);
  EXPECT_EQ(tail_mask(100), 0x0000000fu);
  EXPECT_EQ(wasted_lanes(100), 28);
  EXPECT_DOUBLE_EQ(static_cast<double>(wasted_lanes(100)) / kWarpSize, 0.875);  // 87.5 %
  EXPECT_EQ(3 * kWarpSize + tail_lanes(100), 100);
}

TEST(WorkedExample, Ex3WarpsCutAcrossRowsOf48x4) {
  const BlockShape shape{48, 4, 1};
  EXPECT_EQ(threads_per_block(shape), 192);
  EXPECT_EQ(warps_per_block(192), 6);
  EXPECT_EQ(wasted_lanes(192), 0);
  EXPECT_EQ(linear_index(shape, {0, 1, 0}), 48);  // row 1 starts at 48
  // Warp 1 = linear 32..63 = row 0 x 32..47, then row 1 x 0..15.
  for (long long linear = 32; linear < 64; ++linear) {
    const ThreadCoord t = thread_coord(shape, linear);
    EXPECT_EQ(warp_of(linear), 1);
    if (linear < 48) {
      EXPECT_EQ(t, (ThreadCoord{linear, 0, 0}));
    } else {
      EXPECT_EQ(t, (ThreadCoord{linear - 48, 1, 0}));
    }
  }
  EXPECT_EQ(thread_coord(shape, 32), (ThreadCoord{32, 0, 0}));
  EXPECT_EQ(thread_coord(shape, 47), (ThreadCoord{47, 0, 0}));
  EXPECT_EQ(thread_coord(shape, 48), (ThreadCoord{0, 1, 0}));
  EXPECT_EQ(thread_coord(shape, 63), (ThreadCoord{15, 1, 0}));
}

TEST(WorkedExample, Ex3bTrue3DBlock8x4x3) {
  const BlockShape shape{8, 4, 3};
  EXPECT_EQ(threads_per_block(shape), 96);
  EXPECT_EQ(linear_index(shape, {0, 0, 1}), kWarpSize);  // one z-slice is one warp
  EXPECT_EQ(thread_coord(shape, 70), (ThreadCoord{6, 0, 2}));
  EXPECT_EQ(linear_index(shape, {6, 0, 2}), 70);  // 2·32 + 0·8 + 6
  EXPECT_EQ(warps_per_block(96), 3);
  EXPECT_EQ(warp_of(70), 2);
  for (long long z = 0; z < 3; ++z) {
    EXPECT_EQ(warp_of(linear_index(shape, {0, 0, z})), z);
    EXPECT_EQ(warp_of(linear_index(shape, {7, 3, z})), z);
  }
}

TEST(WorkedExample, Ex4BlockSmallerThanAWarp) {
  // The reference page's body for Ex 4 is missing; its cell D says: one warp, mostly idle lanes.
  const BlockShape shape{16, 1, 1};
  EXPECT_EQ(warps_per_block(threads_per_block(shape)), 1);
  EXPECT_EQ(tail_lanes(16), 16);
  EXPECT_EQ(tail_mask(16), 0x0000ffffu);
  EXPECT_EQ(wasted_lanes(16), 16);
  for (long long p = 1; p < kWarpSize; ++p) {
    EXPECT_EQ(warps_per_block(p), 1) << "P = " << p;
    EXPECT_EQ(wasted_lanes(p), kWarpSize - p);
    EXPECT_EQ(tail_mask(p), (1u << p) - 1u);
  }
}

TEST(WorkedExample, Ex5HideLatencyL300W15) {
  EXPECT_EQ(warps_to_hide_latency(300, 15), 20);
  EXPECT_EQ(warps_to_hide_latency(300, 16), 19);  // 18.75 rounds up
}

TEST(WorkedExample, Ex6ZeroComputeBetweenLoads) {
  EXPECT_EQ(warps_to_hide_latency(400, 1), 400);
  EXPECT_GT(warps_to_hide_latency(400, 1), 64);  // cannot hide: memory-bound
}

TEST(WorkedExample, Ex7SplitWarp20vs12) {
  const std::vector<BranchPath> split{{20, 30.0}, {12, 30.0}};
  EXPECT_EQ(populated_paths(split), 2);
  EXPECT_DOUBLE_EQ(divergent_time(split), 60.0);
  EXPECT_DOUBLE_EQ(divergence_slowdown(split, 30.0), 2.0);
  EXPECT_DOUBLE_EQ(divergence_slowdown({{31, 30.0}, {1, 30.0}}, 30.0), 2.0);  // "even for 31-vs-1"
  EXPECT_DOUBLE_EQ(predicted_lane_efficiency(split), 0.5);  // (20·30 + 12·30) / (32·60)
}

TEST(WorkedExample, Ex8AllLanesAgree) {
  const std::vector<BranchPath> uniform{{32, 30.0}, {0, 30.0}};
  EXPECT_EQ(populated_paths(uniform), 1);
  EXPECT_DOUBLE_EQ(divergent_time(uniform), 30.0);
  EXPECT_DOUBLE_EQ(divergence_slowdown(uniform, 30.0), 1.0);
  EXPECT_DOUBLE_EQ(predicted_lane_efficiency(uniform), 1.0);
}

TEST(WorkedExample, Ex9ImageBlocks30x30vs32x8) {
  EXPECT_EQ(threads_per_block({30, 30, 1}), 900);
  EXPECT_EQ(warps_per_block(900), 29);
  EXPECT_EQ(tail_lanes(900), 4);  // 900 − 896
  EXPECT_EQ(wasted_lanes(900), 28);
  EXPECT_EQ(threads_per_block({32, 8, 1}), 256);
  EXPECT_EQ(warps_per_block(256), 8);
  EXPECT_EQ(wasted_lanes(256), 0);
  // With blockDim.x = 32 a warp is exactly one row: it never straddles rows.
  for (long long y = 0; y < 8; ++y) {
    EXPECT_EQ(warp_of(linear_index({32, 8, 1}, {0, y, 0})), y);
    EXPECT_EQ(warp_of(linear_index({32, 8, 1}, {31, y, 0})), y);
  }
  // The 1920×1080 image tiles exactly with either block: the last block of each row and column
  // is full.
  EXPECT_EQ(grid_tail(1920, 30).last_block_threads, 30);
  EXPECT_EQ(grid_tail(1080, 30).last_block_threads, 30);
  EXPECT_EQ(grid_tail(1920, 32).last_block_threads, 32);
  EXPECT_EQ(grid_tail(1080, 8).last_block_threads, 8);
  EXPECT_EQ(grid_tail(1920, 32).blocks, 60);
}

TEST(WorkedExample, Ex10SchedulerDemandAgainstTheCap) {
  const SchedulerDemand d = scheduler_demand(4, 400, 1, 20, 64);
  EXPECT_DOUBLE_EQ(d.instruction_slots, 1600.0);
  EXPECT_DOUBLE_EQ(d.warps_needed, 80.0);
  EXPECT_EQ(d.warps_needed_whole, 80);
  EXPECT_EQ(d.cap, 64);
  EXPECT_FALSE(d.fits);
  EXPECT_EQ(d.deficit, 16);
}

TEST(WorkedExample, SelfTest) {
  EXPECT_EQ(warps_per_block(72), 3);
  EXPECT_EQ(tail_lanes(72), 8);
  EXPECT_EQ(wasted_lanes(72), 24);
  EXPECT_EQ(warps_per_block(threads_per_block({8, 4, 3})), 3);
  EXPECT_EQ(warps_to_hide_latency(300, 15), 20);
  EXPECT_DOUBLE_EQ(divergence_slowdown({{16, 40.0}, {16, 40.0}}, 40.0), 2.0);
}

TEST(GridTailTimeModels, HandWorkedC7) {
  // C7's last block (1 warp) and a full block (6 warps), 4 schedulers; floor 1 us; fma_issue F = 2 us,
  // c = 0.5 ns an FMA at 1 warp a scheduler and 1 ns at 2, at 8192 and 65536 FMAs; 32768 FMAs a thread.
  // Measured (18.5 - 1) / (34.768 - 1) = 0.518242; textbook ceil(1/4)/ceil(6/4) = 0.5; second-order
  // (2 + 16.384 - 1) / (2 + 32.768 - 1) = 0.514807.
  const double units[2] = {8192, 65536};
  const double tail[2] = {6.096e-6, 34.768e-6};
  const double full[2] = {10.192e-6, 67.536e-6};
  const TailTimeModels m = grid_tail_time_models(1, 6, 4, 18.5e-6, 34.768e-6, 1e-6, units, tail, full, 32768);
  EXPECT_NEAR(m.measured, 0.518242, 1e-6);
  EXPECT_DOUBLE_EQ(m.textbook, 0.5);
  EXPECT_NEAR(m.second_order, 0.514807, 1e-6);
  EXPECT_NEAR(m.tail.seconds_per_unit, 0.5e-9, 1e-15);
  EXPECT_FALSE(m.same_warps_per_scheduler);
  // 8 and 8 warps: both 2 a scheduler.
  EXPECT_TRUE(grid_tail_time_models(8, 8, 4, 30e-6, 30e-6, 1e-6, units, full, full, 32768).same_warps_per_scheduler);
  EXPECT_THROW(grid_tail_time_models(1, 6, 4, 18.5e-6, 1e-6, 1e-6, units, tail, full, 32768), std::invalid_argument);
  EXPECT_THROW(grid_tail_time_models(1, 6, 0, 18.5e-6, 34.768e-6, 1e-6, units, tail, full, 32768), std::invalid_argument);
}

TEST(NoteExample, GridTail1000ThreadsIn256) {
  const GridTail g = grid_tail(1000, 256);
  EXPECT_EQ(g.blocks, 4);
  EXPECT_EQ(g.last_block_threads, 232);
  EXPECT_EQ(g.last_block_full_warps, 7);
  EXPECT_EQ(g.last_block_partial_lanes, 8);
  EXPECT_EQ(g.launched_warps, 4 * 8);
  EXPECT_EQ(g.working_warps, 3 * 8 + 8);
  EXPECT_EQ(g.wasted_lanes, 24);
  // The course sample's C7: 27 blocks of 192 (6 warps); the last holds 8 threads, so 5 of its 6
  // warps launch and leave at the guard: 162 launched, 157 working, 32·162 − 5000 wasted lanes.
  const GridTail c7 = grid_tail(5000, 192);
  EXPECT_EQ(c7.launched_warps, 162);
  EXPECT_EQ(c7.working_warps, 157);
  EXPECT_EQ(c7.wasted_lanes, 184);
  const GridTail exact = grid_tail(1024, 256);
  EXPECT_EQ(exact.last_block_threads, 256);
  EXPECT_EQ(exact.wasted_lanes, 0);
}

TEST(NoteExample, Block33UsesTwoWarpSlotsLike64) {
  EXPECT_EQ(warps_per_block(33), warps_per_block(64));
  EXPECT_EQ(warps_per_block(48), 2);
  EXPECT_EQ(tail_mask(33), 0x00000001u);
  EXPECT_EQ(tail_mask(48), 0x0000ffffu);
  EXPECT_EQ(tail_mask(1023), 0x7fffffffu);
  EXPECT_EQ(warp_mask(1023, 0), 0xffffffffu);
  EXPECT_EQ(warp_mask(1023, 31), 0x7fffffffu);
}

TEST(ModelProperty, FloorOfLastIndexPlusOneIsCeilOfTotal) {
  for (long long p = 1; p <= 4096; ++p) {
    const long long ceil_total = (p + kWarpSize - 1) / kWarpSize;
    ASSERT_EQ(warps_per_block(p), ceil_total) << "P = " << p;
    ASSERT_EQ(last_warp_id(p) + 1, ceil_total) << "P = " << p;
    ASSERT_EQ(kWarpSize * (warps_per_block(p) - 1) + tail_lanes(p), p) << "P = " << p;
    ASSERT_NEAR(lane_efficiency(p), static_cast<double>(p) / static_cast<double>(kWarpSize * ceil_total), 1e-15);
  }
}

TEST(ModelProperty, LinearIndexAndCoordinateAreInverse) {
  for (const BlockShape shape : {BlockShape{48, 4, 1}, BlockShape{8, 4, 3}, BlockShape{30, 30, 1},
                                 BlockShape{7, 5, 3}, BlockShape{1024, 1, 1}}) {
    const long long p = threads_per_block(shape);
    for (long long linear = 0; linear < p; ++linear) {
      ASSERT_EQ(linear_index(shape, thread_coord(shape, linear)), linear);
    }
  }
}

TEST(ModelProperty, LittlesLawAndPeak) {
  // 4.8 TB/s × 600 ns = 2.88 MB in flight; at 512 B per warp (32 lanes × 16 B) that is 5625 warps.
  const LittlesLaw l = littles_law(4.8e12, 600e-9, 512);
  EXPECT_NEAR(l.bytes_in_flight, 2.88e6, 1e-3);
  EXPECT_NEAR(l.warps_needed, 5625.0, 1e-9);
  // H200: 3201 MHz × 6144/8 B × 2 = 4.917 TB/s
  EXPECT_NEAR(theoretical_dram_peak_bytes_per_s(3'201'000, 6144), 4.9167e12, 1e8);
  EXPECT_EQ(arch_params(9, 0).schedulers_per_sm, 4);
  EXPECT_DOUBLE_EQ(arch_params(7, 5).issue_interval_cycles, 1.0);
}

TEST(ModelWarpPrimitives, CostIndependentOfLanesAndTheButterflyOfTheNote) {
  // The note: lane i reads i+16, then i+8, i+4, i+2, i+1: five steps for a warp, four for 16 lanes.
  EXPECT_EQ(butterfly_reduction_steps(32), 5);
  EXPECT_EQ(butterfly_reduction_steps(16), 4);
  EXPECT_EQ(butterfly_reduction_steps(2), 1);
  // 5 × (shuffle 23 + add 4) = 135 cycles, worked by hand.
  EXPECT_DOUBLE_EQ(butterfly_reduction_cycles(23, 4, 32), 135.0);
  EXPECT_DOUBLE_EQ(primitive_cost_vs_full_warp(1), 1.0);
  EXPECT_DOUBLE_EQ(primitive_cost_vs_full_warp(32), 1.0);
  EXPECT_THROW(butterfly_reduction_steps(24), std::invalid_argument);
  EXPECT_THROW(butterfly_reduction_steps(64), std::invalid_argument);
  EXPECT_THROW(primitive_cost_vs_full_warp(0), std::invalid_argument);
  EXPECT_THROW(primitive_cost_vs_full_warp(33), std::invalid_argument);
  EXPECT_THROW(butterfly_reduction_cycles(0, 4, 32), std::invalid_argument);
}

TEST(ModelErrors, BadArgumentsAreRejectedWithTheValueAndWhatIsAllowed) {
  EXPECT_EQ(message_of([] { warps_per_block(0); }), "threads per block P = 0; allowed: P >= 1");
  EXPECT_EQ(message_of([] { tail_mask(-5); }), "threads per block P = -5; allowed: P >= 1");
  EXPECT_EQ(message_of([] { warps_to_hide_latency(400, 0); }),
            "instructions between loads W = 0; allowed: W > 0");
  EXPECT_EQ(message_of([] { warps_to_hide_latency(-1, 4); }), "latency L = -1; allowed: L >= 0 cycles");
  EXPECT_EQ(message_of([] { threads_per_block({0, 4, 1}); }),
            "block shape = (0,4,1); allowed: every dimension >= 1");
  EXPECT_EQ(message_of([] { thread_coord({8, 4, 3}, 96); }), "linear index = 96; allowed: 0..95");
  EXPECT_EQ(message_of([] { divergent_time({{33, 1.0}}); }), "lanes on a path = 33; allowed: 0..32");
  EXPECT_EQ(message_of([] { divergent_time({{-1, 1.0}}); }), "lanes on a path = -1; allowed: 0..32");
  EXPECT_EQ(message_of([] { divergent_time({{20, 1.0}, {20, 1.0}}); }),
            "lanes over all paths = 40; allowed: at most 32 (one warp)");
  EXPECT_EQ(message_of([] { divergent_time({{20, -3.0}}); }), "path cost = -3; allowed: >= 0");
  EXPECT_EQ(message_of([] { grid_tail(0, 256); }), "total threads N = 0; allowed: N >= 1");
  EXPECT_EQ(message_of([] { scheduler_demand(4, 400, 1, 0, 64); }),
            "independent instructions per warp I_warp = 0; allowed: > 0");
  EXPECT_EQ(message_of([] { scheduler_demand(0, 400, 1, 20, 64); }),
            "schedulers per SM N_sched = 0; allowed: >= 1");
  EXPECT_EQ(message_of([] { warp_mask(100, 4); }), "warp = 4; allowed: 0..3");
  EXPECT_EQ(message_of([] { arch_params(3, 5); }),
            "compute capability = 3.5; allowed: >= 5.0 (Maxwell and later: 4 schedulers per SM)");
}

}  // namespace
}  // namespace warpcost::model

namespace warpcost::analysis {
namespace {

// The divergence runner's p10/p90 (moved here from a private copy): rank round(q (n - 1)) of the
// sorted values, no interpolation, whatever order the values come in.
TEST(Statistics, NearestRankPercentileTakesTheRoundedRank) {
  const std::vector<double> v = {110, 10, 90, 30, 50, 70, 20, 40, 60, 80, 100};
  EXPECT_DOUBLE_EQ(nearest_rank_percentile(v, 0.10), 20.0);   // rank 1
  EXPECT_DOUBLE_EQ(nearest_rank_percentile(v, 0.90), 100.0);  // rank 9
  EXPECT_DOUBLE_EQ(nearest_rank_percentile(v, 0.0), 10.0);
  EXPECT_DOUBLE_EQ(nearest_rank_percentile(v, 1.0), 110.0);
  EXPECT_DOUBLE_EQ(nearest_rank_percentile({1, 2, 3, 4}, 0.5), 3.0);  // rank 1.5 rounds up to 2
  EXPECT_THROW(nearest_rank_percentile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(nearest_rank_percentile(v, 1.5), std::invalid_argument);
}

}  // namespace
}  // namespace warpcost::analysis
