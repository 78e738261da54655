// The warp-primitives plan (a pure function of the device facts), its validators, the launch
// shapes, the per-SM and per-warp statistics and the host reference, against hand calculation (or,
// for the two chains too long to work out by hand, a second implementation of the chain's rule).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "bench/common/sampling.hpp"
#include "bench/warp_primitives/plan.hpp"

namespace warpcost::warp_primitives {
namespace {

const DeviceFacts kH200{90, 132, 64, 1024, 32};
const DeviceFacts kTuring{75, 40, 32, 1024, 16};
const DeviceFacts kAmpereGa102{86, 84, 48, 1024, 16};

int count(const std::vector<Point>& points, Kind kind) {
  int n = 0;
  for (const Point& p : points) n += p.kind == kind;
  return n;
}

TEST(WarpPrimitivesPlan, SweepEndsAtTheDevicesCap) {
  EXPECT_EQ(warps_sweep(kH200), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(warps_sweep(kAmpereGa102), (std::vector<int>{1, 2, 4, 8, 16, 32, 48}));
  EXPECT_EQ(warps_sweep(kTuring), (std::vector<int>{1, 2, 4, 8, 16, 32}));
}

TEST(WarpPrimitivesPlan, PointCountsByHand) {
  // H200: 22 full-warp latency points (23 primitives less activemask, which is not timed);
  // 7 primitives x (5 contiguous + 4 scattered + 1 divergent); throughput: 11 primitives x 7
  // warps/SM + the other 11 at the cap; 2 x 3 lane points at the cap.
  const std::vector<Point> h200 = plan(kH200);
  EXPECT_EQ(count(h200, Kind::kLatency), 22 + 70);
  EXPECT_EQ(count(h200, Kind::kThroughput), 77 + 11 + 6);
  // Turing (cc 7.5): no reductions, no activemask: 19 full-warp points, 6 lane primitives (no
  // reduce_add), the sweep of 6: 10 primitives x 6 + 9 others at the cap, 6 lane points.
  const std::vector<Point> turing = plan(kTuring);
  EXPECT_EQ(count(turing, Kind::kLatency), 19 + 60);
  EXPECT_EQ(count(turing, Kind::kThroughput), 60 + 9 + 6);
  for (const Point& p : h200) EXPECT_NE(p.primitive, 18) << "activemask is not timed";
  for (const Point& p : turing) {
    EXPECT_FALSE(p.primitive >= 14 && p.primitive <= 16) << "reduction " << p.primitive << " planned on cc 7.5";
    EXPECT_LE(p.warps_per_sm, 32);
  }
  // Every point valid, none twice.
  std::set<std::pair<int, std::vector<long long>>> seen;
  for (const Point& p : h200) {
    EXPECT_EQ(point_problem(p, kH200), "");
    EXPECT_TRUE(seen.insert({static_cast<int>(p.kind), args_of(p)}).second);
  }
}

TEST(WarpPrimitivesPlan, TheFamilyFitsItsTimeBudget) {
  // Each point's sampling stops at the rule's wall-time cap at the latest (0.05 s by default): the
  // family's timing share can not pass points x cap. Its expected share (docs) is far less.
  const sampling::Rule rule;
  EXPECT_LE(static_cast<double>(plan(kH200).size()) * rule.time_cap_s, 10.0);
}

TEST(WarpPrimitivesPlan, TheCapPointIsTheDevicesOwn) {
  Point above;
  above.kind = Kind::kThroughput;
  above.primitive = 4;
  above.warps_per_sm = 64;
  EXPECT_TRUE(in_plan(above, kH200));
  EXPECT_FALSE(in_plan(above, kAmpereGa102));
}

TEST(WarpPrimitivesPlan, ValidatorsNameTheValue) {
  EXPECT_EQ(primitive_problem(23, 90), "primitive = 23. allowed: 0..22");
  EXPECT_EQ(primitive_problem(14, 75), "reduce_add needs cc 8.0; not on this GPU (cc 7.5)");
  EXPECT_EQ(primitive_problem(14, 80), "");
  EXPECT_EQ(lanes_problem(0), "active lanes = 0. allowed: 1..32");
  EXPECT_EQ(mask_problem(3, 8), "mask = 3. allowed: 0 (contiguous), 1 (scattered), 2 (divergent)");
  EXPECT_NE(mask_problem(2, 32), "");
  EXPECT_EQ(warps_problem(65, kH200), "warps/SM = 65. allowed: 1..64 (this device's cap)");
  Point sum;
  sum.primitive = 19;
  sum.active_lanes = 16;
  EXPECT_EQ(point_problem(sum, kH200), "sum_butterfly sums the whole warp: allowed only with 32 contiguous lanes");
  EXPECT_NE(facts_problem(DeviceFacts{90, 0, 64, 1024, 32}), "");
  EXPECT_THROW(plan(DeviceFacts{}), std::invalid_argument);
}

TEST(WarpPrimitivesPlan, ShapesByHand) {
  Point lat;
  lat.primitive = 4;
  lat.active_lanes = 16;
  lat.mask = 2;
  const Shape s = shape_of(lat, kH200);
  EXPECT_EQ(s.blocks, 132u);
  EXPECT_EQ(s.threads_per_block, 32u);
  EXPECT_EQ(s.mask_a, 0x0000ffffu);
  EXPECT_EQ(s.mask_b, 0xffff0000u);
  EXPECT_EQ(s.chains, 1);
  Point thr;
  thr.kind = Kind::kThroughput;
  thr.primitive = 4;
  thr.warps_per_sm = 64;
  const Shape t = shape_of(thr, kH200);
  EXPECT_EQ(t.blocks_per_sm, 2);
  EXPECT_EQ(t.blocks, 264u);
  EXPECT_EQ(t.threads_per_block, 1024u);
  EXPECT_EQ(t.chains, 4);
  thr.warps_per_sm = 48;
  const Shape u = shape_of(thr, kAmpereGa102);
  EXPECT_EQ(u.blocks_per_sm, 2);
  EXPECT_EQ(u.threads_per_block, 768u);
  thr.warps_per_sm = 8;
  EXPECT_EQ(shape_of(thr, kH200).threads_per_block, 256u);
}

TEST(WarpPrimitivesPlan, PerSmThroughputByHand) {
  // SM 3: two blocks spanning cycles 100..1100 (1000 cycles), 2 x 500 ops: 1.0. SM 7: one block,
  // 2000 cycles, 500 ops: 0.25. SM 9: 0.5. Median 0.5.
  const std::vector<SpanRecord> spans = {{100, 900, 3}, {200, 1100, 3}, {0, 2000, 7}, {50, 1050, 9}};
  const SmThroughput t = per_sm_throughput(spans, 500.0);
  EXPECT_EQ(t.sms, 3);
  EXPECT_DOUBLE_EQ(t.median_ops_per_cycle, 0.5);
  EXPECT_DOUBLE_EQ(t.median_span_cycles, 1000.0);
}

TEST(WarpPrimitivesPlan, CyclesPerOpByHand) {
  // Warp 0: one side, 1000..3048 over 2048 ops = 1.0; warp 1: two sides, 0..2048 and 2048..6144:
  // 6144 / 2048 = 3.0; warp 2: 4096 cycles = 2.0. Median 2.0.
  const std::vector<SideRecord> sides = {{1000, 3048}, {0, 0}, {0, 2048}, {2048, 6144}, {10, 4106}, {0, 0}};
  EXPECT_DOUBLE_EQ(median_cycles_per_op(sides, 2048), 2.0);
}

Shape full(std::uint32_t ops) {
  Shape s;
  s.mask_a = 0xffffffffu;
  s.chains = 1;
  s.ops = ops;
  return s;
}

unsigned long long at(const std::vector<std::optional<unsigned long long>>& v, int lane) {
  EXPECT_TRUE(v[static_cast<std::size_t>(lane)].has_value()) << "lane " << lane;
  return v[static_cast<std::size_t>(lane)].value_or(~0ull);
}

TEST(WarpPrimitivesReference, ShufflesByHand) {
  const auto seed = static_cast<unsigned long long>(kSeed);
  // xor 1 twice and idx (next lane) 32 times come back to the start: seed + lane.
  for (int lane : {0, 5, 31}) {
    EXPECT_EQ(at(reference_warp(4, full(2048)), lane), seed + lane);
    EXPECT_EQ(at(reference_warp(1, full(2048)), lane), seed + lane);
    EXPECT_EQ(at(reference_warp(8, full(2048)), lane), (seed + lane) * 0x100000001ull);  // both halves
  }
  // up 1 (lane 0 keeps its own) spreads lane 0's value over the warp in 31 ops; down spreads lane 31's.
  EXPECT_EQ(at(reference_warp(2, full(64)), 31), seed);
  EXPECT_EQ(at(reference_warp(3, full(64)), 0), seed + 31);
  EXPECT_EQ(at(reference_warp(2, full(1)), 7), seed + 6);
  // One active lane: its xor partner (lane 1) is outside the mask: undefined.
  Shape one = full(64);
  one.mask_a = 0x1u;
  EXPECT_FALSE(reference_warp(4, one)[0].has_value());
  EXPECT_FALSE(reference_warp(4, one)[1].has_value());  // lane 1 runs no chain
  // Divergent halves: each side's xor partners are on its own side.
  Shape halves = full(2048);
  halves.mask_a = 0x0000ffffu;
  halves.mask_b = 0xffff0000u;
  EXPECT_EQ(at(reference_warp(4, halves), 20), seed + 20);
}

TEST(WarpPrimitivesReference, VotesMatchesAndReductionsByHand) {
  const auto seed = static_cast<unsigned long long>(kSeed);
  // any/all: seed + lane is never 0, so op 1 gives 0 everywhere, op 2 gives 1, ...: even -> 1.
  EXPECT_EQ(at(reference_warp(10, full(2048)), 3), 1u);
  EXPECT_EQ(at(reference_warp(11, full(2048)), 3), 1u);
  EXPECT_EQ(at(reference_warp(10, full(1)), 3), 0u);
  // match_any on lane & 3: the lanes of each residue class: 0x11111111 << (lane & 3).
  EXPECT_EQ(at(reference_warp(12, full(64)), 6), 0x44444444u);
  // match_all on one value: the mask.
  EXPECT_EQ(at(reference_warp(13, full(64)), 6), 0xffffffffu);
  // reduce_add: op 1 = 32 seed + 496; each further op multiplies by 32, so 2048 ops give 0 mod 2^32.
  EXPECT_EQ(at(reference_warp(14, full(1)), 9), (32 * seed + 496) & 0xffffffffull);
  EXPECT_EQ(at(reference_warp(14, full(2)), 9), (32 * (32 * seed + 496)) & 0xffffffffull);
  EXPECT_EQ(at(reference_warp(14, full(2048)), 9), 0u);
  EXPECT_EQ(at(reference_warp(15, full(64)), 9), seed);
  EXPECT_EQ(at(reference_warp(16, full(64)), 9), seed + 31);
  // The butterfly sums equal the hardware sum, one full sum an op.
  EXPECT_EQ(at(reference_warp(19, full(2)), 4), (32 * (32 * seed + 496)) & 0xffffffffull);
  EXPECT_EQ(at(reference_warp(20, full(2)), 4), (32 * (32 * seed + 496)) & 0xffffffffull);
  // 64-bit values start with both halves seed + lane: no wrap in two ops.
  EXPECT_EQ(at(reference_warp(21, full(2)), 4), 32 * (32 * seed + 496) * 0x100000001ull);
  // Float: the sum of 12345..12376 is 395536, exact in a float.
  const auto f = reference_warp(22, full(1));
  const auto bits = static_cast<std::uint32_t>(at(f, 0));
  float value;
  std::memcpy(&value, &bits, sizeof value);
  EXPECT_EQ(value, 395536.0f);
  // Ballot, by a second implementation: op 1 is the ballot of (seed + j) bit j clear; from op 2
  // on every lane holds the same mask b, and the ballot of (b bit j clear) is ~b.
  std::uint32_t b1 = 0;
  for (int j = 0; j < 32; ++j) {
    if (((kSeed + static_cast<std::uint32_t>(j)) & (1u << j)) == 0) b1 |= 1u << j;
  }
  EXPECT_EQ(at(reference_warp(9, full(1)), 0), b1);
  EXPECT_EQ(at(reference_warp(9, full(2)), 0), ~b1);
  EXPECT_EQ(at(reference_warp(9, full(2048)), 0), ~b1);
}

TEST(WarpPrimitivesReference, AluChainBySecondImplementation) {
  std::uint32_t x = kSeed + 7, y = kSeed ^ 0x5bd1e995u;
  for (int k = 0; k < 2048; ++k) {
    if (k % 2 == 0) {
      x += y;
    } else {
      y += x;
    }
  }
  EXPECT_EQ(at(reference_warp(0, full(2048)), 7), static_cast<unsigned long long>(x) | (static_cast<unsigned long long>(y) << 32));
}

TEST(WarpPrimitivesReference, ActivemaskIsHeldToItsSide) {
  Shape s = full(64);
  s.mask_a = 0xffu;
  EXPECT_TRUE(reference_activemask_ok(s, 3, 0, (kSeed + 3) ^ 0x0fu));
  EXPECT_FALSE(reference_activemask_ok(s, 3, 0, (kSeed + 3) ^ 0x100u));
  EXPECT_FALSE(reference_warp(18, s)[3].has_value());
}

}  // namespace
}  // namespace warpcost::warp_primitives
