// Phase 5 of warpcost-bench: the wall times, the machine's state (other processes, an interrupt
// or a lost device: run_status), the samples and counters merged into bench.json, and the run
// filed: results/<gpu>/<stamp>/ (a partial run too), or <stamp>.failed when a point failed.
#pragma once

#include "bench/suite/state.hpp"

namespace warpcost::suite {

// The exit code of the run: 0, 1 (a point failed: kept as .failed), 5 (the device was lost), 128 + N
// (interrupted by signal N), each with the run filed as docs/running.md says.
int file_run(SuiteRun& run);

}  // namespace warpcost::suite
