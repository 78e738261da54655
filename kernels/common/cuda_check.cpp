#include "kernels/common/cuda_check.hpp"

#include <cstdio>

namespace warpcost {
namespace {

std::string describe(const std::string& call, const std::string& where, cudaError_t error) {
  return call + " failed at " + where + ": " + cudaGetErrorName(error) + " (" +
         cudaGetErrorString(error) + ")";
}

}  // namespace

CudaError::CudaError(const std::string& call, const std::string& where, cudaError_t error)
    : std::runtime_error(describe(call, where, error)), error_(error) {}

void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaError(call, std::string(file) + ":" + std::to_string(line), status);
  }
}

void check_cuda_nothrow(cudaError_t status, const char* call, const char* file,
                        int line) noexcept {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "warpcost: %s failed at %s:%d: %s (%s)\n", call, file, line,
                 cudaGetErrorName(status), cudaGetErrorString(status));
  }
}

}  // namespace warpcost
