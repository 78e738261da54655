// libwarpcost_inject.so: the CUPTI injection library behind `warpcost explain`. CUDA loads it from
// CUDA_INJECTION64_PATH when the application initialises the driver and calls InitializeInjection,
// which subscribes to the kernel-launch callbacks of the driver API (the runtime's launches reach
// them too). Up to WARPCOST_EXPLAIN_LAUNCHES launches whose kernel name matches
// WARPCOST_EXPLAIN_KERNEL are chosen; each is profiled alone with the range profiler in AutoRange
// mode: first a one-pass DRAM pass (below), then the kernel's next launch of the same shape in
// KernelReplay mode (CUPTI replays the kernel once per pass and restores its memory). One JSON
// record per profiled launch is appended to WARPCOST_EXPLAIN_OUT and flushed, so a crash of the
// application keeps every record written before it. The application's stdout is never written; notices go to
// stderr with a "warpcost-inject:" prefix.
//
// Sequence per profiled launch (docs/explain.md; ../shared/cupti.md's range-profiler facts):
//   API enter: cuCtxSynchronize (earlier work done) -> cuptiRangeProfilerEnable(ctx) ->
//              GetCounterDataSize(1 range) -> CounterDataImageInitialize ->
//              SetConfig(AutoRange, KernelReplay, 1 range a pass, nesting 1) -> Start
//   (the launch: CUPTI replays it as many passes as the configuration needs)
//   API exit:  cuCtxSynchronize -> Stop (all passes submitted) -> DecodeData (no range dropped) ->
//              GetCounterDataInfo (one range) -> evaluate -> Disable -> write the record.
// The DRAM pass: a launch chosen for profiling is first profiled with the DRAM counters and the
// duration alone (metric::kDramPass), a configuration of one pass, so it runs once, unreplayed, and
// its DRAM bytes are the application's own traffic (a `dram_pass` record); the next launch of the
// same function and shape in the same context is then profiled in full (its `launch` record names
// the DRAM pass). Before, not after: the replayed launch leaves the L2 with lines its save and
// restore dirtied, which the next launch writes back (the H200 pilot of 086fe33: partial_block's
// next launch wrote 12.6 MB to DRAM against ncu's 0.09 MB for an unprofiled history).
// Only while nothing has been replayed in the process: once a full profile has run, its replay's
// residue would reach the next launch, so later chosen launches are profiled in full at once (their
// DRAM bytes the replayed range's; the analysis prices a kernel's DRAM rate from its DRAM passes).
// WARPCOST_EXPLAIN_DRAM_PASS=0 profiles every chosen launch in full at once (replayed DRAM counts).
// The host configuration (chip, counter availability, configuration images) is made once a context.
// Only driver API calls are made here: the library brings no CUDA runtime into the application.
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/explain_metrics.hpp"
#include "explain/launch_select.hpp"
#include "bench/common/cupti_host_config.hpp"

