// Defect: a 2D (30,30) block over a row-major matrix (Ex 9): each warp's 32 threads cover the end of
// one 30-float row segment and the start of the next, 120-byte segments at 120-byte offsets, so a
// request touches more sectors than its 128 bytes need (and 900 threads = 28 warps + 4 lanes);
// fixed twin: (32,8) blocks, each warp one aligned 128-byte row segment. Same matrix, same work.
// The (30,30) block also limits residency (29 warps a block, 2 blocks an SM); (32,8) lifts that too.
// `--variant aligned` runs (32,28) blocks: rows aligned and no partial warp, but 28-warp blocks, 2
// an SM like the defect's: the twin that removes the named (coalescing) defect alone (EXPLAIN-2).
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr int kWidth = 4800;   // a multiple of 30 and 32
constexpr int kHeight = 3600;  // a multiple of 30 and 8 (not of 28: the aligned twin's last row of blocks is guarded)

__global__ void scale_tile(const float* __restrict__ in, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < kWidth && y < kHeight) {
    const long i = static_cast<long>(y) * kWidth + x;
    out[i] = 3.0f * in[i] + 1.0f;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  const Variant v = parse_variant(argc, argv, true, {}, true);
  try {
    const long n = static_cast<long>(kWidth) * kHeight;
    std::vector<float> host(n);
    for (long j = 0; j < n; ++j) host[j] = static_cast<float>(j % 4093);
    float *in = nullptr, *out = nullptr;
    WARPCOST_CUDA(cudaMalloc(&in, n * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&out, n * sizeof(float)));
    WARPCOST_CUDA(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const dim3 block = v == Variant::kDefect ? dim3(30, 30) : v == Variant::kFixed ? dim3(32, 8) : dim3(32, 28);
    const dim3 grid((kWidth + block.x - 1) / block.x, (kHeight + block.y - 1) / block.y);
    const double seconds = median_kernel_seconds([&] {
      scale_tile<<<grid, block>>>(in, out);
      WARPCOST_CHECK_LAUNCH("scale_tile");
    });
    std::vector<float> got(n);
    WARPCOST_CUDA(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(in));
    WARPCOST_CUDA(cudaFree(out));
    long bad = 0;
    for (long j = 0; j < n; ++j) bad += got[j] != 3.0f * host[j] + 1.0f;
    return report("tile_2d", v, seconds, bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tile_2d: %s\n", e.what());
    return 1;
  }
}
