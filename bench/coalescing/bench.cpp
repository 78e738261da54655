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

#include "core/coalescing/schema.hpp"
#include "bench/coalescing/plan.hpp"
#include "bench/coalescing/runner.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/plan.hpp"
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

// Every point of the declared sweep the device can run: its block within the device's block cap,
// every DRAM footprint (the 2 GiB region, Ex 9's frames) at least kDramRegionPerL2 times the L2 and
// the region within half the device's memory; the L2 sweep's region is planned from the L2 itself
// (l2_region_bytes). A point outside these is not on this GPU.
[[maybe_unused]] const bool planned = plan::add_planner([](plan::Plan& plan) {
  const DeviceFacts& d = plan.device();
  const std::string region = plan::memory_problem(d, kDramRegionBytes, "the coalescing family's buffer");
  auto dram_problem = [&d](std::uint64_t footprint, const std::string& what) {
    if (footprint >= static_cast<std::uint64_t>(kDramRegionPerL2) * static_cast<std::uint64_t>(d.l2_bytes)) return std::string();
    return what + " of " + std::to_string(footprint) + " bytes is not " + std::to_string(kDramRegionPerL2) +
           " times the L2 of the " + d.label() + " (" + std::to_string(d.l2_bytes) + " bytes)";
  };
  for (const Kind kind : kKinds) {
    const std::string name = std::string(kFamily) + "/" + bench_name(kind);
    auto b = plan.benchmark(name, arg_names(kind), [kind](benchmark::State& state) { run_point(state, kind); },
                            benchmark::kMicrosecond);
    for (const Point& p : sweep()) {
      if (p.kind != kind) continue;
      const std::vector<long long> args = args_of(p);
      std::string why = point_problem(p, d.max_threads_per_block);
      if (why.empty()) why = region;
      if (why.empty() && kind == Kind::kBlock2d) why = dram_problem(plan_image(p.x, p.y).footprint_bytes(), "Ex 9's frames");
      if (why.empty() && kind != Kind::kLoadL2 && kind != Kind::kBlock2d) why = dram_problem(kDramRegionBytes, "the DRAM region");
      plan.add(b, std::vector<std::int64_t>(args.begin(), args.end()), why);
    }
  }
});

}  // namespace
}  // namespace warpcost::coalescing
