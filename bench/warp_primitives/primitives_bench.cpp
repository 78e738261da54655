// The warp-primitives family's registration: every point of the plan of the registration profile
// (primitives_plan.hpp: Google Benchmark registers before the device is known), checked once
// against the host reference, then sampled by the run's rule; its clocks read back after the
// samples; its work stated as counters; the counted subset left for the counter phase. A point the
// device's own plan lacks (a reduction below cc 8.0, warps/SM above its cap) is skipped, saying why.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/warp_primitives/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/timing.hpp"
#include "bench/warp_primitives/primitives_plan.hpp"
#include "bench/warp_primitives/primitives_runner.hpp"

namespace warpcost::warp_primitives {
namespace {

constexpr int kWarmupLaunches = 1;

void run_point(benchmark::State& state, Kind kind, bool counted) {
  run_guarded(state, [&] {
    const std::size_t n = arg_names(kind).size();
    std::vector<long long> args;
    for (std::size_t i = 0; i < n; ++i) args.push_back(state.range(i));
    const Point p = point_from_args(kind, args);
    const DeviceFacts facts = facts_of(bench_device());
    if (!in_plan(p, facts)) {
      const std::string why = point_problem(p, facts);
      throw std::invalid_argument("not in this device's plan: " +
                                  (why.empty() ? std::string("the plan sweeps warps/SM to the device's cap of ") +
                                                     std::to_string(facts.max_warps_per_sm)
                                               : why));
    }
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
    if (counted) {
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

[[maybe_unused]] const bool registered = [] {
  const std::vector<Point> points = plan(registration_facts());
  for (const Kind kind : kKinds) {
    const std::string name = std::string(kFamily) + "/" + bench_name(kind);
    for (const bool counted : {false, true}) {
      benchmark::internal::Benchmark* b = nullptr;
      for (const Point& p : points) {
        if (p.kind != kind || p.counted != counted) continue;
        if (b == nullptr) {
          b = benchmark::RegisterBenchmark(name.c_str(),
                                           [kind, counted](benchmark::State& state) { run_point(state, kind, counted); });
          b->ArgNames(arg_names(kind));
          b->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
        }
        const std::vector<long long> args = args_of(p);
        b->Args(std::vector<std::int64_t>(args.begin(), args.end()));
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace warpcost::warp_primitives
