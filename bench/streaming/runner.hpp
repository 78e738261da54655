// The streaming family on the device: a residency plan that holds an exact
// number of warps per SM, one configuration launched over a pattern-filled
// buffer, its sums checked against the host replay and its loaded-latency
// samples summarised. The pointer chase of the latency family too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"
#include "kernels/streaming/kernels_chase.hpp"
#include "kernels/streaming/kernels.hpp"

namespace warpcost {

// w warps per SM held exactly: k blocks of B warps on every SM, a grid of SMs ×
// k blocks, and dynamic shared memory per block sized so that k fit and k + 1
// do not.
struct ResidencyPlan {
  int warps_per_sm = 0;
  int warps_per_block = 0;     // B: the smallest divisor of w with w / B blocks within the block cap
  int blocks_per_sm = 0;       // k = w / B
  long long shared_bytes = 0;  // dynamic shared memory per block (0: the block cap pins k)
  std::string problem;         // empty when feasible; otherwise why not
};

struct ResidencyLimits {
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  long long shared_per_sm = 0;
  long long shared_per_block_optin = 0;
  long long shared_reserved_per_block = 0;
  // A block's shared memory (its own plus the reserved part) is allocated in
  // these units: 128 bytes from cc 8.0 on, 256 before (the occupancy
  // calculator's figures; the occupancy API check before every launch catches a
  // wrong one).
  long long shared_allocation_unit = 128;
};
ResidencyLimits residency_limits(const DeviceInfo& device);

ResidencyPlan plan_residency(int warps_per_sm, const ResidencyLimits& limits);
ResidencyLimits residency_limits(const DeviceFacts& facts);

// "" when the stream kernel `kernel` can be held at exactly `warps_per_sm` on the device: the plan
// above from the device's caps and, for the device this process runs on (facts.profile empty), the
// occupancy API's answer for the compiled kernel as the runner asks it. Else why not.
std::string stream_residency_problem(const DeviceFacts& facts, const kernels::StreamKernelConfig& kernel,
                                     int warps_per_sm);

struct StreamConfig {
  kernels::StreamKernelConfig kernel;
  int warps_per_sm = 0;  // 0: the device's warp cap
  std::uint64_t bytes = 0;  // buffer size; at least 8x the L2 for a DRAM stream
  std::uint32_t seed = 5;
};

class StreamRunner {
 public:
  // Throws std::invalid_argument naming the value when the kernel, the
  // residency or the buffer cannot be had: the occupancy API must confirm the
  // planned blocks per SM before any launch.
  // `shared`, when given, is the input already filled with config.seed's pattern (config.bytes of
  // it), shared by many runners: the runner then allocates and fills no input of its own.
  StreamRunner(const DeviceInfo& device, const StreamConfig& config, const Stream& stream,
               const DeviceBuffer<std::uint32_t>* shared = nullptr);

  void launch(const Stream& stream);
  // Sets the kernel's shared-memory attributes for this runner's plan again: runners of one kernel
  // with other plans, alive at the same time (the counter phase's batches), overwrite them.
  void prepare() const;
  // Replays 256 threads spread over the grid; throws std::runtime_error naming
  // the first that differs.
  void check_sums(const Stream& stream) const;
  // Median clock64 cycles of the probe threads' samples (spread over the run) in the last launch.
  double loaded_latency_cycles(const Stream& stream) const;
  // The probe's samples of the last launch (cycles; the median is loaded_latency_cycles).
  std::vector<double> loaded_latency_samples(const Stream& stream) const;

  const ResidencyPlan& plan() const noexcept { return plan_; }
  unsigned int blocks() const noexcept { return blocks_; }
  std::uint64_t elements() const noexcept { return elements_; }
  std::uint64_t bytes_read() const noexcept {
    return elements_ * static_cast<std::uint64_t>(config_.kernel.load_bytes);
  }

 private:
  StreamConfig config_;
  ResidencyPlan plan_;
  unsigned int blocks_ = 0;
  std::uint64_t elements_ = 0;
  DeviceBuffer<std::uint32_t> data_;
  const std::uint32_t* input_ = nullptr;  // data_ or the shared input
  DeviceBuffer<std::uint32_t> sums_;
  DeviceBuffer<long long> latency_;
};

// The non-persistent stream: one 16-byte load per thread, as many blocks as the
// buffer needs. Residency is whatever the block size allows; the occupancy
// API's count is reported, not pinned.
struct OnePerThreadConfig {
  int threads_per_block = 256;  // a multiple of 32 up to the device's block limit
  std::uint64_t bytes = 0;      // a positive multiple of 16 bytes
  std::uint32_t seed = 5;
  // false: the block-turnover grid (the same blocks without the load; kernels/streaming/kernels.hpp),
  // which reads nothing.
  bool load = true;
};

// "" or one sentence naming the value and what is allowed.
std::string one_per_thread_problem(const OnePerThreadConfig& config, int max_threads_per_block);

class OnePerThreadRunner {
 public:
  OnePerThreadRunner(const DeviceInfo& device, const OnePerThreadConfig& config, const Stream& stream,
                     const DeviceBuffer<std::uint32_t>* shared = nullptr);
  void launch(const Stream& stream);
  // Replays 256 warps spread over the grid; throws std::runtime_error naming
  // the first that differs.
  void check_sums(const Stream& stream) const;
  std::uint64_t elements() const noexcept { return elements_; }
  std::uint64_t bytes_read() const noexcept { return config_.load ? elements_ * 16 : 0; }
  std::uint64_t blocks() const noexcept { return (elements_ + threads() - 1) / threads(); }
  // Blocks and warps an SM holds at once at this block size, by the occupancy
  // API.
  int resident_blocks_per_sm() const noexcept { return resident_blocks_; }
  int resident_warps_per_sm() const noexcept { return resident_blocks_ * config_.threads_per_block / 32; }

