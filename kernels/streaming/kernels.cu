#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/pattern.hpp"
#include "kernels/streaming/kernels.hpp"

namespace warpcost::kernels {
namespace {

// The W ALU instructions are FFMAs v = v * 0.75 + 0.25 on a float in [1, 2):
// full rate on every GPU, exact under IEEE fma on host and device, never folded
// (the compiler may not reassociate floating point; an integer multiply-add
// chain it would collapse into one multiply-add).

template <int Bytes>
struct LoadType;
template <>
struct LoadType<4> {
  using type = unsigned int;
};
template <>
struct LoadType<8> {
  using type = uint2;
};
template <>
struct LoadType<16> {
  using type = uint4;
};

__device__ __forceinline__ std::uint32_t fold(unsigned int v) { return v; }
__device__ __forceinline__ std::uint32_t fold(uint2 v) { return v.x ^ v.y; }
__device__ __forceinline__ std::uint32_t fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// The probe's own clock and load, as volatile asm with a memory clobber: the compiler keeps them in
// program order, and the load cannot be merged with (or hoisted out as) the stream's own load of
// the same element, which an earlier version let it do: the probe then timed a value already in a
// register. ld.global.cg skips L1, which a stream this size misses anyway.
__device__ __forceinline__ long long ordered_clock() {
  long long t = 0;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned int probe_load(const unsigned int* p) {
  unsigned int v = 0;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint2 probe_load(const uint2* p) {
  uint2 v{};
  asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint4 probe_load(const uint4* p) {
  uint4 v{};
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}
// A volatile store of the value: it cannot issue before the load has returned, and a warp issues
// in order, so the clock read after it waits for the load too.
__device__ __forceinline__ void consume(std::uint32_t* slot, std::uint32_t x) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(slot), "r"(x) : "memory");
}

// The probe's samples are spread over the run, one in the middle of each of kLatencySamplesPerBlock
// equal slices, so they see the steady state rather than the launch's ramp-up. The whole of a
// block's warp 0 takes the probe path together (its lanes count lane 0's iterations, so they agree),
// each lane with its own probe load, and lane 0 records: when lane 0 alone probed, lanes 1-31 of
// its warp had often requested its 32-byte sector already, and the probe read 320 cycles where the
// stream's own round trip was 860. Warps other than warp 0 never sample.
__device__ __forceinline__ std::uint64_t sample_iteration(int k, std::uint64_t n) {
  constexpr std::uint64_t kNever = ~std::uint64_t{0};
  if (threadIdx.x >= 32 || k >= kLatencySamplesPerBlock) return kNever;
  return (2 * static_cast<std::uint64_t>(k) + 1) * n / (2 * kLatencySamplesPerBlock);
}

// Iterations of a grid-stride loop from `first` with `per_step` elements a step, for lane 0 of the
// calling warp (its first element is first - lane).
__device__ __forceinline__ std::uint64_t lane0_steps(std::uint64_t first, std::uint64_t span,
                                                     std::uint64_t step, std::uint64_t elements) {
  const std::uint64_t start = first - (threadIdx.x & 31u) + span;
  return elements > start ? (elements - start - 1) / step + 1 : 0;
}

// The ALU work of one load, W known at compile time: fully unrolled, so exactly W FFMAs sit between
// two loads.
template <int W>
struct CompiledAlu {
  __device__ __forceinline__ float dependent(float v) const {
#pragma unroll
    for (int j = 0; j < W; ++j) v = fmaf(v, kChainScale, kChainStep);
    return v;
  }
  __device__ __forceinline__ void independent(float (&side)[kSideChains]) const {
#pragma unroll
    for (int j = 0; j < W; ++j) side[j % kSideChains] = fmaf(side[j % kSideChains], kChainScale, kChainStep);
  }
  __device__ __forceinline__ bool any() const { return W > 0; }
};

// The same work with W a kernel argument (any W, warpcost-stream's W without a compiled kernel): a
// loop. Independent: whole rounds of one FFMA on each side chain, then chains 0..(W mod 4) - 1 once
// more, so each chain gets the FFMAs it gets from the unrolled j % 4 (the host replay is the same),
// and the array index stays a constant (registers, no local memory). The loop's own counter,
// compare and branch are instructions the unrolled kernels do not have: the SASS check and
// warpcost-stream's output say so.
struct RunTimeAlu {
  int w;
  __device__ __forceinline__ float dependent(float v) const {
    for (int j = 0; j < w; ++j) v = fmaf(v, kChainScale, kChainStep);
    return v;
  }
  __device__ __forceinline__ void independent(float (&side)[kSideChains]) const {
    int j = 0;
    for (; j + kSideChains <= w; j += kSideChains) {
#pragma unroll
      for (int c = 0; c < kSideChains; ++c) side[c] = fmaf(side[c], kChainScale, kChainStep);
    }
#pragma unroll
    for (int c = 0; c < kSideChains - 1; ++c) {
      if (j + c < w) side[c] = fmaf(side[c], kChainScale, kChainStep);
    }
  }
  __device__ __forceinline__ bool any() const { return w > 0; }
};

template <bool Dependent, int Bytes, class Alu>
__device__ __forceinline__ void stream_body(const typename LoadType<Bytes>::type* data, std::uint64_t elements,
                                            std::uint32_t* sums, long long* latency, const Alu alu) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  std::uint32_t acc = 0;
  float side[kSideChains];
#pragma unroll
  for (int c = 0; c < kSideChains; ++c) {
    side[c] =
        __uint_as_float(((static_cast<std::uint32_t>(gid) * kSideChains + c) & kMantissaMask) | kOneBits);
  }
  const std::uint64_t iterations = lane0_steps(gid, 0, stride, elements);
  int probe = 0;
  std::uint64_t next_sample = sample_iteration(probe, iterations);
  std::uint64_t iteration = 0;
  for (std::uint64_t i = gid; i < elements; i += stride, ++iteration) {
    std::uint32_t x;
    if (iteration == next_sample) {
      // The loaded latency, from before the load to a store that needs its value
      // (sums[gid] is overwritten at the end).
      const long long t0 = ordered_clock();
      x = fold(probe_load(&data[i]));
      consume(&sums[gid], x);
      const long long t1 = ordered_clock();
      if (threadIdx.x == 0) latency[blockIdx.x * kLatencySamplesPerBlock + probe] = t1 - t0;
      next_sample = sample_iteration(++probe, iterations);
    } else {
      x = fold(data[i]);
    }
    if constexpr (Dependent) {
      if (alu.any()) x = __float_as_uint(alu.dependent(__uint_as_float((x & kMantissaMask) | kOneBits)));
    } else {
      alu.independent(side);
    }
    acc += x;
  }
#pragma unroll
  for (int c = 0; c < kSideChains; ++c) acc ^= __float_as_uint(side[c]);
  sums[gid] = acc;
}

template <int W, bool Dependent, int Bytes>
__global__ void stream_kernel(const typename LoadType<Bytes>::type* data, std::uint64_t elements,
                              std::uint32_t* sums, long long* latency) {
  // Sized by the host only so that a fixed number of blocks fits on an SM;
  // never touched.
  extern __shared__ unsigned char residency_pin[];
  stream_body<Dependent, Bytes>(data, elements, sums, latency, CompiledAlu<W>{});
}

// On the architectures of 2048 threads an SM (sm_80, sm_90, sm_100, sm_103): at most 32 registers a
// thread (65536 / (2 blocks x 1024 threads)), as the unrolled kernels use unbidden (26-32), so it
// holds the device's warp cap: unbounded, its loop took 38 and the H200 held 48 warps/SM, not 64.
// Elsewhere (1024 or 1536 threads an SM) 2 x 1024 is past the SM and ptxas refuses it; there one
// block of 1024 bounds it, and 38 registers still hold the cap (32 or 48 warps). Any block size the
// runner plans (1..32 warps) stays allowed.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030)
#define WARPCOST_RUN_TIME_ALU_MIN_BLOCKS 2
#else
#define WARPCOST_RUN_TIME_ALU_MIN_BLOCKS 1
#endif
template <bool Dependent, int Bytes>
__global__ void __launch_bounds__(1024, WARPCOST_RUN_TIME_ALU_MIN_BLOCKS) stream_run_time_alu_kernel(const typename LoadType<Bytes>::type* data, std::uint64_t elements,
                                           std::uint32_t* sums, long long* latency, int w) {
  extern __shared__ unsigned char residency_pin[];
  stream_body<Dependent, Bytes>(data, elements, sums, latency, RunTimeAlu{w});
}

// U independent 16-byte loads a grid stride apart in flight before the first is
// used; the sum is the W = 0 kernel's, added in another order. Thread 0's probe
// times batches spread over its run, from before the first load to a volatile store of
// a value that needs all U.
template <int U>
__global__ void stream_batched_kernel(const uint4* data, std::uint64_t elements, std::uint32_t* sums,
                                      long long* latency) {
  extern __shared__ unsigned char residency_pin[];
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  std::uint32_t acc = 0;
  // Lane 0's batches: its first batch ends (U - 1) strides after its first element.
  const std::uint64_t batches = lane0_steps(gid, (U - 1) * stride, U * stride, elements);
  int probe = 0;
  std::uint64_t next_sample = sample_iteration(probe, batches);
  std::uint64_t batch = 0;
  std::uint64_t i = gid;
  for (; i + (U - 1) * stride < elements; i += U * stride, ++batch) {
    uint4 v[U];
    if (batch == next_sample) {
      const long long t0 = ordered_clock();
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = probe_load(&data[i + u * stride]);
      std::uint32_t all = 0;
#pragma unroll
      for (int u = 0; u < U; ++u) all ^= fold(v[u]);
      consume(&sums[gid], all);
      const long long t1 = ordered_clock();
      if (threadIdx.x == 0) latency[blockIdx.x * kLatencySamplesPerBlock + probe] = t1 - t0;
      next_sample = sample_iteration(++probe, batches);
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = data[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc += fold(v[u]);
  }
  for (; i < elements; i += stride) acc += fold(data[i]);
#pragma unroll
  for (int c = 0; c < kSideChains; ++c) {
    acc ^= ((static_cast<std::uint32_t>(gid) * kSideChains + c) & kMantissaMask) | kOneBits;
  }
  sums[gid] = acc;
}

// The one-load-a-thread grid's epilogue, the same with and without the load: the warp XORs its 32
// values and lane 0 writes the result to warp_sums[gid / 32].
__device__ __forceinline__ void store_warp_xor(std::uint32_t x, std::uint64_t gid, std::uint32_t* warp_sums) {
#if __CUDA_ARCH__ >= 800
  const std::uint32_t warp_value = __reduce_xor_sync(0xffffffffu, x);
#else
  // __reduce_*_sync needs sm_80; before it a shuffle tree gives the same XOR over the 32 lanes.
  std::uint32_t warp_value = x;
  for (int offset = 16; offset > 0; offset /= 2) {
    warp_value ^= __shfl_xor_sync(0xffffffffu, warp_value, offset);
  }
#endif
  if ((threadIdx.x & 31u) == 0) warp_sums[gid / 32] = warp_value;
}

__global__ void stream_one_per_thread_kernel(const uint4* data, std::uint64_t elements,
                                             std::uint32_t* warp_sums) {
  const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint32_t x = gid < elements ? fold(data[gid]) : 0u;
  store_warp_xor(x, gid, warp_sums);
}

// The same grid with the load taken out (the block-turnover parameter of docs/models.md): each
// thread folds a value of its own index (one multiply, no memory read), the warp XORs the 32 with
// the same reduction, and lane 0 writes the result, so a block costs what the one-load-a-thread
// block costs but its load: launch, the reduction, the store and retirement.
__global__ void stream_turnover_kernel(std::uint64_t elements, std::uint32_t* warp_sums) {
  const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint32_t x = gid < elements ? static_cast<std::uint32_t>(gid) * kTurnoverMultiplier : 0u;
  store_warp_xor(x, gid, warp_sums);
}

// The plain read: thread t of block b loads the U 16-byte elements b*U*B + t + u*B (u < U), all
// issued before any is used, and adds their folds. Timed (Check = false), it stores nothing: the
// only store hangs on gid == sink, and the host passes a sink no thread has, which the compiler
// cannot know, so the loads stay. Checked (Check = true), each warp adds its sum to *total with one
// atomic, and the host holds the total against its own sum over the whole buffer.
template <int U, bool Check>
__global__ void stream_peak_kernel(const uint4* __restrict__ data, std::uint64_t elements,
                                   std::uint32_t* total, std::uint64_t sink) {
  const std::uint64_t base = blockIdx.x * (static_cast<std::uint64_t>(U) * blockDim.x) + threadIdx.x;
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::uint64_t i = base + static_cast<std::uint64_t>(u) * blockDim.x;
    v[u] = i < elements ? data[i] : make_uint4(0u, 0u, 0u, 0u);
  }
  std::uint32_t acc = 0;
#pragma unroll
  for (int u = 0; u < U; ++u) acc += fold(v[u]);
  if constexpr (Check) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if ((threadIdx.x & 31u) == 0) atomicAdd(total, acc);
  } else {
    const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
    if (gid == sink) *total = acc;
  }
}

template <bool Check>
const void* peak_kernel_for(int loads_per_thread) {
  switch (loads_per_thread) {
    case 1: return reinterpret_cast<const void*>(stream_peak_kernel<1, Check>);
    case 2: return reinterpret_cast<const void*>(stream_peak_kernel<2, Check>);
    case 4: return reinterpret_cast<const void*>(stream_peak_kernel<4, Check>);
    case 8: return reinterpret_cast<const void*>(stream_peak_kernel<8, Check>);
    default: return nullptr;
  }
}

template <int Bytes, bool Dependent>
const void* kernel_for(int w) {
  switch (w) {
    case 0:
      return reinterpret_cast<const void*>(stream_kernel<0, Dependent, Bytes>);
    case 1:
      return reinterpret_cast<const void*>(stream_kernel<1, Dependent, Bytes>);
    case 2:
      return reinterpret_cast<const void*>(stream_kernel<2, Dependent, Bytes>);
    case 4:
      return reinterpret_cast<const void*>(stream_kernel<4, Dependent, Bytes>);
    case 8:
      return reinterpret_cast<const void*>(stream_kernel<8, Dependent, Bytes>);
    case 16:
      return reinterpret_cast<const void*>(stream_kernel<16, Dependent, Bytes>);
    case 32:
      return reinterpret_cast<const void*>(stream_kernel<32, Dependent, Bytes>);
    case 64:
      return reinterpret_cast<const void*>(stream_kernel<64, Dependent, Bytes>);
    case 128:
      return reinterpret_cast<const void*>(stream_kernel<128, Dependent, Bytes>);
    case 256:
      return reinterpret_cast<const void*>(stream_kernel<256, Dependent, Bytes>);
    default:
      return nullptr;
  }
}

template <int Bytes>
const void* kernel_for(int w, AluUse use) {
  return use == AluUse::kDependent ? kernel_for<Bytes, true>(w) : kernel_for<Bytes, false>(w);
}

template <int Bytes>
const void* run_time_kernel_for(AluUse use) {
  return use == AluUse::kDependent ? reinterpret_cast<const void*>(stream_run_time_alu_kernel<true, Bytes>)
                                   : reinterpret_cast<const void*>(stream_run_time_alu_kernel<false, Bytes>);
}

}  // namespace

const void* stream_kernel_function(const StreamKernelConfig& c) {
  if (const std::string p = stream_kernel_problem(c); !p.empty()) throw std::invalid_argument(p);
  switch (c.loads_in_flight) {
    case 2:
      return reinterpret_cast<const void*>(stream_batched_kernel<2>);
    case 4:
      return reinterpret_cast<const void*>(stream_batched_kernel<4>);
    case 8:
      return reinterpret_cast<const void*>(stream_batched_kernel<8>);
    default:
      break;
  }
  if (c.run_time_alu) {
    switch (c.load_bytes) {
      case 4:
        return run_time_kernel_for<4>(c.use);
      case 8:
        return run_time_kernel_for<8>(c.use);
      default:
        return run_time_kernel_for<16>(c.use);
    }
  }
  switch (c.load_bytes) {
    case 4:
      return kernel_for<4>(c.alu_per_load, c.use);
    case 8:
      return kernel_for<8>(c.alu_per_load, c.use);
    default:
      return kernel_for<16>(c.alu_per_load, c.use);
  }
}

void launch_stream(const StreamKernelConfig& config, const void* d_data, std::uint64_t elements,
                   unsigned int blocks, unsigned int threads_per_block, std::size_t shared_bytes,
                   std::uint32_t* d_sums, long long* d_latency, cudaStream_t stream) {
  const void* kernel = stream_kernel_function(config);
  int w = config.alu_per_load;
  void* args[] = {const_cast<void**>(&d_data), &elements, &d_sums, &d_latency, &w};  // w: the run-time kernel's only
  WARPCOST_CUDA(cudaLaunchKernel(kernel, dim3(blocks), dim3(threads_per_block), args, shared_bytes, stream));
  WARPCOST_CHECK_LAUNCH("stream_kernel");
}

void launch_stream_one_per_thread(const void* d_data, std::uint64_t elements, unsigned int threads_per_block,
                                  std::uint32_t* d_warp_sums, cudaStream_t stream) {
  if (threads_per_block == 0 || threads_per_block % 32 != 0) {
    throw std::invalid_argument("block size = " + std::to_string(threads_per_block) +
                                " threads; allowed: a positive multiple of 32");
  }
  const std::uint64_t blocks = (elements + threads_per_block - 1) / threads_per_block;
  stream_one_per_thread_kernel<<<static_cast<unsigned int>(blocks), threads_per_block, 0, stream>>>(
      static_cast<const uint4*>(d_data), elements, d_warp_sums);
  WARPCOST_CHECK_LAUNCH("stream_one_per_thread_kernel");
}

void launch_block_turnover(std::uint64_t elements, unsigned int threads_per_block, std::uint32_t* d_warp_sums,
                           cudaStream_t stream) {
  if (threads_per_block == 0 || threads_per_block % 32 != 0) {
    throw std::invalid_argument("block size = " + std::to_string(threads_per_block) +
                                " threads; allowed: a positive multiple of 32");
  }
  const std::uint64_t blocks = (elements + threads_per_block - 1) / threads_per_block;
  stream_turnover_kernel<<<static_cast<unsigned int>(blocks), threads_per_block, 0, stream>>>(elements, d_warp_sums);
  WARPCOST_CHECK_LAUNCH("stream_turnover_kernel");
}

int block_turnover_resident_blocks(int threads_per_block) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stream_turnover_kernel, threads_per_block, 0));
  return blocks;
}

