#include "bench/common/device_info.hpp"

#include "core/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace warpcost {
namespace {

std::string version_string(int cuda_version) {
  return std::to_string(cuda_version / 1000) + "." + std::to_string((cuda_version % 1000) / 10);
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  WARPCOST_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::string uuid_string(const cudaUUID_t& uuid) {
  // The layout nvidia-smi prints: GPU-8-4-4-4-12 hex digits.
  std::string out = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex;
  }
  return out;
}

// The NVIDIA kernel module version ("580.159.04"), which the CUDA APIs do not expose.
std::string kernel_module_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return {};
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
        word.find('.') != std::string::npos) {
      return word;
    }
  }
  return {};
}

}  // namespace

int visible_device_count(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    // Said plainly first; CUDA's own name for it after, for a search.
    const char* plain = status == cudaErrorNoDevice             ? "the driver sees no NVIDIA GPU"
                        : status == cudaErrorInsufficientDriver ? "no NVIDIA driver is loaded, or it is older than this CUDA runtime needs"
                                                                : "CUDA cannot reach the GPU";
    why = std::string(plain) + "; cudaGetDeviceCount: " + cudaGetErrorName(status);
    return 0;
  }
  if (count == 0) why = "cudaGetDeviceCount found 0 devices";
  return count;
}

DeviceInfo query_device_info(int device) {
  cudaDeviceProp prop{};
  WARPCOST_CUDA(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.index = device;
  info.name = prop.name;
  info.uuid = uuid_string(prop.uuid);
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.warp_size = prop.warpSize;
  info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  info.max_warps_per_sm = prop.maxThreadsPerMultiProcessor / prop.warpSize;
  info.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  for (int d = 0; d < 3; ++d) info.max_block_dim[d] = prop.maxThreadsDim[d];
  info.l2_bytes = prop.l2CacheSize;
  info.registers_per_sm = prop.regsPerMultiprocessor;
  info.registers_per_block = prop.regsPerBlock;
  info.shared_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  info.shared_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  info.shared_reserved_per_block = attribute(cudaDevAttrReservedSharedMemoryPerBlock, device);
  info.global_memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes still answer.
  info.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  info.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  info.sm_clock_max_khz = attribute(cudaDevAttrClockRate, device);
  int driver = 0;
  int runtime = 0;
  WARPCOST_CUDA(cudaDriverGetVersion(&driver));
  WARPCOST_CUDA(cudaRuntimeGetVersion(&runtime));
  info.cuda_driver_api = version_string(driver);
  info.cuda_runtime = version_string(runtime);
  info.driver_version = kernel_module_version();
  if (info.driver_version.empty()) info.driver_version = "cuda-driver-api-" + info.cuda_driver_api;
  return info;
}

DeviceFacts facts_of(const DeviceInfo& info) {
  DeviceFacts f;
  f.gpu = info.name;
  f.cc_major = info.cc_major;
  f.cc_minor = info.cc_minor;
  f.sm_count = info.sm_count;
  f.warp_size = info.warp_size;
  f.max_warps_per_sm = info.max_warps_per_sm;
  f.max_blocks_per_sm = info.max_blocks_per_sm;
  f.max_threads_per_block = info.max_threads_per_block;
  f.registers_per_sm = info.registers_per_sm;
  f.registers_per_block = info.registers_per_block;
  f.shared_per_sm = info.shared_per_sm;
  f.shared_per_block_optin = info.shared_per_block_optin;
  f.shared_reserved_per_block = info.shared_reserved_per_block;
  f.l2_bytes = info.l2_bytes;
  f.global_memory_bytes = info.global_memory_bytes;
  f.memory_bus_width_bits = info.memory_bus_width_bits;
  f.memory_clock_khz = info.memory_clock_khz;
  f.sm_clock_max_khz = info.sm_clock_max_khz;
  f.schedulers_per_sm = 4;
  f.sector_bytes = kSectorBytes;
  f.source = "cudaDeviceProp of device " + std::to_string(info.index);
  return f;
}

std::string gpu_slug(const std::string& name) { return analysis::gpu_slug(name); }

double clock_hz_from_sample(const kernels::ClockSample& sample) {
  if (sample.smid_start != sample.smid_end) {
    throw std::runtime_error("clock probe moved from SM " + std::to_string(sample.smid_start) +
                             " to SM " + std::to_string(sample.smid_end) +
                             "; its clock64 delta is meaningless");
  }
  if (sample.clock_end <= sample.clock_start || sample.ns_end <= sample.ns_start) {
    throw std::runtime_error("clock probe did not advance: cycles " +
                             std::to_string(sample.clock_end - sample.clock_start) + ", ns " +
                             std::to_string(static_cast<long long>(sample.ns_end - sample.ns_start)));
  }
  const double cycles = static_cast<double>(sample.clock_end - sample.clock_start);
  const double seconds = static_cast<double>(sample.ns_end - sample.ns_start) * 1e-9;
  return cycles / seconds;
}

SmClockMeter::SmClockMeter() : slot_(1) {}

void SmClockMeter::launch(const Stream& stream, long long spin_cycles) {
  kernels::launch_clock_probe(slot_.data(), spin_cycles, stream.get());
}

kernels::ClockSample SmClockMeter::read(const Stream& stream) {
  kernels::ClockSample out{};
  WARPCOST_CUDA(cudaMemcpyAsync(&out, slot_.data(), sizeof out, cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();
  return out;
}

double measure_sm_clock_hz(const Stream& stream, int samples) {
  // ~20 M cycles is ~10 ms at 2 GHz: long enough that the globaltimer's microsecond-scale update
  // interval is below 0.1 % of the interval.
  constexpr long long kSpinCycles = 20'000'000;
  constexpr int kWarmupProbes = 10;
  SmClockMeter meter;
  for (int i = 0; i < kWarmupProbes; ++i) meter.sample(stream, kSpinCycles);
  std::vector<double> hz;
  for (int i = 0; i < samples; ++i) hz.push_back(clock_hz_from_sample(meter.sample(stream, kSpinCycles)));
  std::nth_element(hz.begin(), hz.begin() + static_cast<long>(hz.size() / 2), hz.end());
  return hz[hz.size() / 2];
}

}  // namespace warpcost
