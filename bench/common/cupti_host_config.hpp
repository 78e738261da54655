// The host side of CUPTI's range profiler, shared by the counter pass (cupti_profiler.cpp) and the
// explain injection library (explain/inject.cpp): a host object for a chip, the configuration
// image of a metric list, its pass count, and the evaluation of one decoded range. Needs no device
// and no CUDA runtime (the injection library must not bring a runtime of its own into an application).
#pragma once

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace warpcost::counters {

// CUPTI's parameter structs: the size set, everything else zero (value-initialised).
template <class Params>
Params cupti_params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

// For a CUPTI result that means "not on this machine", what to tell the user (what happened and
// what to do); empty for every other result (those are faults). Declared in counter_pass.hpp too.
std::string unavailable_advice(int cupti_result);

// CUPTI's name for a result ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), or "unknown result".
std::string cupti_result_name(CUptiResult result);

// A CUPTI call that failed (WARPCOST_CUPTI, kernels/common/cuda_check.hpp): the message names the
// call, file:line and the result.
class CuptiCallError : public std::runtime_error {
 public:
  CuptiCallError(CUptiResult result, const char* call, const char* file, int line);
  CUptiResult result() const noexcept { return result_; }

 protected:
  CuptiCallError(CUptiResult result, const std::string& message) : std::runtime_error(message), result_(result) {}

 private:
  CUptiResult result_;
};

// The machine will not give counters: no permission, another profiler attached, a device or
// virtualisation CUPTI does not profile. Timing goes on without them; what() is the advice.
class CountersUnavailable : public CuptiCallError {
 public:
  CountersUnavailable(int cupti_result, const std::string& what)
      : CuptiCallError(static_cast<CUptiResult>(cupti_result), what) {}
  int cupti_result() const noexcept { return static_cast<int>(result()); }
};

// A range-profiler host object for `chip`, optionally restricted to the counters a device has.
class HostObject {
 public:
  HostObject(const std::string& chip, const std::uint8_t* availability);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const noexcept { return host_; }
  // The CUPTI result of adding `names` to this object's configuration (not thrown: a caller may
  // want to find which name was refused).
  CUptiResult add(std::vector<const char*>& names);

 private:
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

// The configuration image of `metrics` on `chip` and the replay passes it takes. Throws
// CuptiCallError (call "cuptiProfilerHostConfigAddMetrics" when a name was refused).
class HostConfig {
 public:
  HostConfig(const std::string& chip, const std::uint8_t* availability, std::vector<std::string> metrics);

  const std::vector<std::string>& metrics() const noexcept { return metrics_; }
  std::vector<const char*>& names() noexcept { return names_; }
  const std::vector<std::uint8_t>& image() const noexcept { return image_; }
  std::size_t passes() const noexcept { return passes_; }
  // The metrics' values in range `range_index` of a decoded counter data image, in metrics() order.
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range_index);

 private:
  std::vector<std::string> metrics_;
  std::vector<const char*> names_;
  HostObject host_;
  std::vector<std::uint8_t> image_;
  std::size_t passes_ = 0;
};

}  // namespace warpcost::counters
