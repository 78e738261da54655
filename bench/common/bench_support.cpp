#include "bench/common/bench_support.hpp"

#include <csignal>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "core/counters.hpp"

namespace warpcost {
namespace {

// A kernel this short is within a few launch overheads of it: its time carries the overhead
// beside it, so a reader can tell how much of it is the launch.
constexpr double kShortKernelSeconds = 100e-6;

struct State {
  sampling::Rule rule;
  std::function<ClockReading()> clock;
  std::function<int()> other_processes;
  std::string device_lost_error;
  long long guarded_points = 0;
  double launch_overhead_s = 0.0;
  bool counters_requested = false;
  std::vector<CounterJob> jobs;
  RunAnnotation annotation;
  std::map<std::tuple<std::uint64_t, std::uint32_t>, std::unique_ptr<DeviceBuffer<std::uint32_t>>> buffers;
  std::unique_ptr<DeviceBuffer<kernels::ClockSample>> hold_sample;
};

// ~20 us at 2 GHz: longer than the host takes to record an event and submit a launch (a few us).
constexpr long long kHoldCycles = 40000;

State& state() {
  static State s;
  return s;
}

}  // namespace

namespace {
volatile std::sig_atomic_t g_signal = 0;

void on_interrupt(int signal) {
  g_signal = signal;
  std::signal(signal, SIG_DFL);  // a second one ends the process
}
}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

int interrupting_signal() { return static_cast<int>(g_signal); }

sampling::Rule& sampling_rule() { return state().rule; }

double read_sm_clock_mhz() { return read_clock().mhz; }

ClockReading read_clock() { return state().clock ? state().clock() : ClockReading{}; }

const std::string& device_lost_error() { return state().device_lost_error; }

bool note_failure(const std::string& error) {
  if (!state().device_lost_error.empty()) return true;
  (void)cudaGetLastError();  // a non-sticky error is cleared here; a sticky one stays
  const cudaError_t after = cudaDeviceSynchronize();
  if (after == cudaSuccess) return false;
  state().device_lost_error = error + " (afterwards " + cudaGetErrorName(after) + ": the CUDA context is lost)";
  return true;
}

void plant_device_fault_if_asked() {
  ++state().guarded_points;
  const char* text = std::getenv("WARPCOST_PLANT_DEVICE_FAULT");
  if (text == nullptr || std::atoll(text) != state().guarded_points) return;
  kernels::launch_trap();
  WARPCOST_CUDA(cudaDeviceSynchronize());
}

double launch_overhead_seconds() { return state().launch_overhead_s; }

void report_point(benchmark::State& bm, const std::string& key, const PointTiming& t) {
  const double median = t.samples.median();
  bm.SetIterationTime(median);
  bm.counters[schema::counter::kWarpcostSamples] = static_cast<double>(t.samples.size());
  bm.counters[schema::counter::kWarpcostNoise] = t.samples.noise();
  if (t.min_sm_clock_mhz > 0) bm.counters[schema::counter::kWarpcostSmClockMhz] = t.min_sm_clock_mhz;
  if (t.clock_event_reasons_known) {
    bm.counters[schema::counter::kWarpcostClockEventReasons] = static_cast<double>(t.clock_event_reasons);
  }
  if (state().other_processes) {
    bm.counters[schema::counter::kWarpcostOtherProcesses] = static_cast<double>(state().other_processes());
  }
  if (median < kShortKernelSeconds && state().launch_overhead_s > 0) {
    bm.counters[schema::counter::kLaunchOverheadSeconds] = state().launch_overhead_s;
  }
  state().annotation.samples[key].push_back(t.samples.values());
}

void defer_counters(const counters::Family& family, const std::string& key, LaunchFactory factory) {
  if (!state().counters_requested) return;
  // A second repetition of the same point shares the first one's counters.
  for (const auto& job : state().jobs) {
    if (job.key == key) return;
  }
  state().jobs.push_back({&family, key, std::move(factory)});
}

std::vector<CounterJob>& counter_jobs() { return state().jobs; }
RunAnnotation& run_annotation() { return state().annotation; }
void set_counters_requested(bool requested) { state().counters_requested = requested; }
void set_launch_overhead_seconds(double seconds) { state().launch_overhead_s = seconds; }
void set_sm_clock_source(std::function<ClockReading()> read) { state().clock = std::move(read); }
void set_other_process_source(std::function<int()> count) { state().other_processes = std::move(count); }

const DeviceBuffer<std::uint32_t>& shared_pattern_buffer(std::uint64_t bytes, std::uint32_t seed,
                                                          const Stream& stream) {
  auto& slot = state().buffers[{bytes, seed}];
  if (!slot) {
    auto buffer = std::make_unique<DeviceBuffer<std::uint32_t>>(static_cast<std::size_t>(bytes / 4));
    kernels::launch_fill_pattern(buffer->data(), buffer->size(), seed, stream.get());
    stream.synchronize();
    slot = std::move(buffer);
  }
  return *slot;
}

void hold_stream(const Stream& stream) {
  auto& sample = state().hold_sample;
  if (!sample) sample = std::make_unique<DeviceBuffer<kernels::ClockSample>>(1);
  kernels::launch_clock_probe(sample->data(), kHoldCycles, stream.get());
}

void release_shared_buffers() {
  state().buffers.clear();
  state().hold_sample.reset();
}

}  // namespace warpcost
