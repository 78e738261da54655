// Latency and load streaming: the pointer chase over footprints from 16 KiB to
// 4 GiB (random ring and fixed stride), and the read stream at every warps/SM
// count a uniform block size can hold exactly, for every compiled W (ALU
// instructions per load); and the one-load-per-thread stream at every block
// size from 32 to 1024 threads. Each benchmark states its work as counters
// (bytes read, loads, instructions, the residency plan) for the analysis'
// knees. Every streaming point reads one input buffer, allocated and filled once for the family;
// each point is sampled until its time is known (bench_support.hpp), and its counters are left
// for the counter phase after all timing. The plain peak read (read_peak) stores nothing while
// timed.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/streaming/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/plan.hpp"
#include "bench/common/timing.hpp"
#include "bench/streaming/runner.hpp"
#include "core/counters.hpp"
#include "core/statistics.hpp"
#include "core/streaming/model.hpp"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost {
namespace {

// The families' contracts (core/streaming/schema.hpp): the registrations take names from them.
const schema::FamilyDescriptor& latency_family() { return schema::latency::descriptor(); }
const schema::FamilyDescriptor& streaming_family() { return schema::streaming::descriptor(); }
namespace latency_bench = schema::latency::benchmark;
namespace streaming_bench = schema::streaming::benchmark;


constexpr int kWarmupLaunches = 1;
constexpr std::uint32_t kStreamSeed = 5;
// A launch reads at least 8x the device's L2, and never less than 2
// GiB, so the stream comes from DRAM (a launch starts where the previous one's
// L2-resident tail is not) and the launch and the grid's ramp-up and drain are
// a few microseconds of a 450+ us launch.
constexpr std::uint64_t kMinStreamBytes = 2048 * kMiB;

std::uint64_t stream_bytes(long long l2_bytes) {
  const auto eight_l2 = static_cast<std::uint64_t>(8 * l2_bytes);
  const std::uint64_t rounded = (eight_l2 + kMiB - 1) / kMiB * kMiB;
  return std::max(kMinStreamBytes, rounded);
}

// The chase's numbers are its own clock64 and %globaltimer per load, read back after each sample
// (outside the event pair) and averaged over the samples.
const char* const kChaseNames[] = {latency_bench::kChaseRandom, latency_bench::kChaseStride};

void chase(benchmark::State& state, kernels::RingOrder order) {
  run_guarded(state, [&] {
    ChaseConfig c;
    c.footprint_bytes = static_cast<std::uint64_t>(state.range(0)) * 1024;
    c.order = order;
    Stream stream;
    EventPair events;
    ChaseRunner runner(bench_device(), c, stream);
    runner.launch(stream);
    (void)runner.result(stream);  // checks where the chase ended, before any sample
    double cycles = 0;
    double ns = 0;
    long long read_back = 0;
    auto read_result = [&] {
      if (read_back++ == 0) return;  // nothing launched yet in the sampling loop
      const kernels::ChaseResult r = runner.result(stream);  // checks where the chase ended
      if (r.smid_start != r.smid_end) throw std::runtime_error("the chasing thread changed SM");
      cycles += static_cast<double>(r.cycles);
      ns += static_cast<double>(r.ns);
    };
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { runner.launch(stream); }, read_result);
      read_result();  // the last sample's
      report_point(state, benchmark_key(state, latency_family().run_name(kChaseNames[order == kernels::RingOrder::kRandom ? 0 : 1]), 1), t);
    }
    const double loads = static_cast<double>(c.steps) * static_cast<double>(read_back - 1);
    state.counters[schema::latency::counter::kCyclesPerLoad] = cycles / loads;
    state.counters[schema::latency::counter::kNsPerLoad] = ns / loads;
    state.counters[schema::counter::kSmClockHz] = cycles / (ns * 1e-9);
    state.counters[schema::latency::counter::kNodes] = static_cast<double>(runner.nodes());
    state.counters[schema::latency::counter::kWarmSteps] = static_cast<double>(runner.warm_steps());
    state.counters[schema::latency::counter::kSteps] = static_cast<double>(c.steps);
    state.counters[schema::latency::counter::kFootprintBytes] = static_cast<double>(c.footprint_bytes);
  });
}

