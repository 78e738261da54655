// The one way warpcost times device work: CUDA events around the launch only, read after the
// stop event completes; the L2 flush happens before the start event, outside the timed pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "bench/common/cuda_raii.hpp"

namespace warpcost {

// Overwrites a buffer at least as large as the L2 so the next timed launch starts cold.
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes) : scratch_(l2_bytes == 0 ? 0 : 2 * l2_bytes) {}
  void flush(const Stream& stream) {
    // A different byte each time, so no level of the memory system can treat it as a no-op.
    value_ = static_cast<std::uint8_t>(value_ + 1);
    if (scratch_.size() != 0) {
      WARPCOST_CUDA(cudaMemsetAsync(scratch_.data(), value_, scratch_.bytes(), stream.get()));
    }
  }
  std::size_t bytes() const noexcept { return scratch_.bytes(); }

 private:
  DeviceBuffer<std::uint8_t> scratch_;
  std::uint8_t value_ = 0;
};

// Seconds the device spent between the two events around `launch`.
template <class Launch>
double time_launch(const Stream& stream, EventPair& events, Launch&& launch) {
  events.record_start(stream);
  std::forward<Launch>(launch)();
  events.record_stop(stream);
  return events.elapsed_seconds();
}

}  // namespace warpcost