namespace {

using nlohmann::json;
using warpcost::counters::cupti_params;
using warpcost::counters::CuptiCallError;
using warpcost::counters::HostConfig;
using warpcost::DriverError;


// The records file: one JSON object a line, flushed after each.
class RecordFile {
 public:
  bool open(const std::string& path) {
    file_ = std::fopen(path.c_str(), "a");
    return file_ != nullptr;
  }
  // Every record names its process: an application's child processes inherit the environment and
  // append to the same file, each numbering its launches from 0.
  void write(json record) {
    if (file_ == nullptr) return;
    record["pid"] = static_cast<long>(::getpid());
    const std::string line = record.dump(-1, ' ', false, json::error_handler_t::replace);
    std::fputs(line.c_str(), file_);
    std::fputc('\n', file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

struct Settings {
  std::string filter_text;
  std::optional<std::regex> filter;
  warpcost::explain::SelectSettings select;  // WARPCOST_EXPLAIN_LAUNCHES, _LAUNCH_SKIP, _EACH_SHAPE
  bool dram_pass = true;  // WARPCOST_EXPLAIN_DRAM_PASS (default 1)
};

// One context's host side: its device's facts, chip and configuration image.
struct ContextState {
  int ordinal = -1;
  std::string chip;
  std::vector<std::uint8_t> availability;
  std::unique_ptr<HostConfig> config;
  std::unique_ptr<HostConfig> dram_config;  // metric::kDramPass; used only when it takes one pass
  bool dram_pass_usable() const { return dram_config && dram_config->passes() == 1; }
};

// What a launch callback's parameters say about the launch.
struct LaunchShape {
  CUfunction function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned dynamic_shared = 0;
};

bool same_launch(const LaunchShape& a, const LaunchShape& b) {
  return a.function == b.function && a.dynamic_shared == b.dynamic_shared &&
         std::equal(a.grid, a.grid + 3, b.grid) && std::equal(a.block, a.block + 3, b.block);
}

// A DRAM pass whose full profile has not run yet: the next launch of the same kernel and shape in
// the same context will be it.
struct PendingFullProfile {
  CUcontext context = nullptr;
  LaunchShape shape;
  long dram_pass_index = 0;
};

enum class Profile { kNo, kMain, kDramPass };

// The launch being profiled between its API enter and exit (at most one: the thread that set g_busy).
struct ActiveLaunch {
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::vector<std::uint8_t> counter_data;
  ContextState* context = nullptr;
  HostConfig* config = nullptr;  // the context's main or DRAM-pass configuration
  Profile kind = Profile::kMain;
  CUcontext cu_context = nullptr;
  LaunchShape shape;
  json record;
};

// g_mutex guards the counts, g_pending and g_replayed for short moments only; it is never held while
// the application's launch runs, so no callback waits on another thread's launch (the driver may hold
// its own locks around callbacks). A launch that arrives while another is profiled runs unprofiled.
// Launch records are written by the one thread that holds g_busy (error records under g_mutex or by
// that thread), so no two writes interleave within a process.
std::mutex g_mutex;
bool g_busy = false;  // a launch is being profiled (guarded by g_mutex)
RecordFile g_records;
Settings g_settings;
std::map<CUcontext, std::unique_ptr<ContextState>> g_contexts;
std::optional<ActiveLaunch> g_active;
long g_seen = 0;       // launches of any kernel
long g_matched = 0;    // launches whose name matched the filter
std::optional<warpcost::explain::LaunchSelector> g_select;  // which matching launches are chosen
long g_profiled = 0;   // launches with a record of counters
long g_busy_skipped = 0;  // matching launches that came while another was profiled
long g_active_index = 0;  // the profiled launch's index among the matching ones
long g_dram_pass_index = -1;  // for a full profile: the index of its DRAM pass (-1: none)
long g_dram_passes = 0;       // DRAM passes written (with counters)
bool g_replayed = false;      // a full profile (kernel replay) has begun in this process
std::vector<PendingFullProfile> g_pending;  // guarded by g_mutex
bool g_stopped = false;  // a fault that would repeat on every launch: profile no more
thread_local bool t_holds_launch = false;

std::string demangle(const char* mangled) {
  if (mangled == nullptr) return "";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(mangled);
}

void write_error(const std::string& stage, const std::string& message, int cupti_result) {
  json e = {{"record", "error"}, {"stage", stage}, {"message", message}};
  if (cupti_result != 0) {
    e["cupti_result"] = cupti_result;
    const std::string advice = warpcost::counters::unavailable_advice(cupti_result);
    if (!advice.empty()) e["advice"] = advice;
  }
  g_records.write(e);
  std::fprintf(stderr, "warpcost-inject: %s: %s\n", stage.c_str(), message.c_str());
}

int device_attribute(CUdevice device, CUdevice_attribute attribute) {
  int value = 0;
  WARPCOST_DRIVER(cuDeviceGetAttribute(&value, attribute, device));
  return value;
}

// The context's host side, made at its first profiled launch (the context is current there).
ContextState& context_state(CUcontext ctx) {
  auto it = g_contexts.find(ctx);
  if (it != g_contexts.end()) return *it->second;
  static bool profiler_initialised = false;
  if (!profiler_initialised) {
    // At the first profiled launch, as CUPTI's injection sample does, not while the driver is
    // still initialising (InitializeInjection runs inside cuInit).
    auto init = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    WARPCOST_CUPTI(cuptiProfilerInitialize(&init));
    profiler_initialised = true;
  }
  auto state = std::make_unique<ContextState>();
  CUdevice device = 0;
  WARPCOST_DRIVER(cuCtxGetDevice(&device));
  int count = 0;
  WARPCOST_DRIVER(cuDeviceGetCount(&count));
  for (int i = 0; i < count; ++i) {
    CUdevice d = 0;
    WARPCOST_DRIVER(cuDeviceGet(&d, i));
    if (d == device) state->ordinal = i;
  }
  if (state->ordinal < 0) throw DriverError("the launch's device is not among cuDeviceGet's ordinals");

  auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(state->ordinal);
  WARPCOST_CUPTI(cuptiDeviceGetChipName(&chip));
  state->chip = chip.pChipName;
  auto avail = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = ctx;
  WARPCOST_CUPTI(cuptiProfilerGetCounterAvailability(&avail));
  state->availability.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = state->availability.data();
  WARPCOST_CUPTI(cuptiProfilerGetCounterAvailability(&avail));
  std::vector<std::string> metrics(warpcost::explain::metric::kAll.begin(), warpcost::explain::metric::kAll.end());
  state->config = std::make_unique<HostConfig>(state->chip, state->availability.data(), metrics);
  std::vector<std::string> dram_metrics(warpcost::explain::metric::kDramPass.begin(),
                                        warpcost::explain::metric::kDramPass.end());
  state->dram_config = std::make_unique<HostConfig>(state->chip, state->availability.data(), dram_metrics);

  char name[256] = {};
  WARPCOST_DRIVER(cuDeviceGetName(name, sizeof name - 1, device));
  int driver_api = 0;
  WARPCOST_DRIVER(cuDriverGetVersion(&driver_api));
  g_records.write({{"record", "device"},
                   {"ordinal", state->ordinal},
                   {"name", name},
                   {"chip", state->chip},
                   {"cc_major", device_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)},
                   {"cc_minor", device_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)},
                   {"sm_count", device_attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)},
                   {"max_threads_per_sm", device_attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)},
                   {"warp_size", device_attribute(device, CU_DEVICE_ATTRIBUTE_WARP_SIZE)},
                   {"driver_api", driver_api},
                   {"replay_passes", state->config->passes()},
                   {"dram_pass_passes", state->dram_config->passes()}});
  return *g_contexts.emplace(ctx, std::move(state)).first->second;
}

