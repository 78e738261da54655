// Probe kernels every family shares (the calibration family measures them): the SM clock probe,
// the empty kernel for launch cost, and the pattern fill and check that prove a device-to-device
// copy moved the right bytes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace warpcost::kernels {

// One thread's view of the SM clock over a busy-wait: clock64() and %globaltimer at both ends, and
// the SM it ran on at both ends (the two must match for the cycle count to mean anything).
struct ClockSample {
  long long clock_start;
  long long clock_end;
  unsigned long long ns_start;
  unsigned long long ns_end;
  unsigned int smid_start;
  unsigned int smid_end;
};

// Busy-waits one thread of one block for at least spin_cycles SM cycles (> 0).
void launch_clock_probe(ClockSample* d_sample, long long spin_cycles, cudaStream_t stream);

// An empty kernel: what launching costs when the kernel does nothing.
void launch_empty(unsigned int blocks, unsigned int threads_per_block, cudaStream_t stream);

// A kernel that traps (tests only: WARPCOST_PLANT_DEVICE_FAULT): a real launch failure that leaves
// the CUDA context unusable, as a lost device does.
void launch_trap();

// d_words[i] = pattern_word(i, seed) for i < count.
void launch_fill_pattern(std::uint32_t* d_words, std::size_t count, std::uint32_t seed,
                         cudaStream_t stream);

// Adds to *d_mismatches the number of i < count with d_words[i] != pattern_word(i, seed).
void launch_count_pattern_mismatches(const std::uint32_t* d_words, std::size_t count,
                                     std::uint32_t seed, unsigned long long* d_mismatches,
                                     cudaStream_t stream);

}  // namespace warpcost::kernels
