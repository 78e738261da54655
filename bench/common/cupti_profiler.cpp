#include "bench/common/cupti_profiler.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "bench/common/cupti_host_config.hpp"
#include "kernels/common/cuda_check.hpp"

namespace warpcost::counters {

namespace {


// A user replay of many passes means the metric list is far larger than any family's.
constexpr std::size_t kMaxPasses = 64;

// The current context without linking the driver library (libcuda is not on the build machines):
// the runtime hands out the driver's entry point.
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  WARPCOST_CUDA(
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || entry == nullptr) {
    throw std::runtime_error("the driver has no cuCtxGetCurrent entry point");
  }
  CUcontext ctx = nullptr;
  const CUresult r = reinterpret_cast<GetCurrent>(entry)(&ctx);
  if (r != CUDA_SUCCESS || ctx == nullptr) {
    throw std::runtime_error("cuCtxGetCurrent gave no context (CUresult " + std::to_string(r) + ")");
  }
  return ctx;
}

}  // namespace

std::map<std::string, std::string> metric_units(const std::string& chip,
                                                const std::vector<std::string>& metrics) {
  std::map<std::string, std::string> units;
  for (const auto& m : metrics) {
    // A base name without its roll-up has properties but cannot be collected, so each name is
    // also added to a configuration of its own.
    HostObject host(chip, nullptr);
    auto p = cupti_params<CUpti_Profiler_Host_GetMetricProperties_Params>(
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    p.pHostObject = host.get();
    p.pMetricName = m.c_str();
    if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) throw UnknownMetric(m, chip);
    units[m] = p.pDimUnit != nullptr ? p.pDimUnit : "";
    std::vector<const char*> one = {m.c_str()};
    if (host.add(one) != CUPTI_SUCCESS) throw UnknownMetric(m, chip);
  }
  return units;
}

struct CuptiProfiler::Config {
  Config(const std::string& chip, const std::vector<unsigned char>& availability,
         const std::vector<std::string>& metric_list)
      : host(make(chip, availability, metric_list)) {}

  // A refused configuration is reported as the metric name the chip does not know, where one is
  // the reason, else as the CUPTI result (with the advice when it means "no counters here").
  static HostConfig make(const std::string& chip, const std::vector<unsigned char>& availability,
                         const std::vector<std::string>& metric_list) {
    try {
      return HostConfig(chip, availability.data(), metric_list);
    } catch (const CuptiCallError& e) {
      metric_units(chip, metric_list);  // throws UnknownMetric when a name is the reason
      ::warpcost::check_cupti(static_cast<int>(e.result()), "HostConfig", __FILE__, __LINE__);
      throw;
    }
  }

  HostConfig host;
};

CuptiProfiler::CuptiProfiler() {
  WARPCOST_CUDA(cudaFree(nullptr));  // the primary context exists before CUPTI looks for it
  auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  WARPCOST_CUPTI(cuptiProfilerInitialize(&init));
  int device = 0;
  WARPCOST_CUDA(cudaGetDevice(&device));
  auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  WARPCOST_CUPTI(cuptiDeviceGetChipName(&chip));
  chip_ = chip.pChipName;
  auto avail = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = current_context();
  WARPCOST_CUPTI(cuptiProfilerGetCounterAvailability(&avail));
  availability_.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability_.data();
  WARPCOST_CUPTI(cuptiProfilerGetCounterAvailability(&avail));
}

CuptiProfiler::~CuptiProfiler() {
  configs_.clear();
  auto p = cupti_params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
  const CUptiResult r = cuptiProfilerDeInitialize(&p);
  if (r != CUPTI_SUCCESS) std::fprintf(stderr, "warpcost: cuptiProfilerDeInitialize: %d\n", r);
}

CuptiProfiler::Config& CuptiProfiler::config_for(const std::vector<std::string>& metrics) {
  auto it = configs_.find(metrics);
  if (it == configs_.end()) {
    it = configs_.emplace(metrics, std::make_unique<Config>(chip_, availability_, metrics)).first;
  }
  return *it->second;
}

std::size_t CuptiProfiler::passes(const std::vector<std::string>& metrics) const {
  const auto it = configs_.find(metrics);
  return it == configs_.end() ? 0 : it->second->host.passes();
}

Values CuptiProfiler::profile(const std::vector<std::string>& metrics, const std::string& range_name,
                              const std::function<void()>& launch) {
  (void)range_name;
  return profile_batch(metrics, {launch}).at(0);
}

