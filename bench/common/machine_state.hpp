// The machine states a run records so the analysis judges it honestly (docs/running.md, "Machine
// states"): the SM clock its points are held against, a MIG instance, a device lost mid-run. The
// decisions are plain functions of what the driver reported, so host tests plant each state.
#pragma once

#include <optional>
#include <string>

namespace warpcost {

struct ClockReference {
  long long mhz = 0;    // the clock points are held against (context sm_clock_reference_mhz)
  std::string source;   // "maximum" or "application clocks ..." (context sm_clock_reference)
};

// The device's maximum SM clock, unless an administrator set application clocks below it (NVML's
// application clock under both the maximum and its own default): then that clock, saying so. An
// unknown application clock leaves the maximum.
ClockReference sm_clock_reference(long long max_mhz, std::optional<unsigned int> application_mhz,
                                  std::optional<unsigned int> default_application_mhz);

// "none" for a whole GPU; the MIG profile ("1g.5gb") when the device's name carries it (CUDA names
// a MIG device "<GPU> MIG <profile>"); "unknown profile" when only CUDA_VISIBLE_DEVICES says the
// device is a MIG instance (a MIG-<uuid> entry).
std::string mig_instance_of(const std::string& device_name, const char* cuda_visible_devices);

// The name a run is filed and headlined under: the device's, with " MIG <profile>" added when the
// device is a MIG instance whose name does not say so, so it never shares the whole GPU's folder.
std::string run_gpu_name(const std::string& device_name, const std::string& mig_instance);

// The run_status text of a run whose device was lost (a launch failure or a lost GPU leaves the
// CUDA context unusable): where, and that the points measured before it are kept.
std::string device_lost_status(const std::string& phase, const std::string& first_error);

}  // namespace warpcost
