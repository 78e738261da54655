#include "bench/streaming/runner.hpp"

#include <algorithm>
#include <cstring>
#include <future>
#include <stdexcept>
#include <vector>

#include "core/statistics.hpp"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost {
namespace {

// A runner's input: the run's shared pattern buffer when it has one, else a buffer of its own
// (`own`), filled with the pattern of `seed`.
const std::uint32_t* shared_or_own_input(const DeviceBuffer<std::uint32_t>* shared, std::uint64_t bytes,
                                         std::uint32_t seed, const Stream& stream,
                                         DeviceBuffer<std::uint32_t>& own) {
  if (shared != nullptr) return shared->data();
  own = DeviceBuffer<std::uint32_t>(bytes / 4);
  kernels::launch_fill_pattern(own.data(), own.size(), seed, stream.get());
  return own.data();
}

constexpr int kMaxWarpsPerBlock = 32;
// Threads (persistent stream) and warps (one load a thread) replayed on the
// host per check: a persistent thread at one warp per SM reads tens of
// thousands of elements, and W up to 256 FFMAs each, so its replay is the
// costly one.
constexpr int kSampledThreads = 64;
constexpr int kSampledWarps = 256;
// Rings up to this many nodes (128 MiB, twice the H200's L2) are warmed with
// one whole lap before the timed steps, so the L1 and L2 plateaus are measured
// warm; larger rings only with 64 Ki steps, since a lap of 16 Mi DRAM misses
// would take seconds and the DRAM plateau wants them cold.
constexpr std::uint64_t kFullWarmNodes = std::uint64_t{1} << 19;
constexpr std::uint64_t kPartialWarmSteps = 65536;
constexpr std::uint64_t kCheckedWholeRing = std::uint64_t{1} << 16;
// gridDim.x's limit on every GPU since compute capability 3.0.
constexpr std::uint64_t kMaxGridX = 2147483647;
constexpr std::uint64_t kFullLapCheckNodes = std::uint64_t{1} << 20;

std::string bytes_text(long long b) { return std::to_string(b) + " bytes"; }

std::uint64_t free_device_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  WARPCOST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

// Throws std::invalid_argument naming the buffer and the free device memory when it does not fit.
void require_free_stream_buffer(std::uint64_t bytes) {
  const std::uint64_t free_bytes = free_device_bytes();
  if (bytes > free_bytes) {
    throw std::invalid_argument("stream buffer = " + bytes_text(static_cast<long long>(bytes)) +
                                "; allowed: at most the " + bytes_text(static_cast<long long>(free_bytes)) +
                                " of free device memory");
  }
}

}  // namespace

ResidencyLimits residency_limits(const DeviceInfo& d) {
  return {d.max_warps_per_sm,       d.max_blocks_per_sm,         d.max_threads_per_block,    d.shared_per_sm,
          d.shared_per_block_optin, d.shared_reserved_per_block, d.cc_major >= 8 ? 128 : 256};
}

ResidencyLimits residency_limits(const DeviceFacts& d) {
  return {d.max_warps_per_sm,       d.max_blocks_per_sm,         d.max_threads_per_block,    d.shared_per_sm,
          d.shared_per_block_optin, d.shared_reserved_per_block, d.cc_major >= 8 ? 128 : 256};
}

std::string stream_residency_problem(const DeviceFacts& facts, const kernels::StreamKernelConfig& kernel,
                                     int warps_per_sm) {
  const ResidencyPlan plan = plan_residency(warps_per_sm, residency_limits(facts));
  if (!plan.problem.empty() || !facts.profile.empty()) return plan.problem;
  const void* function = kernels::stream_kernel_function(kernel);
  const int threads = plan.warps_per_block * 32;
  WARPCOST_CUDA(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(plan.shared_bytes)));
  WARPCOST_CUDA(cudaFuncSetAttribute(function, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
  int resident = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, function, threads,
                                                              static_cast<std::size_t>(plan.shared_bytes)));
  if (resident == plan.blocks_per_sm) return {};
  return "warps per SM = " + std::to_string(warps_per_sm) + ": the occupancy API allows " + std::to_string(resident) +
         " blocks of " + std::to_string(threads) + " threads, not the planned " + std::to_string(plan.blocks_per_sm);
}

