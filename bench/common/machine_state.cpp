#include "bench/common/machine_state.hpp"

namespace warpcost {

ClockReference sm_clock_reference(long long max_mhz, std::optional<unsigned int> application_mhz,
                                  std::optional<unsigned int> default_application_mhz) {
  ClockReference r{max_mhz, "maximum"};
  if (!application_mhz || static_cast<long long>(*application_mhz) >= max_mhz) return r;
  // A default application clock under the maximum is the vendor's, not an administrator's: the
  // GPU boosts past it on its own.
  if (default_application_mhz && *application_mhz >= *default_application_mhz) return r;
  r.mhz = *application_mhz;
  r.source = "application clocks: " + std::to_string(*application_mhz) + " MHz set by an administrator (maximum " +
             std::to_string(max_mhz) + " MHz" +
             (default_application_mhz ? ", default " + std::to_string(*default_application_mhz) + " MHz" : "") + ")";
  return r;
}

std::string mig_instance_of(const std::string& device_name, const char* cuda_visible_devices) {
  const std::string marker = " MIG ";
  const auto at = device_name.find(marker);
  if (at != std::string::npos) {
    std::string profile = device_name.substr(at + marker.size());
    const auto space = profile.find(' ');
    if (space != std::string::npos) profile = profile.substr(0, space);
    if (!profile.empty()) return profile;
  }
  if (cuda_visible_devices != nullptr && std::string(cuda_visible_devices).find("MIG-") != std::string::npos) {
    return "unknown profile";
  }
  return "none";
}

std::string run_gpu_name(const std::string& device_name, const std::string& mig_instance) {
  if (mig_instance == "none" || device_name.find(" MIG ") != std::string::npos) return device_name;
  return device_name + " MIG " + (mig_instance == "unknown profile" ? std::string("instance") : mig_instance);
}

std::string device_lost_status(const std::string& phase, const std::string& first_error) {
  return "partial: the device was lost during the " + phase + " phase (" + first_error +
         "); the points measured before it are kept";
}

}  // namespace warpcost
