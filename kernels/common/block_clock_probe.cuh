// The launch-long SM clock sample every timed kernel carries: thread 0 of the first and of the
// last block reads clock64() and %globaltimer at its block's start and end. Included by .cu files.
#pragma once

#include "kernels/common/device_util.cuh"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost::kernels {

// Thread 0 of the first and of the last block samples its SM's clock over its block's life, so
// every launch carries the clock it ran at. The branch splits one warp of each of those two blocks
// for a few instructions: a cost far below the timing noise.
struct BlockClockProbe {
  bool active;
  ClockSample sample;

  __device__ BlockClockProbe()
      : active(threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1)), sample{} {
    if (active) {
      sample.smid_start = device::smid();
      sample.ns_start = device::globaltimer_ns();
      sample.clock_start = clock64();
    }
  }
  __device__ void finish(ClockSample* slots) {
    if (active) {
      sample.clock_end = clock64();
      sample.ns_end = device::globaltimer_ns();
      sample.smid_end = device::smid();
      // A one-block grid is both the first and the last block: it fills both slots.
      if (blockIdx.x == 0) slots[0] = sample;
      if (blockIdx.x == gridDim.x - 1) slots[1] = sample;
    }
  }
};

}  // namespace warpcost::kernels
