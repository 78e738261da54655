// Pilot (not part of the suite): does a load wait for an older load of another warp on the same
// scheduler (pilots/return_order/README.md, HA5)? One block of 8 warps an SM. Each trial, after a
// barrier, warp A (%warpid 0) loads from a line of DRAM no launch touched before (each block its
// own 2 MiB, so one TLB entry) and warp B (%warpid 1..7, one a launch) spins `delay` cycles, then
// loads from a line of its block's own 32 KiB, read whole into the L2 before the trials. Loads bypass the L1
// (ld.global.cg); `width` 1: lane 0 loads one word; 32: the warp loads a whole 128-byte line.
// Lane 0 of each warp records its issue and completion clock (the SM's clock64, common to its
// warps): completion is read after an instruction that uses the loaded word, whose result is
// stored (so ptxas cannot drop it). Modes: A and B both load, A alone, B alone. Every stored word
// is checked against the host's pattern, outside the timing. Prints one CSV line per launch.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/statistics.hpp"
#include "kernels/common/pattern.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "pilots/pilot_main.hpp"

namespace {

constexpr std::uint64_t kRegionWords = (std::uint64_t{2} << 20) / 4;  // 2 MiB an SM for A
constexpr std::uint32_t kRegionLines = static_cast<std::uint32_t>(kRegionWords / 32);
constexpr std::uint32_t kSeed = 43;
constexpr int kTrials = 256;
constexpr int kWarps = 8;
constexpr std::uint32_t kNearLinesPerBlock = kTrials;  // 32 KiB a block for B

__device__ std::uint32_t warm_sink;  // keeps B's warm-up loads

// A's line for (launch, trial): 977 is odd, so distinct (launch, trial) pairs get distinct lines
// of the region while launch * kTrials + trial < 16384.
__host__ __device__ inline std::uint64_t far_word(unsigned block, int launch, int trial, int lane) {
  const std::uint32_t line = ((static_cast<std::uint32_t>(launch) * kTrials + trial) * 977u) % kRegionLines;
  return static_cast<std::uint64_t>(block) * kRegionWords + std::uint64_t{line} * 32 + lane;
}

__host__ __device__ inline std::uint64_t near_word(unsigned block, int trial, int lane) {
  return (static_cast<std::uint64_t>(block) * kNearLinesPerBlock + trial) * 32 + lane;
}

struct Record {
  long long issue_a, done_a, issue_b, done_b;
  std::uint32_t used_a, used_b;  // the loaded word + 1 (lane 0's)
  unsigned ran_a, ran_b;         // %warpid + 1 of the warp that ran the role; 0: it never ran
  unsigned sm;  // %smid, for reading (regions are indexed by block)
};

__device__ __forceinline__ std::uint32_t timed_load(const std::uint32_t* p, long long& issue, long long& done) {
  std::uint32_t v, used;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(issue)::"memory");
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  asm volatile("add.u32 %0, %1, 1;" : "=r"(used) : "r"(v));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(done)::"memory");
  return used;  // stored by the caller: the add cannot be folded away
}

