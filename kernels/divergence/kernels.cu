#include <stdexcept>
#include <string>

#include "kernels/common/block_clock_probe.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_util.cuh"
#include "kernels/common/pattern.hpp"
#include "kernels/divergence/kernels.hpp"

namespace warpcost::kernels {
namespace {

constexpr unsigned int kFullMask = kFullWarpMask;


// One path's body: a dependent chain (each FMA waits for the last), its constants compile-time
// literals of this path alone, its length a runtime value the compiler cannot fold or unroll away.
template <int Path>
__device__ __forceinline__ float chain(float a, int trips) {
#pragma unroll 1
  for (int i = 0; i < trips; ++i) {
#pragma unroll
    for (int j = 0; j < kFmasPerTrip; ++j) a = fmaf(a, path_multiplier(Path), path_addend(Path));
  }
  return a;
}

__device__ __forceinline__ unsigned int lane() { return threadIdx.x & 31u; }

// The region every kernel times: converge, read the clock, branch, reconverge, read it again.
// Lane 0 files the warp's record; the probe threads file the launch's clock.
struct WarpRegion {
  unsigned long long start_ns;
  long long start;
  __device__ void begin() {
    __syncwarp();
    start_ns = device::globaltimer_ns();
    start = clock64();
  }
  __device__ void end(WarpRecord* records, unsigned int vote) {
    __syncwarp();
    const long long stop = clock64();
    const unsigned long long stop_ns = device::globaltimer_ns();
    if (lane() == 0) {
      const unsigned long long warp =
          (blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x) / 32u;
      records[warp] = WarpRecord{stop - start, start_ns, stop_ns, device::smid(), vote};
    }
  }
};

__global__ void if_else_kernel(const __grid_constant__ SplitMasks masks, int if_trips, int else_trips, float* out,
                               WarpRecord* records, ClockSample* clocks) {
  BlockClockProbe probe;
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const bool take_if = (masks.lanes[(gid / 32u) % kMaskTableSize] >> lane()) & 1u;
  const unsigned int vote = __ballot_sync(kFullMask, take_if);
  float a = chain_start(gid);
  WarpRegion region;
  region.begin();
#if defined(WARPCOST_SASS_ONE_PATH)
  // Only in tests/sass_one_path.cu, the negative control of scripts/check-sass.sh: the same lanes
  // and trip counts through one path, which the SASS check must reject.
  a = chain<0>(a, take_if ? if_trips : else_trips);
#else
  if (take_if) {
    a = chain<0>(a, if_trips);
  } else {
    a = chain<1>(a, else_trips);
  }
#endif
  region.end(records, vote);
  out[gid] = a;
  probe.finish(clocks);
}

// 32 cases, each its own chain with its own constants: lanes on different cases are at different
// PCs, which is what divergence is (one function called with per-lane data is not). TRIPS(P) is case
// P's trip count.
#define WARPCOST_PATH_CASE(P, TRIPS) \
  case P:                            \
    a = chain<P>(a, TRIPS(P));       \
    break;
#define WARPCOST_SWITCH_32(PATH, TRIPS)                                                                           \
  switch (PATH) {                                                                                                 \
    WARPCOST_PATH_CASE(0, TRIPS) WARPCOST_PATH_CASE(1, TRIPS) WARPCOST_PATH_CASE(2, TRIPS)                        \
    WARPCOST_PATH_CASE(3, TRIPS) WARPCOST_PATH_CASE(4, TRIPS) WARPCOST_PATH_CASE(5, TRIPS)                        \
    WARPCOST_PATH_CASE(6, TRIPS) WARPCOST_PATH_CASE(7, TRIPS) WARPCOST_PATH_CASE(8, TRIPS)                        \
    WARPCOST_PATH_CASE(9, TRIPS) WARPCOST_PATH_CASE(10, TRIPS) WARPCOST_PATH_CASE(11, TRIPS)                      \
    WARPCOST_PATH_CASE(12, TRIPS) WARPCOST_PATH_CASE(13, TRIPS) WARPCOST_PATH_CASE(14, TRIPS)                     \
    WARPCOST_PATH_CASE(15, TRIPS) WARPCOST_PATH_CASE(16, TRIPS) WARPCOST_PATH_CASE(17, TRIPS)                     \
    WARPCOST_PATH_CASE(18, TRIPS) WARPCOST_PATH_CASE(19, TRIPS) WARPCOST_PATH_CASE(20, TRIPS)                     \
    WARPCOST_PATH_CASE(21, TRIPS) WARPCOST_PATH_CASE(22, TRIPS) WARPCOST_PATH_CASE(23, TRIPS)                     \
    WARPCOST_PATH_CASE(24, TRIPS) WARPCOST_PATH_CASE(25, TRIPS) WARPCOST_PATH_CASE(26, TRIPS)                     \
    WARPCOST_PATH_CASE(27, TRIPS) WARPCOST_PATH_CASE(28, TRIPS) WARPCOST_PATH_CASE(29, TRIPS)                     \
    WARPCOST_PATH_CASE(30, TRIPS) WARPCOST_PATH_CASE(31, TRIPS)                                                   \
    default:                                                                                                      \
      break;                                                                                                      \
  }
#define WARPCOST_SAME_TRIPS(P) trips
#define WARPCOST_TABLE_TRIPS(P) table.trips[P]

__global__ void switch_kernel(int paths, int first_path, int trips, float* out,
                              WarpRecord* records, ClockSample* clocks) {
  BlockClockProbe probe;
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const int path = (first_path + static_cast<int>(lane()) % paths) % kMaxPaths;
  const unsigned int vote = __ballot_sync(kFullMask, path == first_path);
  float a = chain_start(gid);
  WarpRegion region;
  region.begin();
  // 32 cases, each its own chain with its own constants: lanes on different cases are at
  // different PCs, which is what divergence is (one function called with per-lane data is not).
  WARPCOST_SWITCH_32(path, WARPCOST_SAME_TRIPS)
  region.end(records, vote);
  out[gid] = a;
  probe.finish(clocks);
}

__global__ void switch_table_kernel(const __grid_constant__ SwitchTable table, float* out, WarpRecord* records,
                                    ClockSample* clocks) {
  BlockClockProbe probe;
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const int path = table.lane_path[lane()];
  const unsigned int vote = __ballot_sync(kFullMask, path == 0);
  float a = chain_start(gid);
  WarpRegion region;
  region.begin();
  WARPCOST_SWITCH_32(path, WARPCOST_TABLE_TRIPS)
  region.end(records, vote);
  out[gid] = a;
  probe.finish(clocks);
}

__global__ void nested_kernel(unsigned int outer_mask, unsigned int inner_mask, int trips,
                              float* out, WarpRecord* records, ClockSample* clocks) {
  BlockClockProbe probe;
  const unsigned long long gid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const bool outer = (outer_mask >> lane()) & 1u;
  const bool inner = (inner_mask >> lane()) & 1u;
  const unsigned int vote = __ballot_sync(kFullMask, outer);
  float a = chain_start(gid);
  WarpRegion region;
  region.begin();
  if (outer) {
    if (inner) {
      a = chain<0>(a, trips);
    } else {
      a = chain<1>(a, trips);
    }
  } else {
    if (inner) {
      a = chain<2>(a, trips);
    } else {
      a = chain<3>(a, trips);
    }
  }
  region.end(records, vote);
  out[gid] = a;
  probe.finish(clocks);
}

void require_trips(const char* name, int trips) {
  if (const std::string p = trips_problem(name, trips); !p.empty()) throw std::invalid_argument(p);
}

void require_blocks(unsigned int blocks) {
  if (blocks == 0) throw std::invalid_argument("blocks = 0; allowed: 1 or more");
}

}  // namespace

void launch_if_else(const SplitMasks& masks, int if_trips, int else_trips, unsigned int blocks,
                    float* d_out, WarpRecord* d_records, ClockSample* d_clocks, cudaStream_t stream) {
  require_trips("if_trips", if_trips);
  require_trips("else_trips", else_trips);
  require_blocks(blocks);
  if_else_kernel<<<blocks, kDivergenceBlockThreads, 0, stream>>>(masks, if_trips, else_trips, d_out,
                                                                 d_records, d_clocks);
  WARPCOST_CHECK_LAUNCH("if_else_kernel");
}

void launch_switch(int paths, int first_path, int trips, unsigned int blocks, float* d_out,
                   WarpRecord* d_records, ClockSample* d_clocks, cudaStream_t stream) {
  if (const std::string p = paths_problem(paths); !p.empty()) throw std::invalid_argument(p);
  if (const std::string p = first_path_problem(first_path); !p.empty()) throw std::invalid_argument(p);
  require_trips("trips", trips);
  require_blocks(blocks);
  switch_kernel<<<blocks, kDivergenceBlockThreads, 0, stream>>>(paths, first_path, trips, d_out,
                                                                d_records, d_clocks);
  WARPCOST_CHECK_LAUNCH("switch_kernel");
}

void launch_switch_table(const SwitchTable& table, unsigned int blocks, float* d_out, WarpRecord* d_records,
                         ClockSample* d_clocks, cudaStream_t stream) {
  for (int l = 0; l < 32; ++l) {
    if (table.lane_path[l] >= kMaxPaths) {
      throw std::invalid_argument("lane " + std::to_string(l) + "'s case = " + std::to_string(table.lane_path[l]) +
                                  "; allowed: 0..31");
    }
  }
  for (int p = 0; p < kMaxPaths; ++p) require_trips("case trips", table.trips[p]);
  require_blocks(blocks);
  switch_table_kernel<<<blocks, kDivergenceBlockThreads, 0, stream>>>(table, d_out, d_records, d_clocks);
  WARPCOST_CHECK_LAUNCH("switch_table_kernel");
}

void launch_nested(std::uint32_t outer_mask, std::uint32_t inner_mask, int trips,
                   unsigned int blocks, float* d_out, WarpRecord* d_records, ClockSample* d_clocks,
                   cudaStream_t stream) {
  require_trips("trips", trips);
  require_blocks(blocks);
  nested_kernel<<<blocks, kDivergenceBlockThreads, 0, stream>>>(outer_mask, inner_mask, trips,
                                                                d_out, d_records, d_clocks);
  WARPCOST_CHECK_LAUNCH("nested_kernel");
}

int divergence_blocks_per_sm(DivergenceKernel kernel) {
  int blocks = 0;
  const int threads = static_cast<int>(kDivergenceBlockThreads);
  switch (kernel) {
    case DivergenceKernel::kIfElse:
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, if_else_kernel, threads, 0));
      break;
    case DivergenceKernel::kSwitch:
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, switch_kernel, threads, 0));
      break;
    case DivergenceKernel::kNested:
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, nested_kernel, threads, 0));
      break;
    case DivergenceKernel::kSwitchTable:
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, switch_table_kernel, threads, 0));
      break;
  }
  return blocks;
}

}  // namespace warpcost::kernels
