// Defect: a read kernel with one float a thread and short-lived blocks (issue 34): each thread loads
// one element, its warp sums the lanes with shuffles, lane 0 writes the warp's sum, and the block
// ends. With few blocks an SM, little else is in flight while a warp waits for its one load, and
// every block's start and end (its turnover) is paid again and again; with a block that is not a
// whole number of warps, its last warp runs with lanes off: fewer bytes in flight for the same slot.
//   --block-threads P (1..1024, default 32): threads a block (16, 48, 100: the partial-warp cases).
//   --warps-per-sm W (0..64, default 0 = no limit): the defect's residency, limited by dynamic shared
//     memory to exactly W / warps-a-block blocks an SM (the low-residency cases: 32-thread blocks at
//     1, 2, 4, 8 warps an SM); W is 0 or a multiple of the block's warps. Checked with the occupancy
//     API before anything is timed; a device that cannot hold that many blocks fails (exit 1).
//   --variant fixed: removes both defects: the block rounded up to whole warps (P' = 32 ceil(P / 32):
//     16 -> 32, 48 -> 64, 100 -> 128; the same elements, fewer blocks) and no shared-memory limit.
//   --variant resident: removes the block turnover too: the fixed twin's P'-thread blocks, but only the
//     blocks the SMs hold at once (occupancy API x SMs), each thread a grid-stride loop over the
//     elements, one load at a time, one warp sum a warp-iteration written where the fixed twin's warp
//     writes it: its output is the fixed twin's, element for element.
// The twins ignore --warps-per-sm (they remove the limit), so a defect's arguments plus --variant
// fixed name its twin. Every warp sum is checked against the host's (exact: in[j] = j % 7, at most
// 32 such values a sum).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/constants.hpp"
#include "explain/programs/example_support.cuh"

namespace {

using warpcost::kFullWarpMask;
using warpcost::kWarpSize;

// 67,200,000 floats (268.8 MB, several times any L2): divisible by 16, 32, 48, 64, 96, 100, 128, 256,
// 512 and 1024, so the proof's blocks need no tail block (other sizes get one, guarded).
constexpr long kElems = 1024L * 65625;
constexpr int kMaxWarpsPerSm = 64;
// Shared memory is allocated to a block in units of 128 bytes on sm_80 to sm_120 (cuda_occupancy.h,
// cudaOccSMemAllocationGranularity).
constexpr long kSharedAllocationUnit = 128;

__host__ __device__ inline int warps_in(int block_threads) { return (block_threads + kWarpSize - 1) / kWarpSize; }

// The sum of lanes 0..lanes-1's values, at lane 0 (other lanes hold partial sums). A partial warp's
// missing lanes do not exist, so the mask names only the lanes that do (every one of them calls the
// shuffle), and a value read from a missing partner is undefined and dropped: with offsets 1, 2, 4,
// 8, 16 in that order, lane l where l % 2o == 0 holds the sum of the existing lanes in [l, l + 2o)
// after offset o, so lane 0 ends with the exact sum for any lane count (a power of two or not).
__device__ float warp_sum(float value, int lanes) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned mask = lanes == kWarpSize ? kFullWarpMask : (1u << lanes) - 1u;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset <<= 1) {
    const float partner = __shfl_xor_sync(mask, value, offset);
    if ((lane ^ static_cast<unsigned>(offset)) < static_cast<unsigned>(lanes)) value += partner;
  }
  return value;
}

// The defect and the fixed twin: one element a thread, one sum a warp, out[block * warps a block +
// warp]. Threads past n load 0 and stay, so every existing lane joins the shuffle. The dynamic
// shared memory of a limited launch is never touched: allocated at launch, it limits residency
// whether used or not.
__global__ void warp_sums(const float* __restrict__ in, float* __restrict__ out, long n) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float value = i < n ? in[i] : 0.0f;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int lanes = min(kWarpSize, static_cast<int>(blockDim.x) - warp * kWarpSize);
  const float sum = warp_sum(value, lanes);
  const long first_warp = static_cast<long>(blockIdx.x) * warps_in(static_cast<int>(blockDim.x));
  if (threadIdx.x % kWarpSize == 0) out[first_warp + warp] = sum;
}

// The resident twin (blockDim.x a multiple of 32): each warp-iteration covers the 32 elements of one
// aligned chunk, the elements the fixed twin's warp number chunk / 32 covers, and writes that warp's
// output. The loop bound is the warp's own (the same in every lane), so whole warps shuffle.
__global__ void warp_sums_resident(const float* __restrict__ in, float* __restrict__ out, long n) {
  const unsigned lane = threadIdx.x % kWarpSize;
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long chunk = static_cast<long>(blockIdx.x) * blockDim.x + (threadIdx.x - lane); chunk < n; chunk += step) {
    const long i = chunk + lane;
    const float sum = warp_sum(i < n ? in[i] : 0.0f, kWarpSize);
    if (lane == 0) out[chunk / kWarpSize] = sum;
  }
}