// mode 0: A and B load; 1: A alone; 2: B alone.
__global__ void return_order(const std::uint32_t* far, const std::uint32_t* near, Record* out, int warp_b,
                             int delay, int mode, int width, int launch) {
  unsigned warpid = 0, sm = 0;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  const int lane = threadIdx.x % 32;
  const bool role_a = warpid == 0 && mode != 2;
  const bool role_b = static_cast<int>(warpid) == warp_b && mode != 1;
  const bool loads = lane < width;
  const unsigned block = blockIdx.x;
  if (role_b) {  // B's 32 KiB into the L2, every word of every line (.cg never fills the L1)
    std::uint32_t s = 0;
    for (int t = 0; t < kTrials; ++t) s += __ldcg(&near[near_word(block, t, lane)]);
    if (s == 0xFFFFFFFFu) atomicAdd(&warm_sink, 1u);
  }
  Record* mine = out + static_cast<std::size_t>(blockIdx.x) * kTrials;
  for (int t = 0; t < kTrials; ++t) {
    __syncthreads();
    if (role_a && loads) {
      long long issue, done;
      const std::uint32_t u = timed_load(far + far_word(block, launch, t, lane), issue, done);
      if (lane == 0) {
        mine[t].issue_a = issue;
        mine[t].done_a = done;
        mine[t].used_a = u;
        mine[t].ran_a = warpid + 1;
      }
    }
    if (role_b && loads) {
      const long long until = clock64() + delay;
      while (clock64() < until) {
      }
      long long issue, done;
      const std::uint32_t u = timed_load(near + near_word(block, t, lane), issue, done);
      if (lane == 0) {
        mine[t].issue_b = issue;
        mine[t].done_b = done;
        mine[t].used_b = u;
        mine[t].ran_b = warpid + 1;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int t = 0; t < kTrials; ++t) mine[t].sm = sm;
}

// -1 where a mode has no such value (A alone has no B, B alone no A).
double median(const std::vector<double>& v) { return v.empty() ? -1 : warpcost::analysis::median(v); }

int run() {
  const auto dev = warpcost::pilots::device(true);
  const std::uint64_t far_words = static_cast<std::uint64_t>(dev.sms) * kRegionWords;
  const std::uint64_t near_words = static_cast<std::uint64_t>(dev.sms) * kNearLinesPerBlock * 32;
  std::uint32_t *far = nullptr, *near = nullptr;
  Record* out = nullptr;
  const std::size_t records = static_cast<std::size_t>(dev.sms) * kTrials;
  WARPCOST_CUDA(cudaMalloc(&far, far_words * 4));
  WARPCOST_CUDA(cudaMalloc(&near, near_words * 4));
  WARPCOST_CUDA(cudaMalloc(&out, records * sizeof(Record)));
  warpcost::kernels::launch_fill_pattern(far, far_words, kSeed, nullptr);
  warpcost::kernels::launch_fill_pattern(near, near_words, kSeed + 1, nullptr);
  // Push A's regions out of the L2 after the fill: write a buffer of 4x the L2 over it.
  int l2 = 0;
  WARPCOST_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  std::uint32_t* flush = nullptr;
  const std::uint64_t flush_words = std::uint64_t{4} * static_cast<std::uint64_t>(l2) / 4;
  WARPCOST_CUDA(cudaMalloc(&flush, flush_words * 4));
  warpcost::kernels::launch_fill_pattern(flush, flush_words, kSeed + 2, nullptr);
  WARPCOST_CUDA(cudaDeviceSynchronize());
  WARPCOST_CUDA(cudaFree(flush));
  std::printf("mode,width,warp_b,delay,records,lat_a_median,lat_b_median,issue_gap_median,"
              "b_done_not_before_a_share,b_done_minus_a_done_median\n");
  int failures = 0, launch = 0;
  std::vector<Record> host(records);
  const char* mode_name[] = {"both", "a_alone", "b_alone"};
  for (int width : {1, 32}) {
    for (int mode = 0; mode < 3; ++mode) {
      for (int warp_b = 1; warp_b < kWarps; ++warp_b) {
        for (int delay : {100, 300}) {
          if (mode == 1 && (warp_b != 1 || delay != 100)) continue;  // A alone: one launch a width
          const int this_launch = launch++;
          if ((this_launch + 1) * kTrials > static_cast<int>(kRegionLines)) {
            std::fprintf(stderr, "too many launches for A's distinct lines\n");
            return 1;
          }
          WARPCOST_CUDA(cudaMemset(out, 0, records * sizeof(Record)));
          return_order<<<dev.sms, 32 * kWarps>>>(far, near, out, warp_b, delay, mode, width, this_launch);
          WARPCOST_CUDA(cudaGetLastError());
          WARPCOST_CUDA(cudaDeviceSynchronize());
          WARPCOST_CUDA(cudaMemcpy(host.data(), out, records * sizeof(Record), cudaMemcpyDeviceToHost));
          std::vector<double> la, lb, gap, diff;
          int not_before = 0, both = 0, bad = 0;
          for (std::size_t i = 0; i < records; ++i) {
            const Record& r = host[i];
            const int t = static_cast<int>(i % kTrials);
            const unsigned block = static_cast<unsigned>(i / kTrials);
            if (mode != 2) {
              if (r.ran_a != 1u || r.used_a != warpcost::pattern_word(far_word(block, this_launch, t, 0), kSeed) + 1u) ++bad;
              la.push_back(static_cast<double>(r.done_a - r.issue_a));
            }
            if (mode != 1) {
              if (r.ran_b != static_cast<unsigned>(warp_b) + 1u ||
                  r.used_b != warpcost::pattern_word(near_word(block, t, 0), kSeed + 1) + 1u)
                ++bad;
              lb.push_back(static_cast<double>(r.done_b - r.issue_b));
            }
            if (mode == 0) {
              ++both;
              gap.push_back(static_cast<double>(r.issue_b - r.issue_a));
              diff.push_back(static_cast<double>(r.done_b - r.done_a));
              if (r.done_b >= r.done_a - 16) ++not_before;
            }
          }
          if (bad) std::fprintf(stderr, "launch %d: %d records failed their check\n", this_launch, bad);
          failures += bad;
          std::printf("%s,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.3f,%.0f\n", mode_name[mode], width, mode == 1 ? 0 : warp_b,
                      mode == 1 ? 0 : delay, static_cast<int>(records), median(la), median(lb), median(gap),
                      both ? double(not_before) / both : -1.0, median(diff));
        }
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
