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
#include <optional>
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

// A device lost mid-run (a launch failure, an Xid: the CUDA context is unusable afterwards): the
// point that met it reports its error, every later one is skipped (kDeviceLostMessage), and main()
// files what was measured as a run marked partial. "" while the device is fine, else the first
// error that left the context unusable.
const std::string& device_lost_error();
// After a point's failure: true, remembering `error`, when a CUDA call still fails once the error
// is cleared (the context is lost); false for a failure the context survived (an output check).
bool note_failure(const std::string& error);
// WARPCOST_PLANT_DEVICE_FAULT=N (tests only, docs/running.md): the Nth guarded point (1-based)
// launches a trapping kernel first, so a real launch failure loses the context there.
void plant_device_fault_if_asked();

template <class Body>
void run_guarded(benchmark::State& state, Body&& body) {
  if (interrupting_signal() != 0) {
    state.SkipWithError(kInterruptedMessage);
    return;
  }
  if (!device_lost_error().empty()) {
    state.SkipWithError(kDeviceLostMessage);
    return;
  }
  try {
    plant_device_fault_if_asked();
    std::forward<Body>(body)();
  } catch (const std::exception& e) {
    const std::string message = e.what();
    note_failure(message);
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
  // NVML's clocks-event reasons of those reads, OR-ed (idle left out); known: NVML gave them.
  unsigned long long clock_event_reasons = 0;
  bool clock_event_reasons_known = false;
};

// One NVML read between samples: the SM clock (0: none) and the clocks-event reasons (nullopt: none).
struct ClockReading {
  double mhz = 0.0;
  std::optional<unsigned long long> event_reasons;
};
ClockReading read_clock();

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
    const ClockReading c = read_clock();
    if (c.mhz > 0 && (t.min_sm_clock_mhz == 0 || c.mhz < t.min_sm_clock_mhz)) t.min_sm_clock_mhz = c.mhz;
    if (c.event_reasons) {
      constexpr unsigned long long kIdle = 0x1;  // nvmlClocksEventReasonGpuIdle: between launches
      t.clock_event_reasons |= *c.event_reasons & ~kIdle;
      t.clock_event_reasons_known = true;
    }
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
void set_sm_clock_source(std::function<ClockReading()> read);
// How many other processes compute on the GPU now (NVML); set once NVML can list them. Each point's
// count at the end of its samples becomes its warpcost_other_processes counter.
void set_other_process_source(std::function<int()> count);

// A stream's input buffer shared by every streaming point of the run: allocated and filled once
// with the pattern of `seed`, kept until release_shared_buffers().
const DeviceBuffer<std::uint32_t>& shared_pattern_buffer(std::uint64_t bytes, std::uint32_t seed,
                                                          const Stream& stream);
void release_shared_buffers();

}  // namespace warpcost
