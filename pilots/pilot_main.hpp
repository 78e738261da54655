// What every pilot (pilots/NAME/NAME_pilot.cu) shares: device 0's facts (and the header line its
// CSV starts with), its closing line and exit code, and a main() that reports an exception by the
// pilot's name.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>

#include "kernels/common/cuda_check.hpp"

namespace warpcost::pilots {

struct Device {
  int sms = 0;
  cudaDeviceProp prop{};
};

// Device 0's SM count and properties; with `header`, prints "# NAME, N SMs, nvcc X.Y".
inline Device device(bool header) {
  Device d;
  WARPCOST_CUDA(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, 0));
  WARPCOST_CUDA(cudaGetDeviceProperties(&d.prop, 0));
  if (header) std::printf("# %s, %d SMs, nvcc %d.%d\n", d.prop.name, d.sms, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  return d;
}

// Prints "# output checks failed: N" (the line each pilot's README reads) and returns the exit code.
inline int finish(int failures) {
  std::printf("# output checks failed: %d\n", failures);
  return failures == 0 ? 0 : 1;
}

// Runs the pilot; an exception prints "NAME: what" and exits 1.
template <class Run>
int main_of(const char* name, Run run) {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace warpcost::pilots
