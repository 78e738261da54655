// What the one-configuration command-line tools (warpcost-diverge, warpcost-stream) share: the exit
// codes, the usage error, whole-number option values, and a main() that turns a usage error into
// one message plus the usage text and exit 2.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpcost::cli {

inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoDevice = 77;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline long long whole_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw UsageError(flag + " '" + text + "' is not a whole number");
  return v;
}

inline int small_int(const std::string& flag, const std::string& text) {
  const long long v = whole_number(flag, text);
  if (v < -1000000000LL || v > 1000000000LL) {
    throw UsageError(flag + " = " + text + "; allowed: |value| up to 1e9");
  }
  return static_cast<int>(v);
}

// Removes every `flag` from argv (argc shrinks, the rest keep their order); true when one was there.
// The tools take --json this way, before their own parsing, in any mode that prints a report.
inline bool take_flag(int& argc, char** argv, const char* flag) {
  bool found = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == flag) {
      found = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return found;
}

// The arguments after the tool's name, as given (for a report's record of its own command line).
inline std::vector<std::string> args_of(int argc, char** argv) {
  std::vector<std::string> a;
  for (int i = 1; i < argc; ++i) a.emplace_back(argv[i]);
  return a;
}

// Runs `body`; a UsageError prints "tool: message" and the usage text and gives kExitUsage, any
// other exception "tool: message" and 1.
template <typename Body>
int run_main(const char* tool, const char* usage, Body body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n%s", tool, e.what(), usage);
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 1;
  }
}

}  // namespace warpcost::cli
