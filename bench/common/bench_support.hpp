// What every benchmark body shares: the device it runs on, the guard that turns an exception
// (a failed CUDA call, a failed output check) into a Google Benchmark error for that benchmark,
// the sampling loop that times a point until its number is known, and the counter work each point
// leaves for the counter phase (which runs after all timing, with CUPTI untouched until then).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/counter_pass.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"
#include "bench/common/run_annotation.hpp"
#include "bench/common/sampling.hpp"
#include "bench/common/timing.hpp"

namespace warpcost {

// The device selected in main(), queried once.
const DeviceInfo& bench_device();

// SIGINT or SIGTERM during the suite: the point being measured finishes, every later one is skipped
// (kInterruptedMessage) and main() files what was measured as a run marked partial. A second signal
// ends the process at once (the default action is restored by the first).
void install_interrupt_handlers();
// 0, or the signal that interrupted the run.
int interrupting_signal();

template <class Body>
void run_guarded(benchmark::State& state, Body&& body) {
  if (interrupting_signal() != 0) {
    state.SkipWithError(kInterruptedMessage);
    return;
  }
  try {
    std::forward<Body>(body)();
  } catch (const std::exception& e) {
    const std::string message = e.what();
    state.SkipWithError(message.c_str());
  }
}

constexpr long long kMiB = 1024 * 1024;

// `name` and the benchmark's first `ranges` argument values: the key a point's samples and
// counters are filed under ("partial_warp/staircase/257"), the same key run_annotation.hpp's
// point_key_of_run_name makes from the run name in the JSON.
inline std::string benchmark_key(const benchmark::State& state, const std::string& name, int ranges) {
  std::string key = name;
  for (int i = 0; i < ranges; ++i) key += "/" + std::to_string(state.range(static_cast<std::size_t>(i)));
  return key;
}

// ---- the timing phase

// The run's stopping rule (main() may change it from the command line before any benchmark runs).
sampling::Rule& sampling_rule();
// The SM clock now, in MHz, by NVML; 0 when NVML is not available on this machine.
double read_sm_clock_mhz();
// An empty kernel's event time (median), measured once before the suite; 0 until then.
double launch_overhead_seconds();

struct PointTiming {
  sampling::SampleSet samples;
  sampling::Stop stop = sampling::Stop::kContinue;
  double min_sm_clock_mhz = 0.0;  // the lowest NVML read around and between the samples; 0: none
};

// Puts a ~20 us single-thread busy-wait on `stream`, so that the start event and the launch queued
// behind it reach an already busy GPU: the event pair then times the kernel on the device alone,
// not the host's time to submit it after the start event (nvbench holds its stream the same way).
// Measured on the H200 without it: 2-3 % run-to-run shifts in 60 us kernels and 20 % noise in 5 us
// ones, all host submission latency.
void hold_stream(const Stream& stream);

// Times `launch` one event pair a sample until the rule stops it. `between` runs before each
// sample, outside the event pair (an L2 flush, a probe read-back); then the stream is held
// (hold_stream) unless `held` is false. The SM clock is read before the first sample, every 8
// samples and after the last, never inside an event pair.
template <class Launch, class Between>
PointTiming sample_point(const Stream& stream, EventPair& events, Launch&& launch, Between&& between,
                         bool held = true) {
  const sampling::Rule& rule = sampling_rule();
  PointTiming t;
  auto note_clock = [&t] {
    const double mhz = read_sm_clock_mhz();
    if (mhz > 0 && (t.min_sm_clock_mhz == 0 || mhz < t.min_sm_clock_mhz)) t.min_sm_clock_mhz = mhz;
  };
  note_clock();
  const auto start = std::chrono::steady_clock::now();
  while (t.stop == sampling::Stop::kContinue) {
    between();
    if (held) hold_stream(stream);
    t.samples.add(time_launch(stream, events, launch));
    if (t.samples.size() % 8 == 0) note_clock();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    t.stop = sampling::decide(rule, t.samples, elapsed);
  }
  note_clock();
  return t;
}
template <class Launch>
PointTiming sample_point(const Stream& stream, EventPair& events, Launch&& launch) {
  return sample_point(stream, events, std::forward<Launch>(launch), [] {});
}

// Inside the benchmark's one iteration: the median sample becomes Google Benchmark's time, the
// contract's counters (warpcost_samples, warpcost_noise, warpcost_sm_clock_mhz, and beside a short
// kernel launch_overhead_seconds) are set, and the samples go into bench.json under `key`.
void report_point(benchmark::State& state, const std::string& key, const PointTiming& timing);

// ---- the counter phase

// Builds what one point's counter launch needs (its own buffers, a warmed-up kernel) and returns
// the launch; called in the counter phase, after all timing.
using LaunchFactory = std::function<std::function<void()>()>;
// Leaves the point's counter work for the counter phase (nothing when counters are off).
void defer_counters(const counters::Family& family, const std::string& key, LaunchFactory factory);

struct CounterJob {
  const counters::Family* family;
  std::string key;
  LaunchFactory factory;
};
// What the timing phase left for main(): the counter jobs, and the samples for bench.json.
std::vector<CounterJob>& counter_jobs();
RunAnnotation& run_annotation();
void set_counters_requested(bool requested);
void set_launch_overhead_seconds(double seconds);
void set_sm_clock_source(std::function<double()> read_mhz);

// A stream's input buffer shared by every streaming point of the run: allocated and filled once
// with the pattern of `seed`, kept until release_shared_buffers().
const DeviceBuffer<std::uint32_t>& shared_pattern_buffer(std::uint64_t bytes, std::uint32_t seed,
                                                          const Stream& stream);
void release_shared_buffers();

}  // namespace warpcost
