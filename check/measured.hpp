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
// The newest run of `gpu` under `results` whose points give the second-order parameters check
// --measure prices with (the loaded-latency locus and r_sat); false with `why_none` said otherwise.
bool second_order_parameter_run(const std::filesystem::path& results, const std::string& gpu, analysis::Run& run,
                                std::string& why_none);
// The newest run of `gpu` that measured the example's point; empty with `why_none` said otherwise.
std::vector<Measured> measured_values(const Example& example, const std::filesystem::path& results,
                                      const std::string& gpu, std::string& why_none);

}  // namespace warpcost::examples
