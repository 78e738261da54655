// The schedule recorder's gates and its comparison with the model, over plain per-thread records.
// Host-only: warpcost-bench and warpcost-record hand it what the recorder kernel wrote.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/models.hpp"

namespace warpcost::analysis {

struct ThreadRecord {
  bool written = false;  // false: the slot still holds the poison written before the launch
  long long clock = 0;
  std::uint32_t active_mask = 0;
  int warp_size = 0;
  unsigned int smid = 0;
  unsigned int lane_id = 0;  // %laneid
  unsigned int linear = 0;
  unsigned int tx = 0, ty = 0, tz = 0;
};

struct WarpRow {
  long long warp = 0;
  int lanes = 0;                    // threads of the block in this warp
  std::uint32_t mask = 0;           // mask of its first thread
  long long cycles = 0;             // its first thread's clock64 minus the block's earliest
  bool one_mask = false;            // every thread of the warp saw the same mask
  bool one_clock = false;           // ... read the same clock64 value
  bool one_sm = false;              // ... ran on the same SM
  unsigned int smid = 0;
};

struct ScheduleCheck {
  model::BlockShape shape;
  long long threads = 0;
  // Gates: the warp size agrees three ways, every thread's lane bit is in its own mask, nothing was
  // written outside the block's slots (and every slot inside was). Each failure names the thread,
  // the block shape and the value.
  std::vector<std::string> gate_failures;
  // The model: lane = linear mod 32 (%laneid), (tx,ty,tz) = the inverse of linear with x fastest,
  // mask = the model's mask for the thread's warp.
  std::vector<std::string> model_mismatches;
  long long warps_observed = 0;          // threads whose hardware lane is 0
  std::uint32_t tail_mask_observed = 0;  // the mask the block's last thread saw
  long long threads_mapped_as_model = 0;
  long long warps_with_one_clock = 0;
  long long warps_with_one_sm = 0;
  long long distinct_sms = 0;
  std::vector<WarpRow> warps;

  bool gates_passed() const { return gate_failures.empty(); }
};

// `slots` holds every slot the recorder could write (at least threads_per_block(shape) of them);
// the ones past the block must be unwritten. Throws std::invalid_argument on a bad shape or too few
// slots.
ScheduleCheck check_schedule(const model::BlockShape& shape, const std::vector<ThreadRecord>& slots,
                             int device_warp_size);

// The lesson's per-warp table: warp, lanes, active mask, cycles, one mask, one clock, SM.
std::string schedule_table(const ScheduleCheck& check);

// Every thread of the block: (x,y,z), warp, hardware lane, mask and cycles, ungrouped.
std::string thread_table(const ScheduleCheck& check, const std::vector<ThreadRecord>& slots);

std::string shape_text(const model::BlockShape& shape);

}  // namespace warpcost::analysis
