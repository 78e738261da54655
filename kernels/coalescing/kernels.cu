// The coalescing family's kernels and their launch wrappers (host planning and the replays the
// outputs are checked against live in bench/coalescing/plan.cpp).
#include "kernels/coalescing/kernels.hpp"

#include <stdexcept>
#include <string>

#include "core/coalescing/model.hpp"
#include "kernels/coalescing/pattern.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/pattern.hpp"

namespace warpcost::kernels {
namespace {

constexpr int kTileThreads = coalescing::kTileBlockThreads;
constexpr int kUnroll = coalescing::kUnroll;
static_assert(coalescing::kImageFramesInFlight == 8, "image_load_kernel unrolls 8 frames");

// Element types by size, and the uint32 fold the host replays (plan.cpp: element_fold).
template <int kBytes> struct Elem;
template <> struct Elem<1> {
  using T = unsigned char;
  __device__ static std::uint32_t fold(T v) { return v; }
  __device__ static T stored(std::uint64_t a) { return static_cast<T>(coalescing_store_word(a, 0)); }
};
template <> struct Elem<2> {
  using T = unsigned short;
  __device__ static std::uint32_t fold(T v) { return v; }
  __device__ static T stored(std::uint64_t a) { return static_cast<T>(coalescing_store_word(a, 0)); }
};
template <> struct Elem<4> {
  using T = unsigned int;
  __device__ static std::uint32_t fold(T v) { return v; }
  __device__ static T stored(std::uint64_t a) { return coalescing_store_word(a, 0); }
};
template <> struct Elem<8> {
  using T = unsigned long long;
  __device__ static std::uint32_t fold(T v) {
    return static_cast<std::uint32_t>(v) + static_cast<std::uint32_t>(v >> 32);
  }
  __device__ static T stored(std::uint64_t a) {
    return static_cast<T>(coalescing_store_word(a, 0)) | (static_cast<T>(coalescing_store_word(a, 1)) << 32);
  }
};
template <> struct Elem<16> {
  using T = uint4;
  __device__ static std::uint32_t fold(T v) { return v.x + v.y + v.z + v.w; }
  __device__ static T stored(std::uint64_t a) {
    return make_uint4(coalescing_store_word(a, 0), coalescing_store_word(a, 1), coalescing_store_word(a, 2),
                      coalescing_store_word(a, 3));
  }
};

__device__ __forceinline__ std::uint32_t warp_sum_all(std::uint32_t v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

// One warp request a tile: lane l at slot * pitch + lane_offset[l]. Four tiles in flight a warp.
template <int kBytes>
__global__ void __launch_bounds__(kTileThreads) tile_load_kernel(TileKernelArgs a) {
  using T = typename Elem<kBytes>::T;
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned char* lane_base = a.base + a.lane_offset[lane];
  std::uint32_t sum = 0;
  // One iteration at a time: kUnroll tiles in flight a warp, the in-flight bound's input. Without
  // the pragma ptxas (nvcc 13.0, sm_90) unrolled this loop four times for 1-, 2-, 4- and 16-byte
  // elements (16 loads, their adds interleaved from the fifth on) and not for 8-byte ones (4), so
  // runs before this line held an element-size-dependent 4 to about 12 (docs/models.md).
#pragma unroll 1
  for (std::uint32_t k = 0; k < a.tiles_per_warp; k += kUnroll) {
    T v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t slot = (warp + (k + u) * a.total_warps) & a.region_mask;
      v[u] = __ldcg(reinterpret_cast<const T*>(lane_base + static_cast<std::uint64_t>(slot) * a.pitch_bytes));
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += Elem<kBytes>::fold(v[u]);
  }
  sum = warp_sum_all(sum);
  if (lane == 0) a.warp_sums[warp] = sum;
}

template <int kBytes>
__global__ void __launch_bounds__(kTileThreads) tile_store_kernel(TileKernelArgs a) {
  using T = typename Elem<kBytes>::T;
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const std::uint32_t lane_offset = a.lane_offset[lane];
  for (std::uint32_t k = 0; k < a.tiles_per_warp; k += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t slot = (warp + (k + u) * a.total_warps) & a.region_mask;
      const std::uint64_t address = static_cast<std::uint64_t>(slot) * a.pitch_bytes + lane_offset;
      __stcg(reinterpret_cast<T*>(a.base + address), Elem<kBytes>::stored(address));
    }
  }
}

// Per-warp sums of a block whose last warp may be partial: through shared memory, because a
// shuffle may only name lanes that exist.
__device__ __forceinline__ void store_block_warp_sums(std::uint32_t sum, std::uint32_t* shared, int threads,
                                                      int linear, std::uint32_t* out) {
  shared[linear] = sum;
  __syncthreads();
  if ((linear & 31) == 0) {
    std::uint32_t warp_total = 0;
    for (int i = linear; i < linear + 32 && i < threads; ++i) warp_total += shared[i];
    *out = warp_total;
  }
}

// 1D blocks of P threads: block b reads segment b + k*blocks, thread t its element t.
__global__ void segment_load_kernel(SegmentKernelArgs a) {
  extern __shared__ std::uint32_t shared[];
  const int threads = static_cast<int>(blockDim.x);
  const int t = static_cast<int>(threadIdx.x);
  const std::uint32_t* thread_base = a.base + t;
  std::uint32_t sum = 0;
  // One iteration at a time: kUnroll segments in flight a thread, as the second-order model reads
  // (bytes_in_flight_per_warp = kUnroll x moved). Without the pragma ptxas (nvcc 13.0, sm_90)
  // unrolled this loop four times and issued 16 loads before the first add, so every run before
  // this line measured partial_block with 16 segments in flight, not 4 (docs/models.md).
  // scripts/check-sass.sh --only in_flight holds it to kUnroll loads.
#pragma unroll 1
  for (std::uint32_t k = 0; k < a.segments_per_block; k += kUnroll) {
    std::uint32_t v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t slot = (blockIdx.x + (k + u) * gridDim.x) & a.region_mask;
      v[u] = __ldcg(thread_base + static_cast<std::uint64_t>(slot) * a.pitch_words);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += v[u];
  }
  const int warps = (threads + 31) / 32;
  store_block_warp_sums(sum, shared, threads, t, a.warp_sums + static_cast<std::size_t>(blockIdx.x) * warps + t / 32);
}

// (x,y) blocks over a row-major image of kBytes elements: thread (tx,ty) of block (bx,by) reads
// element (by*y + ty, bx*x + tx) of every frame; frames frame_elems elements apart.
template <int kBytes>
__global__ void image_load_kernel(ImageKernelArgs a) {
  using T = typename Elem<kBytes>::T;
  extern __shared__ std::uint32_t shared[];
  const int threads = static_cast<int>(blockDim.x * blockDim.y);
  const int linear = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const long long col = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long row = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y;
  std::uint32_t sum = 0;
  if (col < a.width && row < a.height) {
    const T* p = reinterpret_cast<const T*>(a.base) + static_cast<std::uint64_t>(row) * static_cast<std::uint64_t>(a.width) +
                 static_cast<std::uint64_t>(col);
#pragma unroll 8
    for (int f = 0; f < a.frames; ++f) sum += Elem<kBytes>::fold(__ldcg(p + static_cast<std::uint64_t>(f) * a.frame_elems));
  }
  const int warps = (threads + 31) / 32;
  const std::size_t block = static_cast<std::size_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  store_block_warp_sums(sum, shared, threads, linear, a.warp_sums + block * warps + linear / 32);
}

__global__ void pattern_fill_kernel(std::uint32_t* words, std::uint64_t count, std::uint32_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    words[i] = pattern_word(i, seed);
  }
}

[[noreturn]] void bad_size(int elem_bytes) {
  throw std::invalid_argument("element size = " + std::to_string(elem_bytes) + " bytes; allowed: 1, 2, 4, 8, 16");
}

}  // namespace

