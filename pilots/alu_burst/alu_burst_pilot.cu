// Pilot (not part of the suite): do warps launched together on one scheduler stay in lockstep, so
// that their FFMA bursts collide every iteration (pilots/alu_burst/README.md, HA4)? A persistent
// 16-byte read stream shaped like the suite's read_independent kernel (one load a lane an iteration,
// W FFMAs on four side chains, the load's value folded into a sum), one block of N warps an SM
// (pinned by shared memory), timed with CUDA events (median of 15 launches after 2 warm-ups), with
// and without a start stagger: warp slot s (the SM's %warpid; its scheduler is s mod 4) spins
// (s / 4) x stagger cycles before its loop, so the warps of a scheduler start evenly spread over one
// iteration. Each warp also records its loop's cycles (clock64), so the iteration time is read in
// cycles without assuming a clock. Every thread's sum of loads is checked against a host replay for
// 32 threads spread over the grid and the grid's last thread, outside the timed launches. Prints CSV.
// private_regions (HA7, added before any of its data; a run-time argument, so both layouts run the
// same machine code): each warp reads its own contiguous region (lane l of warp g reads elements
// start_g + l, start_g + l + 32, ...) instead of the grid stride, so the warps do not sweep the
// buffer together; a warp runs the same number of iterations either way (but the last, whose region is short).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "explain/programs/example_support.cuh"  // WARPCOST_CUDA, median_kernel_seconds
#include "kernels/common/pattern.hpp"
#include "pilots/pilot_main.hpp"

namespace {

constexpr std::uint64_t kBytes = std::uint64_t{1} << 30;
constexpr std::uint64_t kElements = kBytes / 16;
constexpr std::uint32_t kSeed = 41;
constexpr int kChains = 4;

// Elements of a warp's own region (private_regions): the buffer split evenly over the grid's warps,
// rounded up to whole iterations of 32 lanes (the last warp's region ends at the buffer's end).
__host__ __device__ inline std::uint64_t private_chunk(std::uint64_t grid_threads) {
  const std::uint64_t warps = grid_threads / 32;
  return ((kElements + warps - 1) / warps + 31) / 32 * 32;
}

// Plain loads (no __restrict__: the suite's kernel does not use the read-only path either).
// FoldFirst: the loop takes the suite's latency-probe branch shape (a branch on the iteration, never
// taken: `never` is ~0), so the loaded value is folded before the join and the FFMAs come after it,
// as in the suite's kernel's SASS (a warp waits for its data, then bursts, then loads again); without
// it nvcc places most FFMAs between the load and the fold.
template <int W, bool FoldFirst>
__global__ void burst_stream(const uint4* data, std::uint32_t* sums, float* sides, long long* loop_cycles,
                             unsigned* slots, long long stagger, unsigned long long never, int private_regions) {
  extern __shared__ unsigned char residency_pin[];  // sized so that exactly the planned blocks fit an SM; never touched
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t gid = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t own = gid / 32 * private_chunk(threads);  // the warp's region's first element
  const std::uint64_t stride = private_regions ? 32 : threads;
  const std::uint64_t first = private_regions ? own + (gid & 31u) : gid;
  // (one expression, as run at 00:19: naming own + chunk changed the compiled loop's registers)
  const std::uint64_t end =
      private_regions && own + private_chunk(threads) < kElements ? own + private_chunk(threads) : kElements;
  unsigned slot = 0, sm = 0;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (stagger > 0) {
    const long long until = clock64() + static_cast<long long>(slot / 4) * stagger;
    while (clock64() < until) {
    }
  }
  float side[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) side[c] = 1.0f + 0.25f * c + 0.0625f * static_cast<float>(gid & 7u);
  std::uint32_t acc = 0;
  unsigned long long iteration = 0;
  const long long t0 = clock64();
  for (std::uint64_t i = first; i < end; i += stride, ++iteration) {
    std::uint32_t x;
    if (FoldFirst && iteration == never) {
      const uint4 v = __ldcg(&data[i]);
      x = v.x ^ v.y ^ v.z ^ v.w;
      sums[gid] = x;
    } else {
      const uint4 v = data[i];
      x = v.x ^ v.y ^ v.z ^ v.w;
    }
#pragma unroll
    for (int j = 0; j < W; ++j) side[j % kChains] = fmaf(side[j % kChains], 0.999f, 0.001f);
    acc += x;
  }
  const long long t1 = clock64();
  sums[gid] = acc;
  sides[gid] = side[0] + side[1] + side[2] + side[3];
  if ((threadIdx.x & 31u) == 0) {
    loop_cycles[gid / 32] = t1 - t0;
    slots[gid / 32] = (sm << 8) | (slot & 0xFFu);
  }
}

__global__ void fill(std::uint32_t* words, std::uint64_t count) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    words[i] = warpcost::pattern_word(i, kSeed);
  }
}