// The loaded chase (issue 33): the random chase over a ring far past the L2 while every SM streams
// 16-byte loads with range(0) warps of background (0: none). Its ring is the smallest power of two
// of at least 16x the L2 (where the analysis' DRAM plateau begins), and never under 1 GiB; its
// background reads the streaming family's shared input (8x the L2 or more). 512 untimed steps
// (the background reaches its rate; the ring is cold anyway) and 4096 timed ones, at 0.3-1 us a
// load 1.5-4.5 ms a launch: the sampling rule's 10 samples or 0.05 s keep a point near 0.1 s.
constexpr std::uint64_t kMinLoadedRingBytes = 1024 * kMiB;
constexpr std::uint64_t kLoadedChaseWarmSteps = 512;
constexpr std::uint64_t kLoadedChaseSteps = 4096;

std::uint64_t loaded_ring_bytes(long long l2_bytes) {
  std::uint64_t bytes = kMinLoadedRingBytes;
  while (bytes < static_cast<std::uint64_t>(16 * l2_bytes)) bytes *= 2;
  return bytes;
}

void chase_loaded(benchmark::State& state) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
    LoadedChaseConfig c;
    c.background_warps = static_cast<int>(state.range(0));
    c.footprint_bytes = loaded_ring_bytes(device.l2_bytes);
    c.warm_steps = kLoadedChaseWarmSteps;
    c.steps = kLoadedChaseSteps;
    Stream stream;
    EventPair events;
    const std::uint64_t background_bytes = stream_bytes(device.l2_bytes);
    const DeviceBuffer<std::uint32_t>& background = shared_pattern_buffer(background_bytes, kStreamSeed, stream);
    LoadedChaseRunner runner(device, c, background.data(), background_bytes / 16, stream);
    runner.launch(stream);
    (void)runner.result(stream);  // checks the chase and the background, before any sample
    double cycles = 0;
    double ns = 0;
    double window_bytes = 0;
    double lifetime_bytes = 0;
    double lifetime_ns = 0;
    double background_sms = runner.background_blocks();
    long long read_back = 0;
    auto read_result = [&] {
      if (read_back++ == 0) return;  // nothing launched yet in the sampling loop
      const LoadedChaseSample s = runner.result(stream);  // checks it, as above
      cycles += static_cast<double>(s.result.chase.cycles);
      ns += static_cast<double>(s.result.chase.ns);
      window_bytes += 16.0 * static_cast<double>(s.result.window_loads);
      if (runner.background_blocks() == 0) return;
      lifetime_bytes += 16.0 * static_cast<double>(s.result.background_loads);
      lifetime_ns += static_cast<double>(s.result.background_stop_ns - s.result.background_start_ns);
      background_sms = std::min(background_sms, static_cast<double>(s.background_sms));
    };
    const std::string key = benchmark_key(state, latency_family().run_name(latency_bench::kChaseLoaded), 1);
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { runner.launch(stream); }, read_result);
      read_result();  // the last sample's
      report_point(state, key, t);
    }
    const double loads = static_cast<double>(c.steps) * static_cast<double>(read_back - 1);
    namespace counter = schema::latency::counter;
    state.counters[counter::kCyclesPerLoad] = cycles / loads;
    state.counters[counter::kNsPerLoad] = ns / loads;
    state.counters[schema::counter::kSmClockHz] = cycles / (ns * 1e-9);
    state.counters[counter::kNodes] = static_cast<double>(runner.nodes());
    state.counters[counter::kWarmSteps] = static_cast<double>(c.warm_steps);
    state.counters[counter::kSteps] = static_cast<double>(c.steps);
    state.counters[counter::kFootprintBytes] = static_cast<double>(c.footprint_bytes);
    // The background's rate over the chase's own timed window, from the loads it booked while the
    // chase was timed: the latency measured is the window's, and the rate it is held against must
    // be too. Its whole life's loads over its own window (from the first block's start to the last
    // warp's stop) also count the ramp, the wait for every block, the warm-up and the stop, where
    // the chase was not timed; they are written beside it as a cross-check.
    state.counters[counter::kBackgroundBytesPerSecond] = window_bytes / (ns * 1e-9);
    state.counters[counter::kBackgroundLifetimeBytesPerSecond] =
        lifetime_ns > 0 ? lifetime_bytes / (lifetime_ns * 1e-9) : 0.0;
    state.counters[counter::kBackgroundSms] = background_sms;
  });
}

