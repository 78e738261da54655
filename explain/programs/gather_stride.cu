// Defect: out[i] = 2 in[8 i], a stride-8 float gather (each lane its own 32-byte sector, two lanes a
// 64-byte DRAM granule); fixed twin: out[i] = 2 in[i], the same number of useful bytes, coalesced.
// `--stride N` (2..8, default 8) sets the defect's stride (the proof's held-out cases use 2 to 6).
// `--variant resident`: the residency twin (RESIDENCY-TWIN, docs/explain.md): the defect's accesses
// (same stride), but a grid-stride loop over exactly the blocks the SMs hold at once (occupancy
// API), one load in flight a thread, so every warp slot stays filled until the tail: it raises only
// the warps resident per SM, what the latency-hiding view prices.
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

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  IntOption stride_option{"stride", kMaxStride, 2, kMaxStride};
  const Variant v = parse_variant(argc, argv, true, {&stride_option}, false, true);
  try {
    const long in_elems = kOut * stride_option.value;
    std::vector<float> host(in_elems);
    for (long j = 0; j < in_elems; ++j) host[j] = static_cast<float>(j % 1009);
    float *in = nullptr, *out = nullptr;
    WARPCOST_CUDA(cudaMalloc(&in, in_elems * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&out, kOut * sizeof(float)));
    WARPCOST_CUDA(cudaMemcpy(in, host.data(), in_elems * sizeof(float), cudaMemcpyHostToDevice));
    const int stride = v == Variant::kFixed ? 1 : stride_option.value;
    int resident_blocks = 0;  // the residency twin's grid: every block the SMs hold at once
    if (v == Variant::kResident) {
      int device = 0, sms = 0, per_sm = 0;
      WARPCOST_CUDA(cudaGetDevice(&device));
      WARPCOST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gather_resident, kBlock, 0));
      resident_blocks = sms * per_sm;
      std::printf("resident_blocks=%d blocks_per_sm=%d\n", resident_blocks, per_sm);
    }
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
