// What every benchmark body shares: the device it runs on and the guard that turns an exception
// (a failed CUDA call, a failed output check) into a Google Benchmark error for that benchmark.
#pragma once

#include <benchmark/benchmark.h>

#include <exception>
#include <string>
#include <utility>

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

}  // namespace warpcost