// The persistent stream; range(1) is W, or for the batched kernel the loads in
// flight a thread.
enum class StreamShape { kIndependent, kDependent, kBatched };

const char* const kStreamNames[] = {streaming_bench::kReadIndependent, streaming_bench::kReadDependent,
                                    streaming_bench::kReadBatched};

void run_stream(benchmark::State& state, const StreamConfig& c, const std::string& name, int ranges);

void stream_read(benchmark::State& state, StreamShape shape) {
  StreamConfig c;
  c.kernel.load_bytes = static_cast<int>(state.range(0));
  if (shape == StreamShape::kBatched) {
    c.kernel.loads_in_flight = static_cast<int>(state.range(1));
  } else {
    c.kernel.alu_per_load = static_cast<int>(state.range(1));
  }
  c.kernel.use =
      shape == StreamShape::kDependent ? kernels::AluUse::kDependent : kernels::AluUse::kIndependent;
  c.warps_per_sm = static_cast<int>(state.range(2));
  c.bytes = stream_bytes(bench_device().l2_bytes);
  c.seed = kStreamSeed;
  run_stream(state, c, streaming_family().run_name(kStreamNames[static_cast<int>(shape)]), 3);
}

void run_stream(benchmark::State& state, const StreamConfig& c, const std::string& name, int ranges) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
    Stream stream;
    EventPair events;
    StreamRunner runner(device, c, stream, &shared_pattern_buffer(c.bytes, c.seed, stream));
    // The checked and warm-up launches are timed too, so gpu_seconds is the point's whole GPU time.
    double gpu_seconds = time_launch(stream, events, [&] { runner.launch(stream); });
    runner.check_sums(stream);  // correctness before time
    for (int i = 0; i < kWarmupLaunches; ++i) {
      gpu_seconds += time_launch(stream, events, [&] { runner.launch(stream); });
    }
    const std::string key = benchmark_key(state, name, ranges);
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { runner.launch(stream); });
      for (const double x : t.samples.values()) gpu_seconds += x;
      report_point(state, key, t);
    }
    state.counters[schema::streaming::counter::kGpuSeconds] = gpu_seconds;
    const double loads = static_cast<double>(runner.elements());
    state.counters[schema::counter::kBytesRead] = static_cast<double>(runner.bytes_read());
    state.counters[schema::streaming::counter::kLoads] = loads;
    state.counters[schema::streaming::counter::kUsefulInstructions] = loads * (c.kernel.alu_per_load + 1);
    const std::vector<double> latency = runner.loaded_latency_samples(stream);
    state.counters[schema::streaming::counter::kLoadedLatencyCycles] = analysis::median(latency);
    // The spread of the samples, on the locus' curve only (16-byte loads, W = 0, independent): the
    // points a latency model reads; elsewhere its host time (a sort and five passes over up to 10^5
    // samples a point) would buy nothing.
    if (c.kernel.use == kernels::AluUse::kIndependent && c.kernel.loads_in_flight == 1 && c.kernel.load_bytes == 16 &&
        c.kernel.alu_per_load == 0) {
      namespace sc = schema::streaming::counter;
      const std::vector<double> excess = model::streaming::expected_max_excesses(latency, {2, 4, 8, 16, 32});
      state.counters[sc::kLoadedLatencyMaxExcessW2] = excess[0];
      state.counters[sc::kLoadedLatencyMaxExcessW4] = excess[1];
      state.counters[sc::kLoadedLatencyMaxExcessW8] = excess[2];
      state.counters[sc::kLoadedLatencyMaxExcessW16] = excess[3];
      state.counters[sc::kLoadedLatencyMaxExcessW32] = excess[4];
    }
    state.counters[schema::streaming::counter::kWarpsPerBlock] = runner.plan().warps_per_block;
    state.counters[schema::counter::kBlocksPerSm] = runner.plan().blocks_per_sm;
    state.counters[schema::streaming::counter::kSharedBytesPerBlock] = static_cast<double>(runner.plan().shared_bytes);
    state.counters[schema::counter::kBlocks] = runner.blocks();
    defer_counters(schema::streaming::descriptor(), key, [c] {
      auto own_stream = std::make_shared<Stream>();
      auto own_runner = std::make_shared<StreamRunner>(bench_device(), c, *own_stream,
                                                   &shared_pattern_buffer(c.bytes, c.seed, *own_stream));
      own_runner->launch(*own_stream);
      own_stream->synchronize();
      return std::function<void()>([own_stream, own_runner] {
        own_runner->prepare();
        own_runner->launch(*own_stream);
      });
    });
  });
}

