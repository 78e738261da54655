// Pilot (not part of the suite): do the two warps of a scheduler meet in step, so that their FFMA
// bursts collide more often than random phases would make them, and if so, do loads issued apart
// come back together (pilots/phase_lock/README.md, HA8)? A 16-byte read stream in the suite's
// read_independent shape (N one-warp blocks an SM, pinned by shared memory; the grid stride; one load
// a lane an iteration; the warp waits for its data, folds it, then issues W FFMAs on four side chains
// that depend on the loaded value, then loads again). Lane 0 of each warp stamps, for its first
// kRecorded iterations, the SM's clock64 before its load and after the instruction that consumes the
// loaded data, into the block's own shared memory (the same memory that pins the residency), and
// copies them out after its loop. Every thread's sum of loads is checked against a host replay for 32
// threads spread over the grid and the grid's last thread, outside the timed launches; each stamp is
// checked to increase. The stamps of the last launch of each configuration, for the warps of the
// first kSavedSms SMs, go to a binary file (argv[1], else $OUT/phase-lock-stamps.bin) that read_pilot.py reads; stdout gets one CSV
// line a configuration.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "explain/programs/example_support.cuh"  // WARPCOST_CUDA, median_kernel_seconds
#include "kernels/common/pattern.hpp"
#include "kernels/common/probe_kernels.hpp"  // launch_fill_pattern
#include "pilots/pilot_main.hpp"

namespace {

constexpr std::uint64_t kBytes = std::uint64_t{1} << 30;
constexpr std::uint64_t kElements = kBytes / 16;
constexpr std::uint32_t kSeed = 47;
constexpr int kChains = 4;
constexpr int kRecorded = 512;  // iterations stamped a warp (each warp runs at least 992 at 16 warps/SM)
constexpr unsigned kSavedSms = 32;

constexpr unsigned kMostSms = 256;  // the rank counters' size (an SM id past it fails the run)

struct WarpHeader {
  std::uint32_t sm, warpid;  // warpid: %warpid in the low 16 bits, the warp's rank among its scheduler's above
  std::uint64_t base;  // clock64 at the loop's start; the stamps are offsets from it
};
static_assert(sizeof(WarpHeader) == 16, "read_pilot.py reads a 16-byte header (u32, u32, u64)");

__device__ __forceinline__ long long clock_now() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// stamps: [warp][kRecorded][2] offsets (issue, done) from the warp's base clock.
template <int W>
__global__ void stamped_stream(const uint4* data, std::uint32_t* sums, float* sides, std::uint32_t* stamps,
                               WarpHeader* headers, unsigned* ranks, long long stagger) {
  extern __shared__ std::uint32_t record[];  // 2 x kRecorded words used; the rest only pins the residency
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t gid = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool lane0 = (threadIdx.x & 31u) == 0;
  unsigned slot = 0, sm = 0;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  // The warp's rank among the warps of its scheduler (%warpid mod 4) on its SM, in the order they got
  // here; the r-th waits r x stagger cycles, so a scheduler's warps start spread out whatever their slots.
  unsigned rank = 0;
  if (lane0) rank = sm < kMostSms ? atomicAdd(&ranks[sm * 4 + (slot & 3u)], 1u) : 0xFFFFu;
  rank = __shfl_sync(0xFFFFFFFFu, rank, 0);
  if (stagger > 0) {  // sleeps in short naps, so the waiting warp hardly takes its scheduler's issue slots
    const long long until = clock_now() + static_cast<long long>(rank) * stagger;
    while (clock_now() < until) __nanosleep(32);
  }
  float side[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) side[c] = 1.0f + 0.25f * c + 0.0625f * static_cast<float>(gid & 7u);
  std::uint32_t acc = 0;
  int k = 0;
  const long long base = clock_now();
  for (std::uint64_t i = gid; i < kElements; i += threads, ++k) {
    const long long issued = clock_now();
    std::uint32_t a, b, c, d, x;
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(data + i) : "memory");
    asm volatile("{\n\t.reg .b32 t;\n\txor.b32 t, %1, %2;\n\txor.b32 t, t, %3;\n\txor.b32 %0, t, %4;\n\t}"
                 : "=r"(x)
                 : "r"(a), "r"(b), "r"(c), "r"(d));
    const long long done = clock_now();
    if (lane0 && k < kRecorded) {
      record[2 * k] = static_cast<std::uint32_t>(issued - base);
      record[2 * k + 1] = static_cast<std::uint32_t>(done - base);
    }
    // The burst depends on the loaded value (a factor of exactly 1 or 1 + 2^-23), so no FFMA can be
    // scheduled before the data is in: the warp waits, then bursts, as the suite's kernel does.
    const float f = __uint_as_float(0x3f800000u | (x & 1u));
#pragma unroll
    for (int j = 0; j < W; ++j) {
      const int ch = j % kChains;
      side[ch] = j < kChains ? fmaf(side[ch], 0.999f * f, 0.001f) : fmaf(side[ch], 0.999f, 0.001f);
    }
    acc += x;
  }
  sums[gid] = acc;
  sides[gid] = side[0] + side[1] + side[2] + side[3];
  __syncwarp();
  const std::uint64_t warp = gid / 32;
  const int recorded = k < kRecorded ? k : kRecorded;
  for (int r = static_cast<int>(threadIdx.x & 31u); r < 2 * kRecorded; r += 32) {
    stamps[warp * 2 * kRecorded + r] = r < 2 * recorded ? record[r] : 0u;
  }
  if (lane0) headers[warp] = {sm, (slot & 0xFFFFu) | (rank << 16), static_cast<std::uint64_t>(base)};
}

