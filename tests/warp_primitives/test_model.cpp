// The warp-primitives table and models, against hand calculation.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/warp_primitives/model.hpp"

namespace warpcost::warp_primitives {
namespace {

TEST(WarpPrimitivesModel, TableIsInIdOrderWithUniqueNames) {
  ASSERT_EQ(primitives().size(), static_cast<std::size_t>(kPrimitiveCount));
  for (int i = 0; i < kPrimitiveCount; ++i) {
    EXPECT_EQ(static_cast<int>(primitives()[static_cast<std::size_t>(i)].id), i);
    EXPECT_EQ(find_primitive(primitives()[static_cast<std::size_t>(i)].name), &primitives()[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(find_primitive("shfl_sideways"), nullptr);
  EXPECT_THROW(info(static_cast<Primitive>(23)), std::out_of_range);
}

TEST(WarpPrimitivesModel, ReductionsNeedCc80AndMatchCc70) {
  EXPECT_FALSE(available(info(Primitive::kReduceAdd), 75));
  EXPECT_TRUE(available(info(Primitive::kReduceAdd), 80));
  EXPECT_TRUE(available(info(Primitive::kReduceMax), 90));
  EXPECT_TRUE(available(info(Primitive::kMatchAny), 75));
  EXPECT_TRUE(available(info(Primitive::kShflXor32), 75));
}

TEST(WarpPrimitivesModel, MasksByHand) {
  EXPECT_EQ(lane_mask(32, MaskShape::kContiguous), 0xffffffffu);
  EXPECT_EQ(lane_mask(1, MaskShape::kContiguous), 0x1u);
  EXPECT_EQ(lane_mask(16, MaskShape::kContiguous), 0xffffu);
  EXPECT_EQ(lane_mask(31, MaskShape::kContiguous), 0x7fffffffu);
  // Scattered: bit-reverse(i) xor 0b10101. i = 0 -> 21; i = 1 -> 16 ^ 21 = 5.
  EXPECT_EQ(lane_mask(1, MaskShape::kScattered), 1u << 21);
  EXPECT_EQ(lane_mask(2, MaskShape::kScattered), (1u << 21) | (1u << 5));
  // The first 16 bit-reversed lanes are the even ones; xor 0b10101 makes them the odd ones.
  EXPECT_EQ(lane_mask(16, MaskShape::kScattered), 0xaaaaaaaau);
  // All but bit-reverse(31) ^ 21 = 31 ^ 21 = 10.
  EXPECT_EQ(lane_mask(31, MaskShape::kScattered), 0xffffffffu & ~(1u << 10));
  EXPECT_EQ(lane_mask(32, MaskShape::kScattered), 0xffffffffu);
  for (int n = 1; n <= 32; ++n) EXPECT_EQ(popcount(lane_mask(n, MaskShape::kScattered)), n) << n;
  EXPECT_THROW(lane_mask(0, MaskShape::kContiguous), std::invalid_argument);
  EXPECT_THROW(lane_mask(33, MaskShape::kScattered), std::invalid_argument);
}

TEST(WarpPrimitivesModel, ButterflyIsFiveShufflesAndAdds) { EXPECT_DOUBLE_EQ(butterfly_latency(24.0, 4.0), 140.0); }

TEST(WarpPrimitivesModel, GuideTableConvertsResultsToWarpInstructions) {
  // 32 results/clock/SM / 32 lanes = 1 SHFL a clock; a 64-bit op issues 2.
  EXPECT_DOUBLE_EQ(*guide_shuffle_ops_per_cycle(90, 1), 1.0);
  EXPECT_DOUBLE_EQ(*guide_shuffle_ops_per_cycle(90, 2), 0.5);
  EXPECT_FALSE(guide_shuffle_ops_per_cycle(80, 1).has_value());
}

TEST(WarpPrimitivesModel, LittlesLawKnee) {
  EXPECT_DOUBLE_EQ(little_knee_warps(24.0, 1.0, 4), 6.0);
  EXPECT_DOUBLE_EQ(little_knee_warps(4.0, 2.0, 4), 2.0);
  // 90 % of the best (1.0) is first reached at 8 warps/SM.
  EXPECT_EQ(*measured_knee({{64, 1.0}, {1, 1.0 / 6}, {8, 0.95}, {4, 2.0 / 3}, {2, 1.0 / 3}}, 0.9), 8.0);
  EXPECT_FALSE(measured_knee({}, 0.9).has_value());
}

}  // namespace
}  // namespace warpcost::warp_primitives
