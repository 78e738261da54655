#include <cmath>

#include "kernels/common/block_clock_probe.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_util.cuh"
#include "kernels/partial_warp/kernels.hpp"

namespace warpcost::kernels {
namespace {

__device__ __forceinline__ unsigned int lane_id() {
  unsigned int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__global__ void record_schedule_kernel(ScheduleSample* slots) {
  // The two samples come first: any instruction above them, a bounds check above all, would be
  // part of what they measure.
  const long long cycle = clock64();
  const unsigned int active = __activemask();
  const unsigned int linear =
      threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  ScheduleSample s;
  s.clock = cycle;
  s.active_mask = active;
  s.warp_size = warpSize;
  s.smid = device::smid();
  s.lane_id = lane_id();
  s.linear = linear;
  s.tx = threadIdx.x;
  s.ty = threadIdx.y;
  s.tz = threadIdx.z;
  slots[linear] = s;
}

__device__ __forceinline__ float fma_chains(unsigned long long global_id, int iterations) {
  float a[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) a[c] = fma_seed(global_id, c);
  // The trip count is a runtime value: the compiler cannot fold the chains, and the loop body is
  // kFmaChains independent FMAs, enough to keep one scheduler issuing every cycle.
#pragma unroll 4
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) a[c] = fmaf(a[c], kFmaMultiplier, kFmaAddend);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c) sum += a[c];
  return sum;
}

__global__ void fma_blocks_kernel(float* out, int iterations, ClockSample* clocks) {
  BlockClockProbe probe;
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  out[gid] = fma_chains(gid, iterations);
  probe.finish(clocks);
}

__global__ void fma_grid_kernel(float* out, unsigned long long total, int iterations,
                                ClockSample* clocks) {
  // Thread 0 of every block is inside the total (the last block holds at least one thread), so
  // the probe runs before the guard and always finishes.
  BlockClockProbe probe;
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (gid < total) out[gid] = fma_chains(gid, iterations);
  probe.finish(clocks);
}

__global__ void tail_mask_kernel(unsigned int* masks, unsigned long long total) {
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (gid >= total) return;
  masks[gid] = __activemask();
}

__global__ void grid_record_kernel(unsigned int* warp_masks, unsigned int* thread_masks,
                                   unsigned long long total) {
  // Read first, with no branch above it: the mask of the lanes the launch started in this warp.
  const unsigned int launched = __activemask();
  const unsigned int warps_per_block = (blockDim.x + 31u) / 32u;
  if ((threadIdx.x & 31u) == 0u) {
    warp_masks[blockIdx.x * static_cast<unsigned long long>(warps_per_block) + threadIdx.x / 32u] = launched;
  }
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (gid >= total) return;
  thread_masks[gid] = __activemask();
}

unsigned int blocks_for(unsigned long long total, unsigned int threads_per_block) {
  return static_cast<unsigned int>((total + threads_per_block - 1) / threads_per_block);
}

}  // namespace

void launch_record_schedule(unsigned int x, unsigned int y, unsigned int z, ScheduleSample* d_slots,
                            cudaStream_t stream) {
  record_schedule_kernel<<<1, dim3(x, y, z), 0, stream>>>(d_slots);
  WARPCOST_CHECK_LAUNCH("record_schedule_kernel");
}

void launch_fma_blocks(unsigned int blocks, unsigned int threads_per_block, int iterations,
                       float* d_out, ClockSample* d_clocks, cudaStream_t stream) {
  fma_blocks_kernel<<<blocks, threads_per_block, 0, stream>>>(d_out, iterations, d_clocks);
  WARPCOST_CHECK_LAUNCH("fma_blocks_kernel");
}

void launch_fma_grid(unsigned long long total_threads, unsigned int threads_per_block,
                     int iterations, float* d_out, ClockSample* d_clocks, cudaStream_t stream) {
  fma_grid_kernel<<<blocks_for(total_threads, threads_per_block), threads_per_block, 0, stream>>>(
      d_out, total_threads, iterations, d_clocks);
  WARPCOST_CHECK_LAUNCH("fma_grid_kernel");
}

void launch_record_tail_masks(unsigned long long total_threads, unsigned int threads_per_block,
                              unsigned int* d_masks, cudaStream_t stream) {
  tail_mask_kernel<<<blocks_for(total_threads, threads_per_block), threads_per_block, 0, stream>>>(
      d_masks, total_threads);
  WARPCOST_CHECK_LAUNCH("tail_mask_kernel");
}

void launch_record_grid(unsigned long long total_threads, unsigned int threads_per_block,
                        unsigned int* d_warp_masks, unsigned int* d_thread_masks, cudaStream_t stream) {
  grid_record_kernel<<<blocks_for(total_threads, threads_per_block), threads_per_block, 0, stream>>>(
      d_warp_masks, d_thread_masks, total_threads);
  WARPCOST_CHECK_LAUNCH("grid_record_kernel");
}

int fma_blocks_per_sm(unsigned int threads_per_block) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, fma_blocks_kernel, static_cast<int>(threads_per_block), 0));
  return blocks;
}

}  // namespace warpcost::kernels
