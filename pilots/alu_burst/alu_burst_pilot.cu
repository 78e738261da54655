// Pilot (not part of the suite): do warps launched together on one scheduler stay in lockstep, so
// that their FFMA bursts collide every iteration (pilots/alu_burst/README.md, HA4)? A persistent
// 16-byte read stream shaped like the suite's read_independent kernel (one load a lane an iteration,
// W FFMAs on four side chains, the load's value folded into a sum), one block of N warps an SM
// (pinned by shared memory), timed with CUDA events (median of 15 launches after 2 warm-ups), with
// and without a start stagger: warp slot s (the SM's %warpid; its scheduler is s mod 4) spins
// (s / 4) x stagger cycles before its loop, so the warps of a scheduler start evenly spread over one
// iteration. Each warp also records its loop's cycles (clock64), so the iteration time is read in
// cycles without assuming a clock. Every thread's sum of loads is checked against a host replay for
// 32 threads spread over the grid, outside the timed launches. Prints CSV.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "explain/programs/example_support.cuh"  // WARPCOST_CUDA, median_kernel_seconds
#include "kernels/common/pattern.hpp"

namespace {

constexpr std::uint64_t kBytes = std::uint64_t{1} << 30;
constexpr std::uint64_t kElements = kBytes / 16;
constexpr std::uint32_t kSeed = 41;
constexpr int kChains = 4;

template <int W>
__global__ void __launch_bounds__(1024) burst_stream(const uint4* __restrict__ data, std::uint32_t* sums, float* sides,
                                                     long long* loop_cycles, long long stagger) {
  extern __shared__ unsigned char residency_pin[];  // sized so that one block fits an SM; never touched
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t gid = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (stagger > 0) {
    unsigned slot = 0;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
    const long long until = clock64() + static_cast<long long>(slot / 4) * stagger;
    while (clock64() < until) {
    }
  }
  float side[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) side[c] = 1.0f + 0.25f * c + 0.0625f * static_cast<float>(gid & 7u);
  std::uint32_t acc = 0;
  const long long t0 = clock64();
  for (std::uint64_t i = gid; i < kElements; i += stride) {
    const uint4 v = data[i];
    const std::uint32_t x = v.x ^ v.y ^ v.z ^ v.w;
#pragma unroll
    for (int j = 0; j < W; ++j) side[j % kChains] = fmaf(side[j % kChains], 0.999f, 0.001f);
    acc += x;
  }
  const long long t1 = clock64();
  sums[gid] = acc;
  sides[gid] = side[0] + side[1] + side[2] + side[3];
  if ((threadIdx.x & 31u) == 0) loop_cycles[gid / 32] = t1 - t0;
}

__global__ void fill(std::uint32_t* words, std::uint64_t count) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    words[i] = warpcost::pattern_word(i, kSeed);
  }
}

template <int W>
void launch(unsigned blocks, unsigned threads, std::size_t shared, const uint4* data, std::uint32_t* sums, float* sides,
            long long* cycles, long long stagger) {
  burst_stream<W><<<blocks, threads, shared>>>(data, sums, sides, cycles, stagger);
}

using Launcher = void (*)(unsigned, unsigned, std::size_t, const uint4*, std::uint32_t*, float*, long long*, long long);

template <int W>
void pin_shared(std::size_t shared) {
  WARPCOST_CUDA(cudaFuncSetAttribute(burst_stream<W>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
}

template <int W>
int resident(unsigned threads, std::size_t shared) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, burst_stream<W>, static_cast<int>(threads), shared));
  return blocks;
}

}  // namespace

