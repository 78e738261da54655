// A family's side of the bench-to-analysis contract, written once: its benchmark names, its typed
// parameters (the Google Benchmark ArgNames, in registration order) with units, the user counters
// its benchmarks write with units, and the Nsight Compute metrics its counter pass reads.
// warpcost-bench registers and names its benchmarks from it, the counter pass takes its metrics
// from it, and the analysis finds parameters and reference points by it. Each family defines one
// in analysis/<family>/schema.hpp; core/families.hpp lists them (generated from the one
// registry line, WARPCOST_FAMILIES in the top CMakeLists.txt). Plain data, no CUDA.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace warpcost::schema {

struct Parameter {
  const char* name;  // as in the run name ("k" in divergence/split_low/k:20/...)
  const char* unit;  // "threads", "lanes", "warps", "bytes", "count", ...
  const char* meaning;
};

struct Counter {
  const char* name;  // a Google Benchmark user counter of the family's benchmarks
  const char* unit;
};

// A parameter a schema-1 run spelled otherwise: the reader renames it on read.
struct Rename {
  const char* benchmark;
  const char* schema_1_name;
  const char* name;
};

struct Benchmark {
  const char* name;                     // "split_low": the run name is family/name/params
  std::vector<const char*> parameters;  // names from FamilyDescriptor::parameters, in order
};

struct FamilyDescriptor {
  const char* name;  // the run name's first part and the CSV's family column
  std::vector<Benchmark> benchmarks;
  std::vector<Parameter> parameters;
  std::vector<Counter> counters;
  std::vector<const char*> metrics;  // what the counter pass collects by default ({} : none)
  std::vector<Rename> schema_1_names;  // parameters renamed since schema 1 ({} : none)

  // "family/benchmark", the Google Benchmark name to register.
  std::string run_name(const char* benchmark) const { return std::string(name) + "/" + benchmark; }
  // The registration's ArgNames for a benchmark; throws std::out_of_range for an unknown name.
  std::vector<std::string> arg_names(const char* benchmark) const;
  // A benchmark's parameters as the reader's params_text() spells them ("k=0;if_trips=96;...").
  std::string params_text(const char* benchmark, const std::vector<long long>& values) const;
  const Parameter& parameter(const std::string& parameter_name) const;  // throws std::out_of_range
};

}  // namespace warpcost::schema