ResidencyPlan plan_residency(int w, const ResidencyLimits& l) {
  ResidencyPlan p;
  p.warps_per_sm = w;
  if (w < 1 || w > l.max_warps_per_sm) {
    p.problem = "warps per SM = " + std::to_string(w) + "; allowed: 1.." + std::to_string(l.max_warps_per_sm);
    return p;
  }
  const int widest = std::min(kMaxWarpsPerBlock, l.max_threads_per_block / 32);
  for (int b = 1; b <= widest && p.warps_per_block == 0; ++b) {
    if (w % b == 0 && w / b <= l.max_blocks_per_sm) p.warps_per_block = b;
  }
  if (p.warps_per_block == 0) {
    p.problem = "warps per SM = " + std::to_string(w) + ": no block of 1.." + std::to_string(widest) +
                " warps divides it into at most " + std::to_string(l.max_blocks_per_sm) +
                " blocks per SM, so it cannot be held exactly";
    return p;
  }
  const int b = p.warps_per_block;
  const int k = w / b;
  p.blocks_per_sm = k;
  // Pinning is needed only where one more block would still fit the block and
  // warp caps.
  if (k >= l.max_blocks_per_sm || (k + 1) * b > l.max_warps_per_sm) return p;
  // Each block takes a whole number of allocation units (its own bytes plus the
  // reserved part): the largest share of the SM in whole units, less the
  // reserved part, lets k blocks fit.
  const long long unit = l.shared_per_sm / k / l.shared_allocation_unit * l.shared_allocation_unit;
  p.shared_bytes = std::min(unit - l.shared_reserved_per_block, l.shared_per_block_optin);
  const long long per_block = (p.shared_bytes + l.shared_reserved_per_block + l.shared_allocation_unit - 1) /
                              l.shared_allocation_unit * l.shared_allocation_unit;
  if (p.shared_bytes < 0 || (k + 1) * per_block <= l.shared_per_sm) {
    p.problem = "warps per SM = " + std::to_string(w) + ": " + std::to_string(k) + " blocks of " +
                std::to_string(b) + " warps cannot be pinned with shared memory (" +
                bytes_text(l.shared_per_sm) + " an SM, at most " + bytes_text(l.shared_per_block_optin) +
                " a block)";
    p.shared_bytes = 0;
  }
  return p;
}

StreamRunner::StreamRunner(const DeviceInfo& device, const StreamConfig& config, const Stream& stream,
                           const DeviceBuffer<std::uint32_t>* shared)
    : config_(config) {
  if (const std::string problem = kernels::stream_kernel_problem(config.kernel); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  if (config_.warps_per_sm == 0) config_.warps_per_sm = device.max_warps_per_sm;
  plan_ = plan_residency(config_.warps_per_sm, residency_limits(device));
  if (!plan_.problem.empty()) throw std::invalid_argument(plan_.problem);
  const auto width = static_cast<std::uint64_t>(config.kernel.load_bytes);
  if (config.bytes < width || config.bytes % 16 != 0) {
    throw std::invalid_argument("stream buffer = " + bytes_text(static_cast<long long>(config.bytes)) +
                                "; allowed: a positive multiple of 16 bytes");
  }
  if (shared != nullptr && shared->bytes() != config.bytes) {
    throw std::invalid_argument("shared stream buffer = " + bytes_text(static_cast<long long>(shared->bytes())) +
                                "; allowed: exactly the configured " +
                                bytes_text(static_cast<long long>(config.bytes)));
  }
  if (shared == nullptr) require_free_stream_buffer(config.bytes);
  const void* kernel = kernels::stream_kernel_function(config.kernel);
  const int threads = plan_.warps_per_block * 32;
  WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(plan_.shared_bytes)));
  WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
  int resident = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads,
                                                              static_cast<std::size_t>(plan_.shared_bytes)));
  if (resident != plan_.blocks_per_sm) {
    throw std::invalid_argument("warps per SM = " + std::to_string(config_.warps_per_sm) +
                                ": the occupancy API allows " + std::to_string(resident) + " blocks of " +
                                std::to_string(threads) + " threads with " + bytes_text(plan_.shared_bytes) +
                                " of shared memory, not the planned " + std::to_string(plan_.blocks_per_sm));
  }
  blocks_ = static_cast<unsigned int>(device.sm_count * plan_.blocks_per_sm);
  elements_ = config.bytes / width;
  input_ = shared_or_own_input(shared, config.bytes, config.seed, stream, data_);
  sums_ = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(blocks_) * static_cast<std::size_t>(threads));
  latency_ = DeviceBuffer<long long>(static_cast<std::size_t>(blocks_) * kernels::kLatencySamplesPerBlock);
  WARPCOST_CUDA(cudaMemsetAsync(latency_.data(), 0xFF, latency_.bytes(),
                                stream.get()));  // -1: no sample
}

