#include "core/version.hpp"

#include <cstdio>

#ifndef WARPCOST_VERSION
#error "WARPCOST_VERSION is set by analysis/CMakeLists.txt"
#endif
#ifndef WARPCOST_GIT_REVISION
#error "WARPCOST_GIT_REVISION is set by analysis/CMakeLists.txt"
#endif

namespace warpcost {

std::string git_revision() { return WARPCOST_GIT_REVISION; }

std::string version_line(const std::string& tool) {
  const std::string rev = WARPCOST_GIT_REVISION;
  const std::string shown = rev.empty() || rev == "unknown" ? "unknown" : "g" + rev;
  return tool + " (warpcost " + WARPCOST_VERSION + ", git " + shown + ")";
}

bool print_version_if_asked(const std::vector<std::string>& args, const std::string& tool) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--version") {
      std::printf("%s\n", version_line(tool).c_str());
      return true;
    }
  }
  return false;
}

bool print_version_if_asked(int argc, char** argv, const std::string& tool) {
  return print_version_if_asked(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + (argc > 0 ? argc : 0)),
                                tool);
}

}  // namespace warpcost