// The launch calls' parameter blocks as CUPTI hands them over (cuLaunchKernel_params,
// cuLaunchCooperativeKernel_params and their _ptsz twins share the first layout; cuLaunchKernelEx_params
// and its twin the second: generated_cuda_meta.h, which cannot be included beside cuda.h without the
// driver's internal v1 types). Only the leading fields are read.
struct ClassicLaunchParams {
  CUfunction f;
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
};
struct ExLaunchParams {
  const CUlaunchConfig* config;
  CUfunction f;
};

std::optional<LaunchShape> launch_shape(CUpti_CallbackId id, const void* params) {
  if (params == nullptr) return std::nullopt;
  LaunchShape s;
  auto classic = [&s](const ClassicLaunchParams* p) {
    s.function = p->f;
    s.grid[0] = p->gridDimX, s.grid[1] = p->gridDimY, s.grid[2] = p->gridDimZ;
    s.block[0] = p->blockDimX, s.block[1] = p->blockDimY, s.block[2] = p->blockDimZ;
    s.dynamic_shared = p->sharedMemBytes;
  };
  auto extended = [&s](const ExLaunchParams* p) {
    s.function = p->f;
    const CUlaunchConfig* c = p->config;
    if (c == nullptr) return false;
    s.grid[0] = c->gridDimX, s.grid[1] = c->gridDimY, s.grid[2] = c->gridDimZ;
    s.block[0] = c->blockDimX, s.block[1] = c->blockDimY, s.block[2] = c->blockDimZ;
    s.dynamic_shared = c->sharedMemBytes;
    return true;
  };
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      classic(static_cast<const ClassicLaunchParams*>(params));
      return s;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      if (!extended(static_cast<const ExLaunchParams*>(params))) return std::nullopt;
      return s;
    default:
      return std::nullopt;
  }
}

