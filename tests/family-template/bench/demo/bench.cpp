// The template family's registration: one benchmark a trip count, checked against what its kernel
// wrote back before its time is taken.
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

#include "bench/common/bench_support.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/plan.hpp"
#include "core/demo/schema.hpp"
#include "kernels/demo/kernels.hpp"

namespace warpcost::demo {
namespace {

void echo(benchmark::State& state) {
  run_guarded(state, [&] {
    Stream stream;
    DeviceBuffer<int> out(1);
    EventPair events;
    const int trips = static_cast<int>(state.range(0));
    kernels::launch_echo(out.data(), trips, stream.get());
    int back = 0;
    WARPCOST_CUDA(cudaMemcpy(&back, out.data(), sizeof back, cudaMemcpyDeviceToHost));
    if (back != trips) throw std::runtime_error("echo wrote " + std::to_string(back));
    for (auto _ : state) {
      const PointTiming t = sample_point(stream, events, [&] { kernels::launch_echo(out.data(), trips, stream.get()); });
      report_point(state, benchmark_key(state, schema::demo::descriptor().run_name(schema::demo::benchmark::kEcho), 1), t);
      state.counters[schema::demo::counter::kEchoed] = back;
    }
  });
}

const bool planned = plan::add_planner([](plan::Plan& p) {
  const auto& d = schema::demo::descriptor();
  auto b = p.benchmark(d.run_name(schema::demo::benchmark::kEcho), d.arg_names(schema::demo::benchmark::kEcho), echo,
                       benchmark::kMicrosecond);
  for (const int trips : {1, 3}) p.add(b, {trips}, "");
});

}  // namespace
}  // namespace warpcost::demo
