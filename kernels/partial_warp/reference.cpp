// The partial-warp kernels' host replay, compiled without nvcc (partial_warp.hpp declares it).
#include <cmath>

#include "kernels/partial_warp/kernels.hpp"

namespace warpcost::kernels {

float fma_reference(unsigned long long global_id, int iterations) {
  float a[kFmaChains];
  for (int c = 0; c < kFmaChains; ++c) a[c] = fma_seed(global_id, c);
  for (int i = 0; i < iterations; ++i) {
    for (int c = 0; c < kFmaChains; ++c) a[c] = std::fma(a[c], kFmaMultiplier, kFmaAddend);
  }
  float sum = 0.0f;
  for (int c = 0; c < kFmaChains; ++c) sum += a[c];
  return sum;
}

}  // namespace warpcost::kernels
