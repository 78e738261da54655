// What warpcost-bench's phases hand one another (bench/main.cpp runs them in order: options,
// device and context, timing, counters, filing): one object, passed to each phase, instead of
// process globals. Each phase file says what it reads and what it fills.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/counter_pass.hpp"
#include "bench/common/device_facts.hpp"
#include "bench/common/device_info.hpp"
#include "bench/common/gpu_lock.hpp"
#include "bench/common/machine_state.hpp"
#include "bench/common/nvml_clock.hpp"
#include "bench/common/plan.hpp"
#include "bench/common/sampling.hpp"

namespace warpcost::suite {

// ctest treats this exit code as "skipped" (SKIP_RETURN_CODE), so the smoke test of a machine
// without a GPU reports a skip, not a pass.
inline constexpr int kExitNoDevice = 77;
// Another warpcost run holds the GPU (EX_TEMPFAIL: try again later).
inline constexpr int kExitGpuBusy = 75;
// The device was lost mid-run (a launch failure, an Xid): the points measured before it are filed
// as a partial run.
inline constexpr int kExitDeviceLost = 5;
inline constexpr int kExitUsage = 2;

struct Options {
  std::string results_root;
  int device = 0;
  bool check_device_only = false;
  std::string device_profile;  // --device_profile: plan for this GPU instead of the device here
  GpuLock::Mode gpu_lock = GpuLock::Mode::kRefuse;
  counters::Settings counters;
  sampling::Rule sampling;
};

using FamilySeconds = std::vector<std::pair<std::string, double>>;

struct SuiteRun {
  // options.cpp
  std::string command_line;
  Options options;
  DeviceFacts profile;  // --device_profile's, for the list

  // context.cpp
  const DeviceInfo* info = nullptr;
  std::vector<plan::Omission> omitted;
  std::string stamp;       // <utc-stamp>-<uuid8>
  std::string mig;         // "none" or the MIG profile
  std::string filed_name;  // the GPU name the run is filed and headlined under
  std::string run_id;
  std::unique_ptr<GpuLock> gpu_lock;
  std::filesystem::path final_dir;    // results/<gpu>/<stamp>, or empty without --warpcost_results_root
  std::filesystem::path partial_dir;  // where the run is written until it is filed
  bool listing_only = false;
  std::vector<std::string> names;  // the benchmarks this run executes
  std::unique_ptr<NvmlClock> nvml;
  std::set<unsigned int> other_processes;
  std::string processes_why;
  ClockReference clock_reference;

  // timing.cpp
  std::chrono::steady_clock::time_point suite_start;
  double timing_seconds = 0.0;
  int signal = 0;
  std::string lost_in_timing;
  FamilySeconds timing_family_seconds;

  // counters.cpp
  std::unique_ptr<counters::CounterPass> counter_pass;
  std::string counter_units;
  std::string counter_status;
  FamilySeconds counter_family_seconds;
  double counter_seconds = 0.0;

  // Other processes computing on this GPU (NVML's list), looked at before, between and after the
  // phases: their work would be in this run's times. Each new one is named on stderr.
  void look_for_other_processes();
};

double seconds_since(std::chrono::steady_clock::time_point t);

}  // namespace warpcost::suite
