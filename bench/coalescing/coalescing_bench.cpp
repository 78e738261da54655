// The coalescing family's registration: every point of the declared sweep (coalescing_plan.cpp),
// checked once against the host replay, then sampled by the run's rule; its work stated as
// counters; the declared counted subset left for the counter phase after all timing.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "analysis/coalescing/schema.hpp"
#include "bench/coalescing/coalescing_plan.hpp"
#include "bench/coalescing/coalescing_runner.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/timing.hpp"

namespace warpcost::coalescing {
namespace {

constexpr int kWarmupLaunches = 1;

// The family's one buffer, made at its first benchmark. Deliberately never freed: a static's
// destructor would run after the CUDA runtime has unloaded; the process's exit frees it. The
// counter phase, after all timing, launches into it too.
CoalescingBuffer& family_buffer() {
  static CoalescingBuffer* buffer = new CoalescingBuffer(kDramRegionBytes);
  return *buffer;
}

// The one place a coalescing point is timed: the run's sampling rule (bench/sampling.hpp, stop at
// 0.5 % noise or the time cap), one event pair a sample, the samples and the contract's counters
// reported under `key`; gpu_seconds is the warm-up's and the samples' GPU time.
template <class Launch>
void time_point(benchmark::State& state, const std::string& key, const Stream& stream, Launch&& launch) {
  EventPair events;
  double gpu_seconds = 0;
  for (int i = 0; i < kWarmupLaunches; ++i) gpu_seconds += time_launch(stream, events, launch);
  for (auto _ : state) {
    const PointTiming t = sample_point(stream, events, launch);
    for (const double x : t.samples.values()) gpu_seconds += x;
    report_point(state, key, t);
  }
  state.counters[work::kGpuSeconds] = gpu_seconds;
}

bool first_time(const Point& p) {
  static std::set<std::pair<Kind, std::vector<long long>>> seen;
  return seen.insert({p.kind, args_of(p)}).second;
}

bool counted(const Point& p) {
  for (const Point& s : sweep()) {
    if (s.kind == p.kind && args_of(s) == args_of(p)) return s.counted;
  }
  return false;
}

void run_point(benchmark::State& state, Kind kind) {
  run_guarded(state, [&] {
    const std::size_t n = arg_names(kind).size();
    std::vector<long long> args;
    for (std::size_t i = 0; i < n; ++i) args.push_back(state.range(i));
    const Point p = point_from_args(kind, args);
    Stream stream;
    CoalescingRunner runner(bench_device(), p, family_buffer());
    // Correctness before time, once per configuration; for load_l2 the check launch also fills the
    // L2, as the warm-up does when a point comes round again.
    if (first_time(p)) runner.check(stream);
    const std::string key = benchmark_key(state, std::string(kFamily) + "/" + bench_name(kind), static_cast<int>(n));
    time_point(state, key, stream, [&] { runner.launch(stream); });
    state.counters[work::kUsefulBytes] = static_cast<double>(runner.useful_bytes());
    state.counters[work::kWarpRequests] = static_cast<double>(runner.warp_requests());
    state.counters[work::kRegionBytes] = static_cast<double>(runner.region_bytes());
    if (kind == Kind::kBlock2d) {
      state.counters[work::kImageWidth] = runner.image().width;
      state.counters[work::kImageHeight] = runner.image().height;
      state.counters[work::kFrames] = runner.image().frames;
    }
    // The counter phase runs after all timing: it builds its own runner over the family buffer.
    if (counted(p)) {
      defer_counters(schema::coalescing::descriptor(), key, [p] {
        auto own_stream = std::make_shared<Stream>();
        auto own_runner = std::make_shared<CoalescingRunner>(bench_device(), p, family_buffer());
        own_runner->launch(*own_stream);
        own_stream->synchronize();
        return std::function<void()>([own_stream, own_runner] { own_runner->launch(*own_stream); });
      });
    }
  });
}

[[maybe_unused]] const bool registered = [] {
  for (const Kind kind : kKinds) {
    const std::string name = std::string(kFamily) + "/" + bench_name(kind);
    benchmark::internal::Benchmark* b =
        benchmark::RegisterBenchmark(name.c_str(), [kind](benchmark::State& state) { run_point(state, kind); });
    b->ArgNames(arg_names(kind));
    for (const Point& p : sweep()) {
      if (p.kind != kind) continue;
      const std::vector<long long> args = args_of(p);
      b->Args(std::vector<std::int64_t>(args.begin(), args.end()));
    }
    b->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace warpcost::coalescing
