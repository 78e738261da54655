#include "bench/suite/counters.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "bench/common/progress.hpp"
#include "bench/suite/timing.hpp"
#include "core/constants.hpp"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost::suite {
namespace {

// The counter pass for this run, proven on one warp before any benchmark relies on it: a 1-block,
// 32-thread launch must count as exactly 1 warp launched. Counters the machine will not give
// (permissions, another profiler) leave a pass that is off with the reason, and timing goes on.
// Returns the units of every metric the run may collect ("" when off).
std::string set_up_counter_pass(const counters::Settings& settings, std::unique_ptr<counters::CounterPass>& pass) {
  using counters::CounterPass;
  if (!settings.enabled) {
    pass = std::make_unique<CounterPass>(settings, "off: --warpcost_counters=off");
    return {};
  }
  try {
    auto profiler = std::make_unique<counters::CuptiProfiler>();
    const std::vector<std::string> metrics =
        settings.metrics.empty() ? counters::all_default_metrics() : settings.metrics;
    const auto units = counters::metric_units(profiler->chip(), metrics);  // UnknownMetric
    Stream stream;
    const std::string warps = "smsp__warps_launched.sum";
    const counters::Values probe = profiler->profile({warps}, "warpcost/counter_check", [&] {
      kernels::launch_empty(1, kWarpSize, stream.get());
    });
    if (probe.at(warps) != 1.0) {
      throw std::runtime_error("counter check: one 32-thread block counted as " +
                               std::to_string(probe.at(warps)) + " warps launched, not 1");
    }
    std::string unit_list;
    for (const auto& [metric, unit] : units) unit_list += (unit_list.empty() ? "" : ";") + metric + "=" + unit;
    const std::string chip = profiler->chip();
    pass = std::make_unique<CounterPass>(settings, std::move(profiler));
    std::fprintf(stderr, "warpcost-bench: counter pass %s, chip %s, checked on one warp\n",
                 pass->status().c_str(), chip.c_str());
    return unit_list;
  } catch (const counters::CountersUnavailable& e) {
    std::fprintf(stderr, "warpcost-bench: no counters: %s; the results are timing only\n", e.what());
    pass = std::make_unique<CounterPass>(settings, std::string("unavailable: ") + e.what());
    return {};
  } catch (const counters::UnknownMetric&) {
    throw;
  } catch (const std::exception& e) {
    // A CUPTI fault (not a refusal): say how to get the timing without it.
    throw std::runtime_error(std::string("counter pass: ") + e.what() +
                             " (--warpcost_counters=off runs the suite without counters)");
  }
}

// The counter phase: every point's counter launch, built anew after all timing, profiled in
// batches of one family. Returns "" or the first failure; points that fail get no counters.
constexpr std::size_t kCounterBatch = 64;

std::string profile_every_point(counters::CounterPass& pass, RunAnnotation& annotation,
                              std::vector<std::pair<std::string, double>>& family_seconds,
                              long long& failed) {
  std::vector<CounterJob>& jobs = counter_jobs();
  std::vector<std::string> keys;
  for (const auto& j : jobs) keys.push_back(j.key);
  progress::Tracker tracker("counters", keys);
  std::string first_error;
  auto fail = [&](const std::string& key, const std::string& why) {
    ++failed;
    if (first_error.empty()) first_error = key + ": " + why;
    std::fprintf(stderr, "warpcost-bench: no counters for %s: %s\n", key.c_str(), why.c_str());
  };
  std::size_t i = 0;
  // A signal during the counter phase ends it between batches; the timing stays complete.
  while (i < jobs.size() && pass.active() && interrupting_signal() == 0) {
    std::size_t end = i;
    while (end < jobs.size() && end - i < kCounterBatch && jobs[end].family == jobs[i].family) ++end;
    std::vector<std::string> batch_keys;
    std::vector<std::function<void()>> launches;
    for (std::size_t j = i; j < end; ++j) {
      try {
        launches.push_back(jobs[j].factory());
        batch_keys.push_back(jobs[j].key);
      } catch (const std::exception& e) {
        fail(jobs[j].key, e.what());
      }
    }
    std::vector<counters::Values> values;
    try {
      values = pass.collect_batch(*jobs[i].family, batch_keys, launches);
    } catch (const std::exception& e) {
      // One point's fault should not cost the batch: each again on its own.
      std::fprintf(stderr, "warpcost-bench: counter batch of %zu failed (%s); profiling each alone\n",
                   launches.size(), e.what());
      values.assign(launches.size(), {});
      for (std::size_t k = 0; k < launches.size(); ++k) {
        try {
          values[k] = pass.collect_batch(*jobs[i].family, {batch_keys[k]}, {launches[k]}).at(0);
        } catch (const std::exception& e2) {
          fail(batch_keys[k], e2.what());
        }
      }
    }
    for (std::size_t k = 0; k < batch_keys.size(); ++k) {
      if (!values[k].empty()) annotation.counters[batch_keys[k]] = values[k];
    }
    for (std::size_t j = i; j < end; ++j) tracker.done(progress::family_of(jobs[j].key));
    launches.clear();
    i = end;
  }
  tracker.end_line();  // the loop may stop mid-line (an interrupt, a failed pass)
  family_seconds = tracker.family_seconds();
  // One point of each family, so a log shows what was collected.
  std::vector<std::string> shown;
  for (const auto& [key, values] : annotation.counters) {
    const std::string family = progress::family_of(key);
    if (std::find(shown.begin(), shown.end(), family) != shown.end()) continue;
    shown.push_back(family);
    std::string text;
    for (const auto& [metric, value] : values) text += " " + metric + "=" + std::to_string(value);
    std::fprintf(stdout, "warpcost-bench: counters of %s:%s\n", key.c_str(), text.c_str());  // console.log
  }
  return first_error;
}

}  // namespace