struct Config {
  int w, warps_per_sm;
  bool staggered;
};

template <int W>
void launch(unsigned blocks, std::size_t shared, const uint4* data, std::uint32_t* sums, float* sides, std::uint32_t* stamps,
            WarpHeader* headers, unsigned* ranks, long long stagger) {
  WARPCOST_CUDA(cudaMemsetAsync(ranks, 0, kMostSms * 4 * sizeof(unsigned)));
  stamped_stream<W><<<blocks, 32, shared>>>(data, sums, sides, stamps, headers, ranks, stagger);
}

template <int W>
void pin_shared(std::size_t shared) {
  WARPCOST_CUDA(cudaFuncSetAttribute(stamped_stream<W>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  WARPCOST_CUDA(cudaFuncSetAttribute(stamped_stream<W>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
}

template <int W>
int resident(std::size_t shared) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stamped_stream<W>, 32, shared));
  return blocks;
}

}  // namespace

int run(int argc, char** argv) {
  using warpcost::examples::median_kernel_seconds;
  if (argc > 2) {
    std::fprintf(stderr, "usage: phase_lock_pilot [STAMPS_FILE] (default: $OUT/phase-lock-stamps.bin, or ./ without OUT)\n");
    return 2;
  }
  const char* dir = std::getenv("OUT");
  const std::string path = argc == 2 ? argv[1] : std::string(dir != nullptr ? dir : ".") + "/phase-lock-stamps.bin";
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "phase_lock_pilot: cannot write %s\n", path.c_str());
    return 2;
  }
  const warpcost::pilots::Device dev = warpcost::pilots::device(true);
  const int sms = dev.sms;
  const cudaDeviceProp& prop = dev.prop;
  pin_shared<0>(prop.sharedMemPerBlockOptin);
  pin_shared<256>(prop.sharedMemPerBlockOptin);
  uint4* data = nullptr;
  WARPCOST_CUDA(cudaMalloc(&data, kBytes));
  warpcost::kernels::launch_fill_pattern(reinterpret_cast<std::uint32_t*>(data), kBytes / 4, kSeed, nullptr);
  WARPCOST_CUDA(cudaDeviceSynchronize());
  const int most_warps = 16;
  const std::uint64_t most_threads = static_cast<std::uint64_t>(sms) * most_warps * 32;
  std::uint32_t* sums = nullptr;
  float* sides = nullptr;
  std::uint32_t* stamps = nullptr;
  WarpHeader* headers = nullptr;
  unsigned* ranks = nullptr;
  WARPCOST_CUDA(cudaMalloc(&ranks, kMostSms * 4 * sizeof(unsigned)));
  WARPCOST_CUDA(cudaMalloc(&sums, most_threads * sizeof(std::uint32_t)));
  WARPCOST_CUDA(cudaMalloc(&sides, most_threads * sizeof(float)));
  WARPCOST_CUDA(cudaMalloc(&stamps, most_threads / 32 * 2 * kRecorded * sizeof(std::uint32_t)));
  WARPCOST_CUDA(cudaMalloc(&headers, most_threads / 32 * sizeof(WarpHeader)));
  std::printf("w,warps_per_sm,stagger_cycles,resident_blocks,seconds,bytes,iterations,median_period_cycles,mean_period_cycles,saved_warps,largest_slot\n");
  int failures = 0;
  // The configurations, in this order: the lone warp of each scheduler sets the stagger (half its
  // median period, read from its stamps) of the staggered run that follows (a scheduler's second warp,
  // by arrival, starts that much after its first).
  const Config configs[] = {{256, 4, false}, {256, 8, false}, {256, 8, true}, {256, 16, false}, {0, 4, false}, {0, 8, false}};
  double lone_period = 0;
  for (const Config& cfg : configs) {
    const int n = cfg.warps_per_sm;
    std::size_t shared = prop.sharedMemPerMultiprocessor / static_cast<std::size_t>(n) / 128 * 128 - prop.reservedSharedMemPerBlock;
    shared = std::min<std::size_t>(shared, prop.sharedMemPerBlockOptin);
    const int held = cfg.w == 256 ? resident<256>(shared) : resident<0>(shared);
    if (held != n || shared < 2 * kRecorded * sizeof(std::uint32_t)) {
      std::fprintf(stderr, "w=%d, %d warps/SM: the occupancy API allows %d one-warp blocks an SM (shared %zu B)\n", cfg.w, n,
                   held, shared);
      ++failures;
      continue;
    }
    const unsigned grid = static_cast<unsigned>(sms * n);
    const std::uint64_t grid_threads = static_cast<std::uint64_t>(grid) * 32;
    const std::uint64_t grid_warps = grid;
    const long long stagger = cfg.staggered ? static_cast<long long>(lone_period / 2) : 0;
    WARPCOST_CUDA(cudaMemset(sums, 0xFF, grid_threads * sizeof(std::uint32_t)));
    auto go = [&] {
      if (cfg.w == 256) {
        launch<256>(grid, shared, data, sums, sides, stamps, headers, ranks, stagger);
      } else {
        launch<0>(grid, shared, data, sums, sides, stamps, headers, ranks, stagger);
      }
      WARPCOST_CHECK_LAUNCH("stamped_stream");
    };
    const double s = median_kernel_seconds(go);
    go();
    WARPCOST_CUDA(cudaDeviceSynchronize());
    const std::uint64_t iterations = kElements / grid_threads;  // every lane runs this many, or one more
    std::vector<std::uint32_t> st(grid_warps * 2 * kRecorded);
    std::vector<WarpHeader> hd(grid_warps);
    WARPCOST_CUDA(cudaMemcpy(st.data(), stamps, st.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaMemcpy(hd.data(), headers, hd.size() * sizeof(WarpHeader), cudaMemcpyDeviceToHost));
    // Exactly n warps on every SM, n / 4 on each scheduler (%warpid mod 4), each rank 0 .. n / 4 - 1 once.
    std::vector<int> per(static_cast<std::size_t>(kMostSms) * 4, 0);
    bool placed = true;
    for (std::uint64_t g = 0; g < grid_warps; ++g) {
      const unsigned r = hd[g].warpid >> 16;
      placed = placed && hd[g].sm < kMostSms && r < static_cast<unsigned>(n / 4);
      if (hd[g].sm < kMostSms) ++per[hd[g].sm * 4 + (hd[g].warpid & 3u)];
    }
    int used = 0;
    for (std::size_t q = 0; q < per.size(); q += 4) {
      if (per[q] + per[q + 1] + per[q + 2] + per[q + 3] == 0) continue;
      ++used;
      for (int r = 0; r < 4; ++r) placed = placed && per[q + static_cast<std::size_t>(r)] == n / 4;
    }
    if (!placed || used != sms) {
      std::fprintf(stderr, "w=%d, %d warps/SM: the warps are not %d to an SM and %d to a scheduler on %d SMs (%d SMs used)\n",
                   cfg.w, n, n, n / 4, sms, used);
      ++failures;
    }
    // Stamps: issue < done < next issue, every recorded iteration of every warp.
    bool sane = true;
    std::vector<double> periods;
    double period_sum = 0;  // the mean period, as the alu_burst pilot's iteration_cycles_mean reads it
    std::uint64_t period_count = 0;
    unsigned largest_slot = 0;
    for (std::uint64_t g = 0; g < grid_warps; ++g) {
      largest_slot = std::max(largest_slot, hd[g].warpid & 0xFFFFu);
      const std::uint32_t* r = &st[g * 2 * kRecorded];
      for (int k = 0; k < kRecorded; ++k) {
        sane = sane && r[2 * k] < r[2 * k + 1] && (k == 0 || r[2 * k - 1] < r[2 * k]);
        if (k >= 64 && k + 1 < kRecorded) {
          periods.push_back(static_cast<double>(r[2 * k + 3]) - r[2 * k + 1]);
          period_sum += periods.back();
          ++period_count;
        }
      }
    }
    if (!sane) {
      std::fprintf(stderr, "stamps out of order: w=%d, %d warps/SM, stagger %lld\n", cfg.w, n, stagger);
      ++failures;
    }
    std::nth_element(periods.begin(), periods.begin() + static_cast<std::ptrdiff_t>(periods.size() / 2), periods.end());
    const double median_period = periods[periods.size() / 2];
    if (cfg.w == 256 && n == 4 && !cfg.staggered) lone_period = median_period;
    // The sums of the last launch against the host replay.
    std::vector<std::uint32_t> got(grid_threads);
    WARPCOST_CUDA(cudaMemcpy(got.data(), sums, got.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (std::uint64_t i = 0; i <= 32; ++i) {
      const std::uint64_t g = i < 32 ? i * grid_threads / 32 + i : grid_threads - 1;
      std::uint32_t want = 0;
      for (std::uint64_t e = g; e < kElements; e += grid_threads) {
        want += warpcost::pattern_word(4 * e, kSeed) ^ warpcost::pattern_word(4 * e + 1, kSeed) ^
                warpcost::pattern_word(4 * e + 2, kSeed) ^ warpcost::pattern_word(4 * e + 3, kSeed);
      }
      ok = ok && got[g] == want;
    }
    if (!ok) {
      std::fprintf(stderr, "output check failed: w=%d, %d warps/SM, stagger %lld\n", cfg.w, n, stagger);
      ++failures;
    }
    // The saved warps: those of SMs 0 .. kSavedSms - 1. File layout, little-endian: per configuration
    // int32 w, warps_per_sm, stagger, recorded, saved; then per saved warp its header (u32 sm, u32
    // warpid, u64 base) and 2 x recorded u32 offsets (issue, done).
    std::vector<std::uint64_t> saved;
    for (std::uint64_t g = 0; g < grid_warps; ++g) {
      if (hd[g].sm < kSavedSms) saved.push_back(g);
    }
    const std::int32_t head[5] = {cfg.w, n, static_cast<std::int32_t>(stagger), kRecorded, static_cast<std::int32_t>(saved.size())};
    bool written = std::fwrite(head, sizeof head, 1, out) == 1;
    for (const std::uint64_t g : saved) {
      written = written && std::fwrite(&hd[g], sizeof(WarpHeader), 1, out) == 1 &&
                std::fwrite(&st[g * 2 * kRecorded], sizeof(std::uint32_t), 2 * kRecorded, out) == 2 * kRecorded;
    }
    if (!written) {
      std::fprintf(stderr, "phase_lock_pilot: writing %s failed\n", path.c_str());
      ++failures;
    }
    std::printf("%d,%d,%lld,%d,%.9g,%llu,%llu,%.1f,%.1f,%zu,%u\n", cfg.w, n, stagger, held, s,
                static_cast<unsigned long long>(kBytes), static_cast<unsigned long long>(iterations), median_period,
                period_sum / static_cast<double>(period_count), saved.size(), largest_slot);
    std::fflush(stdout);
  }
  if (std::fclose(out) != 0) {
    std::fprintf(stderr, "phase_lock_pilot: closing %s failed\n", path.c_str());
    ++failures;
  }
  WARPCOST_CUDA(cudaFree(data));
  WARPCOST_CUDA(cudaFree(sums));
  WARPCOST_CUDA(cudaFree(sides));
  WARPCOST_CUDA(cudaFree(stamps));
  WARPCOST_CUDA(cudaFree(headers));
  WARPCOST_CUDA(cudaFree(ranks));
  return warpcost::pilots::finish(failures);
}

int main(int argc, char** argv) {
  return warpcost::pilots::main_of("phase_lock_pilot", [&] { return run(argc, argv); });
}
