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

#include "analysis/streaming/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/timing.hpp"
#include "bench/streaming/streaming_runner.hpp"
#include "analysis/core/counters.hpp"

namespace warpcost {
namespace {

// The families' contracts (analysis/streaming/schema.hpp): the registrations take names from them.
const schema::FamilyDescriptor& latency_family() { return schema::latency::descriptor(); }
const schema::FamilyDescriptor& streaming_family() { return schema::streaming::descriptor(); }
namespace latency_bench = schema::latency::benchmark;
namespace streaming_bench = schema::streaming::benchmark;


constexpr int kWarmupLaunches = 1;
constexpr std::uint32_t kStreamSeed = 5;
// A launch reads at least 8x the L2 (60 MiB on the H200), and never less than 2
// GiB, so the stream comes from DRAM (a launch starts where the previous one's
// L2-resident tail is not) and the launch and the grid's ramp-up and drain are
// a few microseconds of a 450+ us launch.
constexpr std::uint64_t kMinStreamBytes = 2048 * kMiB;

std::uint64_t stream_bytes(const DeviceInfo& device) {
  const auto eight_l2 = static_cast<std::uint64_t>(8 * device.l2_bytes);
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

// The persistent stream; range(1) is W, or for the batched kernel the loads in
// flight a thread.
enum class StreamShape { kIndependent, kDependent, kBatched };

const char* const kStreamNames[] = {streaming_bench::kReadIndependent, streaming_bench::kReadDependent,
                                    streaming_bench::kReadBatched};

void stream_read(benchmark::State& state, StreamShape shape) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
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
    c.bytes = stream_bytes(device);
    c.seed = kStreamSeed;
    Stream stream;
    EventPair events;
    StreamRunner runner(device, c, stream, &shared_pattern_buffer(c.bytes, c.seed, stream));
    // The checked and warm-up launches are timed too, so gpu_seconds is the point's whole GPU time.
    double gpu_seconds = time_launch(stream, events, [&] { runner.launch(stream); });
    runner.check_sums(stream);  // correctness before time
    for (int i = 0; i < kWarmupLaunches; ++i) {
      gpu_seconds += time_launch(stream, events, [&] { runner.launch(stream); });
    }
    const std::string key = benchmark_key(state, streaming_family().run_name(kStreamNames[static_cast<int>(shape)]), 3);
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
    state.counters[schema::streaming::counter::kLoadedLatencyCycles] = runner.loaded_latency_cycles(stream);
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

// The non-persistent stream at one block size: the occupancy the block size
// allows, not a pinned one.
void stream_one_per_thread(benchmark::State& state) {
  run_guarded(state, [&] {
    const DeviceInfo& device = bench_device();
    OnePerThreadConfig c;
    c.threads_per_block = static_cast<int>(state.range(0));
    c.bytes = stream_bytes(device);
    c.seed = kStreamSeed;
    Stream stream;
    EventPair events;
    OnePerThreadRunner runner(device, c, stream, &shared_pattern_buffer(c.bytes, c.seed, stream));
    double gpu_seconds = time_launch(stream, events, [&] { runner.launch(stream); });
    runner.check_sums(stream);
    for (int i = 0; i < kWarmupLaunches; ++i) {
      gpu_seconds += time_launch(stream, events, [&] { runner.launch(stream); });
    }
    const std::string key = benchmark_key(state, streaming_family().run_name(streaming_bench::kReadOnePerThread), 1);
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { runner.launch(stream); });
      for (const double x : t.samples.values()) gpu_seconds += x;
      report_point(state, key, t);
    }
    state.counters[schema::streaming::counter::kGpuSeconds] = gpu_seconds;
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
    const std::uint64_t bytes = stream_bytes(device);
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

// 16 KiB to 4 GiB in powers of two.
void footprints(benchmark::internal::Benchmark* b) {
  for (long long kib = 16; kib <= 4LL * 1024 * 1024; kib *= 2) b->Arg(kib);
}

// Counts a uniform block size can hold exactly with at most 32 blocks of at
// most 32 warps: every count to 64 except the primes above 32, which the runner
// would refuse with the reason.
bool holdable(int warps) {
  for (int b = 1; b <= 32; ++b) {
    if (warps % b == 0 && warps / b <= 32) return true;
  }
  return false;
}

void full_sweep(benchmark::internal::Benchmark* b) {
  for (const int w : kernels::kStreamAluCounts) {
    for (int warps = 1; warps <= 64; ++warps) {
      if (holdable(warps)) b->Args({16, w, warps});
    }
  }
  for (const int bytes : {4, 8}) {
    for (const int warps : {1, 2, 4, 8, 16, 32, 48, 64}) b->Args({bytes, 0, warps});
  }
}

// W up to 64: a dependent chain of 256 FFMAs a load at one warp per SM would
// take 0.1 s a launch.
void dependent_sweep(benchmark::internal::Benchmark* b) {
  for (const int w : {1, 8, 64}) {
    for (const int warps : {1, 2, 4, 8, 16, 32, 64}) b->Args({16, w, warps});
  }
}

// More loads in flight a warp: Little's law says the knee moves to fewer warps,
// and the plateau is where the peak read is found.
// Each batch holds U 16-byte values in registers: on the H200 the occupancy API allows 8 loads in
// flight at most 36 warps/SM and 4 at most 48, so each U stops where its registers do.
void batched_sweep(benchmark::internal::Benchmark* b) {
  for (const auto& [u, most] : {std::pair{2, 64}, std::pair{4, 48}, std::pair{8, 32}}) {
    for (const int warps : {1, 2, 4, 8, 12, 16, 24, 32, 48, 64}) {
      if (warps <= most) b->Args({16, u, warps});
    }
  }
}

void block_sizes(benchmark::internal::Benchmark* b) {
  for (int threads = 32; threads <= 1024; threads += 32) b->Arg(threads);
}

}  // namespace

BENCHMARK_CAPTURE(chase, random, kernels::RingOrder::kRandom)
    ->Name(latency_family().run_name(latency_bench::kChaseRandom))
    ->ArgNames(latency_family().arg_names(latency_bench::kChaseRandom))
    ->Apply(footprints)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(chase, stride, kernels::RingOrder::kStride)
    ->Name(latency_family().run_name(latency_bench::kChaseStride))
    ->ArgNames(latency_family().arg_names(latency_bench::kChaseStride))
    ->Apply(footprints)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(stream_read, independent, StreamShape::kIndependent)
    ->Name(streaming_family().run_name(streaming_bench::kReadIndependent))
    ->ArgNames(streaming_family().arg_names(streaming_bench::kReadIndependent))
    ->Apply(full_sweep)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_CAPTURE(stream_read, dependent, StreamShape::kDependent)
    ->Name(streaming_family().run_name(streaming_bench::kReadDependent))
    ->ArgNames(streaming_family().arg_names(streaming_bench::kReadDependent))
    ->Apply(dependent_sweep)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_CAPTURE(stream_read, batched, StreamShape::kBatched)
    ->Name(streaming_family().run_name(streaming_bench::kReadBatched))
    ->ArgNames(streaming_family().arg_names(streaming_bench::kReadBatched))
    ->Apply(batched_sweep)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK(stream_one_per_thread)
    ->Name(streaming_family().run_name(streaming_bench::kReadOnePerThread))
    ->ArgNames(streaming_family().arg_names(streaming_bench::kReadOnePerThread))
    ->Apply(block_sizes)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Loads per thread 1..8 at four block sizes: the plain read the peak asks for.
BENCHMARK(stream_peak)
    ->Name(streaming_family().run_name(streaming_bench::kReadPeak))
    ->ArgNames(streaming_family().arg_names(streaming_bench::kReadPeak))
    ->ArgsProduct({{1, 2, 4, 8}, {128, 256, 512, 1024}})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace warpcost
