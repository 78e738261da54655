#include "bench/partial_warp/runner.hpp"

#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/partial_warp/kernels.hpp"

namespace warpcost {
namespace {

// Slots past the largest block: a write there would land outside any block's range.
constexpr int kGuardSlots = 64;

}  // namespace

std::string block_shape_problem(const DeviceInfo& device, long long x, long long y, long long z) {
  const long long dims[3] = {x, y, z};
  const char* names[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 1 || dims[d] > device.max_block_dim[d]) {
      return "block " + std::string(names[d]) + " = " + std::to_string(dims[d]) + "; allowed on " +
             device.name + ": 1.." + std::to_string(device.max_block_dim[d]);
    }
  }
  if (x * y * z > device.max_threads_per_block) {
    return "block (" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) +
           ") has " + std::to_string(x * y * z) + " threads; allowed on " + device.name +
           ": at most " + std::to_string(device.max_threads_per_block);
  }
  return {};
}

RecordedBlock record_schedule(const DeviceInfo& device, const model::BlockShape& shape,
                              const Stream& stream) {
  const std::string problem = block_shape_problem(device, shape.x, shape.y, shape.z);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const std::size_t slot_count = static_cast<std::size_t>(device.max_threads_per_block) + kGuardSlots;
  DeviceBuffer<kernels::ScheduleSample> slots(slot_count);
  WARPCOST_CUDA(cudaMemsetAsync(slots.data(), kernels::kSchedulePoisonByte, slots.bytes(), stream.get()));
  kernels::launch_record_schedule(static_cast<unsigned>(shape.x), static_cast<unsigned>(shape.y),
                                  static_cast<unsigned>(shape.z), slots.data(), stream.get());
  std::vector<kernels::ScheduleSample> raw(slot_count);
  WARPCOST_CUDA(cudaMemcpyAsync(raw.data(), slots.data(), slots.bytes(), cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();

  std::vector<unsigned char> poison(sizeof(kernels::ScheduleSample), kernels::kSchedulePoisonByte);
  std::vector<analysis::ThreadRecord> records(slot_count);
  for (std::size_t i = 0; i < slot_count; ++i) {
    const kernels::ScheduleSample& s = raw[i];
    analysis::ThreadRecord& r = records[i];
    r.written = std::memcmp(&s, poison.data(), sizeof s) != 0;
    r.clock = s.clock;
    r.active_mask = s.active_mask;
    r.warp_size = s.warp_size;
    r.smid = s.smid;
    r.lane_id = s.lane_id;
    r.linear = s.linear;
    r.tx = s.tx;
    r.ty = s.ty;
    r.tz = s.tz;
  }
  analysis::ScheduleCheck check = analysis::check_schedule(shape, records, device.warp_size);
  return RecordedBlock{std::move(records), std::move(check)};
}

}  // namespace warpcost
