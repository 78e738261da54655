// One checking family for every CUDA runtime call warpcost makes: the error names the call as
// written, its file:line and the CUDA error, and is thrown (or, in destructors, printed).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace warpcost {

class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& call, const std::string& where, cudaError_t error);
  cudaError_t error() const noexcept { return error_; }

 private:
  cudaError_t error_;
};

void check_cuda(cudaError_t status, const char* call, const char* file, int line);
void check_cuda_nothrow(cudaError_t status, const char* call, const char* file, int line) noexcept;

}  // namespace warpcost

#define WARPCOST_CUDA(call) ::warpcost::check_cuda((call), #call, __FILE__, __LINE__)
#define WARPCOST_CUDA_NOTHROW(call) ::warpcost::check_cuda_nothrow((call), #call, __FILE__, __LINE__)
// A launch reports configuration errors only through the next API call, so every launch wrapper
// ends with this.
#define WARPCOST_CHECK_LAUNCH(kernel_name) \
  ::warpcost::check_cuda(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