template <int W, bool F>
void launch(unsigned blocks, unsigned threads, std::size_t shared, const uint4* data, std::uint32_t* sums, float* sides,
            long long* cycles, unsigned* slots, long long stagger, int private_regions) {
  burst_stream<W, F><<<blocks, threads, shared>>>(data, sums, sides, cycles, slots, stagger, ~0ull, private_regions);
}

template <int W, bool F>
void pin_shared(std::size_t shared) {
  WARPCOST_CUDA(cudaFuncSetAttribute(burst_stream<W, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  WARPCOST_CUDA(cudaFuncSetAttribute(burst_stream<W, F>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
}

template <int W, bool F>
int resident(unsigned threads, std::size_t shared) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, burst_stream<W, F>, static_cast<int>(threads), shared));
  return blocks;
}

struct Variant {
  int w;
  bool fold_first;
  int private_regions;
  void (*launch)(unsigned, unsigned, std::size_t, const uint4*, std::uint32_t*, float*, long long*, unsigned*, long long, int);
  void (*pin)(std::size_t);
  int (*resident)(unsigned, std::size_t);
};

template <int W, bool F>
Variant variant(int private_regions = 0) {
  return {W, F, private_regions, launch<W, F>, pin_shared<W, F>, resident<W, F>};
}

}  // namespace