// A launch names a CUfunction, or, where the runtime loads modules context-independently (CUDA 12+),
// a CUkernel in its place: cuFuncGetAttribute and the occupancy API refuse that with
// CUDA_ERROR_INVALID_HANDLE (the H200 round of 3291c0d, every launch of the examples), so the
// kernel's function in the current context is taken instead.
CUfunction function_in_context(CUfunction f) {
  int registers = 0;
  if (cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS) return f;
  CUfunction in_context = nullptr;
  WARPCOST_DRIVER(cuKernelGetFunction(&in_context, reinterpret_cast<CUkernel>(f)));
  return in_context;
}

int function_attribute(CUfunction f, CUfunction_attribute attribute) {
  int value = 0;
  WARPCOST_DRIVER(cuFuncGetAttribute(&value, attribute, f));
  return value;
}

void disable(CUpti_RangeProfiler_Object* profiler) {
  auto p = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = profiler;
  const CUptiResult r = cuptiRangeProfilerDisable(&p);
  if (r != CUPTI_SUCCESS) {
    write_error("disable", "cuptiRangeProfilerDisable: " + warpcost::counters::cupti_result_name(r),
                static_cast<int>(r));
  }
}

// A launch record's static facts: name, shape, shared memory, registers, resident blocks per SM.
json launch_facts(const ContextState& state, const LaunchShape& shape, const std::string& name,
                  const char* mangled) {
  const CUfunction function = function_in_context(shape.function);
  json record = {{"record", "launch"},
                 {"index", g_active_index},
                 {"name", name},
                 {"mangled", mangled != nullptr ? mangled : ""},
                 {"grid", {shape.grid[0], shape.grid[1], shape.grid[2]}},
                 {"block", {shape.block[0], shape.block[1], shape.block[2]}},
                 {"dynamic_shared_bytes", shape.dynamic_shared},
                 {"static_shared_bytes", function_attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)},
                 {"registers_per_thread", function_attribute(function, CU_FUNC_ATTRIBUTE_NUM_REGS)},
                 {"device", state.ordinal}};
  const int block_threads = static_cast<int>(shape.block[0] * shape.block[1] * shape.block[2]);
  int blocks_per_sm = 0;
  WARPCOST_DRIVER(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, function, block_threads,
                                                           shape.dynamic_shared));
  record["occupancy_blocks_per_sm"] = blocks_per_sm;
  return record;
}

