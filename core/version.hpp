// `--version` for every warpcost tool (warpcost-bench, warpcost-analyze, warpcost-record,
// -diverge, -stream, -coalesce): one helper, so each prints the same line.
#pragma once

#include <string>
#include <vector>

namespace warpcost {

// "<tool> (warpcost 0.1.0, git g1823362)": the project version (CMake's) and the revision it was
// configured at (cmake/git_revision.cmake; "unknown" outside a git checkout).
std::string version_line(const std::string& tool);
// The revision the build was configured at, as runs record it (git_rev): the 12-character commit,
// "-dirty" only when tracked files outside results/ differ from it; "unknown" outside git. Only
// core/version.cpp is compiled with it, so a new revision recompiles one file (issue 36).
std::string git_revision();

// True when the arguments ask for the version (`--version` anywhere before a `--`); prints
// version_line(tool) to stdout then, so `if (print_version_if_asked(...)) return 0;` is all a
// tool's main needs.
bool print_version_if_asked(const std::vector<std::string>& args, const std::string& tool);
bool print_version_if_asked(int argc, char** argv, const std::string& tool);

}  // namespace warpcost