// The non-persistent stream at one block size: the occupancy the block size allows, not a pinned
// one. load = false: the block-turnover parameter (docs/models.md, "one load a thread"), the same
// grid with the load taken out, checked and timed alike, with no counter pass (its rows are its
// time and the blocks it ran).
void stream_one_per_thread(benchmark::State& state, bool load) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
    OnePerThreadConfig c;
    c.threads_per_block = static_cast<int>(state.range(0));
    c.bytes = stream_bytes(device.l2_bytes);
    c.seed = kStreamSeed;
    c.load = load;
    Stream stream;
    EventPair events;
    OnePerThreadRunner runner(device, c, stream, &shared_pattern_buffer(c.bytes, c.seed, stream));
    double gpu_seconds = time_launch(stream, events, [&] { runner.launch(stream); });
    runner.check_sums(stream);
    for (int i = 0; i < kWarmupLaunches; ++i) {
      gpu_seconds += time_launch(stream, events, [&] { runner.launch(stream); });
    }
    const char* name = load ? streaming_bench::kReadOnePerThread : streaming_bench::kBlockTurnover;
    const std::string key = benchmark_key(state, streaming_family().run_name(name), 1);
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { runner.launch(stream); });
      for (const double x : t.samples.values()) gpu_seconds += x;
      report_point(state, key, t);
    }
    state.counters[schema::streaming::counter::kGpuSeconds] = gpu_seconds;
    if (load) {
      defer_counters(schema::streaming::descriptor(), key, [c] {
        auto own_stream = std::make_shared<Stream>();
        auto own_runner = std::make_shared<OnePerThreadRunner>(bench_device(), c, *own_stream,
                                                           &shared_pattern_buffer(c.bytes, c.seed, *own_stream));
        own_runner->launch(*own_stream);
        own_stream->synchronize();
        return std::function<void()>([own_stream, own_runner] { own_runner->launch(*own_stream); });
      });
      state.counters[schema::counter::kBytesRead] = static_cast<double>(runner.bytes_read());
      state.counters[schema::streaming::counter::kLoads] = static_cast<double>(runner.elements());
    }
    state.counters[schema::counter::kBlocks] = static_cast<double>(runner.blocks());
    state.counters[schema::streaming::counter::kResidentBlocksPerSm] = runner.resident_blocks_per_sm();
    state.counters[schema::streaming::counter::kResidentWarpsPerSm] = runner.resident_warps_per_sm();
  });
}

// The plain peak read over the family's buffer: checked once (the whole buffer's sum against the
// host's, computed once a run), then timed without any store.
std::uint32_t peak_total(std::uint64_t elements) {
  static std::map<std::uint64_t, std::uint32_t> totals;
  auto it = totals.find(elements);
  if (it == totals.end()) it = totals.emplace(elements, kernels::peak_reference_total(elements, kStreamSeed)).first;
  return it->second;
}