// API enter of a launch to profile: its static facts, then the range profiler started. A DRAM pass
// records only which launch it completes.
void begin_launch(const CUpti_CallbackData& data, const LaunchShape& shape, const std::string& name,
                  const char* mangled, Profile kind) {
  ContextState& state = context_state(data.context);
  if (kind == Profile::kDramPass && !state.dram_pass_usable()) {  // not one pass on this GPU
    kind = Profile::kMain;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_replayed = true;
  }
  json record;
  if (kind == Profile::kDramPass) {
    record = {{"record", "dram_pass"}, {"index", g_active_index}, {"name", name}};
  } else {
    record = launch_facts(state, shape, name, mangled);
    if (g_dram_pass_index >= 0) record["dram_pass_index"] = g_dram_pass_index;
  }
  WARPCOST_DRIVER(cuCtxSynchronize());
  auto enable = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = data.context;
  WARPCOST_CUPTI(cuptiRangeProfilerEnable(&enable));
  ActiveLaunch active;
  active.profiler = enable.pRangeProfilerObject;
  active.context = &state;
  active.config = kind == Profile::kDramPass ? state.dram_config.get() : state.config.get();
  active.kind = kind;
  active.cu_context = data.context;
  active.shape = shape;
  try {
    HostConfig& config = *active.config;
    auto size = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pRangeProfilerObject = active.profiler;
    size.pMetricNames = config.names().data();
    size.numMetrics = config.names().size();
    size.maxNumOfRanges = 1;
    size.maxNumRangeTreeNodes = 1;
    WARPCOST_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
    active.counter_data.resize(size.counterDataSize);
    auto init = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pRangeProfilerObject = active.profiler;
    init.counterDataSize = active.counter_data.size();
    init.pCounterData = active.counter_data.data();
    WARPCOST_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));
    auto set = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = active.profiler;
    set.configSize = config.image().size();
    set.pConfig = config.image().data();
    set.counterDataImageSize = active.counter_data.size();
    set.pCounterDataImage = active.counter_data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = 1;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    WARPCOST_CUPTI(cuptiRangeProfilerSetConfig(&set));
    auto start = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = active.profiler;
    WARPCOST_CUPTI(cuptiRangeProfilerStart(&start));
  } catch (...) {
    disable(active.profiler);
    throw;
  }
  active.record = std::move(record);
  g_active = std::move(active);
}

