#include <stdexcept>
#include <string>

#include "cuda_check.hpp"
#include "pattern.hpp"
#include "streaming.hpp"

namespace warpcost::kernels {
namespace {

// A 32-bit LCG step: one IMAD, exact on host and device.
constexpr std::uint32_t kLcgMultiplier = 1664525u;
constexpr std::uint32_t kLcgAddend = 1013904223u;
constexpr int kSideChains = 4;

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

template <int W, bool Dependent, int Bytes>
__global__ void stream_kernel(const typename LoadType<Bytes>::type* data, std::uint64_t elements,
                              std::uint32_t* sums, long long* latency) {
  // Sized by the host only so that a fixed number of blocks fits on an SM; never touched.
  extern __shared__ unsigned char residency_pin[];
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  std::uint32_t acc = 0;
  std::uint32_t side[kSideChains];
#pragma unroll
  for (int c = 0; c < kSideChains; ++c) side[c] = static_cast<std::uint32_t>(gid) + c;
  int probe = threadIdx.x == 0 ? 0 : kLatencySamplesPerBlock;
  for (std::uint64_t i = gid; i < elements; i += stride) {
    std::uint32_t x;
    if (probe < kLatencySamplesPerBlock) {
      // The loaded latency: the clock read again only once the value is in a register.
      const long long t0 = clock64();
      x = fold(data[i]);
      asm volatile("" : "+r"(x)::"memory");
      latency[blockIdx.x * kLatencySamplesPerBlock + probe] = clock64() - t0;
      ++probe;
    } else {
      x = fold(data[i]);
    }
    if constexpr (Dependent) {
#pragma unroll
      for (int j = 0; j < W; ++j) x = x * kLcgMultiplier + kLcgAddend;
    } else {
#pragma unroll
      for (int j = 0; j < W; ++j) {
        side[j % kSideChains] = side[j % kSideChains] * kLcgMultiplier + kLcgAddend;
      }
    }
    acc += x;
  }
#pragma unroll
  for (int c = 0; c < kSideChains; ++c) acc ^= side[c];
  sums[gid] = acc;
}

template <int Bytes, bool Dependent>
const void* kernel_for(int w) {
  switch (w) {
    case 0: return reinterpret_cast<const void*>(stream_kernel<0, Dependent, Bytes>);
    case 1: return reinterpret_cast<const void*>(stream_kernel<1, Dependent, Bytes>);
    case 2: return reinterpret_cast<const void*>(stream_kernel<2, Dependent, Bytes>);
    case 4: return reinterpret_cast<const void*>(stream_kernel<4, Dependent, Bytes>);
    case 8: return reinterpret_cast<const void*>(stream_kernel<8, Dependent, Bytes>);
    case 16: return reinterpret_cast<const void*>(stream_kernel<16, Dependent, Bytes>);
    case 32: return reinterpret_cast<const void*>(stream_kernel<32, Dependent, Bytes>);
    case 64: return reinterpret_cast<const void*>(stream_kernel<64, Dependent, Bytes>);
    case 128: return reinterpret_cast<const void*>(stream_kernel<128, Dependent, Bytes>);
    case 256: return reinterpret_cast<const void*>(stream_kernel<256, Dependent, Bytes>);
    default: return nullptr;
  }
}

template <int Bytes>
const void* kernel_for(int w, AluUse use) {
  return use == AluUse::kDependent ? kernel_for<Bytes, true>(w) : kernel_for<Bytes, false>(w);
}

std::uint32_t lcg(std::uint32_t x) { return x * kLcgMultiplier + kLcgAddend; }

}  // namespace

const char* alu_use_name(AluUse use) {
  return use == AluUse::kDependent ? "dependent" : "independent";
}

std::string stream_kernel_problem(const StreamKernelConfig& c) {
  if (c.load_bytes != 4 && c.load_bytes != 8 && c.load_bytes != 16) {
    return "load width = " + std::to_string(c.load_bytes) + " bytes; allowed: 4, 8 or 16";
  }
  if (c.alu_per_load < 0) {
    return "W = " + std::to_string(c.alu_per_load) + " ALU instructions per load; allowed: 0 or more";
  }
  for (const int w : kStreamAluCounts) {
    if (w == c.alu_per_load) return {};
  }
  return "W = " + std::to_string(c.alu_per_load) +
         " ALU instructions per load; allowed (compiled): 0, 1, 2, 4, 8, 16, 32, 64, 128, 256";
}

const void* stream_kernel_function(const StreamKernelConfig& c) {
  if (const std::string p = stream_kernel_problem(c); !p.empty()) throw std::invalid_argument(p);
  switch (c.load_bytes) {
    case 4: return kernel_for<4>(c.alu_per_load, c.use);
    case 8: return kernel_for<8>(c.alu_per_load, c.use);
    default: return kernel_for<16>(c.alu_per_load, c.use);
  }
}

void launch_stream(const StreamKernelConfig& config, const void* d_data, std::uint64_t elements,
                   unsigned int blocks, unsigned int threads_per_block, std::size_t shared_bytes,
                   std::uint32_t* d_sums, long long* d_latency, cudaStream_t stream) {
  const void* kernel = stream_kernel_function(config);
  void* args[] = {const_cast<void**>(&d_data), &elements, &d_sums, &d_latency};
  WARPCOST_CUDA(cudaLaunchKernel(kernel, dim3(blocks), dim3(threads_per_block), args, shared_bytes,
                                 stream));
  WARPCOST_CHECK_LAUNCH("stream_kernel");
}

std::uint32_t stream_reference(const StreamKernelConfig& c, std::uint64_t gid, std::uint64_t threads,
                               std::uint64_t elements, std::uint32_t seed) {
  const std::uint64_t words = static_cast<std::uint64_t>(c.load_bytes) / 4;
  std::uint32_t acc = 0;
  std::uint32_t side[kSideChains];
  for (int k = 0; k < kSideChains; ++k) side[k] = static_cast<std::uint32_t>(gid) + static_cast<std::uint32_t>(k);
  for (std::uint64_t i = gid; i < elements; i += threads) {
    std::uint32_t x = 0;
    for (std::uint64_t k = 0; k < words; ++k) x ^= pattern_word(i * words + k, seed);
    for (int j = 0; j < c.alu_per_load; ++j) {
      if (c.use == AluUse::kDependent) {
        x = lcg(x);
      } else {
        side[j % kSideChains] = lcg(side[j % kSideChains]);
      }
    }
    acc += x;
  }
  for (int k = 0; k < kSideChains; ++k) acc ^= side[k];
  return acc;
}

}  // namespace warpcost::kernels
