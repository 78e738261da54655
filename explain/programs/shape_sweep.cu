// One kernel launched at many shapes, each several times: what a tuning sweep does, and what
// `warpcost explain --each-shape` explains configuration by configuration (one profile a shape, the
// repeats passed over). The sweep: blocks of 32, 64, 96, 128, 256 and 1024 threads over the same
// n floats, then the 256-thread block again with 4 KiB of dynamic shared memory (a shape of its
// own), each --repeats times (default 3). Every launch's output is checked against the host.
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr int kN = 1 << 22;
constexpr int kBlocks[] = {32, 64, 96, 128, 256, 1024};
constexpr unsigned kSharedBytes = 4096;

__global__ void scale(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  extern __shared__ float scratch[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
  (void)scratch;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  IntOption repeats{"repeats", 3, 1, 100};
  const Variant v = parse_variant(argc, argv, false, {&repeats});
  try {
    std::vector<float> hx(kN);
    for (int j = 0; j < kN; ++j) hx[j] = static_cast<float>(j % 997);
    float *x = nullptr, *y = nullptr;
    WARPCOST_CUDA(cudaMalloc(&x, kN * sizeof(float)));
    WARPCOST_CUDA(cudaMalloc(&y, kN * sizeof(float)));
    WARPCOST_CUDA(cudaMemcpy(x, hx.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    long bad = 0;
    int shapes = 0;
    std::vector<float> got(kN);
    auto run = [&](int block, unsigned shared, float a) {
      ++shapes;
      for (int r = 0; r < repeats.value; ++r) {
        WARPCOST_CUDA(cudaMemset(y, 0, kN * sizeof(float)));
        scale<<<(kN + block - 1) / block, block, shared>>>(x, y, a, kN);
        WARPCOST_CHECK_LAUNCH("scale");
        WARPCOST_CUDA(cudaMemcpy(got.data(), y, kN * sizeof(float), cudaMemcpyDeviceToHost));
        for (int j = 0; j < kN; ++j) bad += got[j] != a * hx[j];
      }
    };
    for (const int block : kBlocks) run(block, 0, 2.0f);
    run(256, kSharedBytes, 3.0f);
    WARPCOST_CUDA(cudaFree(x));
    WARPCOST_CUDA(cudaFree(y));
    std::printf("shape_sweep shapes=%d repeats=%d\n", shapes, repeats.value);
    return report("shape_sweep", v, 0.0, bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shape_sweep: %s\n", e.what());
    return 1;
  }
}
