// The SM clock as the driver reports it now (NVML's nvmlDeviceGetClockInfo(NVML_CLOCK_SM)), read
// between timed samples, never inside an event pair. NVML is opened at run time (dlopen), so no
// binary needs libnvidia-ml to load and a machine without it only loses the per-point clock.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warpcost {

class NvmlClock {
 public:
  // Opens NVML and finds the device with the PCI bus id `pci_bus_id` (cudaDeviceGetPCIBusId's
  // form). On any failure available() is false and why() says which call failed with what.
  explicit NvmlClock(const std::string& pci_bus_id);
  ~NvmlClock();
  NvmlClock(const NvmlClock&) = delete;
  NvmlClock& operator=(const NvmlClock&) = delete;

  bool available() const noexcept { return device_ != nullptr; }
  const std::string& why() const noexcept { return why_; }
  // The current SM clock in MHz; throws std::runtime_error naming the NVML result on failure.
  unsigned int sm_mhz() const;
  // The SM's application clock (the clock an administrator may set with nvidia-smi -ac) and its
  // default, in MHz; nullopt where NVML does not report them (not supported, no permission).
  std::optional<unsigned int> application_sm_mhz() const;
  std::optional<unsigned int> default_application_sm_mhz() const;
  // NVML's clocks-event reasons now (nvmlDeviceGetCurrentClocksEventReasons, the older
  // ...ClocksThrottleReasons): why the clock is below its maximum, a bit mask; nullopt where NVML
  // does not report it.
  std::optional<unsigned long long> clock_event_reasons() const;
  // The compute processes NVML sees on the device other than `self` (process ids; empty when none
  // or when NVML cannot list them: `why` then says so). In a container NVML may list none.
  std::vector<unsigned int> other_compute_processes(unsigned int self, std::string& why) const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  void* get_clock_ = nullptr;
  void* error_string_ = nullptr;
  void* shutdown_ = nullptr;
  void* processes_ = nullptr;
  void* app_clock_ = nullptr;
  void* default_app_clock_ = nullptr;
  void* event_reasons_ = nullptr;
  bool processes_v1_ = false;
  std::string why_;
};

}  // namespace warpcost
