// The warp-primitives family on the device: one runner per point that launches its chain kernel,
// checks its outputs against the host reference once (outside the timed launches), and reads the
// clocks of the last launch back (cycles per op, or per-SM throughput).
#pragma once

#include <vector>

#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_facts.hpp"
#include "bench/common/device_info.hpp"
#include "bench/warp_primitives/plan.hpp"
#include "kernels/warp_primitives/kernels.hpp"

namespace warpcost::warp_primitives {

DeviceFacts primitive_facts(const DeviceInfo& device);
// The same five facts from the suite's plan facts (a device or a profile, bench/common/device_facts.hpp).
DeviceFacts primitive_facts(const ::warpcost::DeviceFacts& device);

class PrimitivesRunner {
 public:
  // Throws std::invalid_argument naming the value when the point is not valid on this device (a
  // parameter, a primitive this GPU lacks, blocks that would not all be resident at once).
  PrimitivesRunner(const DeviceInfo& device, const Point& point);

  // The timed launch: the kernel alone.
  void launch(const Stream& stream);
  // One launch, then every thread's chain values against the host reference; throws
  // std::runtime_error naming the first difference (or that the kernel found no reduction).
  void check(const Stream& stream);
  // The last launch's clocks (synchronizes the stream first).
  double cycles_per_op(const Stream& stream);    // latency: the median warp's cycles / ops
  SmThroughput throughput(const Stream& stream);  // warp-ops per cycle per SM, the median SM

  const Point& point() const { return point_; }
  const Shape& shape() const { return shape_; }
  int body_inst_per_op() const;
  long long warps_launched() const;
  int resident_warps_cap() const { return facts_.max_warps_per_sm; }

 private:
  Point point_;
  DeviceFacts facts_;
  Shape shape_;
  DeviceBuffer<unsigned long long> values_;
  DeviceBuffer<kernels::WarpSideClock> warp_clocks_;
  DeviceBuffer<kernels::BlockSpan> block_spans_;
  DeviceBuffer<int> not_on_this_gpu_;
  kernels::PrimitiveChainArgs args_;
};

}  // namespace warpcost::warp_primitives
