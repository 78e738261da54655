// The SM clock as the driver reports it now (NVML's nvmlDeviceGetClockInfo(NVML_CLOCK_SM)), read
// between timed samples, never inside an event pair. NVML is opened at run time (dlopen), so no
// binary needs libnvidia-ml to load and a machine without it only loses the per-point clock.
#pragma once

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
  bool processes_v1_ = false;
  std::string why_;
};

}  // namespace warpcost
