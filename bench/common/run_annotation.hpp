// What warpcost-bench adds to Google Benchmark's bench.json once the run has ended: each point's
// sample times (timing phase), its hardware counters (counter phase, after all timing) and the
// run's wall times in the context. Google Benchmark writes its context before the first benchmark
// and knows nothing of a second phase, so these are merged into the file afterwards. Host only.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace warpcost {

// The field of a benchmark entry that holds its sample times (seconds, one per timed launch).
inline constexpr const char* kSampleSecondsField = "warpcost_sample_seconds";

struct RunAnnotation {
  // point key ("family/benchmark/v1/v2...") -> one sample list per repetition, in run order
  std::map<std::string, std::vector<std::vector<double>>> samples;
  // point key -> counter name -> value (the same in every repetition)
  std::map<std::string, std::map<std::string, double>> counters;
  // context key -> value, added or replaced
  std::map<std::string, std::string> context;
  // Entries whose error message is one of these are removed (the points an interrupt or a lost
  // device left unmeasured: a partial run keeps only what was measured). Empty: none removed.
  std::vector<std::string> drop_error_messages;
};

// The error message a benchmark body reports when the run was interrupted before it started.
inline constexpr const char* kInterruptedMessage = "warpcost: not measured, the run was interrupted";
// The error message of the points a lost device left unmeasured (bench_support.hpp, run_guarded).
inline constexpr const char* kDeviceLostMessage = "warpcost: not measured, the device was lost earlier in the run";

// The key of a Google Benchmark run name: its name without Google Benchmark's own suffixes and
// with the argument values alone ("divergence/switch/paths:8/first_path:0" -> "divergence/switch/8/0"),
// which is what a benchmark body can build from its name and state.range().
std::string point_key_of_run_name(const std::string& run_name);

// Rewrites `bench_json` with the annotation merged in (through a temporary file and a rename, so a
// failure leaves the original). Throws std::runtime_error naming the file, and naming any key of
// the annotation that matches no benchmark entry (a body that built its key wrongly).
void annotate_run(const std::filesystem::path& bench_json, const RunAnnotation& annotation);

}  // namespace warpcost
