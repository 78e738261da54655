// One checking family for every CUDA call warpcost makes: the runtime (WARPCOST_CUDA, its
// non-throwing WARPCOST_CUDA_NOTHROW for destructors, WARPCOST_CHECK_LAUNCH after a launch), the
// driver (WARPCOST_DRIVER) and CUPTI (WARPCOST_CUPTI). Each error names the call as written, its
// file:line and the library's name for the result.
#pragma once

#include <cuda.h>
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

// A driver API call that failed (the explain injection library, which brings no runtime).
class DriverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
inline void check_driver(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
  throw DriverError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + name + " (" +
                    std::to_string(static_cast<int>(result)) + ")");
}

// A CUPTI call: defined where CUPTI is linked (bench/common/cupti_host_config.cpp). Throws
// counters::CountersUnavailable for a result that means this machine gives no counters (no
// permission, another profiler attached), else counters::CuptiCallError.
void check_cupti(int result, const char* call, const char* file, int line);

}  // namespace warpcost

#define WARPCOST_CUDA(call) ::warpcost::check_cuda((call), #call, __FILE__, __LINE__)
#define WARPCOST_CUDA_NOTHROW(call) ::warpcost::check_cuda_nothrow((call), #call, __FILE__, __LINE__)
#define WARPCOST_DRIVER(call) ::warpcost::check_driver((call), #call, __FILE__, __LINE__)
#define WARPCOST_CUPTI(call) ::warpcost::check_cupti(static_cast<int>(call), #call, __FILE__, __LINE__)
// A launch reports configuration errors only through the next API call, so every launch wrapper
// ends with this.
#define WARPCOST_CHECK_LAUNCH(kernel_name) \
  ::warpcost::check_cuda(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