 private:
  std::uint64_t threads() const noexcept { return static_cast<std::uint64_t>(config_.threads_per_block); }
  OnePerThreadConfig config_;
  int resident_blocks_ = 0;
  std::uint64_t elements_ = 0;
  DeviceBuffer<std::uint32_t> data_;
  const std::uint32_t* input_ = nullptr;
  DeviceBuffer<std::uint32_t> warp_sums_;
};

struct ChaseConfig {
  std::uint64_t footprint_bytes = 0;  // a power of two, at least 2 nodes of kNodeBytes
  kernels::RingOrder order = kernels::RingOrder::kRandom;
  std::uint32_t seed = 9;
  std::uint64_t steps = 65536;
};

// "" or why the chase cannot run on this device (footprint shape, free memory).
std::string chase_problem(const ChaseConfig& config, std::uint64_t free_bytes);

class ChaseRunner {
 public:
  ChaseRunner(const DeviceInfo& device, const ChaseConfig& config, const Stream& stream);
  void launch(const Stream& stream);
  kernels::ChaseResult result(const Stream& stream) const;
  // Checks the ring node by node (all nodes up to 2^16, a spread sample beyond)
  // and that a chase of exactly `nodes` steps returns to its start; throws
  // std::runtime_error naming the node.
  void check_ring(const Stream& stream);
  std::uint64_t nodes() const noexcept { return nodes_; }
  std::uint64_t warm_steps() const noexcept { return warm_; }

 private:
  ChaseConfig config_;
  std::uint64_t nodes_ = 0;
  std::uint64_t warm_ = 0;
  // Ring position (step index) the last launch started from and the next one starts from: each
  // launch walks on where the last one stopped, so a ring larger than its warm-up never reruns the
  // nodes the previous sample left in the L2.
  std::uint64_t last_start_ = 0;
  std::uint64_t next_start_ = 0;
  DeviceBuffer<unsigned char> ring_;
  DeviceBuffer<kernels::ChaseResult> result_;
};

// The loaded chase (issue 33): the DRAM chase beside a background stream of background_warps warps
// on every SM, for the loaded latency as a function of the DRAM throughput.
struct LoadedChaseConfig {
  int background_warps = 0;           // 0..kernels::kMostBackgroundWarps; 0: the chase alone
  std::uint64_t footprint_bytes = 0;  // the ring: a power of two, far past the L2
  std::uint32_t seed = 9;
  std::uint64_t warm_steps = 512;
  std::uint64_t steps = 4096;
};

// "" or why the loaded chase cannot run on this device: the ring (chase_problem), the background
// size, two blocks of which must fit an SM beside each other.
std::string loaded_chase_problem(const LoadedChaseConfig& config, std::uint64_t free_bytes, int max_warps_per_sm,
                                 int max_threads_per_block);

struct LoadedChaseSample {
  kernels::LoadedChaseResult result;
  unsigned int background_sms = 0;  // distinct SMs the background blocks ran on
};

class LoadedChaseRunner {
 public:
  // `background` holds `elements` 16-byte elements for the background to stream (the streaming
  // family's shared input, at least 8x the L2; the caller keeps it alive). Throws
  // std::invalid_argument naming the value when the configuration cannot run (loaded_chase_problem,
  // or the occupancy API's count of blocks an SM).
  LoadedChaseRunner(const DeviceInfo& device, const LoadedChaseConfig& config, const void* background,
                    std::uint64_t elements, const Stream& stream);
  void launch(const Stream& stream);
  // The last launch's numbers, checked first: the chase ended on the node the ring predicts and on
  // the SM it began on; with a background, every background block had begun before the chase,
  // none stopped on its watchdog (the chase outlived it) and it made loads. Throws
  // std::runtime_error naming what is wrong.
  LoadedChaseSample result(const Stream& stream) const;
  std::uint64_t nodes() const noexcept { return nodes_; }
  unsigned int background_blocks() const noexcept { return background_blocks_; }

 private:
  LoadedChaseConfig config_;
  std::uint64_t nodes_ = 0;
  unsigned int background_blocks_ = 0;
  const void* background_ = nullptr;
  std::uint64_t elements_ = 0;
  std::uint64_t last_start_ = 0;  // as ChaseRunner: each launch walks on from where the last stopped
  std::uint64_t next_start_ = 0;
  DeviceBuffer<unsigned char> ring_;
  DeviceBuffer<unsigned int> smids_;
  DeviceBuffer<kernels::LoadedChaseResult> result_;
};

}  // namespace warpcost
