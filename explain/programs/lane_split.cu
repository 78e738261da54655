// Defect: every warp splits 16/16 between two heavy bodies (loops of independent FMA chains with a
// runtime trip count, so the compiler keeps a real branch), and pays both; fixed twin: the same
// items remapped so that each warp's 32 lanes take one side (a warp-uniform branch). Both compute
// out[item] for every item; checked against a host replay.
#include <cmath>
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr int kTrips = 1024;
constexpr int kBlock = 128;
constexpr long kItems = 132L * 2048 * 4;  // four full-residency waves on an H200, a multiple of 64

// Which side an item's work is: the low half of each 32-item group.
__host__ __device__ inline bool if_side(long item) { return item % 32 < 16; }

__device__ float heavy(long item, int trips, float m, float k) {
  float a = 1.0f + static_cast<float>(item % 17) * 0.001f, b = 0.5f;
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
    a = __fmaf_rn(a, m, k);
    b = __fmaf_rn(b, m, k);
  }
  return a + b;
}

float host_heavy(long item, int trips, float m, float k) {
  float a = 1.0f + static_cast<float>(item % 17) * 0.001f, b = 0.5f;
  for (int t = 0; t < trips; ++t) {
    a = std::fma(a, m, k);
    b = std::fma(b, m, k);
  }
  return a + b;
}

// uniform = false: item = thread (each warp holds 16 if-items and 16 else-items).
// uniform = true: warp pair p handles items p*64..p*64+63, the even warp every if-item of them.
__global__ void split_work(float* out, int trips, bool uniform) {
  const long t = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= kItems) return;
  long item = t;
  if (uniform) {
    const long warp = t / 32, lane = t % 32, pair = warp / 2, half = warp % 2;
    item = pair * 64 + (lane < 16 ? lane : lane + 16) + (half ? 16 : 0);
  }
  out[item] = if_side(item) ? heavy(item, trips, 0.999f, 0.001f) : heavy(item, trips, 0.998f, 0.002f);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  const Variant v = parse_variant(argc, argv, true);
  try {
    float* out = nullptr;
    WARPCOST_CUDA(cudaMalloc(&out, kItems * sizeof(float)));
    WARPCOST_CUDA(cudaMemset(out, 0, kItems * sizeof(float)));
    const bool uniform = v == Variant::kFixed;
    const double seconds = median_kernel_seconds([&] {
      split_work<<<static_cast<int>(kItems / kBlock), kBlock>>>(out, kTrips, uniform);
      WARPCOST_CHECK_LAUNCH("split_work");
    });
    std::vector<float> got(kItems);
    WARPCOST_CUDA(cudaMemcpy(got.data(), out, kItems * sizeof(float), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(out));
    long bad = 0;
    for (long item = 0; item < kItems; item += (item % 64 == 63 ? 64 * 97 + 1 : 1)) {
      const float want = if_side(item) ? host_heavy(item, kTrips, 0.999f, 0.001f)
                                       : host_heavy(item, kTrips, 0.998f, 0.002f);
      bad += got[item] != want;
    }
    return report("lane_split", v, seconds, bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lane_split: %s\n", e.what());
    return 1;
  }
}
