// The warp-primitives family's planner and benchmark bodies: every point of the plan of the
// device's facts (primitives_plan.hpp), checked once against the host reference, then sampled by
// the run's rule; its clocks read back after the samples; its work stated as counters; the counted
// subset left for the counter phase. A reduction below cc 8.0 is kept as "not on this GPU".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/warp_primitives/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/plan.hpp"
#include "bench/common/timing.hpp"
#include "bench/warp_primitives/plan.hpp"
#include "bench/warp_primitives/runner.hpp"

namespace warpcost::warp_primitives {
namespace {

constexpr int kWarmupLaunches = 1;

// Whether the counter phase profiles this point (the plan's declared subset).
bool counted(const Point& p, const DeviceFacts& facts) {
  for (const Point& q : plan(facts)) {
    if (q.kind == p.kind && args_of(q) == args_of(p)) return q.counted;
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
    PrimitivesRunner runner(bench_device(), p);
    runner.check(stream);  // correctness before time, outside the timed launches
    const std::string key = benchmark_key(state, std::string(kFamily) + "/" + bench_name(kind), static_cast<int>(n));
    EventPair events;
    auto launch = [&] { runner.launch(stream); };
    double gpu_seconds = 0;
    for (int i = 0; i < kWarmupLaunches; ++i) gpu_seconds += time_launch(stream, events, launch);
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, launch);
      for (const double x : t.samples.values()) gpu_seconds += x;
      report_point(state, key, t);
    }
    // The clocks of the last sampled launch (every launch records them).
    if (kind == Kind::kLatency) {
      state.counters[work::kCyclesPerOp] = runner.cycles_per_op(stream);
    } else {
      const SmThroughput t = runner.throughput(stream);
      state.counters[work::kOpsPerCycleSm] = t.median_ops_per_cycle;
      state.counters[work::kSmSpanCycles] = t.median_span_cycles;
    }
    state.counters[work::kOpsPerWarp] = static_cast<double>(runner.shape().ops);
    state.counters[work::kChainsPerWarp] = runner.shape().chains;
    state.counters[work::kWarpsLaunched] = static_cast<double>(runner.warps_launched());
    state.counters[work::kBodyInstPerOp] = runner.body_inst_per_op();
    state.counters[work::kResidentWarpsCap] = runner.resident_warps_cap();
    state.counters[work::kGpuSeconds] = gpu_seconds;
    if (counted(p, primitive_facts(bench_device()))) {
      defer_counters(schema::warp_primitives::descriptor(), key, [p] {
        auto own_stream = std::make_shared<Stream>();
        auto own_runner = std::make_shared<PrimitivesRunner>(bench_device(), p);
        own_runner->launch(*own_stream);
        own_stream->synchronize();
        return std::function<void()>([own_stream, own_runner] { own_runner->launch(*own_stream); });
      });
    }
  });
}

// The family's planner (bench/common/plan.hpp): the plan of the device's facts, every point with
// the reductions planned as if the device had them, so that below cc 8.0 they are kept as
// omissions saying "not on this GPU" instead of silently missing.
[[maybe_unused]] const bool planned = ::warpcost::plan::add_planner([](::warpcost::plan::Plan& suite) {
  const DeviceFacts facts = primitive_facts(suite.device());
  DeviceFacts with_reductions = facts;
  with_reductions.cc = std::max(facts.cc, 80);
  const std::vector<Point> points = plan(with_reductions);
  for (const Kind kind : kKinds) {
    const std::string name = std::string(kFamily) + "/" + bench_name(kind);
    auto b = suite.benchmark(name, arg_names(kind), [kind](benchmark::State& state) { run_point(state, kind); },
                             benchmark::kMicrosecond);
    for (const Point& p : points) {
      if (p.kind != kind) continue;
      const std::vector<long long> args = args_of(p);
      suite.add(b, std::vector<std::int64_t>(args.begin(), args.end()), point_problem(p, facts));
    }
  }
});

}  // namespace
}  // namespace warpcost::warp_primitives
