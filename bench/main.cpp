// warpcost-bench: the suite in named phases (bench/suite/), each handed the one SuiteRun state:
//   options  its own flags, then what needs no device (--help, the benchmark list)
//   context  the device and its plan, the run's names and folder, the GPU lock, the machine's state
//            and Google Benchmark's context block
//   timing   every benchmark, sampled until its time is known, with CUPTI untouched
//   counters the counter pass over every point that left counter work
//   filing   the samples, counters and wall times merged into bench.json, and the run filed as
//            <root>/<gpu-slug>/<utc-stamp>-<uuid8>/bench.json (docs/running.md)
#include <cstdio>
#include <exception>

#include "bench/suite/context.hpp"
#include "bench/suite/counters.hpp"
#include "bench/suite/filing.hpp"
#include "bench/suite/options.hpp"
#include "bench/suite/state.hpp"
#include "bench/suite/timing.hpp"
#include "core/version.hpp"

namespace warpcost::suite {
namespace {

int run(int argc, char** argv) {
  SuiteRun state;
  if (auto stop = read_options(state, argc, argv)) return *stop;
  if (auto stop = answer_without_device(state, argc, argv)) return *stop;
  if (auto stop = select_device(state)) return *stop;
  if (auto stop = prepare_run(state, argc, argv)) return *stop;
  run_timing_phase(state);
  if (auto stop = run_counter_phase(state)) return *stop;
  return file_run(state);
}

}  // namespace
}  // namespace warpcost::suite

int main(int argc, char** argv) {
  if (warpcost::print_version_if_asked(argc, argv, "warpcost-bench")) return 0;
  try {
    return warpcost::suite::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return 1;
  }
}
