#include "bench/suite/timing.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/progress.hpp"
#include "kernels/common/probe_kernels.hpp"

namespace warpcost::suite {
namespace {

// Google Benchmark's console output, plus the progress line and each family's wall time.
class ProgressReporter : public benchmark::ConsoleReporter {
 public:
  // Google Benchmark writes its context (CPU, caches, its debug-build warning) and its notes to
  // the error stream: here they join the per-point table on stdout, which ./warpcost run files as
  // the run's console.log (docs/running.md), so the console keeps only warpcost's own lines.
  explicit ProgressReporter(progress::Tracker& tracker)
      : benchmark::ConsoleReporter(OO_None), tracker_(tracker) {
    SetErrorStream(&GetOutputStream());
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    if (!runs.empty()) tracker_.done(progress::family_of(runs.front().benchmark_name()));
  }

 private:
  progress::Tracker& tracker_;
};

}  // namespace

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The names of the benchmarks this run will execute (the filter applied), for the progress line's
// N: Google Benchmark lists them without running anything when --benchmark_list_tests is set, so
// the flag is set for one listing call and cleared again.
std::vector<std::string> list_benchmarks(const char* program) {
  std::string on = "--benchmark_list_tests=true";
  std::string off = "--benchmark_list_tests=false";
  std::vector<char*> args_on = {const_cast<char*>(program), on.data(), nullptr};
  int argc_on = 2;
  benchmark::Initialize(&argc_on, args_on.data());
  std::stringstream names;
  benchmark::ConsoleReporter lister(benchmark::ConsoleReporter::OO_None);
  lister.SetOutputStream(&names);
  lister.SetErrorStream(&names);
  benchmark::RunSpecifiedBenchmarks(&lister);
  std::vector<char*> args_off = {const_cast<char*>(program), off.data(), nullptr};
  int argc_off = 2;
  benchmark::Initialize(&argc_off, args_off.data());
  std::vector<std::string> list;
  std::string line;
  while (std::getline(names, line)) {
    if (line.find('/') != std::string::npos && line.find(' ') == std::string::npos) list.push_back(line);
  }
  return list;
}

// An empty kernel's event time, sampled like any point (the stream held): the launch overhead
// every short kernel's time still carries.
double measure_launch_overhead() {
  Stream stream;
  EventPair events;
  for (int i = 0; i < 3; ++i) kernels::launch_empty(1, 1, stream.get());
  stream.synchronize();
  return sample_point(stream, events, [&] { kernels::launch_empty(1, 1, stream.get()); }).samples.median();
}

void run_timing_phase(SuiteRun& run) {
  // Phase 1: all timing. CUPTI is not initialised until it has ended.
  run.suite_start = std::chrono::steady_clock::now();
  progress::Tracker timing("timing", run.names);
  ProgressReporter reporter(timing);
  install_interrupt_handlers();
  if (run.listing_only) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    benchmark::RunSpecifiedBenchmarks(&reporter);
  }
  benchmark::Shutdown();
  run.timing_seconds = seconds_since(run.suite_start);
  run.look_for_other_processes();
  run.signal = interrupting_signal();
  timing.end_line();  // an interrupt or a lost device stops the phase mid-line
  if (run.signal != 0) {
    // What was measured stays, as a run marked partial; no counter pass (it would run after all
    // timing, which did not end).
    std::fprintf(stderr, "warpcost-bench: interrupted (%s); filing the points measured so far as a partial run\n",
                 run.signal == SIGINT ? "SIGINT" : "SIGTERM");
    run.options.counters.enabled = false;
    counter_jobs().clear();
  }
  // A lost device ends the timing phase the same way: what was measured before it stays.
  run.lost_in_timing = device_lost_error();
  if (!run.lost_in_timing.empty()) {
    std::fprintf(stderr, "warpcost-bench: the device was lost (%s); filing the points measured before it as a "
                 "partial run\n", run.lost_in_timing.c_str());
    run.options.counters.enabled = false;
    counter_jobs().clear();
  }
  run.timing_family_seconds = timing.family_seconds();
}

}  // namespace warpcost::suite
