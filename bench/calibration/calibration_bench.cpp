// Calibration: the numbers every family leans on, measured in the same run. Each benchmark's work
// model (bytes moved, launches per sample) is stated as counters so the analysis derives rates.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "analysis/calibration/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/timing.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "analysis/core/counters.hpp"

namespace warpcost {
namespace {

// The family's contract (analysis/calibration/schema.hpp): its registrations take names from it.
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

}  // namespace

// ~20 M cycles is ~10 ms at 2 GHz, long against the globaltimer's update interval.
BENCHMARK(sm_clock)
    ->Name(family().run_name(bench_name::kSmClock))
    ->ArgNames(family().arg_names(bench_name::kSmClock))
    ->Arg(20'000'000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// 256 MiB already dwarfs a 60 MiB L2; 4 GiB is the size published copy rates use.
BENCHMARK(d2d_copy)
    ->Name(family().run_name("d2d_copy"))
    ->ArgNames(family().arg_names("d2d_copy"))
    ->Arg(256)
    ->Arg(1024)
    ->Arg(4096)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// One launch alone shows the full launch latency; 64 back to back show the issue rate.
BENCHMARK(launch_overhead)
    ->Name(family().run_name(bench_name::kLaunchOverhead))
    ->ArgNames(family().arg_names(bench_name::kLaunchOverhead))
    ->Arg(1)
    ->Arg(64)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace warpcost