void stream_peak(benchmark::State& state) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
    const int loads = static_cast<int>(state.range(0));
    const auto threads = static_cast<unsigned int>(state.range(1));
    if (const std::string p = kernels::peak_problem(loads, static_cast<int>(threads)); !p.empty()) {
      throw std::invalid_argument(p);
    }
    const std::uint64_t bytes = stream_bytes(device.l2_bytes);
    const std::uint64_t elements = bytes / 16;
    Stream stream;
    EventPair events;
    const DeviceBuffer<std::uint32_t>& data = shared_pattern_buffer(bytes, kStreamSeed, stream);
    DeviceBuffer<std::uint32_t> total(1);
    WARPCOST_CUDA(cudaMemsetAsync(total.data(), 0, total.bytes(), stream.get()));
    kernels::launch_stream_peak(data.data(), elements, loads, threads, true, total.data(), stream.get());
    std::uint32_t got = 0;
    WARPCOST_CUDA(cudaMemcpyAsync(&got, total.data(), sizeof got, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    if (got != peak_total(elements)) {
      throw std::runtime_error("peak read summed " + std::to_string(got) + ", host sum " +
                               std::to_string(peak_total(elements)));
    }
    auto launch = [&] {
      kernels::launch_stream_peak(data.data(), elements, loads, threads, false, total.data(), stream.get());
    };
    for (int i = 0; i < kWarmupLaunches; ++i) launch();
    const std::string key = benchmark_key(state, streaming_family().run_name(streaming_bench::kReadPeak), 2);
    for (auto _ : state) report_point(state, key, sample_point(stream, events, launch));
    defer_counters(schema::streaming::descriptor(), key, [bytes, elements, loads, threads] {
      auto own_stream = std::make_shared<Stream>();
      auto sink = std::make_shared<DeviceBuffer<std::uint32_t>>(1);
      const std::uint32_t* input = shared_pattern_buffer(bytes, kStreamSeed, *own_stream).data();
      auto run = [own_stream, sink, input, elements, loads, threads] {
        kernels::launch_stream_peak(input, elements, loads, threads, false, sink->data(), own_stream->get());
      };
      run();
      own_stream->synchronize();
      return std::function<void()>(run);
    });
    state.counters[schema::counter::kBytesRead] = static_cast<double>(bytes);
    state.counters[schema::streaming::counter::kLoads] = static_cast<double>(elements);
    state.counters[schema::streaming::counter::kLoadsPerThread] = loads;
  });
}

// The copy stream (EXPLAIN-7's copy locus, docs/explain.md): the stream's input copied, 16 bytes a
// thread a step, into a second buffer of the same size, at `warps_per_sm` held exactly as the read
// stream's plan holds them. Its loads' latency, by Little's law from the read rate and the warps'
// one 16-byte load in flight each, at the DRAM's total (read + write) rate is what a kernel that
// writes waits on its loads (the store-twin pilot's H1, pilots/store_twin/README.md). No counter
// pass: its rows are its time and the bytes it moved. The destination, refilled with another pattern
// first, is checked word for word against the source's pattern before any timed launch.
constexpr std::uint32_t kCopyDestinationSeed = 0xC0u;  // a buffer no other point reads; overwritten

