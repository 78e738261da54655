// The runs committed to the repository (git's list, not the folder): a test that reads real runs
// reads these only, so what a user's own `./warpcost run` leaves in results/ (a filtered run, a
// partial one) never changes a test's answer.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
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

}  // namespace warpcost::test_support