std::optional<int> run_counter_phase(SuiteRun& run) {
  run.counter_status = run.signal != 0                  ? "off: the run was interrupted before the counter phase"
                               : !run.lost_in_timing.empty()    ? "off: the device was lost before the counter phase"
                               : run.options.counters.enabled ? ""
                                                          : "off: --warpcost_counters=off";
  const auto counters_start = std::chrono::steady_clock::now();
  if (run.options.counters.enabled && !counter_jobs().empty()) {
    try {
      run.counter_units = set_up_counter_pass(run.options.counters, run.counter_pass);
    } catch (const counters::UnknownMetric& e) {
      std::fprintf(stderr, "warpcost-bench: --warpcost_metrics: %s\n", e.what());
      if (!run.partial_dir.empty()) std::filesystem::remove_all(run.partial_dir);
      return kExitUsage;
    }
    long long failed = 0;
    if (run.counter_pass->active()) {
      const std::string first =
          profile_every_point(*run.counter_pass, run_annotation(), run.counter_family_seconds, failed);
      run.counter_status = run.counter_pass->status();
      if (failed > 0) run.counter_status += "; no counters for " + std::to_string(failed) + " point(s), first: " + first;
      if (interrupting_signal() != 0) run.counter_status += "; interrupted: later points have no counters";
    } else {
      run.counter_status = run.counter_pass->status();
    }
    run.counter_pass.reset();  // CUPTI lets go while the CUDA context is still there
    if (run.lost_in_timing.empty() && note_failure("after the counter phase")) {
      run.counter_status += "; the device was lost during the counter phase: later points have no counters";
    }
  } else if (run.options.counters.enabled) {
    run.counter_status = "on: no benchmark of this run has counters";
  }
  run.counter_seconds = seconds_since(counters_start);
  run.look_for_other_processes();
  counter_jobs().clear();
  release_shared_buffers();
  return std::nullopt;
}

}  // namespace warpcost::suite