// The dynamic shared memory that makes exactly `blocks_per_sm` blocks of warp_sums fit an SM. An SM
// with S bytes of shared memory holds floor(S / F) blocks of footprint F = static + dynamic + the
// driver's reserved bytes a block, rounded up to the allocation unit; F = floor(S / b) rounded down
// to the unit gives floor(S / F) = b while S / (b (b + 1)) exceeds the unit (b <= 42 on a 228 KiB
// SM, and an SM holds at most 32 blocks). The carveout is set to all shared memory, the S the
// occupancy API assumes. Verified with the occupancy API, which also applies the other limits
// (blocks and warps an SM, registers); a count other than b throws.
std::size_t limit_residency(int blocks_per_sm, int block_threads, int device) {
  int per_sm = 0, reserved = 0, per_block_optin = 0;
  WARPCOST_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  WARPCOST_CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  WARPCOST_CUDA(cudaDeviceGetAttribute(&per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attributes{};
  WARPCOST_CUDA(cudaFuncGetAttributes(&attributes, warp_sums));
  const long footprint = per_sm / blocks_per_sm / kSharedAllocationUnit * kSharedAllocationUnit;
  const long dynamic = std::min(footprint - reserved - static_cast<long>(attributes.sharedSizeBytes),
                                per_block_optin - static_cast<long>(attributes.sharedSizeBytes));
  if (dynamic < 0) {
    throw std::runtime_error(std::to_string(blocks_per_sm) + " blocks an SM leave no room for the reserved " +
                             std::to_string(reserved) + " bytes a block");
  }
  WARPCOST_CUDA(
      cudaFuncSetAttribute(warp_sums, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic)));
  WARPCOST_CUDA(cudaFuncSetAttribute(warp_sums, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
  int got = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, warp_sums, block_threads,
                                                              static_cast<std::size_t>(dynamic)));
  if (got != blocks_per_sm) {
    throw std::runtime_error("asked for " + std::to_string(blocks_per_sm) + " blocks of " +
                             std::to_string(block_threads) + " threads an SM with " + std::to_string(dynamic) +
                             " bytes of dynamic shared memory a block (" + std::to_string(per_sm) +
                             " an SM, " + std::to_string(reserved) + " reserved a block); the occupancy API gives " +
                             std::to_string(got));
  }
  return static_cast<std::size_t>(dynamic);
}

// The warp sums a launch of `block_threads`-thread blocks over every element writes: out[b * warps a
// block + w] = the sum of in[j] over warp w's elements of block b (none for a warp past the end).
long count_mismatches(const std::vector<float>& host, const std::vector<float>& got, int block_threads) {
  const int warps = warps_in(block_threads);
  const long blocks = (kElems + block_threads - 1) / block_threads;
  long bad = 0;
  for (long b = 0; b < blocks; ++b) {
    for (int w = 0; w < warps; ++w) {
      const long first = b * block_threads + static_cast<long>(w) * kWarpSize;
      const long end = std::min({first + kWarpSize, (b + 1) * block_threads, kElems});
      long sum = 0;  // whole numbers: exact in float at these sizes
      for (long j = first; j < end; ++j) sum += static_cast<long>(host[j]);
      bad += got[b * warps + w] != static_cast<float>(sum);
    }
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  IntOption block_threads{"block-threads", kWarpSize, 1, 1024};
  IntOption warps_per_sm{"warps-per-sm", 0, 0, kMaxWarpsPerSm};
  const Variant v = parse_variant(argc, argv, true, {&block_threads, &warps_per_sm}, false, true);
  const int defect_warps = warps_in(block_threads.value);
  if (warps_per_sm.value % defect_warps != 0) {
    std::fprintf(stderr,
                 "%s: --warps-per-sm %d; allowed: 0 (no limit) or a multiple of the block's %d warps "
                 "(--block-threads %d) up to %d\n",
                 argv[0], warps_per_sm.value, defect_warps, block_threads.value, kMaxWarpsPerSm);
    return 2;
  }
  // The twins' block: whole warps. The limit: the defect's only.
  const int block = v == Variant::kDefect ? block_threads.value : defect_warps * kWarpSize;
  const int limited_blocks_per_sm = v == Variant::kDefect ? warps_per_sm.value / defect_warps : 0;
  try {
    int device = 0, sms = 0;
    WARPCOST_CUDA(cudaGetDevice(&device));
    WARPCOST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    std::vector<float> host(kElems);
    for (long j = 0; j < kElems; ++j) host[j] = static_cast<float>(j % 7);
    // The output of a `block`-thread grid over every element; the resident twin writes the same
    // entries (the ones past the last element stay 0, as the fixed twin's empty warps write them).
    const long out_count = (kElems + block - 1) / block * warps_in(block);
    float *in = nullptr, *out = nullptr;
    WARPCOST_CUDA(cudaMalloc(&in, kElems * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&out, out_count * sizeof(float)));
    WARPCOST_CUDA(cudaMemcpy(in, host.data(), kElems * sizeof(float), cudaMemcpyHostToDevice));
    WARPCOST_CUDA(cudaMemset(out, 0, out_count * sizeof(float)));
    const std::size_t shared = limited_blocks_per_sm > 0 ? limit_residency(limited_blocks_per_sm, block, device) : 0;
    int blocks_per_sm = 0;
    int grid = static_cast<int>((kElems + block - 1) / block);
    if (v == Variant::kResident) {
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, warp_sums_resident, block, 0));
      grid = sms * blocks_per_sm;
    } else {
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, warp_sums, block, shared));
    }
    std::printf("short_blocks block_threads=%d blocks_per_sm=%d warps_per_sm=%d dynamic_shared_bytes=%zu grid=%d\n",
                block, blocks_per_sm, blocks_per_sm * warps_in(block), shared, grid);
    const double seconds = median_kernel_seconds([&] {
      if (v == Variant::kResident) {
        warp_sums_resident<<<grid, block>>>(in, out, kElems);
        WARPCOST_CHECK_LAUNCH("warp_sums_resident");
      } else {
        warp_sums<<<grid, block, shared>>>(in, out, kElems);
        WARPCOST_CHECK_LAUNCH("warp_sums");
      }
    });
    std::vector<float> got(out_count);
    WARPCOST_CUDA(cudaMemcpy(got.data(), out, out_count * sizeof(float), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(in));
    WARPCOST_CUDA(cudaFree(out));
    return report("short_blocks", v, seconds, count_mismatches(host, got, block));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "short_blocks: %s\n", e.what());
    return 1;
  }
}