std::vector<Values> CuptiProfiler::profile_batch(const std::vector<std::string>& metrics,
                                                 const std::vector<std::function<void()>>& launches) {
  if (launches.empty()) return {};
  Config& config = config_for(metrics);
  WARPCOST_CUDA(cudaDeviceSynchronize());  // nothing of earlier work is still running
  const std::size_t ranges = launches.size();
  // Short range names: on the H200 (CUPTI 13.0) 100-character range names crashed the process
  // inside the range profiler. Each launch is its own range, "r<index>".
  std::vector<std::string> names;
  for (std::size_t i = 0; i < ranges; ++i) names.push_back("r" + std::to_string(i));

  auto enable = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = current_context();
  WARPCOST_CUPTI(cuptiRangeProfilerEnable(&enable));
  CUpti_RangeProfiler_Object* const profiler = enable.pRangeProfilerObject;
  // Disabled on every way out, so a failed batch leaves no profiler behind.
  struct DisableOnExit {
    CUpti_RangeProfiler_Object* object;
    ~DisableOnExit() {
      auto p = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      p.pRangeProfilerObject = object;
      const CUptiResult r = cuptiRangeProfilerDisable(&p);
      if (r != CUPTI_SUCCESS) std::fprintf(stderr, "warpcost: cuptiRangeProfilerDisable: %d\n", r);
    }
  } disable_on_exit{profiler};

  auto size = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = profiler;
  size.pMetricNames = config.host.names().data();
  size.numMetrics = config.host.names().size();
  size.maxNumOfRanges = ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
  WARPCOST_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
  std::vector<std::uint8_t> data(size.counterDataSize);
  auto init = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = profiler;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  WARPCOST_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));

  auto set = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = profiler;
  set.configSize = config.host.image().size();
  set.pConfig = config.host.image().data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  WARPCOST_CUPTI(cuptiRangeProfilerSetConfig(&set));

  // User replay: every launch once a pass, each in its own range. Every warpcost kernel overwrites
  // its outputs from inputs it never writes, so a replay needs nothing restored.
  bool all_submitted = false;
  std::size_t passes = 0;
  while (!all_submitted) {
    if (++passes > kMaxPasses) {
      throw std::runtime_error("counter pass needed more than " + std::to_string(kMaxPasses) +
                               " replay passes");
    }
    auto start = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = profiler;
    WARPCOST_CUPTI(cuptiRangeProfilerStart(&start));
    for (std::size_t i = 0; i < ranges; ++i) {
      auto push =
          cupti_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
      push.pRangeProfilerObject = profiler;
      push.pRangeName = names[i].c_str();
      WARPCOST_CUPTI(cuptiRangeProfilerPushRange(&push));
      launches[i]();
      WARPCOST_CUDA(cudaDeviceSynchronize());
      auto pop = cupti_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
      pop.pRangeProfilerObject = profiler;
      WARPCOST_CUPTI(cuptiRangeProfilerPopRange(&pop));
    }
    auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = profiler;
    WARPCOST_CUPTI(cuptiRangeProfilerStop(&stop));
    all_submitted = stop.isAllPassSubmitted != 0;
  }

  auto decode =
      cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = profiler;
  WARPCOST_CUPTI(cuptiRangeProfilerDecodeData(&decode));
  if (decode.numOfRangeDropped != 0) {
    throw std::runtime_error("counter pass: CUPTI dropped " + std::to_string(decode.numOfRangeDropped) +
                             " of " + std::to_string(ranges) + " range(s)");
  }
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  WARPCOST_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
  if (info.numTotalRanges != ranges) {
    throw std::runtime_error("counter pass: " + std::to_string(info.numTotalRanges) + " ranges decoded, expected " +
                             std::to_string(ranges));
  }

  std::vector<Values> out(ranges);
  std::vector<bool> filled(ranges, false);
  for (std::size_t index = 0; index < ranges; ++index) {
    // Each decoded range is matched to its launch by name, not by position.
    auto range = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    range.pCounterDataImage = data.data();
    range.counterDataImageSize = data.size();
    range.rangeIndex = index;
    range.rangeDelimiter = "/";
    WARPCOST_CUPTI(cuptiRangeProfilerCounterDataGetRangeInfo(&range));
    const std::string name = range.rangeName != nullptr ? range.rangeName : "";
    std::size_t launch = ranges;
    for (std::size_t i = 0; i < ranges; ++i) {
      if (names[i] == name) launch = i;
    }
    if (launch == ranges || filled[launch]) {
      throw std::runtime_error("counter pass: decoded range " + std::to_string(index) + " is named '" + name +
                               "', which is no launch of the batch or a second time");
    }
    const std::vector<double> values = config.host.evaluate(data, index);
    for (std::size_t m = 0; m < values.size(); ++m) out[launch][config.host.metrics()[m]] = values[m];
    filled[launch] = true;
  }
  return out;
}

}  // namespace warpcost::counters
