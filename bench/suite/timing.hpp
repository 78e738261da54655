// Phase 3 of warpcost-bench: all timing (docs/running.md, "Two phases"). Every registered point
// runs once under Google Benchmark, sampling until its time is known; CUPTI is not touched. An
// interrupt or a lost device ends the phase and leaves what was measured for the filing.
#pragma once

#include <string>
#include <vector>

#include "bench/suite/state.hpp"

namespace warpcost::suite {

// The names of the benchmarks this run will execute (the filter applied), for the progress line.
std::vector<std::string> list_benchmarks(const char* program);
// An empty kernel's event time, sampled like any point (the stream held).
double measure_launch_overhead();
// Runs every benchmark; fills run.suite_start, timing_seconds, signal, lost_in_timing and
// timing_family_seconds.
void run_timing_phase(SuiteRun& run);

}  // namespace warpcost::suite
