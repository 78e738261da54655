// warpcost-analyze as a function, so tests drive it exactly as the command line does.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace warpcost::analysis {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;
// The analysis ran and wrote its outputs, but some runs could not be read and were skipped (each is
// named on stderr and in the summary).
inline constexpr int kExitSkippedRuns = 3;
// The analysis ran and wrote its outputs, but some rows could not be written as evaluated: the
// CSV schema refused them, or an evaluator failed. Each is an error row naming why, on stderr and
// in the summary; every other row is as evaluated. (3 is returned when runs were also skipped.)
inline constexpr int kExitIncompleteRows = 4;

int analyze_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Every bench.json a path names: the file itself, a run folder, or a tree of run folders
// (hidden and *.failed folders skipped). Sorted; throws std::runtime_error naming the path when
// it does not exist or holds no run.
std::vector<std::filesystem::path> find_runs(const std::filesystem::path& path);

// Why the outputs cannot be written as asked, or "": an output that is a folder or another file that
// is not a regular one (a device such as /dev/null, a pipe), one of the inputs
// (a bench.json or anything the inputs name), twice the same file, or in a folder that is missing
// or takes no new file (tried with a probe file, made and removed).
// Paths are compared resolved (absolute, symbolic links followed), so two names of one file are one.
// (The string beside each output is its content, unused here: the list is write_files_atomically's.)
std::string output_problem(const std::vector<std::pair<std::filesystem::path, std::string>>& outputs,
                           const std::vector<std::filesystem::path>& inputs);

// Why `folder` cannot be one, naming the part of it that exists: "P is not a folder" (a file it
// would be made under) or "P takes no new file (the system's reason)"; "" when it is one or can be made.
std::string not_makeable_folder(const std::filesystem::path& folder);

// Why `folder` takes no new file (the system's reason, tried with a probe file made and removed),
// or "" when it takes one.
std::string takes_no_file(const std::filesystem::path& folder);

// Writes every file or none: each goes to a temporary beside its target first, then all are
// renamed into place.
void write_files_atomically(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

}  // namespace warpcost::analysis
