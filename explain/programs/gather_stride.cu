// Defect: out[i] = 2 in[8 i], a stride-8 float gather (each lane its own 32-byte sector, two lanes a
// 64-byte DRAM granule); fixed twin: out[i] = 2 in[i], the same number of useful bytes, coalesced.
// `--stride N` (2..8, default 8) sets the defect's stride (the proof's held-out cases use 2 to 6).
// `--variant resident`: the residency twin (RESIDENCY-TWIN, docs/explain.md): the defect's accesses
// (same stride), but a grid-stride loop over exactly the blocks the SMs hold at once (occupancy
// API), one load in flight a thread, so every warp slot stays filled until the tail: it raises only
// the warps resident per SM, what the latency-hiding view prices.
// `--access store` (default load): the same defect on the store side, the scatter out[8 i] = 2 in[i]
// (an output buffer `stride` times the inputs; each lane's 4 bytes its own sector); fixed twin: the
// coalesced out[i] = 2 in[i]; residency twin: the same scatter in a grid-stride loop over the
// resident blocks. The stores' gaps keep a sentinel, checked with the written elements. The load
// path is unchanged (its kernels and launches as before the option), so its committed results stay
// comparable.
#include <cstdint>
#include <cstring>
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr long kOut = 16L << 20;  // 16 Mi outputs (64 MiB)
constexpr int kMaxStride = 8;
constexpr int kBlock = 256;

__global__ void gather(const float* __restrict__ in, float* __restrict__ out, int stride) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kOut) out[i] = 2.0f * in[i * stride];
}

__global__ void gather_resident(const float* __restrict__ in, float* __restrict__ out, int stride) {
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kOut; i += step) {
    out[i] = 2.0f * in[i * stride];
  }
}

// The store path: out[i * stride] = 2 in[i] over kOut inputs (stride 1: the coalesced twin).
__global__ void scatter(const float* __restrict__ in, float* __restrict__ out, int stride) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kOut) out[i * stride] = 2.0f * in[i];
}

__global__ void scatter_resident(const float* __restrict__ in, float* __restrict__ out, int stride) {
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kOut; i += step) {
    out[i * stride] = 2.0f * in[i];
  }
}

// The residency twin's grid: every block of `kernel` the SMs hold at once.
template <class Kernel>
int resident_blocks_of(Kernel kernel) {
  int device = 0, sms = 0, per_sm = 0;
  WARPCOST_CUDA(cudaGetDevice(&device));
  WARPCOST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
  std::printf("resident_blocks=%d blocks_per_sm=%d\n", sms * per_sm, per_sm);
  return sms * per_sm;
}

// cudaMemset's byte 0x7f in every byte of the output: a finite float no store writes (the inputs are
// whole numbers under 2018), so an element a store missed, or one it should not have touched, shows.
constexpr unsigned char kSentinelByte = 0x7f;
constexpr std::uint32_t kSentinelBits = 0x7f7f7f7fu;

int run_store(warpcost::examples::Variant v, int stride) {
  using namespace warpcost::examples;
  std::vector<float> host(kOut);
  for (long j = 0; j < kOut; ++j) host[j] = static_cast<float>(j % 1009);
  const long out_elems = kOut * stride;
  float *in = nullptr, *out = nullptr;
  WARPCOST_CUDA(cudaMalloc(&in, kOut * sizeof(float)));
  WARPCOST_CUDA(cudaMalloc(&out, out_elems * sizeof(float)));
  WARPCOST_CUDA(cudaMemcpy(in, host.data(), kOut * sizeof(float), cudaMemcpyHostToDevice));
  WARPCOST_CUDA(cudaMemset(out, kSentinelByte, out_elems * sizeof(float)));
  const int resident_blocks = v == Variant::kResident ? resident_blocks_of(scatter_resident) : 0;
  const double seconds = median_kernel_seconds([&] {
    if (v == Variant::kResident) {
      scatter_resident<<<resident_blocks, kBlock>>>(in, out, stride);
      WARPCOST_CHECK_LAUNCH("scatter_resident");
    } else {
      scatter<<<static_cast<int>(kOut / kBlock), kBlock>>>(in, out, stride);
      WARPCOST_CHECK_LAUNCH("scatter");
    }
  });
  std::vector<float> got(out_elems);
  WARPCOST_CUDA(cudaMemcpy(got.data(), out, out_elems * sizeof(float), cudaMemcpyDeviceToHost));
  WARPCOST_CUDA(cudaFree(in));
  WARPCOST_CUDA(cudaFree(out));
  long bad = 0;
  for (long k = 0; k < out_elems; ++k) {
    if (k % stride == 0) {
      bad += got[k] != 2.0f * host[k / stride];
    } else {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &got[k], sizeof(bits));
      bad += bits != kSentinelBits;
    }
  }
  return report("gather_stride", v, seconds, bad);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  IntOption stride_option{"stride", kMaxStride, 2, kMaxStride};
  ChoiceOption access{"access", {"load", "store"}};
  const Variant v = parse_variant(argc, argv, true, {&stride_option}, false, true, {&access});
  try {
    if (std::strcmp(access.word(), "store") == 0) {
      return run_store(v, v == Variant::kFixed ? 1 : stride_option.value);
    }
    const long in_elems = kOut * stride_option.value;
    std::vector<float> host(in_elems);
    for (long j = 0; j < in_elems; ++j) host[j] = static_cast<float>(j % 1009);
    float *in = nullptr, *out = nullptr;
    WARPCOST_CUDA(cudaMalloc(&in, in_elems * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&out, kOut * sizeof(float)));
    WARPCOST_CUDA(cudaMemcpy(in, host.data(), in_elems * sizeof(float), cudaMemcpyHostToDevice));
    const int stride = v == Variant::kFixed ? 1 : stride_option.value;
    const int resident_blocks = v == Variant::kResident ? resident_blocks_of(gather_resident) : 0;
    const double seconds = median_kernel_seconds([&] {
      if (v == Variant::kResident) {
        gather_resident<<<resident_blocks, kBlock>>>(in, out, stride);
        WARPCOST_CHECK_LAUNCH("gather_resident");
      } else {
        gather<<<static_cast<int>(kOut / kBlock), kBlock>>>(in, out, stride);
        WARPCOST_CHECK_LAUNCH("gather");
      }
    });
    std::vector<float> got(kOut);
    WARPCOST_CUDA(cudaMemcpy(got.data(), out, kOut * sizeof(float), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(in));
    WARPCOST_CUDA(cudaFree(out));
    long bad = 0;
    for (long i = 0; i < kOut; ++i) bad += got[i] != 2.0f * host[i * stride];
    return report("gather_stride", v, seconds, bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gather_stride: %s\n", e.what());
    return 1;
  }
}