void stream_copy(benchmark::State& state) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
    const int load_bytes = static_cast<int>(state.range(0));
    if (load_bytes != 16) {
      throw std::invalid_argument("copy stream load_bytes = " + std::to_string(load_bytes) + "; allowed: 16");
    }
    const int warps = static_cast<int>(state.range(1));
    const ResidencyPlan plan = plan_residency(warps, residency_limits(device));
    if (!plan.problem.empty()) throw std::invalid_argument(plan.problem);
    const std::uint64_t bytes = stream_bytes(device.l2_bytes);
    const std::uint64_t elements = bytes / 16;
    Stream stream;
    EventPair events;
    const DeviceBuffer<std::uint32_t>& source = shared_pattern_buffer(bytes, kStreamSeed, stream);
    const DeviceBuffer<std::uint32_t>& destination = shared_pattern_buffer(bytes, kCopyDestinationSeed, stream);
    // The destination is shared by every copy point: filled again with its own pattern here, so this
    // point's check sees this point's copy, not an earlier point's (before 6 December 06:20 only the
    // first point of a run was checked against a destination it had not written).
    kernels::launch_fill_pattern(destination.data(), bytes / 4, kCopyDestinationSeed, stream.get());
    const void* kernel = kernels::copy_stream_kernel_function();
    const int threads = plan.warps_per_block * 32;
    const auto prepare = [kernel, plan] {
      WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(plan.shared_bytes)));
      WARPCOST_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared));
    };
    prepare();
    int resident = 0;
    WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads,
                                                                static_cast<std::size_t>(plan.shared_bytes)));
    if (resident != plan.blocks_per_sm) {
      throw std::invalid_argument("copy stream warps per SM = " + std::to_string(warps) + ": the occupancy API allows " +
                                  std::to_string(resident) + " blocks of " + std::to_string(threads) +
                                  " threads, not the planned " + std::to_string(plan.blocks_per_sm));
    }
    const auto blocks = static_cast<unsigned int>(device.sm_count * plan.blocks_per_sm);
    auto launch = [&] {
      kernels::launch_copy_stream(source.data(), destination.data(), elements, blocks, static_cast<unsigned int>(threads),
                                  static_cast<std::size_t>(plan.shared_bytes), stream.get());
    };
    double gpu_seconds = time_launch(stream, events, launch);
    DeviceBuffer<unsigned long long> mismatches(1);
    WARPCOST_CUDA(cudaMemsetAsync(mismatches.data(), 0, mismatches.bytes(), stream.get()));
    kernels::launch_count_pattern_mismatches(destination.data(), bytes / 4, kStreamSeed, mismatches.data(), stream.get());
    unsigned long long bad = 0;
    WARPCOST_CUDA(cudaMemcpyAsync(&bad, mismatches.data(), sizeof bad, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    if (bad != 0) {
      throw std::runtime_error("copy stream: " + std::to_string(bad) + " of " + std::to_string(bytes / 4) +
                               " destination words differ from the source's pattern");
    }
    for (int i = 0; i < kWarmupLaunches; ++i) gpu_seconds += time_launch(stream, events, launch);
    const std::string key = benchmark_key(state, streaming_family().run_name(streaming_bench::kCopyIndependent), 2);
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, launch);
      for (const double x : t.samples.values()) gpu_seconds += x;
      report_point(state, key, t);
    }
    state.counters[schema::streaming::counter::kGpuSeconds] = gpu_seconds;
    state.counters[schema::counter::kBytesRead] = static_cast<double>(bytes);
    state.counters[schema::streaming::counter::kBytesWritten] = static_cast<double>(bytes);
    state.counters[schema::streaming::counter::kLoads] = static_cast<double>(elements);
    state.counters[schema::streaming::counter::kWarpsPerBlock] = plan.warps_per_block;
    state.counters[schema::counter::kBlocksPerSm] = plan.blocks_per_sm;
    state.counters[schema::streaming::counter::kSharedBytesPerBlock] = static_cast<double>(plan.shared_bytes);
    state.counters[schema::counter::kBlocks] = blocks;
  });
}

