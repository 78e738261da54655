#include "bench/common/cupti_host_config.hpp"

#include <cstdio>
#include <utility>

namespace warpcost::counters {

std::string unavailable_advice(int cupti_result) {
  switch (cupti_result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "counters are not permitted for this user (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): run as "
             "root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
             "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another profiler is attached (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): under "
             "ncu or nsys, pass --warpcost_counters=off";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "the counters are in use by another client (CUPTI_ERROR_HARDWARE_BUSY): run again when "
             "it has finished";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_INITIALIZED:
      return "CUPTI cannot profile this device or driver (" + std::to_string(cupti_result) +
             "): a virtualised or unsupported GPU, or a driver older than the CUPTI library";
    default:
      return {};
  }
}

std::string cupti_result_name(CUptiResult result) {
  const char* name = nullptr;
  if (cuptiGetResultString(result, &name) != CUPTI_SUCCESS || name == nullptr) return "unknown result";
  return name;
}

CuptiCallError::CuptiCallError(CUptiResult result, const char* call, const char* file, int line)
    : std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                         cupti_result_name(result) + " (" + std::to_string(static_cast<int>(result)) + ")"),
      result_(result) {}

}  // namespace warpcost::counters

namespace warpcost {

void check_cupti(int result, const char* call, const char* file, int line) {
  if (result == CUPTI_SUCCESS) return;
  const std::string advice = counters::unavailable_advice(result);
  if (!advice.empty()) throw counters::CountersUnavailable(result, advice);
  throw counters::CuptiCallError(static_cast<CUptiResult>(result), call, file, line);
}

}  // namespace warpcost

namespace warpcost::counters {

HostObject::HostObject(const std::string& chip, const std::uint8_t* availability) {
  auto p = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability;
  WARPCOST_CUPTI(cuptiProfilerHostInitialize(&p));
  host_ = p.pHostObject;
}

HostObject::~HostObject() {
  auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  const CUptiResult r = cuptiProfilerHostDeinitialize(&p);
  if (r != CUPTI_SUCCESS) std::fprintf(stderr, "warpcost: cuptiProfilerHostDeinitialize: %d\n", r);
}

CUptiResult HostObject::add(std::vector<const char*>& names) {
  auto p = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return cuptiProfilerHostConfigAddMetrics(&p);
}

HostConfig::HostConfig(const std::string& chip, const std::uint8_t* availability, std::vector<std::string> metrics)
    : metrics_(std::move(metrics)), host_(chip, availability) {
  for (const auto& m : metrics_) names_.push_back(m.c_str());
  const CUptiResult added = host_.add(names_);
  if (added != CUPTI_SUCCESS) throw CuptiCallError(added, "cuptiProfilerHostConfigAddMetrics", __FILE__, __LINE__);
  auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host_.get();
  WARPCOST_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
  image_.resize(size.configImageSize);
  auto get = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  get.pHostObject = host_.get();
  get.configImageSize = image_.size();
  get.pConfigImage = image_.data();
  WARPCOST_CUPTI(cuptiProfilerHostGetConfigImage(&get));
  auto n = cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  n.configImageSize = image_.size();
  n.pConfigImage = image_.data();
  WARPCOST_CUPTI(cuptiProfilerHostGetNumOfPasses(&n));
  passes_ = n.numOfPasses;
}

std::vector<double> HostConfig::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range_index) {
  std::vector<double> values(names_.size());
  auto eval = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  eval.pHostObject = host_.get();
  eval.pCounterDataImage = counter_data.data();
  eval.counterDataImageSize = counter_data.size();
  eval.rangeIndex = range_index;
  eval.ppMetricNames = names_.data();
  eval.numMetrics = names_.size();
  eval.pMetricValues = values.data();
  WARPCOST_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&eval));
  return values;
}

}  // namespace warpcost::counters
