// The properties a plan is made from: filled from the device (cudaDeviceProp, device_info.hpp's
// facts_of) or from a row of data/device-profiles.csv, so a plan can be made for a GPU that is not
// here. Host code only (no CUDA): the planner, the host tests and any family read the same struct.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/constants.hpp"

namespace warpcost {

struct DeviceFacts {
  std::string profile;  // the profile's name, or "" for the device this process runs on
  std::string gpu;      // the device's name ("NVIDIA H200")
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int warp_size = kWarpSize;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  long long registers_per_sm = 0;
  long long registers_per_block = 0;
  long long shared_per_sm = 0;
  long long shared_per_block_optin = 0;
  long long shared_reserved_per_block = 0;
  long long l2_bytes = 0;
  long long global_memory_bytes = 0;
  int memory_bus_width_bits = 0;
  long long memory_clock_khz = 0;
  long long sm_clock_max_khz = 0;
  int schedulers_per_sm = 0;
  int sector_bytes = 0;
  std::string source;  // where the numbers come from (a profile's citations, or "cudaDeviceProp")

  int max_threads_per_sm() const { return max_warps_per_sm * warp_size; }
  // 2 x memory clock x bus width / 8: the DRAM's peak, as the device's numbers give it.
  double peak_dram_bytes_per_second() const {
    return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * memory_bus_width_bits / 8.0;
  }
  // "NVIDIA H200 (profile h200)" or "NVIDIA H200": the device as messages name it.
  std::string label() const { return profile.empty() ? gpu : gpu + " (profile " + profile + ")"; }
};

class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every profile in a CSV file of data/device-profiles.csv's form (lines starting '#' are comments;
// the header names the columns, in any order). Throws ProfileError naming the file, line and field
// of any problem (a missing column, a value that is not a positive number, a duplicate name).
std::vector<DeviceFacts> read_device_profiles(const std::filesystem::path& csv);

// The file the build knows (WARPCOST_DEVICE_PROFILES, the source tree's data/device-profiles.csv).
std::filesystem::path default_device_profiles();

// `name_or_file`: a profile name in the default file, or a path to a CSV file of one or more rows
// (its first row is taken). Throws ProfileError naming the value and the names allowed.
DeviceFacts find_device_profile(const std::string& name_or_file);

// "" or the first property that a plan cannot be made from (a zero count, a warp size not 32, a
// block cap below a warp), named.
std::string device_facts_problem(const DeviceFacts& facts);

}  // namespace warpcost
