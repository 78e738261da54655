// What every benchmark body shares: the device it runs on, the guard that turns an exception
// (a failed CUDA call, a failed output check) into a Google Benchmark error for that benchmark, and
// the counter pass that runs after a benchmark's timed launches.
#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <string>
#include <utility>

#include "counter_pass.hpp"
#include "device_info.hpp"

namespace warpcost {

// The device selected in main(), queried once.
const DeviceInfo& bench_device();

template <class Body>
void run_guarded(benchmark::State& state, Body&& body) {
  try {
    std::forward<Body>(body)();
  } catch (const std::exception& e) {
    const std::string message = e.what();
    state.SkipWithError(message.c_str());
  }
}

constexpr long long kMiB = 1024 * 1024;

// The run's counter pass, set up in main(); nullptr when counters are off or unavailable.
counters::CounterPass* bench_counter_pass();

// `name` and the benchmark's first `ranges` arguments: the key the counter pass files a
// benchmark's counters under, the same in each of its repetitions.
inline std::string benchmark_key(const benchmark::State& state, const std::string& name, int ranges) {
  std::string key = name;
  for (int i = 0; i < ranges; ++i) key += "/" + std::to_string(state.range(static_cast<std::size_t>(i)));
  return key;
}

// After the timed loop: the counter pass profiles one more `launch` (the first repetition only)
// and its values become the benchmark's counters under their Nsight Compute names.
template <class Launch>
void add_counters(benchmark::State& state, counters::Family family, const std::string& key,
                  Launch&& launch) {
  counters::CounterPass* pass = bench_counter_pass();
  if (pass == nullptr) return;
  for (const auto& [metric, value] : pass->collect(family, key, std::forward<Launch>(launch))) {
    state.counters[metric] = value;
  }
}

}  // namespace warpcost