// The chase: 16 KiB to 4 GiB in powers of two (a ring that would take more than half the device's
// memory is not on it). The read stream at every warps/SM count a uniform block size can hold
// exactly, from 1 to the device's cap (a count no block size divides into the device's block cap,
// such as a prime above 32 with 32 blocks, is not a point of the sweep; one whose blocks shared
// memory cannot pin is not on this GPU), for every compiled W; 4-
// and 8-byte loads at powers of two, 48 and the cap. The dependent chain at W up to 64 (256 FFMAs
// a load at one warp per SM would take 0.1 s a launch). The batched loads: more in flight a warp
// moves the knee to fewer warps (Little's law) and the plateau is where the peak read is found;
// each batch holds U 16-byte values in registers, and U stops where the registers do: at 64, 48
// and 32 warps/SM for U = 2, 4, 8 (what the occupancy API allowed the sm_90 build: 8 loads in
// flight at most 36 warps/SM, 4 at most 48), below the device's cap, and on the device this
// process runs on the occupancy API has the last word. A point outside the device's caps is not on
// it. Then the one-load-per-thread stream at every block size to the block cap, and the plain peak
// read (loads per thread 1..8 at four block sizes).
[[maybe_unused]] const bool planned = plan::add_planner([](plan::Plan& p) {
  const DeviceFacts& d = p.device();
  auto chase_benchmark = [&p](const char* name, kernels::RingOrder order) {
    return p.benchmark(latency_family().run_name(name), latency_family().arg_names(name),
                       [order](benchmark::State& state) { chase(state, order); }, benchmark::kMillisecond);
  };
  for (const auto& [name, order] : {std::pair{latency_bench::kChaseRandom, kernels::RingOrder::kRandom},
                                    std::pair{latency_bench::kChaseStride, kernels::RingOrder::kStride}}) {
    auto b = chase_benchmark(name, order);
    // The random ring at every power of two; the fixed stride, which reads the same plateaus
    // (20261201T161721Z: its plateaus within 1.1 % of the ring's at each level), at every power of four, so the
    // suite stays inside its 60 s (issue 33).
    const std::int64_t factor = order == kernels::RingOrder::kRandom ? 2 : 4;
    for (std::int64_t kib = 16; kib <= 4LL * 1024 * 1024; kib *= factor) {
      p.add(b, {kib}, plan::memory_problem(d, static_cast<std::uint64_t>(kib) * 1024, "a ring of " + std::to_string(kib) + " KiB"));
    }
  }
  // The loaded chase at 0 (the chase alone, the model's input) and 1..32 background warps an SM; a
  // background two blocks of which do not fit an SM beside each other is not on the device.
  auto loaded = p.benchmark(latency_family().run_name(latency_bench::kChaseLoaded),
                            latency_family().arg_names(latency_bench::kChaseLoaded), chase_loaded,
                            benchmark::kMillisecond);
  const std::uint64_t loaded_bytes = loaded_ring_bytes(d.l2_bytes) + stream_bytes(d.l2_bytes);
  for (const int warps : {0, 1, 2, 4, 8, 16, 32}) {
    LoadedChaseConfig c;
    c.background_warps = warps;
    c.footprint_bytes = loaded_ring_bytes(d.l2_bytes);
    std::string why = plan::memory_problem(d, loaded_bytes, "the loaded chase's ring and background buffer");
    if (why.empty()) why = loaded_chase_problem(c, ~std::uint64_t{0}, d.max_warps_per_sm, d.max_threads_per_block);
    p.add(loaded, {warps}, why);
  }
  const std::string buffer = plan::memory_problem(d, stream_bytes(d.l2_bytes), "the stream's input buffer");
  auto read_benchmark = [&p](StreamShape shape) {
    const char* name = kStreamNames[static_cast<int>(shape)];
    return p.benchmark(streaming_family().run_name(name), streaming_family().arg_names(name),
                       [shape](benchmark::State& state) { stream_read(state, shape); }, benchmark::kMicrosecond);
  };
  auto kernel_of = [](int bytes, int second, StreamShape shape) {
    kernels::StreamKernelConfig k;
    k.load_bytes = bytes;
    if (shape == StreamShape::kBatched) {
      k.loads_in_flight = second;
    } else {
      k.alu_per_load = second;
    }
    k.use = shape == StreamShape::kDependent ? kernels::AluUse::kDependent : kernels::AluUse::kIndependent;
    return k;
  };
  // "" or why the device cannot run the point; the sweep's own gaps (not holdable anywhere in the
  // device's caps) are skipped by the caller.
  auto why_not = [&](int bytes, int second, StreamShape shape, int warps) {
    if (!buffer.empty()) return buffer;
    if (const std::string r = plan::residency_problem(d, warps); !r.empty()) return r;
    return stream_residency_problem(d, kernel_of(bytes, second, shape), warps);
  };
  auto with_cap = [&d](std::vector<int> warps) {
    if (std::find(warps.begin(), warps.end(), d.max_warps_per_sm) == warps.end()) warps.push_back(d.max_warps_per_sm);
    return warps;
  };
  auto independent = read_benchmark(StreamShape::kIndependent);
  for (const int w : kernels::kStreamAluCounts) {
    for (int warps = 1; warps <= d.max_warps_per_sm; ++warps) {
      const std::string shape = plan_residency(warps, residency_limits(d)).problem;
      if (shape.find("cannot be held exactly") != std::string::npos) continue;  // not a point of the sweep
      p.add(independent, {16, w, warps}, why_not(16, w, StreamShape::kIndependent, warps));
    }
  }
  for (const int bytes : {4, 8}) {
    for (const int warps : with_cap({1, 2, 4, 8, 16, 32, 48, 64})) {
      p.add(independent, {bytes, 0, warps}, why_not(bytes, 0, StreamShape::kIndependent, warps));
    }
  }
  auto dependent = read_benchmark(StreamShape::kDependent);
  for (const int w : {1, 8, 64}) {
    for (const int warps : with_cap({1, 2, 4, 8, 16, 32, 64})) {
      p.add(dependent, {16, w, warps}, why_not(16, w, StreamShape::kDependent, warps));
    }
  }
  auto batched = read_benchmark(StreamShape::kBatched);
  for (const auto& [u, most] : {std::pair{2, 64}, std::pair{4, 48}, std::pair{8, 32}}) {
    for (const int warps : {1, 2, 4, 8, 12, 16, 24, 32, 48, 64}) {
      if (warps <= most) p.add(batched, {16, u, warps}, why_not(16, u, StreamShape::kBatched, warps));
    }
  }
  auto one_per_thread = p.benchmark(streaming_family().run_name(streaming_bench::kReadOnePerThread),
                                    streaming_family().arg_names(streaming_bench::kReadOnePerThread),
                                    [](benchmark::State& state) { stream_one_per_thread(state, true); },
                                    benchmark::kMicrosecond);
  for (int threads = 32; threads <= 1024; threads += 32) {
    p.add(one_per_thread, {threads},
          !buffer.empty() ? buffer
          : threads <= d.max_threads_per_block
              ? std::string()
              : std::to_string(threads) + " threads a block; the " + d.label() + " allows at most " +
                    std::to_string(d.max_threads_per_block));
  }
  auto turnover = p.benchmark(streaming_family().run_name(streaming_bench::kBlockTurnover),
                              streaming_family().arg_names(streaming_bench::kBlockTurnover),
                              [](benchmark::State& state) { stream_one_per_thread(state, false); }, benchmark::kMicrosecond);
  for (int threads = 32; threads <= 1024; threads += 32) {
    p.add(turnover, {threads},
          !buffer.empty() ? buffer
          : threads <= d.max_threads_per_block
              ? std::string()
              : std::to_string(threads) + " threads a block; the " + d.label() + " allows at most " +
                    std::to_string(d.max_threads_per_block));
  }
  // The copy locus (EXPLAIN-7): the store-twin pilot's warps/SM, 16-byte loads; a count that cannot
  // be held exactly is not a point.
  auto copy = p.benchmark(streaming_family().run_name(streaming_bench::kCopyIndependent),
                          streaming_family().arg_names(streaming_bench::kCopyIndependent), stream_copy,
                          benchmark::kMicrosecond);
  const std::string copy_buffers = plan::memory_problem(d, 2 * stream_bytes(d.l2_bytes), "the copy stream's two buffers");
  for (const int warps : {2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64}) {
    if (warps > d.max_warps_per_sm) continue;
    const std::string shape = plan_residency(warps, residency_limits(d)).problem;
    if (shape.find("cannot be held exactly") != std::string::npos) continue;
    p.add(copy, {16, warps}, !copy_buffers.empty() ? copy_buffers : plan::residency_problem(d, warps));
  }
  auto peak = p.benchmark(streaming_family().run_name(streaming_bench::kReadPeak),
                          streaming_family().arg_names(streaming_bench::kReadPeak), stream_peak,
                          benchmark::kMicrosecond);
  for (const int threads : {128, 256, 512, 1024}) {
    for (const int loads : {1, 2, 4, 8}) {
      p.add(peak, {loads, threads},
            !buffer.empty() ? buffer
            : threads <= d.max_threads_per_block
                ? std::string()
                : std::to_string(threads) + " threads a block; the " + d.label() + " allows at most " +
                      std::to_string(d.max_threads_per_block));
    }
  }
});

}  // namespace
}  // namespace warpcost