int one_per_thread_resident_blocks(int threads_per_block) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stream_one_per_thread_kernel,
                                                              threads_per_block, 0));
  return blocks;
}

namespace {

// The dynamic shared memory is never touched: it only holds the residency where the plan puts it.
__global__ void copy_stream_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::uint64_t elements) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < elements; i += stride) {
    dst[i] = src[i];
  }
}

}  // namespace

const void* copy_stream_kernel_function() { return reinterpret_cast<const void*>(copy_stream_kernel); }

void launch_copy_stream(const void* d_src, void* d_dst, std::uint64_t elements, unsigned int blocks,
                        unsigned int threads_per_block, std::size_t shared_bytes, cudaStream_t stream) {
  if (blocks == 0 || threads_per_block == 0 || threads_per_block % 32 != 0) {
    throw std::invalid_argument("copy stream of " + std::to_string(blocks) + " blocks of " +
                                std::to_string(threads_per_block) +
                                " threads; allowed: at least one block of a positive multiple of 32 threads");
  }
  copy_stream_kernel<<<blocks, threads_per_block, shared_bytes, stream>>>(static_cast<const uint4*>(d_src),
                                                                         static_cast<uint4*>(d_dst), elements);
  WARPCOST_CHECK_LAUNCH("copy_stream_kernel");
}

