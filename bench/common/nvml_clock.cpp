#include "bench/common/nvml_clock.hpp"

#include <dlfcn.h>

#include <stdexcept>

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
using ErrorStringFn = const char* (*)(Result);

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

}  // namespace warpcost
