// Pilot (not part of the suite): does a load wait for an older load of another warp on the same
// scheduler (pilots/return_order/README.md, HA5)? One block of 8 warps an SM. Each trial, after a
// barrier, warp A (%warpid 0) loads one word from a random place in 1 GiB (a DRAM miss: the L2 holds
// a few percent of it) and warp B (%warpid 4: A's scheduler, or 1: another one) spins `delay`
// cycles, then loads one word from 4 KiB already in the L2. Both loads bypass the L1 (ld.global.cg).
// Each warp's lane 0 records its issue and completion clock (the SM's clock64, common to its warps:
// completion is read after an instruction that uses the loaded word). Modes: A and B both load, A
// alone, B alone. Every loaded word is checked against the host's pattern, outside the timing.
// Prints one CSV line per (mode, B's warp, delay): medians and the share of trials in which B
// completed after A.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/common/pattern.hpp"
#include "pilots/pilot_main.hpp"

namespace {

constexpr std::uint64_t kFarWords = (std::uint64_t{1} << 30) / 4;
constexpr std::uint32_t kNearWords = 1024;  // 4 KiB
constexpr std::uint32_t kSeed = 43;
constexpr int kTrials = 256;
constexpr int kWarps = 8;

__device__ __forceinline__ std::uint64_t far_index(unsigned sm, int trial) {
  return warpcost::pattern_word((static_cast<std::uint64_t>(sm) << 20) | static_cast<std::uint64_t>(trial), 7) %
         kFarWords;
}

__global__ void fill(std::uint32_t* words, std::uint64_t n, std::uint32_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    words[i] = warpcost::pattern_word(i, seed);
}

struct Record {
  long long issue_a, done_a, issue_b, done_b;
  std::uint32_t word_a, word_b;
  unsigned warpid_a, warpid_b;
};

__device__ __forceinline__ std::uint32_t timed_load(const std::uint32_t* p, long long& issue, long long& done) {
  std::uint32_t v, used;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(issue)::"memory");
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  asm volatile("add.u32 %0, %1, 1;" : "=r"(used) : "r"(v));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(done)::"memory");
  return used - 1u;
}

