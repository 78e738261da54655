// The coalescing family on the device: one pattern-filled buffer for the whole family, and one
// runner per configuration that launches the point's kernel and checks its output against the
// host replay once, outside the timed launches.
#pragma once

#include <cstdint>
#include <string>

#include "bench/coalescing/plan.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"
#include "kernels/coalescing/kernels.hpp"

namespace warpcost::coalescing {

// The family's one allocation (2 GiB: the DRAM region; the L2 region and the image are its start).
// Loads need it to hold the fill pattern; a store point writes into it, so the next load point
// refills it first.
class CoalescingBuffer {
 public:
  explicit CoalescingBuffer(std::uint64_t bytes = kDramRegionBytes);
  unsigned char* bytes_data() const { return reinterpret_cast<unsigned char*>(words_.data()); }
  const std::uint32_t* words() const { return words_.data(); }
  std::uint64_t bytes() const { return words_.bytes(); }
  void ensure_pattern(const Stream& stream);
  void mark_written() { holds_pattern_ = false; }

 private:
  DeviceBuffer<std::uint32_t> words_;
  bool holds_pattern_ = false;
};

// "" or why the family's buffer does not fit in `free_bytes` of device memory.
std::string buffer_problem(std::uint64_t free_bytes);

class CoalescingRunner {
 public:
  // Throws std::invalid_argument naming the value when the point is not valid on this device.
  CoalescingRunner(const DeviceInfo& device, const Point& point, CoalescingBuffer& buffer);

  // The timed launch: the kernel alone.
  void launch(const Stream& stream);
  // One launch, then its output against the host replay (loads: sampled warps' sums; stores: the
  // sampled slots read back byte by byte); throws std::runtime_error naming the first difference.
  void check(const Stream& stream);

  const Point& point() const { return point_; }
  std::uint64_t useful_bytes() const;   // bytes the active lanes ask for, a launch
  std::uint64_t warp_requests() const;  // warp-level memory instructions, a launch
  std::uint64_t region_bytes() const;   // bytes the launch cycles over
  const ImagePlan& image() const { return image_; }

 private:
  void check_load_sums(const Stream& stream);
  void check_stores(const Stream& stream);

  Point point_;
  CoalescingBuffer& buffer_;
  TilePlan tiles_;
  SegmentPlan segments_;
  ImagePlan image_;
  DeviceBuffer<std::uint32_t> warp_sums_;
};

}  // namespace warpcost::coalescing