// API exit of the profiled launch: the counters decoded, evaluated and written; the profiler off.
void end_launch(const CUpti_CallbackData& data) {
  ActiveLaunch active = std::move(*g_active);
  g_active.reset();
  const CUresult launched = data.functionReturnValue != nullptr
                                ? *static_cast<const CUresult*>(data.functionReturnValue)
                                : CUDA_SUCCESS;
  try {
    if (launched == CUDA_SUCCESS) WARPCOST_DRIVER(cuCtxSynchronize());
    auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = active.profiler;
    WARPCOST_CUPTI(cuptiRangeProfilerStop(&stop));
    if (launched != CUDA_SUCCESS) {
      const char* name = nullptr;
      if (cuGetErrorName(launched, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
      active.record["launch_error"] = name;
      g_records.write(active.record);
      disable(active.profiler);
      return;
    }
    if (stop.isAllPassSubmitted == 0) {
      throw std::runtime_error("kernel replay left passes unsubmitted after the launch (pass index " +
                               std::to_string(stop.passIndex) + ")");
    }
    auto decode =
        cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = active.profiler;
    WARPCOST_CUPTI(cuptiRangeProfilerDecodeData(&decode));
    if (decode.numOfRangeDropped != 0) {
      throw std::runtime_error("CUPTI dropped " + std::to_string(decode.numOfRangeDropped) + " range(s)");
    }
    auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = active.counter_data.data();
    info.counterDataImageSize = active.counter_data.size();
    WARPCOST_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
    if (info.numTotalRanges != 1) {
      throw std::runtime_error(std::to_string(info.numTotalRanges) + " ranges decoded for one launch, expected 1");
    }
    const std::vector<double> values = active.config->evaluate(active.counter_data, 0);
    json metrics = json::object();
    // A ratio over nothing (no instruction issued) is NaN: written as null, read back as 0.
    for (std::size_t m = 0; m < values.size(); ++m) {
      metrics[active.config->metrics()[m]] = std::isfinite(values[m]) ? json(values[m]) : json(nullptr);
    }
    active.record["metrics"] = std::move(metrics);
  } catch (...) {
    disable(active.profiler);
    throw;
  }
  disable(active.profiler);
  g_records.write(active.record);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (active.kind == Profile::kDramPass) {
    ++g_dram_passes;
    // The next launch of this kernel and shape in this context is profiled in full.
    g_pending.push_back({active.cu_context, active.shape, active.record.at("index").get<long>()});
    return;
  }
  ++g_profiled;
}

// Whether and how this launch is profiled; counts it either way. Called with g_mutex held. A launch
// that follows a DRAM pass of its kernel and shape is profiled in full; otherwise, while the limit
// (of launches chosen) allows, a launch is chosen: its DRAM pass now while nothing has been replayed
// in the process, else (or with the DRAM pass off) its full profile at once.
Profile wanted(const std::string& name, const char* mangled, CUcontext context, const LaunchShape& shape) {
  ++g_seen;
  if (g_settings.filter) {
    const bool hit = std::regex_search(name, *g_settings.filter) ||
                     (mangled != nullptr && std::regex_search(mangled, *g_settings.filter));
    if (!hit) return Profile::kNo;
  }
  ++g_matched;
  if (g_stopped) return Profile::kNo;
  const auto pending = std::find_if(g_pending.begin(), g_pending.end(), [&](const PendingFullProfile& p) {
    return p.context == context && same_launch(p.shape, shape);
  });
  const warpcost::explain::LaunchKey key{reinterpret_cast<std::uintptr_t>(shape.function),
                                         {shape.grid[0], shape.grid[1], shape.grid[2]},
                                         {shape.block[0], shape.block[1], shape.block[2]},
                                         shape.dynamic_shared};
  if (pending == g_pending.end() && !g_select->eligible(g_matched - 1, key)) return Profile::kNo;
  if (g_busy) {
    ++g_busy_skipped;
    return Profile::kNo;
  }
  g_busy = true;
  g_active_index = g_matched - 1;
  if (pending != g_pending.end()) {
    g_dram_pass_index = pending->dram_pass_index;
    g_pending.erase(pending);
    g_replayed = true;
    return Profile::kMain;
  }
  g_select->choose(key);
  g_dram_pass_index = -1;
  if (g_settings.dram_pass && !g_replayed) return Profile::kDramPass;
  g_replayed = true;
  return Profile::kMain;
}

void report_fault(const char* stage, const std::exception& e) {
  int result = 0;
  if (const auto* c = dynamic_cast<const CuptiCallError*>(&e)) result = static_cast<int>(c->result());
  write_error(stage, e.what(), result);
  g_stopped = true;  // a CUPTI or driver fault here would repeat on every launch
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* raw) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* data = static_cast<const CUpti_CallbackData*>(raw);
  if (data->callbackSite == CUPTI_API_ENTER) {
    const std::optional<LaunchShape> shape = launch_shape(id, data->functionParams);
    if (!shape) return;
    const char* mangled = data->symbolName;
    if (mangled == nullptr && cuFuncGetName(&mangled, shape->function) != CUDA_SUCCESS) mangled = nullptr;
    const std::string name = demangle(mangled);
    Profile kind = Profile::kNo;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      kind = wanted(name, mangled, data->context, *shape);
      if (kind == Profile::kNo) return;  // wanted() set g_busy when it said yes
    }
    // Only this thread touches g_active until it clears g_busy.
    try {
      begin_launch(*data, *shape, name, mangled, kind);
      t_holds_launch = true;
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(g_mutex);
      report_fault("launch enter", e);
      g_busy = false;
    }
    return;
  }
  if (data->callbackSite == CUPTI_API_EXIT && t_holds_launch) {
    t_holds_launch = false;
    try {
      end_launch(*data);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(g_mutex);
      report_fault("launch exit", e);
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    g_busy = false;
  }
}

void write_end() {
  // A launch still being profiled at exit (another thread) means no trailer: the tool then reports
  // that the application ended before it.
  std::unique_lock<std::mutex> lock(g_mutex, std::try_to_lock);
  if (!lock.owns_lock() || g_busy) return;
  g_records.write({{"record", "end"},
                   {"launches_seen", g_seen},
                   {"launches_matched", g_matched},
                   {"launches_attempted", g_select ? g_select->chosen() : 0L},
                   {"launches_profiled", g_profiled},
                   {"launches_skipped_busy", g_busy_skipped},
                   {"dram_passes", g_dram_passes},
                   {"dram_passes_without_profile", static_cast<long>(g_pending.size())},
                   {"stopped_by_fault", g_stopped}});
}

// Reads the settings; an unusable value is reported and nothing is profiled.
bool read_settings() {
  namespace env = warpcost::explain::env;
  const char* out = std::getenv(env::kOut);
  if (out == nullptr || *out == '\0') {
    std::fprintf(stderr, "warpcost-inject: %s is not set; nothing is profiled\n", env::kOut);
    return false;
  }
  if (!g_records.open(out)) {
    std::fprintf(stderr, "warpcost-inject: cannot open %s=%s for appending: %s; nothing is profiled\n", env::kOut,
                 out, std::strerror(errno));
    return false;
  }
  // A whole number >= least from the environment, or the default; false after naming a bad value.
  auto whole = [](const char* name, long least, long& value) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return true;
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(text, &end, 10);
    if (*end != '\0' || errno != 0 || n < least) {
      write_error("settings", std::string(name) + "=" + text + "; allowed: a whole number >= " + std::to_string(least), 0);
      return false;
    }
    value = n;
    return true;
  };
  g_settings.select.count = 1;
  if (!whole(env::kLaunches, 1, g_settings.select.count) || !whole(env::kLaunchSkip, 0, g_settings.select.skip)) {
    return false;
  }
  const char* each = std::getenv(env::kEachShape);
  if (each != nullptr && *each != '\0') {
    if (std::strcmp(each, "0") != 0 && std::strcmp(each, "1") != 0) {
      write_error("settings", std::string(env::kEachShape) + "=" + each + "; allowed: 0 or 1", 0);
      return false;
    }
    g_settings.select.each_shape = *each == '1';
  }
  g_select.emplace(g_settings.select);
  const char* dram_pass = std::getenv(env::kDramPass);
  if (dram_pass != nullptr && *dram_pass != '\0') {
    if (std::strcmp(dram_pass, "0") != 0 && std::strcmp(dram_pass, "1") != 0) {
      write_error("settings", std::string(env::kDramPass) + "=" + dram_pass + "; allowed: 0 or 1", 0);
      return false;
    }
    g_settings.dram_pass = *dram_pass == '1';
  }
  const char* kernel = std::getenv(env::kKernel);
  if (kernel != nullptr && *kernel != '\0') {
    try {
      g_settings.filter = std::regex(kernel, std::regex::ECMAScript);
      g_settings.filter_text = kernel;
    } catch (const std::regex_error& e) {
      write_error("settings", std::string(env::kKernel) + "=" + kernel + " is no ECMAScript regex: " + e.what(), 0);
      return false;
    }
  }
  return true;
}

}  // namespace

// Called by the CUDA driver once, when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static bool initialised = false;
  if (initialised) return 1;
  initialised = true;
  if (!read_settings()) return 1;
  g_records.write({{"record", "start"},
                   {"kernel_filter", g_settings.filter_text},
                   {"launch_limit", g_settings.select.count},
                   {"launch_skip", g_settings.select.skip},
                   {"each_shape", g_settings.select.each_shape},
                   {"dram_pass", g_settings.dram_pass},
                   {"metrics", warpcost::explain::metric::kAll},
                   {"dram_pass_metrics", warpcost::explain::metric::kDramPass}});
  try {
    CUpti_SubscriberHandle subscriber = nullptr;
    WARPCOST_CUPTI(cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr));
    for (const CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz}) {
      WARPCOST_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
    }
  } catch (const std::exception& e) {
    report_fault("initialise", e);
    return 1;
  }
  std::atexit(write_end);
  return 1;
}
