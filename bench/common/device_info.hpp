// What the device can tell about itself, the SM clock it actually runs at, and the names a run
// is filed under.
#pragma once

#include <string>

#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_facts.hpp"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int warp_size = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  long long l2_bytes = 0;
  long long registers_per_sm = 0;
  long long registers_per_block = 0;
  long long shared_per_sm = 0;           // bytes of shared memory an SM has for blocks
  long long shared_per_block_optin = 0;  // the most one block may ask for (opt-in)
  long long shared_reserved_per_block = 0;  // what the system keeps per resident block
  long long global_memory_bytes = 0;
  long long memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  long long sm_clock_max_khz = 0;
  std::string driver_version;   // kernel module version where readable, else the CUDA driver API's
  std::string cuda_driver_api;  // e.g. "13.0"
  std::string cuda_runtime;     // e.g. "13.0"
};

// Number of CUDA devices visible to this process; 0 with `why` filled when there are none or the
// driver cannot be reached.
int visible_device_count(std::string& why);

DeviceInfo query_device_info(int device);

// The facts a plan is made from (device_facts.hpp), as this device reports them. Schedulers per SM
// (no property gives it) and the L2 sector size are 4 and 32 bytes on every architecture warpcost
// builds for (cc 7.5 to 12.0: the CUDA C++ Programming Guide's compute capability sections).
DeviceFacts facts_of(const DeviceInfo& info);

// "NVIDIA H200" -> "nvidia-h200": the folder a GPU's runs are filed under.
std::string gpu_slug(const std::string& name);

// SM clock in Hz from one probe sample: cycles over globaltimer nanoseconds on one SM. Throws if the
// sample is unusable (the thread moved SMs, or the timer did not advance).
double clock_hz_from_sample(const kernels::ClockSample& sample);

// The clock probe with its device slot: launch() alone is what a timed region may hold.
class SmClockMeter {
 public:
  SmClockMeter();
  void launch(const Stream& stream, long long spin_cycles);
  kernels::ClockSample read(const Stream& stream);
  kernels::ClockSample sample(const Stream& stream, long long spin_cycles) {
    launch(stream, spin_cycles);
    return read(stream);
  }

 private:
  DeviceBuffer<kernels::ClockSample> slot_;
};

// Median SM clock over `samples` probes after a warm-up that lets the clock ramp from idle.
double measure_sm_clock_hz(const Stream& stream, int samples = 7);

}  // namespace warpcost
