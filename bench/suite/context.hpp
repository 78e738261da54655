// Phase 2 of warpcost-bench: the device (the one asked for, planned from its own properties), the
// run's names and folder, the GPU lock, the machine's state (the reference SM clock, a MIG
// instance, other processes) and Google Benchmark's context block (docs/running.md).
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "bench/common/plan.hpp"
#include "bench/suite/state.hpp"

namespace warpcost::suite {

// The plan for `facts`: every family's planner registers its points; those the device cannot run
// are named on stderr ("not on this GPU") and returned for the run's context.
std::vector<plan::Omission> plan_for(const DeviceFacts& facts);
std::string utc_format(std::time_t t, const char* format);
// Picks the device, plans the suite for it, checks a --warpcost_metrics list against its chip; fills
// run.info and run.omitted. An exit code when the run must stop (no device 77, usage 2).
std::optional<int> select_device(SuiteRun& run);
// Names and folders, the lock, Google Benchmark's flags with the output file, the clock and NVML,
// the context block. An exit code when the run must stop (75 another run holds the GPU, 2, 1).
std::optional<int> prepare_run(SuiteRun& run, int argc, char** argv);

}  // namespace warpcost::suite