// mode 0: A and B load; 1: A alone; 2: B alone.
__global__ void return_order(const std::uint32_t* far, const std::uint32_t* near, Record* out, int warp_b,
                             int delay, int mode) {
  unsigned warpid = 0, sm = 0;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  const int lane = threadIdx.x % 32;
  const bool is_a = warpid == 0 && lane == 0 && mode != 2;
  const bool is_b = static_cast<int>(warpid) == warp_b && lane == 0 && mode != 1;
  // B's 4 KiB into the L2 (and out of nothing else: .cg never fills the L1).
  if (is_b) {
    std::uint32_t s = 0;
    for (std::uint32_t i = 0; i < kNearWords; i += 8) s += __ldcg(&near[i]);
    if (s == 0xFFFFFFFFu) out[0].word_b = s;  // keeps the warm-up loads
  }
  Record* mine = out + static_cast<std::size_t>(blockIdx.x) * kTrials;
  for (int t = 0; t < kTrials; ++t) {
    __syncthreads();
    if (is_a) {
      long long issue, done;
      const std::uint32_t w = timed_load(far + far_index(sm, t), issue, done);
      mine[t].issue_a = issue;
      mine[t].done_a = done;
      mine[t].word_a = w;
      mine[t].warpid_a = warpid;
    }
    if (is_b) {
      const long long until = clock64() + delay;
      while (clock64() < until) {
      }
      long long issue, done;
      const std::uint32_t w = timed_load(near + (static_cast<std::uint32_t>(t) * 8u) % kNearWords, issue, done);
      mine[t].issue_b = issue;
      mine[t].done_b = done;
      mine[t].word_b = w;
      mine[t].warpid_b = warpid;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    // The SM each block ran on, for the host's check of A's addresses.
    for (int t = 0; t < kTrials; ++t) mine[t].warpid_a = (mine[t].warpid_a & 0xFFFFu) | (sm << 16);
  }
}

std::uint64_t host_far_index(unsigned sm, int trial) {
  return warpcost::pattern_word((static_cast<std::uint64_t>(sm) << 20) | static_cast<std::uint64_t>(trial), 7) %
         kFarWords;
}

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int run() {
  const auto dev = warpcost::pilots::device(true);
  std::uint32_t *far = nullptr, *near = nullptr;
  Record* out = nullptr;
  const std::size_t records = static_cast<std::size_t>(dev.sms) * kTrials;
  WARPCOST_CUDA(cudaMalloc(&far, kFarWords * 4));
  WARPCOST_CUDA(cudaMalloc(&near, kNearWords * 4));
  WARPCOST_CUDA(cudaMalloc(&out, records * sizeof(Record)));
  fill<<<1024, 256>>>(far, kFarWords, kSeed);
  WARPCOST_CUDA(cudaGetLastError());
  fill<<<4, 256>>>(near, kNearWords, kSeed + 1);
  WARPCOST_CUDA(cudaGetLastError());
  WARPCOST_CUDA(cudaDeviceSynchronize());
  std::printf("mode,warp_b,delay,trials,lat_a_median,lat_b_median,issue_gap_median,b_done_after_a_share,"
              "b_done_minus_a_done_median,warpids_as_planned\n");
  int failures = 0;
  std::vector<Record> host(records);
  const char* mode_name[] = {"both", "a_alone", "b_alone"};
  for (int mode = 0; mode < 3; ++mode) {
    for (int warp_b : {4, 1}) {
      for (int delay : {0, 100, 300}) {
        if (mode == 1 && (warp_b != 4 || delay != 0)) continue;  // A alone: one setting
        WARPCOST_CUDA(cudaMemset(out, 0, records * sizeof(Record)));
        return_order<<<dev.sms, 32 * kWarps>>>(far, near, out, warp_b, delay, mode);
        WARPCOST_CUDA(cudaGetLastError());
        WARPCOST_CUDA(cudaDeviceSynchronize());
        WARPCOST_CUDA(cudaMemcpy(host.data(), out, records * sizeof(Record), cudaMemcpyDeviceToHost));
        std::vector<double> la, lb, gap, diff;
        int after = 0, both = 0;
        bool planned = true;
        for (int b = 0; b < dev.sms; ++b) {
          for (int t = 0; t < kTrials; ++t) {
            const Record& r = host[static_cast<std::size_t>(b) * kTrials + t];
            const unsigned sm = r.warpid_a >> 16;
            if (mode != 2) {
              if ((r.warpid_a & 0xFFFFu) != 0) planned = false;
              if (r.word_a != warpcost::pattern_word(host_far_index(sm, t), kSeed)) ++failures;
              la.push_back(static_cast<double>(r.done_a - r.issue_a));
            }
            if (mode != 1) {
              if (static_cast<int>(r.warpid_b) != warp_b) planned = false;
              if (r.word_b != warpcost::pattern_word((static_cast<std::uint32_t>(t) * 8u) % kNearWords, kSeed + 1))
                ++failures;
              lb.push_back(static_cast<double>(r.done_b - r.issue_b));
            }
            if (mode == 0) {
              ++both;
              gap.push_back(static_cast<double>(r.issue_b - r.issue_a));
              diff.push_back(static_cast<double>(r.done_b - r.done_a));
              if (r.done_b >= r.done_a) ++after;
            }
          }
        }
        if (!planned) ++failures;  // a warp's %warpid not as planned: its scheduler is not known
        std::printf("%s,%d,%d,%d,%.0f,%.0f,%.0f,%.3f,%.0f,%d\n", mode_name[mode], warp_b, delay,
                    dev.sms * kTrials, median(la), median(lb), median(gap), both ? double(after) / both : -1.0,
                    median(diff), planned ? 1 : 0);
      }
    }
  }
  WARPCOST_CUDA(cudaFree(far));
  WARPCOST_CUDA(cudaFree(near));
  WARPCOST_CUDA(cudaFree(out));
  return warpcost::pilots::finish(failures);
}

}  // namespace

int main() { return warpcost::pilots::main_of("return_order_pilot", run); }
