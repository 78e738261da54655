// Phase 1 of warpcost-bench: its own flags (removed from argv before Google Benchmark reads the
// rest), then what needs no device: --help, the benchmark list (the plan of this device or of a
// profile), an unknown flag. Arguments are checked before a device is looked for.
#pragma once

#include <optional>

#include "bench/suite/state.hpp"

namespace warpcost::suite {

// Fills run.command_line, run.options and run.profile; an exit code (2, naming the value and what is
// allowed) when the run must stop.
std::optional<int> read_options(SuiteRun& run, int& argc, char** argv);
// --help, --benchmark_list_tests and Google Benchmark's own flag check: an exit code when done.
std::optional<int> answer_without_device(SuiteRun& run, int argc, char** argv);
// --benchmark_list_tests as Google Benchmark reads it: bare, or =true/yes/1 (and their cases).
bool list_tests_requested(int argc, char** argv);

}  // namespace warpcost::suite