int run() {
  using warpcost::examples::median_kernel_seconds;
  int sms = 0;
  WARPCOST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  WARPCOST_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, nvcc %d.%d\n", prop.name, sms, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  // One block an SM: more than half the SM's shared memory a block.
  const std::size_t shared = prop.sharedMemPerBlockOptin;
  pin_shared<0>(shared);
  pin_shared<128>(shared);
  pin_shared<256>(shared);
  uint4* data = nullptr;
  WARPCOST_CUDA(cudaMalloc(&data, kBytes));
  fill<<<sms * 8, 256>>>(reinterpret_cast<std::uint32_t*>(data), kBytes / 4);
  WARPCOST_CHECK_LAUNCH("fill");
  WARPCOST_CUDA(cudaDeviceSynchronize());
  const int most_warps = 16;
  std::uint32_t* sums = nullptr;
  float* sides = nullptr;
  long long* cycles = nullptr;
  const std::uint64_t most_threads = static_cast<std::uint64_t>(sms) * most_warps * 32;
  WARPCOST_CUDA(cudaMalloc(&sums, most_threads * sizeof(std::uint32_t)));
  WARPCOST_CUDA(cudaMalloc(&sides, most_threads * sizeof(float)));
  WARPCOST_CUDA(cudaMalloc(&cycles, most_threads / 32 * sizeof(long long)));
  std::printf("w,warps_per_sm,warps_per_scheduler,stagger_cycles,resident_blocks,seconds,bytes,iterations_lane0,"
              "loop_cycles_mean,loop_cycles_min,loop_cycles_max\n");
  int failures = 0;
  const int ws[] = {0, 128, 256};
  const Launcher launchers[] = {launch<0>, launch<128>, launch<256>};
  const int warps[] = {4, 5, 8, 12, 16};
  for (int wi = 0; wi < 3; ++wi) {
    const int w = ws[wi];
    double lone_iteration = 0;  // cycles an iteration at 4 warps/SM, no stagger: sets the stagger
    for (const int n : warps) {
      const unsigned threads = static_cast<unsigned>(n) * 32u;
      const int k = (n + 3) / 4;
      const int held = w == 0 ? resident<0>(threads, shared) : w == 128 ? resident<128>(threads, shared) : resident<256>(threads, shared);
      for (int staggered = 0; staggered < 2; ++staggered) {
        if (staggered && k == 1) continue;
        const long long stagger = staggered ? static_cast<long long>(lone_iteration / k) : 0;
        const std::uint64_t grid_threads = static_cast<std::uint64_t>(sms) * threads;
        WARPCOST_CUDA(cudaMemset(sums, 0xFF, grid_threads * sizeof(std::uint32_t)));
        const double s = median_kernel_seconds([&] {
          launchers[wi](static_cast<unsigned>(sms), threads, shared, data, sums, sides, cycles, stagger);
          WARPCOST_CHECK_LAUNCH("burst_stream");
        });
        // The loop cycles of the last launch, and the sums checked against the host replay.
        std::vector<long long> c(grid_threads / 32);
        WARPCOST_CUDA(cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        std::vector<std::uint32_t> got(grid_threads);
        WARPCOST_CUDA(cudaMemcpy(got.data(), sums, got.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
        bool ok = true;
        for (std::uint64_t i = 0; i < 32; ++i) {
          const std::uint64_t g = i * grid_threads / 32 + i;  // spread over the grid and the lanes
          std::uint32_t want = 0;
          for (std::uint64_t e = g; e < kElements; e += grid_threads) {
            want += warpcost::pattern_word(4 * e, kSeed) ^ warpcost::pattern_word(4 * e + 1, kSeed) ^
                    warpcost::pattern_word(4 * e + 2, kSeed) ^ warpcost::pattern_word(4 * e + 3, kSeed);
          }
          ok = ok && got[g] == want;
        }
        if (!ok) {
          std::fprintf(stderr, "output check failed: w=%d warps=%d stagger=%lld\n", w, n, stagger);
          ++failures;
        }
        const std::uint64_t iterations = (kElements + grid_threads - 1) / grid_threads;
        const double mean = std::accumulate(c.begin(), c.end(), 0.0) / static_cast<double>(c.size());
        const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
        if (n == 4 && !staggered) lone_iteration = mean / static_cast<double>(iterations);
        std::printf("%d,%d,%d,%lld,%d,%.9g,%llu,%llu,%.1f,%lld,%lld\n", w, n, k, stagger, held, s,
                    static_cast<unsigned long long>(kBytes), static_cast<unsigned long long>(iterations), mean, *lo, *hi);
        std::fflush(stdout);
      }
    }
  }
  WARPCOST_CUDA(cudaFree(data));
  WARPCOST_CUDA(cudaFree(sums));
  WARPCOST_CUDA(cudaFree(sides));
  WARPCOST_CUDA(cudaFree(cycles));
  std::printf("# output checks failed: %d\n", failures);
  return failures == 0 ? 0 : 1;
}

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "alu_burst_pilot: %s\n", e.what());
    return 1;
  }
}