void StreamRunner::prepare() const {
  const void* kernel = kernels::stream_kernel_function(config_.kernel);
  WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(plan_.shared_bytes)));
  WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
}

void StreamRunner::launch(const Stream& stream) {
  kernels::launch_stream(
      config_.kernel, input_, elements_, blocks_, static_cast<unsigned int>(plan_.warps_per_block * 32),
      static_cast<std::size_t>(plan_.shared_bytes), sums_.data(), latency_.data(), stream.get());
}

void StreamRunner::check_sums(const Stream& stream) const {
  std::vector<std::uint32_t> got(sums_.size());
  WARPCOST_CUDA(
      cudaMemcpyAsync(got.data(), sums_.data(), sums_.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  const std::uint64_t threads = got.size();
  const std::uint64_t step = std::max<std::uint64_t>(1, threads / kSampledThreads);
  // The replays are independent and, at one warp per SM and W = 256, seconds of host work in all:
  // they run on the host's cores at once.
  std::vector<std::uint64_t> sampled;
  for (std::uint64_t g = 0; g < threads; g += step) sampled.push_back(g);
  std::vector<std::future<std::uint32_t>> replays;
  for (const std::uint64_t g : sampled) {
    replays.push_back(std::async(std::launch::async, [this, g, threads] {
      return kernels::stream_reference(config_.kernel, g, threads, elements_, config_.seed);
    }));
  }
  for (std::size_t k = 0; k < sampled.size(); ++k) {
    const std::uint64_t g = sampled[k];
    const std::uint32_t want = replays[k].get();
    if (got[g] != want) {
      throw std::runtime_error("stream thread " + std::to_string(g) + " summed " + std::to_string(got[g]) +
                               ", host replay " + std::to_string(want));
    }
  }
}

double StreamRunner::loaded_latency_cycles(const Stream& stream) const {
  return analysis::median(loaded_latency_samples(stream));
}

std::vector<double> StreamRunner::loaded_latency_samples(const Stream& stream) const {
  std::vector<long long> samples(latency_.size());
  WARPCOST_CUDA(cudaMemcpyAsync(samples.data(), latency_.data(), latency_.bytes(), cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();
  std::vector<double> kept;
  for (const long long s : samples) {
    if (s >= 0) kept.push_back(static_cast<double>(s));
  }
  if (kept.empty()) throw std::runtime_error("no loaded-latency sample was written");
  return kept;
}

std::string one_per_thread_problem(const OnePerThreadConfig& c, int max_threads_per_block) {
  if (c.threads_per_block < 32 || c.threads_per_block > max_threads_per_block ||
      c.threads_per_block % 32 != 0) {
    return "block size = " + std::to_string(c.threads_per_block) +
           " threads; allowed: a multiple of 32 from 32 to " + std::to_string(max_threads_per_block);
  }
  if (c.bytes < 16 || c.bytes % 16 != 0) {
    return "stream buffer = " + bytes_text(static_cast<long long>(c.bytes)) +
           "; allowed: a positive multiple of 16 bytes";
  }
  return {};
}

OnePerThreadRunner::OnePerThreadRunner(const DeviceInfo& device, const OnePerThreadConfig& config,
                                       const Stream& stream, const DeviceBuffer<std::uint32_t>* shared)
    : config_(config) {
  if (const std::string p = one_per_thread_problem(config, device.max_threads_per_block); !p.empty()) {
    throw std::invalid_argument(p);
  }
  if (shared != nullptr && shared->bytes() != config.bytes) {
    throw std::invalid_argument("shared stream buffer = " + bytes_text(static_cast<long long>(shared->bytes())) +
                                "; allowed: exactly the configured " +
                                bytes_text(static_cast<long long>(config.bytes)));
  }
  if (shared == nullptr) require_free_stream_buffer(config.bytes);
  elements_ = config.bytes / 16;
  const std::uint64_t grid = blocks();
  if (grid > kMaxGridX) {
    throw std::invalid_argument("stream buffer = " + bytes_text(static_cast<long long>(config.bytes)) +
                                " needs " + std::to_string(grid) + " blocks of " +
                                std::to_string(config.threads_per_block) + " threads; allowed: at most " +
                                std::to_string(kMaxGridX));
  }
  resident_blocks_ = config.load ? kernels::one_per_thread_resident_blocks(config.threads_per_block)
                                 : kernels::block_turnover_resident_blocks(config.threads_per_block);
  input_ = shared_or_own_input(shared, config.bytes, config.seed, stream, data_);
  warp_sums_ = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(grid * threads() / 32));
}

void OnePerThreadRunner::launch(const Stream& stream) {
  if (!config_.load) {
    kernels::launch_block_turnover(elements_, static_cast<unsigned int>(threads()), warp_sums_.data(), stream.get());
    return;
  }
  kernels::launch_stream_one_per_thread(input_, elements_, static_cast<unsigned int>(threads()),
                                        warp_sums_.data(), stream.get());
}

void OnePerThreadRunner::check_sums(const Stream& stream) const {
  std::vector<std::uint32_t> got(warp_sums_.size());
  WARPCOST_CUDA(cudaMemcpyAsync(got.data(), warp_sums_.data(), warp_sums_.bytes(), cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();
  const std::uint64_t warps = got.size();
  const std::uint64_t step = std::max<std::uint64_t>(1, warps / kSampledWarps);
  auto reference = [this](std::uint64_t w) {
    return config_.load ? kernels::one_per_thread_reference(w, elements_, config_.seed)
                        : kernels::block_turnover_reference(w, elements_);
  };
  for (std::uint64_t w = 0; w < warps; w += step) {
    const std::uint32_t want = reference(w);
    if (got[w] != want) {
      throw std::runtime_error("stream warp " + std::to_string(w) + " folded " + std::to_string(got[w]) +
                               ", host replay " + std::to_string(want));
    }
  }
  // The last warp covers the buffer's tail.
  const std::uint32_t last = reference(warps - 1);
  if (got[warps - 1] != last) {
    throw std::runtime_error("stream warp " + std::to_string(warps - 1) + " (the tail) folded " +
                             std::to_string(got[warps - 1]) + ", host replay " + std::to_string(last));
  }
}

std::string chase_problem(const ChaseConfig& c, std::uint64_t free_bytes) {
  const std::uint64_t f = c.footprint_bytes;
  if (f < 2 * kernels::kNodeBytes || (f & (f - 1)) != 0) {
    return "footprint = " + std::to_string(f) + " bytes; allowed: a power of two of at least " +
           std::to_string(2 * kernels::kNodeBytes) + " bytes (two 256-byte nodes)";
  }
  if (f > free_bytes) {
    return "footprint = " + std::to_string(f) + " bytes; allowed: at most the " + std::to_string(free_bytes) +
           " bytes of free device memory";
  }
  if (c.steps == 0) return "chase steps = 0; allowed: 1 or more";
  return {};
}

ChaseRunner::ChaseRunner(const DeviceInfo& device, const ChaseConfig& config, const Stream& stream)
    : config_(config) {
  (void)device;
  if (const std::string p = chase_problem(config, free_device_bytes()); !p.empty()) {
    throw std::invalid_argument(p);
  }
  nodes_ = config.footprint_bytes / kernels::kNodeBytes;
  warm_ = nodes_ <= kFullWarmNodes ? nodes_ : kPartialWarmSteps;
  ring_ = DeviceBuffer<unsigned char>(config.footprint_bytes);
  result_ = DeviceBuffer<kernels::ChaseResult>(1);
  kernels::launch_build_ring(ring_.data(), nodes_, config.order, config.seed, stream.get());
}

void ChaseRunner::launch(const Stream& stream) {
  last_start_ = next_start_;
  kernels::launch_chase(ring_.data(), kernels::ring_node(last_start_, nodes_, config_.order, config_.seed),
                        warm_, config_.steps, result_.data(), stream.get());
  next_start_ = (last_start_ + warm_ + config_.steps) % nodes_;
}

kernels::ChaseResult ChaseRunner::result(const Stream& stream) const {
  kernels::ChaseResult r{};
  WARPCOST_CUDA(cudaMemcpyAsync(&r, result_.data(), sizeof r, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  const std::uint64_t expected =
      kernels::ring_node((last_start_ + warm_ + config_.steps) % nodes_, nodes_, config_.order, config_.seed);
  if (r.final_node != expected) {
    throw std::runtime_error("chase ended on node " + std::to_string(r.final_node) + ", the ring says " +
                             std::to_string(expected));
  }
  return r;
}

void ChaseRunner::check_ring(const Stream& stream) {
  const auto base = reinterpret_cast<std::uint64_t>(ring_.data());
  // Small rings come back whole; larger ones node by node, 4096 nodes spread
  // over the ring.
  std::vector<unsigned char> whole;
  if (nodes_ <= kCheckedWholeRing) {
    whole.resize(ring_.bytes());
    WARPCOST_CUDA(
        cudaMemcpyAsync(whole.data(), ring_.data(), ring_.bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
  }
  const std::uint64_t step = whole.empty() ? nodes_ / 4096 : 1;
  for (std::uint64_t j = 0; j < nodes_; j += step) {
    const std::uint64_t here = kernels::ring_node(j, nodes_, config_.order, config_.seed);
    const std::uint64_t next = kernels::ring_node((j + 1) % nodes_, nodes_, config_.order, config_.seed);
    std::uint64_t stored = 0;
    if (whole.empty()) {
      WARPCOST_CUDA(cudaMemcpyAsync(&stored, ring_.data() + here * kernels::kNodeBytes, sizeof stored,
                                    cudaMemcpyDeviceToHost, stream.get()));
      stream.synchronize();
    } else {
      std::memcpy(&stored, whole.data() + here * kernels::kNodeBytes, sizeof stored);
    }
    if (stored != base + next * kernels::kNodeBytes) {
      throw std::runtime_error("ring node " + std::to_string(here) + " points to byte " +
                               std::to_string(stored - base) + ", not to node " + std::to_string(next));
    }
  }
  if (nodes_ > kFullLapCheckNodes) return;
  // A lap of exactly `nodes` steps from node ring_node(0) comes back to it:
  // every node once.
  kernels::launch_chase(ring_.data(), kernels::ring_node(0, nodes_, config_.order, config_.seed), 0, nodes_,
                        result_.data(), stream.get());
  kernels::ChaseResult r{};
  WARPCOST_CUDA(cudaMemcpyAsync(&r, result_.data(), sizeof r, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  if (r.final_node != kernels::ring_node(0, nodes_, config_.order, config_.seed)) {
    throw std::runtime_error("a lap of " + std::to_string(nodes_) + " steps ended on node " +
                             std::to_string(r.final_node) + ", not on its start");
  }
}

std::string loaded_chase_problem(const LoadedChaseConfig& c, std::uint64_t free_bytes, int max_warps_per_sm,
                                 int max_threads_per_block) {
  ChaseConfig ring;
  ring.footprint_bytes = c.footprint_bytes;
  ring.steps = c.steps;
  if (const std::string p = chase_problem(ring, free_bytes); !p.empty()) return p;
  const int w = c.background_warps;
  if (w < 0 || w > kernels::kMostBackgroundWarps) {
    return "background warps = " + std::to_string(w) + "; allowed: 0.." + std::to_string(kernels::kMostBackgroundWarps);
  }
  if (w * 32 > max_threads_per_block) {
    return "background warps = " + std::to_string(w) + ": a block of " + std::to_string(w * 32) +
           " threads; allowed: at most " + std::to_string(max_threads_per_block);
  }
  if (2 * w > max_warps_per_sm) {
    return "background warps = " + std::to_string(w) + ": the chaser's block and a background block of " +
           std::to_string(w) + " warps each must share an SM, and an SM holds " + std::to_string(max_warps_per_sm);
  }
  return {};
}

LoadedChaseRunner::LoadedChaseRunner(const DeviceInfo& device, const LoadedChaseConfig& config,
                                     const void* background, std::uint64_t elements, const Stream& stream)
    : config_(config), background_(background), elements_(elements) {
  if (const std::string p = loaded_chase_problem(config, free_device_bytes(), device.max_warps_per_sm,
                                                 device.max_threads_per_block);
      !p.empty()) {
    throw std::invalid_argument(p);
  }
  nodes_ = config.footprint_bytes / kernels::kNodeBytes;
  background_blocks_ = config.background_warps > 0 ? static_cast<unsigned int>(device.sm_count) : 0u;
  ring_ = DeviceBuffer<unsigned char>(config.footprint_bytes);
  smids_ = DeviceBuffer<unsigned int>(std::max<std::size_t>(1, background_blocks_));
  result_ = DeviceBuffer<kernels::LoadedChaseResult>(1);
  kernels::launch_build_ring(ring_.data(), nodes_, kernels::RingOrder::kRandom, config.seed, stream.get());
}

void LoadedChaseRunner::launch(const Stream& stream) {
  last_start_ = next_start_;
  kernels::launch_chase_loaded(ring_.data(), kernels::ring_node(last_start_, nodes_, kernels::RingOrder::kRandom, config_.seed),
                               config_.warm_steps, config_.steps, background_, elements_, background_blocks_,
                               config_.background_warps, smids_.data(), result_.data(), stream.get());
  next_start_ = (last_start_ + config_.warm_steps + config_.steps) % nodes_;
}

LoadedChaseSample LoadedChaseRunner::result(const Stream& stream) const {
  LoadedChaseSample s;
  std::vector<unsigned int> smids(smids_.size());
  WARPCOST_CUDA(cudaMemcpyAsync(&s.result, result_.data(), sizeof s.result, cudaMemcpyDeviceToHost, stream.get()));
  WARPCOST_CUDA(cudaMemcpyAsync(smids.data(), smids_.data(), smids_.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  const kernels::LoadedChaseResult& r = s.result;
  const std::uint64_t expected = kernels::ring_node((last_start_ + config_.warm_steps + config_.steps) % nodes_, nodes_,
                                                    kernels::RingOrder::kRandom, config_.seed);
  if (r.chase.final_node != expected) {
    throw std::runtime_error("loaded chase ended on node " + std::to_string(r.chase.final_node) + ", the ring says " +
                             std::to_string(expected));
  }
  if (r.chase.smid_start != r.chase.smid_end) throw std::runtime_error("the chasing thread changed SM");
  if (background_blocks_ == 0) return s;
  if (r.started_at_chase != background_blocks_) {
    throw std::runtime_error("the chase began with " + std::to_string(r.started_at_chase) + " of " +
                             std::to_string(background_blocks_) +
                             " background blocks running: they were not all resident at once");
  }
  if (r.watchdog_stops != 0) {
    throw std::runtime_error(std::to_string(r.watchdog_stops) + " background warp(s) stopped on the watchdog (" +
                             std::to_string(kernels::kBackgroundWatchdogLaps) +
                             " laps of the buffer) before the chase was done: the background did not span the chase");
  }
  if (r.background_loads == 0 || r.window_loads == 0) {
    throw std::runtime_error("the background made " + std::to_string(r.background_loads) + " loads, " +
                             std::to_string(r.window_loads) + " while the chase was timed; a background of " +
                             std::to_string(config_.background_warps) + " warps an SM must load");
  }
  std::sort(smids.begin(), smids.end());
  s.background_sms = static_cast<unsigned int>(std::unique(smids.begin(), smids.end()) - smids.begin());
  return s;
}

}  // namespace warpcost