void launch_stream_peak(const void* d_data, std::uint64_t elements, int loads_per_thread,
                        unsigned int threads_per_block, bool check, std::uint32_t* d_total, cudaStream_t stream) {
  if (const std::string p = peak_problem(loads_per_thread, static_cast<int>(threads_per_block)); !p.empty()) {
    throw std::invalid_argument(p);
  }
  const std::uint64_t per_block = static_cast<std::uint64_t>(loads_per_thread) * threads_per_block;
  const std::uint64_t blocks = (elements + per_block - 1) / per_block;
  if (blocks == 0 || blocks > 2147483647ull) {
    throw std::invalid_argument("peak read of " + std::to_string(elements) + " elements needs " +
                                std::to_string(blocks) + " blocks; allowed: 1..2147483647");
  }
  const void* kernel = check ? peak_kernel_for<true>(loads_per_thread) : peak_kernel_for<false>(loads_per_thread);
  std::uint64_t sink = ~std::uint64_t{0};  // no thread has this index
  void* args[] = {const_cast<void**>(&d_data), &elements, &d_total, &sink};
  WARPCOST_CUDA(cudaLaunchKernel(kernel, dim3(static_cast<unsigned int>(blocks)), dim3(threads_per_block), args, 0,
                                 stream));
  WARPCOST_CHECK_LAUNCH("stream_peak_kernel");
}

}  // namespace warpcost::kernels
