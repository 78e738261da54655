#include "bench/common/nvml_clock.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <type_traits>

namespace warpcost {
namespace {

// NVML's C interface as nvml.h declares it (stable since NVML 2.285): results are ints, 0 success;
// a device is an opaque pointer; NVML_CLOCK_SM is 1.
using Result = int;
using Device = void*;
constexpr int kClockSm = 1;
using InitFn = Result (*)();
using ShutdownFn = Result (*)();
using ByBusIdFn = Result (*)(const char*, Device*);
using ClockFn = Result (*)(Device, int, unsigned int*);
using ReasonsFn = Result (*)(Device, unsigned long long*);
using ErrorStringFn = const char* (*)(Result);
// nvmlProcessInfo_t of the _v2/_v3 calls, and nvmlProcessInfo_v1_t of the first.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
constexpr Result kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

std::string result_text(void* error_string, Result r) {
  const char* text = error_string != nullptr ? reinterpret_cast<ErrorStringFn>(error_string)(r) : nullptr;
  return (text != nullptr ? std::string(text) : std::string("NVML error")) + " (" + std::to_string(r) + ")";
}

}  // namespace

NvmlClock::NvmlClock(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* e = dlerror();
    why_ = std::string("libnvidia-ml.so.1 not loaded: ") + (e != nullptr ? e : "unknown reason");
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(library_, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<ByBusIdFn>(dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  get_clock_ = dlsym(library_, "nvmlDeviceGetClockInfo");
  error_string_ = dlsym(library_, "nvmlErrorString");
  shutdown_ = dlsym(library_, "nvmlShutdown");
  for (const char* name : {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"}) {
    if (processes_ == nullptr) processes_ = dlsym(library_, name);
  }
  app_clock_ = dlsym(library_, "nvmlDeviceGetApplicationsClock");
  default_app_clock_ = dlsym(library_, "nvmlDeviceGetDefaultApplicationsClock");
  for (const char* name : {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}) {
    if (event_reasons_ == nullptr) event_reasons_ = dlsym(library_, name);
  }
  if (processes_ == nullptr) {
    processes_ = dlsym(library_, "nvmlDeviceGetComputeRunningProcesses");
    processes_v1_ = processes_ != nullptr;
  }
  if (init == nullptr || by_bus == nullptr || get_clock_ == nullptr || shutdown_ == nullptr) {
    why_ = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2, nvmlDeviceGetClockInfo "
           "or nvmlShutdown";
    return;
  }
  if (const Result r = init(); r != 0) {
    why_ = "nvmlInit_v2: " + result_text(error_string_, r);
    shutdown_ = nullptr;
    return;
  }
  Device device = nullptr;
  if (const Result r = by_bus(pci_bus_id.c_str(), &device); r != 0 || device == nullptr) {
    why_ = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + "): " + result_text(error_string_, r);
    return;
  }
  device_ = device;
  try {
    sm_mhz();  // one read now: a device whose clock NVML will not give fails here, not mid-run
  } catch (const std::runtime_error& e) {
    why_ = e.what();
    device_ = nullptr;
  }
}

NvmlClock::~NvmlClock() {
  if (shutdown_ != nullptr) reinterpret_cast<ShutdownFn>(shutdown_)();
  if (library_ != nullptr) dlclose(library_);
}

unsigned int NvmlClock::sm_mhz() const {
  if (device_ == nullptr) throw std::runtime_error("NVML clock read without a device: " + why_);
  unsigned int mhz = 0;
  const Result r = reinterpret_cast<ClockFn>(get_clock_)(device_, kClockSm, &mhz);
  if (r != 0) throw std::runtime_error("nvmlDeviceGetClockInfo(NVML_CLOCK_SM): " + result_text(error_string_, r));
  return mhz;
}

namespace {
std::optional<unsigned int> clock_by(void* fn, void* device) {
  if (fn == nullptr || device == nullptr) return std::nullopt;
  unsigned int mhz = 0;
  if (reinterpret_cast<ClockFn>(fn)(device, kClockSm, &mhz) != 0 || mhz == 0) return std::nullopt;
  return mhz;
}
}  // namespace

std::optional<unsigned int> NvmlClock::application_sm_mhz() const { return clock_by(app_clock_, device_); }

std::optional<unsigned int> NvmlClock::default_application_sm_mhz() const {
  return clock_by(default_app_clock_, device_);
}

std::optional<unsigned long long> NvmlClock::clock_event_reasons() const {
  if (event_reasons_ == nullptr || device_ == nullptr) return std::nullopt;
  unsigned long long reasons = 0;
  if (reinterpret_cast<ReasonsFn>(event_reasons_)(device_, &reasons) != 0) return std::nullopt;
  return reasons;
}

std::vector<unsigned int> NvmlClock::other_compute_processes(unsigned int self, std::string& why) const {
  std::vector<unsigned int> others;
  if (device_ == nullptr || processes_ == nullptr) {
    why = device_ == nullptr ? why_ : "libnvidia-ml.so.1 lacks nvmlDeviceGetComputeRunningProcesses";
    return others;
  }
  auto list = [&](auto* infos, unsigned int& count) {
    using Info = std::remove_pointer_t<decltype(infos)>;
    using Fn = Result (*)(Device, unsigned int*, Info*);
    return reinterpret_cast<Fn>(processes_)(device_, &count, infos);
  };
  auto collect = [&](auto tag) {
    using Info = decltype(tag);
    for (int attempt = 0; attempt < 3; ++attempt) {
      unsigned int count = 0;
      Result r = list(static_cast<Info*>(nullptr), count);
      if (r != 0 && r != kInsufficientSize) {
        why = "nvmlDeviceGetComputeRunningProcesses: " + result_text(error_string_, r);
        return;
      }
      std::vector<Info> infos(count + 4);  // room for processes that start in between
      count = static_cast<unsigned int>(infos.size());
      r = list(infos.data(), count);
      if (r == kInsufficientSize) continue;
      if (r != 0) {
        why = "nvmlDeviceGetComputeRunningProcesses: " + result_text(error_string_, r);
        return;
      }
      for (unsigned int i = 0; i < count; ++i) {
        if (infos[i].pid != self) others.push_back(infos[i].pid);
      }
      return;
    }
    why = "nvmlDeviceGetComputeRunningProcesses: the list kept growing";
  };
  if (processes_v1_) {
    collect(ProcessInfoV1{});
  } else {
    collect(ProcessInfo{});
  }
  return others;
}

}  // namespace warpcost
