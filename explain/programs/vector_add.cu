// A kernel that looks clean and has headroom (issue 34): c[i] = a[i] + b[i], one float a thread,
// 256-thread blocks, full residency, every access coalesced, no partial warp, no divergence. Yet each
// thread issues its two loads and ends: a block lives for one round trip to DRAM, and the SMs spend
// part of every block's life starting and retiring it (the block turnover), with one float a load
// in flight a thread in between. (A float4 twin measured 1.263x, issue 34; that twin
// changes the loads in flight too.)
//   --variant fixed: the same one float a load over the same elements, but a grid-stride loop over
//     exactly the blocks the SMs hold at once (occupancy API x SMs): no block turnover. The loop is
//     kept one element an iteration (no unrolling), so the twin removes the turnover alone, not
//     adding loads in flight a thread.
// Every element is checked against the host's sum (whole numbers: exact).
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr long kElems = 32L << 20;  // 32 Mi floats a vector (128 MiB; 384 MiB moved a launch)
constexpr int kBlock = 256;

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < kElems) c[i] = a[i] + b[i];
}

__global__ void vector_add_resident(const float* __restrict__ a, const float* __restrict__ b,
                                    float* __restrict__ c) {
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kElems; i += step) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  const Variant v = parse_variant(argc, argv, true);
  try {
    std::vector<float> ha(kElems), hb(kElems);
    for (long j = 0; j < kElems; ++j) {
      ha[j] = static_cast<float>(j % 1013);
      hb[j] = static_cast<float>(j % 517);
    }
    float *a = nullptr, *b = nullptr, *c = nullptr;
    WARPCOST_CUDA(cudaMalloc(&a, kElems * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&b, kElems * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&c, kElems * sizeof(float)));
    WARPCOST_CUDA(cudaMemcpy(a, ha.data(), kElems * sizeof(float), cudaMemcpyHostToDevice));
    WARPCOST_CUDA(cudaMemcpy(b, hb.data(), kElems * sizeof(float), cudaMemcpyHostToDevice));
    WARPCOST_CUDA(cudaMemset(c, 0, kElems * sizeof(float)));
    int grid = static_cast<int>(kElems / kBlock);
    if (v == Variant::kFixed) {
      int device = 0, sms = 0, per_sm = 0;
      WARPCOST_CUDA(cudaGetDevice(&device));
      WARPCOST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vector_add_resident, kBlock, 0));
      grid = sms * per_sm;
      std::printf("resident_blocks=%d blocks_per_sm=%d\n", grid, per_sm);
    }
    const double seconds = median_kernel_seconds([&] {
      if (v == Variant::kFixed) {
        vector_add_resident<<<grid, kBlock>>>(a, b, c);
        WARPCOST_CHECK_LAUNCH("vector_add_resident");
      } else {
        vector_add<<<grid, kBlock>>>(a, b, c);
        WARPCOST_CHECK_LAUNCH("vector_add");
      }
    });
    std::vector<float> got(kElems);
    WARPCOST_CUDA(cudaMemcpy(got.data(), c, kElems * sizeof(float), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(a));
    WARPCOST_CUDA(cudaFree(b));
    WARPCOST_CUDA(cudaFree(c));
    long bad = 0;
    for (long j = 0; j < kElems; ++j) bad += got[j] != ha[j] + hb[j];
    return report("vector_add", v, seconds, bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vector_add: %s\n", e.what());
    return 1;
  }
}