int run() {
  using warpcost::examples::median_kernel_seconds;
  const warpcost::pilots::Device dev = warpcost::pilots::device(true);
  const int sms = dev.sms;
  const cudaDeviceProp& prop = dev.prop;
  const std::size_t optin = prop.sharedMemPerBlockOptin;
  // The overlapped kernels in both shapes; the fold-first ones (the suite's order) in the suite's
  // shape, over the grid stride and (HA7) over each warp's private region.
  const Variant variants[] = {variant<0, false>(), variant<128, false>(), variant<256, false>(), variant<0, true>(),
                              variant<256, true>(),  variant<0, true>(1),   variant<256, true>(1)};
  for (const Variant& v : variants) v.pin(optin);
  uint4* data = nullptr;
  WARPCOST_CUDA(cudaMalloc(&data, kBytes));
  fill<<<sms * 8, 256>>>(reinterpret_cast<std::uint32_t*>(data), kBytes / 4);
  WARPCOST_CHECK_LAUNCH("fill");
  WARPCOST_CUDA(cudaDeviceSynchronize());
  const int most_warps = 16;
  std::uint32_t* sums = nullptr;
  float* sides = nullptr;
  long long* cycles = nullptr;
  unsigned* slots = nullptr;
  const std::uint64_t most_threads = static_cast<std::uint64_t>(sms) * most_warps * 32;
  WARPCOST_CUDA(cudaMalloc(&sums, most_threads * sizeof(std::uint32_t)));
  WARPCOST_CUDA(cudaMalloc(&sides, most_threads * sizeof(float)));
  WARPCOST_CUDA(cudaMalloc(&cycles, most_threads / 32 * sizeof(long long)));
  WARPCOST_CUDA(cudaMalloc(&slots, most_threads / 32 * sizeof(unsigned)));
  std::printf("shape,fold_first,w,warps_per_sm,warps_per_scheduler,stagger_cycles,blocks_per_sm,resident_blocks,seconds,bytes,"
              "iterations_lane0,iteration_cycles_slowest,iteration_cycles_mean,most_warps_one_scheduler,"
              "fewest_warps_one_scheduler,private_regions,largest_slot\n");
  int failures = 0;
  const int warps[] = {4, 5, 8, 12, 16};
  // shape 0: N one-warp blocks an SM (the suite's read_independent shape for N <= 32); 1: one block of N warps.
  for (int shape = 0; shape < 2; ++shape) {
    for (const Variant& var : variants) {
      if ((var.fold_first || var.private_regions) && shape != 0) continue;
      const int w = var.w;
      double lone_iteration = 0;  // cycles an iteration at 4 warps/SM, no stagger: sets the stagger
      for (const int n : warps) {
        const int blocks_per_sm = shape == 0 ? n : 1;
        const unsigned threads = shape == 0 ? 32u : static_cast<unsigned>(n) * 32u;
        // Exactly blocks_per_sm blocks an SM: each block takes the largest whole share of the SM's
        // shared memory (128-byte units, less the per-block reservation), so one more does not fit.
        std::size_t shared = optin;
        if (blocks_per_sm > 1) {
          shared = prop.sharedMemPerMultiprocessor / static_cast<std::size_t>(blocks_per_sm) / 128 * 128 -
                   prop.reservedSharedMemPerBlock;
          shared = std::min(shared, optin);
        }
        const int held = var.resident(threads, shared);
        if (held != blocks_per_sm) {
          std::fprintf(stderr, "shape %d, fold_first %d, w=%d, %d warps/SM: the occupancy API allows %d blocks an SM, not %d\n",
                       shape, var.fold_first ? 1 : 0, w, n, held, blocks_per_sm);
          ++failures;
          continue;
        }
        const int k = (n + 3) / 4;
        const unsigned grid = static_cast<unsigned>(sms * blocks_per_sm);
        const std::uint64_t grid_threads = static_cast<std::uint64_t>(grid) * threads;
        const std::uint64_t grid_warps = grid_threads / 32;
        for (int staggered = 0; staggered < 2; ++staggered) {
          if (staggered && k == 1) continue;
          const long long stagger = staggered ? static_cast<long long>(lone_iteration / k) : 0;
          WARPCOST_CUDA(cudaMemset(sums, 0xFF, grid_threads * sizeof(std::uint32_t)));
          auto go = [&] {
            var.launch(grid, threads, shared, data, sums, sides, cycles, slots, stagger, var.private_regions);
            WARPCOST_CHECK_LAUNCH("burst_stream");
          };
          const double s = median_kernel_seconds(go);
          const std::uint64_t chunk = private_chunk(grid_threads);
          const std::uint64_t iterations = var.private_regions ? chunk / 32 : (kElements + grid_threads - 1) / grid_threads;
          // Five more launches, each read back: the slowest warp's and the mean warp's loop cycles.
          std::vector<double> slowest, mean;
          std::vector<long long> c(grid_warps);
          for (int r = 0; r < 5; ++r) {
            go();
            WARPCOST_CUDA(cudaDeviceSynchronize());
            WARPCOST_CUDA(cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
            slowest.push_back(static_cast<double>(*std::max_element(c.begin(), c.end())) / static_cast<double>(iterations));
            mean.push_back(std::accumulate(c.begin(), c.end(), 0.0) / static_cast<double>(c.size()) /
                           static_cast<double>(iterations));
          }
          std::sort(slowest.begin(), slowest.end());
          std::sort(mean.begin(), mean.end());
          // Warps a scheduler (slot mod 4) on each SM, from the last launch.
          std::vector<unsigned> sl(grid_warps);
          WARPCOST_CUDA(cudaMemcpy(sl.data(), slots, sl.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
          std::vector<int> per(static_cast<std::size_t>(sms) * 4, 0);
          unsigned largest_slot = 0;  // the stagger is (slot / 4) x T1 / k: it means what it says for slots 0..N-1
          for (const unsigned v : sl) {
            const unsigned smid = v >> 8;
            if (smid < static_cast<unsigned>(sms)) ++per[smid * 4 + (v & 3u)];
            largest_slot = std::max(largest_slot, v & 0xFFu);
          }
          const auto [few, most] = std::minmax_element(per.begin(), per.end());
          // The sums of the last launch against the host replay.
          std::vector<std::uint32_t> got(grid_threads);
          WARPCOST_CUDA(cudaMemcpy(got.data(), sums, got.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
          bool ok = true;
          for (std::uint64_t i = 0; i <= 32; ++i) {
            // spread over the grid and the lanes, and the last thread (the last warp's region is the short one)
            const std::uint64_t g = i < 32 ? i * grid_threads / 32 + i : grid_threads - 1;
            std::uint32_t want = 0;
            const std::uint64_t first = var.private_regions ? g / 32 * chunk + g % 32 : g;
            const std::uint64_t step = var.private_regions ? 32 : grid_threads;
            const std::uint64_t end = var.private_regions ? std::min(g / 32 * chunk + chunk, kElements) : kElements;
            for (std::uint64_t e = first; e < end; e += step) {
              want += warpcost::pattern_word(4 * e, kSeed) ^ warpcost::pattern_word(4 * e + 1, kSeed) ^
                      warpcost::pattern_word(4 * e + 2, kSeed) ^ warpcost::pattern_word(4 * e + 3, kSeed);
            }
            ok = ok && got[g] == want;
          }
          if (!ok) {
            std::fprintf(stderr, "output check failed: shape %d, fold_first %d, private %d, w=%d, warps=%d, stagger=%lld\n",
                         shape, var.fold_first ? 1 : 0, var.private_regions, w, n, stagger);
            ++failures;
          }
          if (n == 4 && !staggered) lone_iteration = slowest[2];
          std::printf("%s,%d,%d,%d,%d,%lld,%d,%d,%.9g,%llu,%llu,%.1f,%.1f,%d,%d,%d,%u\n", shape == 0 ? "one_warp_blocks" : "one_block",
                      var.fold_first ? 1 : 0, w, n, k, stagger, blocks_per_sm, held, s, static_cast<unsigned long long>(kBytes),
                      static_cast<unsigned long long>(iterations), slowest[2], mean[2], *most, *few,
                      var.private_regions, largest_slot);
          std::fflush(stdout);
        }
      }
    }
  }
  WARPCOST_CUDA(cudaFree(data));
  WARPCOST_CUDA(cudaFree(sums));
  WARPCOST_CUDA(cudaFree(sides));
  WARPCOST_CUDA(cudaFree(cycles));
  WARPCOST_CUDA(cudaFree(slots));
  return warpcost::pilots::finish(failures);
}

int main() { return warpcost::pilots::main_of("alu_burst_pilot", run); }
