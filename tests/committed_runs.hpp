// The runs committed to the repository (git's list, not the folder): a test that reads real runs
// reads these only, so what a user's own `./warpcost run` leaves in results/ (a filtered run, a
// partial one) never changes a test's answer.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace warpcost::test_support {

// results/<gpu>/<run>/bench.json of every committed run, archived runs aside; empty when the
// source tree is not a git checkout (`why` then says so).
inline std::vector<std::filesystem::path> committed_runs(const std::filesystem::path& results, std::string& why) {
  const std::filesystem::path repo = results.parent_path();
  const std::string command = "git -C '" + repo.string() + "' ls-files -- 'results/*/*/bench.json' 2>/dev/null";
  std::vector<std::filesystem::path> runs;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    why = "cannot run git";
    return runs;
  }
  std::string text;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) text.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    why = repo.string() + " is not a git checkout (git ls-files failed)";
    return {};
  }
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    if (line.empty() || line.rfind("results/archive/", 0) == 0) continue;
    runs.push_back(repo / line);
  }
  if (runs.empty()) why = "no run is committed under " + results.string();
  return runs;
}

// The newest committed run (the last of committed_runs, by its stamp); empty without one.
inline std::filesystem::path newest_committed_run(const std::filesystem::path& results) {
  std::string why;
  std::vector<std::filesystem::path> runs = committed_runs(results, why);
  std::sort(runs.begin(), runs.end());
  return runs.empty() ? std::filesystem::path() : runs.back();
}

// A file's bytes ("" when it cannot be read).
inline std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace warpcost::test_support
