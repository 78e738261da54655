// Runs the schedule recorder for one block shape and hands its slots to the analysis' gates.
#pragma once

#include <string>
#include <vector>

#include "core/schedule_check.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"

namespace warpcost {

// Empty when the device can launch a block of this shape; otherwise one sentence naming the value
// and what is allowed.
std::string block_shape_problem(const DeviceInfo& device, long long x, long long y, long long z);

struct RecordedBlock {
  std::vector<analysis::ThreadRecord> slots;  // every slot, the guard past the block included
  analysis::ScheduleCheck check;
};

// Poisons max_threads_per_block + a guard of slots, launches one block of `shape`, copies every
// slot back and checks it. Throws std::invalid_argument for a shape the device cannot launch.
RecordedBlock record_schedule(const DeviceInfo& device, const model::BlockShape& shape,
                              const Stream& stream);

}  // namespace warpcost