void launch_tile_load(const TileKernelArgs& args, int elem_bytes, unsigned int blocks, cudaStream_t stream) {
  switch (elem_bytes) {
    case 1: tile_load_kernel<1><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 2: tile_load_kernel<2><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 4: tile_load_kernel<4><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 8: tile_load_kernel<8><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 16: tile_load_kernel<16><<<blocks, kTileThreads, 0, stream>>>(args); break;
    default: bad_size(elem_bytes);
  }
  WARPCOST_CHECK_LAUNCH("tile_load_kernel");
}

void launch_tile_store(const TileKernelArgs& args, int elem_bytes, unsigned int blocks, cudaStream_t stream) {
  switch (elem_bytes) {
    case 1: tile_store_kernel<1><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 2: tile_store_kernel<2><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 4: tile_store_kernel<4><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 8: tile_store_kernel<8><<<blocks, kTileThreads, 0, stream>>>(args); break;
    case 16: tile_store_kernel<16><<<blocks, kTileThreads, 0, stream>>>(args); break;
    default: bad_size(elem_bytes);
  }
  WARPCOST_CHECK_LAUNCH("tile_store_kernel");
}

void launch_segment_load(const SegmentKernelArgs& args, int threads, unsigned int blocks, cudaStream_t stream) {
  const std::size_t shared = static_cast<std::size_t>(threads) * sizeof(std::uint32_t);
  segment_load_kernel<<<blocks, static_cast<unsigned int>(threads), shared, stream>>>(args);
  WARPCOST_CHECK_LAUNCH("segment_load_kernel");
}

void launch_image_load(const ImageKernelArgs& args, int x, int y, unsigned int grid_x, unsigned int grid_y,
                       cudaStream_t stream) {
  if (args.frame_elems < static_cast<std::uint64_t>(args.width) * static_cast<std::uint64_t>(args.height)) {
    throw std::invalid_argument("image frame_elems = " + std::to_string(args.frame_elems) + "; allowed: at least width x height = " +
                                std::to_string(static_cast<std::uint64_t>(args.width) * static_cast<std::uint64_t>(args.height)));
  }
  const std::size_t shared = static_cast<std::size_t>(x) * static_cast<std::size_t>(y) * sizeof(std::uint32_t);
  const dim3 grid(grid_x, grid_y);
  const dim3 block(static_cast<unsigned int>(x), static_cast<unsigned int>(y));
  switch (args.elem_bytes) {
    case 1: image_load_kernel<1><<<grid, block, shared, stream>>>(args); break;
    case 2: image_load_kernel<2><<<grid, block, shared, stream>>>(args); break;
    case 4: image_load_kernel<4><<<grid, block, shared, stream>>>(args); break;
    case 8: image_load_kernel<8><<<grid, block, shared, stream>>>(args); break;
    case 16: image_load_kernel<16><<<grid, block, shared, stream>>>(args); break;
    default: bad_size(args.elem_bytes);
  }
  WARPCOST_CHECK_LAUNCH("image_load_kernel");
}

void launch_pattern_fill(std::uint32_t* words, std::uint64_t count, std::uint32_t seed, cudaStream_t stream) {
  pattern_fill_kernel<<<2048, 256, 0, stream>>>(words, count, seed);
  WARPCOST_CHECK_LAUNCH("pattern_fill_kernel");
}

}  // namespace warpcost::kernels
