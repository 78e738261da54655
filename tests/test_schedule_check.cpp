// The recorder's gates and model comparison on synthetic records: a block the hardware would
// record, then one planted fault per gate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/schedule_check.hpp"

namespace warpcost::analysis {
namespace {

constexpr std::size_t kSlots = 1024 + 64;

// What a correct recorder writes for `shape`: lanes from the linear index, one mask and clock per warp.
std::vector<ThreadRecord> perfect(const model::BlockShape& shape) {
  std::vector<ThreadRecord> slots(kSlots);
  const long long p = model::threads_per_block(shape);
  for (long long t = 0; t < p; ++t) {
    ThreadRecord& r = slots[static_cast<std::size_t>(t)];
    const model::ThreadCoord c = model::thread_coord(shape, t);
    r.written = true;
    r.clock = 1000 + 2 * model::warp_of(t);
    r.active_mask = model::warp_mask(p, model::warp_of(t));
    r.warp_size = 32;
    r.smid = 5;
    r.lane_id = static_cast<unsigned>(model::lane_of(t));
    r.linear = static_cast<unsigned>(t);
    r.tx = static_cast<unsigned>(c.x);
    r.ty = static_cast<unsigned>(c.y);
    r.tz = static_cast<unsigned>(c.z);
  }
  return slots;
}

TEST(ScheduleCheck, ACorrectRecordingPassesAndMatchesTheModel) {
  const model::BlockShape shape{48, 4, 1};
  const ScheduleCheck c = check_schedule(shape, perfect(shape), 32);
  EXPECT_TRUE(c.gates_passed());
  EXPECT_TRUE(c.model_mismatches.empty());
  EXPECT_EQ(c.threads, 192);
  EXPECT_EQ(c.warps_observed, 6);
  EXPECT_EQ(c.tail_mask_observed, 0xffffffffu);
  EXPECT_EQ(c.threads_mapped_as_model, 192);
  EXPECT_EQ(c.warps_with_one_clock, 6);
  EXPECT_EQ(c.distinct_sms, 1);
  ASSERT_EQ(c.warps.size(), 6u);
  EXPECT_EQ(c.warps[1].cycles, 2);
  const std::string table = schedule_table(c);
  EXPECT_NE(table.find("192 threads, block (48,4,1), 1 block: 6 warp(s) (model 6)"), std::string::npos)
      << table;
}

TEST(ScheduleCheck, TailWarpOf33) {
  const model::BlockShape shape{33, 1, 1};
  const ScheduleCheck c = check_schedule(shape, perfect(shape), 32);
  EXPECT_TRUE(c.gates_passed());
  EXPECT_EQ(c.warps_observed, 2);
  EXPECT_EQ(c.tail_mask_observed, 0x00000001u);
  ASSERT_EQ(c.warps.size(), 2u);
  EXPECT_EQ(c.warps[1].lanes, 1);
}

TEST(ScheduleCheck, Gate1WarpSizeMustAgreeThreeWays) {
  const model::BlockShape shape{64, 1, 1};
  auto slots = perfect(shape);
  slots[40].warp_size = 64;
  const ScheduleCheck c = check_schedule(shape, slots, 32);
  ASSERT_FALSE(c.gates_passed());
  EXPECT_EQ(c.gate_failures[0],
            "gate 1: thread 40 of block (64,1,1): warpSize 64, device attribute 32, compiled 32");
  EXPECT_FALSE(check_schedule(shape, perfect(shape), 64).gates_passed());  // device disagrees
}

TEST(ScheduleCheck, Gate2OwnLaneBitMustBeInTheMask) {
  const model::BlockShape shape{48, 1, 1};
  auto slots = perfect(shape);
  slots[35].active_mask = 0x0000fff7u;  // lane 3 missing
  const ScheduleCheck c = check_schedule(shape, slots, 32);
  ASSERT_FALSE(c.gates_passed());
  EXPECT_EQ(c.gate_failures[0], "gate 2: thread 35 of block (48,1,1): lane 3 is not in its mask 0x0000fff7");
}

TEST(ScheduleCheck, Gate3NothingOutsideAndEverythingInside) {
  const model::BlockShape shape{100, 1, 1};
  auto slots = perfect(shape);
  slots[100].written = true;
  slots[7].written = false;
  const ScheduleCheck c = check_schedule(shape, slots, 32);
  ASSERT_EQ(c.gate_failures.size(), 2u);
  EXPECT_EQ(c.gate_failures[0], "gate 3: slot 100 outside block (100,1,1) (100 threads) was written");
  EXPECT_EQ(c.gate_failures[1], "gate 3: thread 7 of block (100,1,1) never wrote its slot");
}

TEST(ScheduleCheck, MappingOffTheModelIsReportedNotGated) {
  const model::BlockShape shape{8, 4, 3};
  auto slots = perfect(shape);
  std::swap(slots[70].tx, slots[70].ty);  // (6,0,2) recorded as (0,6,2)
  slots[70].clock += 1;                   // and its warp split in time
  const ScheduleCheck c = check_schedule(shape, slots, 32);
  EXPECT_TRUE(c.gates_passed());
  EXPECT_EQ(c.threads_mapped_as_model, 95);
  ASSERT_EQ(c.model_mismatches.size(), 1u);
  EXPECT_NE(c.model_mismatches[0].find("(0,6,2) (model (6,0,2))"), std::string::npos);
  EXPECT_EQ(c.warps_with_one_clock, 2);
}

TEST(ScheduleCheck, ThreadTableListsEveryThread) {
  const model::BlockShape shape{33, 1, 1};
  const auto slots = perfect(shape);
  const std::string table = thread_table(check_schedule(shape, slots, 32), slots);
  EXPECT_NE(table.find("      32  (32,0,0)               1     0   0x00000001"), std::string::npos)
      << table;
}

TEST(ScheduleCheck, TooFewSlotsIsABadArgument) {
  EXPECT_THROW(check_schedule({64, 1, 1}, std::vector<ThreadRecord>(10), 32), std::invalid_argument);
}

}  // namespace
}  // namespace warpcost::analysis
