// Calibration: the numbers every family leans on, measured in the same run. Each benchmark's work
// model (bytes moved, launches per sample) is stated as counters so the analysis derives rates.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/calibration/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/plan.hpp"
#include "bench/common/timing.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "core/counters.hpp"

namespace warpcost {
namespace {

// The family's contract (core/calibration/schema.hpp): its registrations take names from it.
const schema::FamilyDescriptor& family() { return schema::calibration::descriptor(); }
namespace bench_name = schema::calibration::benchmark;


constexpr int kWarmupLaunches = 3;

void sm_clock(benchmark::State& state) {
  run_guarded(state, [&] {
    const long long spin_cycles = state.range(0);
    Stream stream;
    EventPair events;
    SmClockMeter meter;
    for (int i = 0; i < kWarmupLaunches; ++i) meter.sample(stream, spin_cycles);
    double hz_sum = 0.0;
    long long launched = 0;
    auto read_previous = [&] {
      if (launched++ > 0) hz_sum += clock_hz_from_sample(meter.read(stream));
    };
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { meter.launch(stream, spin_cycles); }, read_previous);
      read_previous();
      report_point(state, benchmark_key(state, family().run_name(bench_name::kSmClock), 1), t);
    }
    state.counters[schema::counter::kSmClockHz] = hz_sum / static_cast<double>(launched - 1);
    state.counters[schema::calibration::counter::kSmClockMaxHz] = static_cast<double>(bench_device().sm_clock_max_khz) * 1e3;
  });
}

void d2d_copy(benchmark::State& state) {
  run_guarded(state, [&] {
    const auto bytes = static_cast<std::size_t>(state.range(0) * kMiB);
    const std::size_t words = bytes / sizeof(std::uint32_t);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    WARPCOST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t needed = 2 * bytes + 2 * static_cast<std::size_t>(bench_device().l2_bytes);
    if (needed > free_bytes) {
      throw std::runtime_error("d2d_copy: needs " + std::to_string(needed) + " bytes, " +
                               std::to_string(free_bytes) + " free");
    }
    DeviceBuffer<std::uint32_t> src(words);
    DeviceBuffer<std::uint32_t> dst(words);
    DeviceBuffer<unsigned long long> mismatches(1);
    Stream stream;
    EventPair events;
    L2Flusher flusher(static_cast<std::size_t>(bench_device().l2_bytes));
    constexpr std::uint32_t kSeed = 21;

    // Correctness before time: the copy must reproduce the pattern word for word.
    kernels::launch_fill_pattern(src.data(), words, kSeed, stream.get());
    WARPCOST_CUDA(cudaMemsetAsync(dst.data(), 0, dst.bytes(), stream.get()));
    WARPCOST_CUDA(cudaMemsetAsync(mismatches.data(), 0, mismatches.bytes(), stream.get()));
    WARPCOST_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice,
                                  stream.get()));
    kernels::launch_count_pattern_mismatches(dst.data(), words, kSeed, mismatches.data(),
                                             stream.get());
    unsigned long long wrong = 0;
    WARPCOST_CUDA(cudaMemcpyAsync(&wrong, mismatches.data(), sizeof wrong, cudaMemcpyDeviceToHost,
                                  stream.get()));
    stream.synchronize();
    if (wrong != 0) {
      throw std::runtime_error("d2d_copy: " + std::to_string(wrong) + " of " +
                               std::to_string(words) + " words differ after the copy");
    }

    for (int i = 0; i < kWarmupLaunches; ++i) {
      WARPCOST_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice,
                                    stream.get()));
    }
    for (auto _ : state) {
      const PointTiming t = sample_point(
          stream, events,
          [&] {
            WARPCOST_CUDA(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice,
                                          stream.get()));
          },
          [&] { flusher.flush(stream); });
      report_point(state, benchmark_key(state, family().run_name(bench_name::kD2dCopy), 1), t);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(2 * bytes));
    state.counters[schema::counter::kBytesRead] = static_cast<double>(bytes);
    state.counters[schema::calibration::counter::kBytesWritten] = static_cast<double>(bytes);
  });
}

void launch_overhead(benchmark::State& state) {
  run_guarded(state, [&] {
    const long long launches = state.range(0);
    Stream stream;
    EventPair events;
    for (int i = 0; i < kWarmupLaunches; ++i) kernels::launch_empty(1, 1, stream.get());
    stream.synchronize();
    for (auto _ : state) {
      // Not held: this benchmark is the host's whole launch latency, which the other points keep
      // out of their event pairs by holding the stream.
      const PointTiming t = sample_point(
          stream, events, [&] { for (long long i = 0; i < launches; ++i) kernels::launch_empty(1, 1, stream.get()); },
          [] {}, false);
      report_point(state, benchmark_key(state, family().run_name(bench_name::kLaunchOverhead), 1), t);
    }
    state.counters[schema::calibration::counter::kLaunches] = static_cast<double>(launches);
  });
}

// ~20 M cycles is ~10 ms at 2 GHz, long against the globaltimer's update interval. The copies:
// 256 MiB already dwarfs the L2 of every GPU in data/device-profiles.csv; 4 GiB is the size
// published copy rates use. A copy whose two buffers and the L2 flush buffers would take more than
// half the device's memory is not on that GPU. One launch alone shows the full launch latency; 64
// back to back show the issue rate.
[[maybe_unused]] const bool planned = plan::add_planner([](plan::Plan& p) {
  const DeviceFacts& d = p.device();
  auto clock = p.benchmark(family().run_name(bench_name::kSmClock), family().arg_names(bench_name::kSmClock), sm_clock,
                           benchmark::kMillisecond);
  p.add(clock, {20'000'000});
  auto copy = p.benchmark(family().run_name(bench_name::kD2dCopy), family().arg_names(bench_name::kD2dCopy), d2d_copy,
                          benchmark::kMillisecond);
  for (const std::int64_t mib : {256, 1024, 4096}) {
    const auto bytes = static_cast<std::uint64_t>(mib * kMiB);
    p.add(copy, {mib},
          plan::memory_problem(d, 2 * bytes + 2 * static_cast<std::uint64_t>(d.l2_bytes), "a copy of " + std::to_string(mib) + " MiB"));
  }
  auto launches = p.benchmark(family().run_name(bench_name::kLaunchOverhead),
                              family().arg_names(bench_name::kLaunchOverhead), launch_overhead, benchmark::kMicrosecond);
  p.add(launches, {1});
  p.add(launches, {64});
});

}  // namespace
}  // namespace warpcost
