// Partial-warp family: the per-thread schedule recorder, and the issue-bound FMA work whose
// useful throughput shows what lanes a block size leaves idle.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/probe_kernels.hpp"

namespace warpcost::kernels {

// What one thread saw at the sample: read with no branch above it, so the mask is the launch's.
struct ScheduleSample {
  long long clock;           // clock64() at the sample
  unsigned int active_mask;  // __activemask() at the sample
  int warp_size;             // the built-in warpSize
  unsigned int smid;         // %smid
  unsigned int lane_id;      // %laneid: the hardware's lane of this thread
  unsigned int linear;       // tx + ty·Dx + tz·Dx·Dy, the slot the thread wrote
  unsigned int tx, ty, tz;
};

// The byte every recorder slot is filled with before the launch; a slot still holding it was not
// written.
inline constexpr unsigned char kSchedulePoisonByte = 0xA5;

// One block of shape (x, y, z); thread `linear` writes slots[linear]. The caller validates the shape
// and gives at least x·y·z slots.
void launch_record_schedule(unsigned int x, unsigned int y, unsigned int z, ScheduleSample* d_slots,
                            cudaStream_t stream);

// Independent FMA chains per thread: issue-bound work whose result every thread stores.
inline constexpr int kFmaChains = 8;
inline constexpr float kFmaMultiplier = 0.999f;
inline constexpr float kFmaAddend = 0.001f;
// Chain c of thread global_id starts here, on the device and in the host replay alike: multiples of
// 1/1024 below 1, exact in float, different per thread and chain.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline float fma_seed(unsigned long long global_id, int chain) {
  return static_cast<float>((global_id * kFmaChains + static_cast<unsigned long long>(chain)) % 1024u) *
         (1.0f / 1024.0f);
}

// Every thread of `blocks` 1D blocks of `threads_per_block` runs `iterations` rounds of kFmaChains
// FMAs and writes its sum to d_out[global id]. No guard: every launched thread is useful. Thread 0
// of the first and of the last block also record their SM's clock over their block's life into
// d_clocks[0] and d_clocks[1] (ClockSample from kernels/common/probe_kernels.hpp), so each launch carries the SM
// clock it ran at.
void launch_fma_blocks(unsigned int blocks, unsigned int threads_per_block, int iterations,
                       float* d_out, ClockSample* d_clocks, cudaStream_t stream);

// The same work for a grid of `total_threads` in blocks of `threads_per_block`: threads past the
// total skip it (the grid tail). Clock samples as for launch_fma_blocks.
void launch_fma_grid(unsigned long long total_threads, unsigned int threads_per_block,
                     int iterations, float* d_out, ClockSample* d_clocks, cudaStream_t stream);

// The grid-tail mask recorder: thread g < total_threads writes __activemask() after the guard to
// d_masks[g]; threads past the total write nothing.
void launch_record_tail_masks(unsigned long long total_threads, unsigned int threads_per_block,
                              unsigned int* d_masks, cudaStream_t stream);

// The grid recorder of `warpcost-record --grid`: before the guard, lane 0 of every launched warp
// writes the warp's __activemask() to d_warp_masks[block·ceil(B/32) + warp of the block]; after it,
// thread g < total_threads writes its own __activemask() to d_thread_masks[g]. The caller gives
// blocks·ceil(B/32) warp slots and blocks·B thread slots, all zero (a written mask is never 0).
void launch_record_grid(unsigned long long total_threads, unsigned int threads_per_block,
                        unsigned int* d_warp_masks, unsigned int* d_thread_masks, cudaStream_t stream);

// Resident blocks per SM of launch_fma_blocks' kernel, from cudaOccupancyMaxActiveBlocksPerMultiprocessor.
int fma_blocks_per_sm(unsigned int threads_per_block);

// Host replay of one thread's result, bit for bit (std::fma is the same fused operation as fmaf).
float fma_reference(unsigned long long global_id, int iterations);

}  // namespace warpcost::kernels
