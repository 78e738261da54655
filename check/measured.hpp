// The measured value of an example's point in a run of a GPU under results/ (warpcost predict).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "check/examples.hpp"
#include "core/run_reader.hpp"

namespace warpcost::examples {

// Which family row measures an answer: family, benchmark, the key=value pairs its params must hold,
// and the metric; `note` says where the measured point differs from the example's inputs.
struct Lookup {
  std::string answer;
  std::string family;
  std::string benchmark;
  std::vector<std::string> params;
  std::string metric;
  std::string note;
};
std::vector<Lookup> lookups_for(const Example& example);

struct Measured {
  std::string answer;
  double value = 0;
  std::string unit;
  std::string run_id;
  std::string row;      // family/benchmark/params metric
  std::string verdict;  // the family's own verdict on the row
  std::string note;
};

// Run folders results/<gpu>/<run>/ of the GPU (its folder name or its device name), newest first.
std::vector<std::filesystem::path> runs_of_gpu(const std::filesystem::path& results, const std::string& gpu);
// The newest whole run of `gpu` under `results` (not partial, not on a MIG instance) whose points
// give the second-order parameters check --measure prices with (the loaded-latency locus, r_sat and
// the coalescing family's 16-byte DRAM loads); false with `why_none` said otherwise.
bool second_order_parameter_run(const std::filesystem::path& results, const std::string& gpu, analysis::Run& run,
                                std::string& why_none);
// `warpcost predict KIND ... --gpu NAME` for the second-order kinds whose GPU parameters a suite run
// measures: the key=value inputs `run` gives that `user` (the command line's key=values) does not
// state: stream_bandwidth's sms, schedulers, clock_mhz, issue_rate (r_sat), latency, loaded_latency
// and peak_gbps (the locus' two ends: its unloaded cycles, its cycles at its ceiling, the ceiling);
// coalescing_bandwidth's moved_rate_gbps, in_flight_gbps, request_rate_gps and granule_bytes (R(D) at the
// request's spacing and level, its bytes-in-flight bound, the request ceiling, the DRAM granule). Empty for other kinds; `how` names
// the run and what it read, or why it gives nothing. Throws BadInput for a malformed key=value.
std::vector<std::string> gpu_parameters_from_run(const std::string& kind, const std::vector<std::string>& user,
                                                 const analysis::Run& run, std::string& how);
// The newest run of `gpu` that measured the example's point; empty with `why_none` said otherwise.
std::vector<Measured> measured_values(const Example& example, const std::filesystem::path& results,
                                      const std::string& gpu, std::string& why_none);

}  // namespace warpcost::examples
