// warpcost-explain's command line, checked before anything runs (no GPU needed):
//   warpcost-explain [--kernel REGEX] [--launch-skip N] [--launch-count N] [--each-shape]
//                    [--no-dram-pass] [--json FILE] [--csv FILE]
//                    [--results DIR] [--inject LIB] [--records FILE] -- APP [ARGS...]
//   warpcost-explain --from-records FILE [--json FILE] [--csv FILE] [--results DIR]
//   warpcost-explain --proof CASES.tsv [--out FILE]
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpcost::explain {

inline constexpr long kDefaultLaunches = 20;
inline constexpr long kMaxLaunches = 100000;

struct Options {
  bool help = false;
  std::string kernel_regex;  // empty: every kernel
  long launches = kDefaultLaunches;  // --launch-count (or --launches): chosen launches at most
  long launch_skip = 0;              // --launch-skip: matching launches passed over first
  bool each_shape = false;           // --each-shape: the first launch of each (kernel, grid, block, shared) shape
  bool dram_pass = true;  // --no-dram-pass: profile each chosen launch in full at once (replayed DRAM bytes)
  std::string json_path, csv_path;
  std::string records_path;  // --records: keep a copy of the injection library's raw records
  std::string results_dir = "results";
  std::string inject_path;  // empty: libwarpcost_inject.so beside the tool
  std::vector<std::string> command;  // the application and its arguments
  std::string from_records;  // --from-records: re-price a saved session's raw records (no app run)
  std::string proof_cases;           // --proof: judge a table of cases instead of running an app
  std::string proof_out;
};

// A usage error: the message names the value and what is allowed (exit 2).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses and checks argv[1..]: numbers and ranges, the regex, output folders that exist, the
// application found (a path that is an executable file, or a name on PATH via `path_env`).
Options parse_options(const std::vector<std::string>& args, const std::string& path_env);

std::string usage_text();

}  // namespace warpcost::explain
