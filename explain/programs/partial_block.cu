// Defect: a 100-thread block (4 warps, the last with 4 of 32 lanes) on issue-bound work; fixed twin:
// 128-thread blocks over the same threads. Each thread runs kChains independent FMA chains of
// kSteps steps (issue-bound at full residency), so the defect issues 128/100 as many warp
// instructions for the same results. Output checked against a host replay (std::fma = __fmaf_rn).
#include <cmath>
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr int kSteps = 2048;
constexpr int kChains = 4;
constexpr long kThreads = 3200L * 1320;  // divisible by 100 and by 128

__host__ __device__ inline float seed(long i, int c) { return 1.0f + static_cast<float>((i * 7 + c) % 13) * 0.001f; }

__global__ void fma_chains(float* out, int steps) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= kThreads) return;
  float x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = seed(i, c);
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = __fmaf_rn(x[c], 0.999f, 0.001f);
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += x[c];
  out[i] = sum;
}

float host_value(long i) {
  float x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = seed(i, c);
  for (int s = 0; s < kSteps; ++s) {
    for (int c = 0; c < kChains; ++c) x[c] = std::fma(x[c], 0.999f, 0.001f);
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += x[c];
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  const Variant v = parse_variant(argc, argv, true);
  try {
    const int block = v == Variant::kDefect ? 100 : 128;
    const int grid = static_cast<int>(kThreads / block);
    float* out = nullptr;
    WARPCOST_CUDA(cudaMalloc(&out, kThreads * sizeof(float)));
    const double seconds = median_kernel_seconds([&] {
      fma_chains<<<grid, block>>>(out, kSteps);
      WARPCOST_CHECK_LAUNCH("fma_chains");
    });
    std::vector<float> got(kThreads);
    WARPCOST_CUDA(cudaMemcpy(got.data(), out, kThreads * sizeof(float), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(out));
    long bad = 0;
    for (long i = 0; i < kThreads; i += 997) bad += got[i] != host_value(i);
    bad += got[kThreads - 1] != host_value(kThreads - 1);
    return report("partial_block", v, seconds, bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "partial_block: %s\n", e.what());
    return 1;
  }
}
