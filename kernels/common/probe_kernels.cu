#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_util.cuh"
#include "kernels/common/pattern.hpp"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost::kernels {
namespace {

__global__ void clock_probe_kernel(ClockSample* sample, long long spin_cycles) {
  const unsigned int sm_at_start = device::smid();
  const unsigned long long ns_start = device::globaltimer_ns();
  const long long clock_start = clock64();
  long long now = clock_start;
  while (now - clock_start < spin_cycles) {
    now = clock64();
  }
  const unsigned long long ns_end = device::globaltimer_ns();
  sample->clock_start = clock_start;
  sample->clock_end = now;
  sample->ns_start = ns_start;
  sample->ns_end = ns_end;
  sample->smid_start = sm_at_start;
  sample->smid_end = device::smid();
}

__global__ void empty_kernel() {}

// A planted device fault (tests only): the trap ends the kernel with a launch failure, which leaves
// the CUDA context unusable, as a real Xid does.
__global__ void trap_kernel() { __trap(); }

__global__ void fill_pattern_kernel(std::uint32_t* words, std::size_t count, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    words[i] = pattern_word(i, seed);
  }
}

__global__ void count_mismatches_kernel(const std::uint32_t* words, std::size_t count,
                                        std::uint32_t seed, unsigned long long* mismatches) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    local += words[i] != pattern_word(i, seed) ? 1u : 0u;
  }
  if (local != 0) {
    atomicAdd(mismatches, local);
  }
}

constexpr unsigned int kGridStrideBlocks = 4096;
constexpr unsigned int kGridStrideThreads = 256;

}  // namespace

void launch_clock_probe(ClockSample* d_sample, long long spin_cycles, cudaStream_t stream) {
  if (spin_cycles <= 0) {
    throw std::invalid_argument("clock probe: spin_cycles = " + std::to_string(spin_cycles) +
                                "; allowed: > 0");
  }
  clock_probe_kernel<<<1, 1, 0, stream>>>(d_sample, spin_cycles);
  WARPCOST_CHECK_LAUNCH("clock_probe_kernel");
}

void launch_empty(unsigned int blocks, unsigned int threads_per_block, cudaStream_t stream) {
  empty_kernel<<<blocks, threads_per_block, 0, stream>>>();
  WARPCOST_CHECK_LAUNCH("empty_kernel");
}

void launch_trap() {
  trap_kernel<<<1, 1>>>();
  WARPCOST_CHECK_LAUNCH("trap_kernel");
}

void launch_fill_pattern(std::uint32_t* d_words, std::size_t count, std::uint32_t seed,
                         cudaStream_t stream) {
  fill_pattern_kernel<<<kGridStrideBlocks, kGridStrideThreads, 0, stream>>>(d_words, count, seed);
  WARPCOST_CHECK_LAUNCH("fill_pattern_kernel");
}

void launch_count_pattern_mismatches(const std::uint32_t* d_words, std::size_t count,
                                     std::uint32_t seed, unsigned long long* d_mismatches,
                                     cudaStream_t stream) {
  count_mismatches_kernel<<<kGridStrideBlocks, kGridStrideThreads, 0, stream>>>(d_words, count,
                                                                               seed, d_mismatches);
  WARPCOST_CHECK_LAUNCH("count_mismatches_kernel");
}

}  // namespace warpcost::kernels
