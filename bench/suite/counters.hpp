// Phase 4 of warpcost-bench: the counter pass (docs/running.md, "Two phases"), after all timing.
// The pass is proven on one warp first; every point that left counter work is profiled in batches
// of one family; a machine that gives no counters leaves the pass off with the reason.
#pragma once

#include <optional>

#include "bench/suite/state.hpp"

namespace warpcost::suite {

// Fills run.counter_units, counter_status, counter_family_seconds and counter_seconds; an exit code
// (2) when a --warpcost_metrics name is unknown to the chip.
std::optional<int> run_counter_phase(SuiteRun& run);

}  // namespace warpcost::suite
