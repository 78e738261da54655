// The message a call rejects its arguments with, for tests that check the wording.
#pragma once

#include <stdexcept>
#include <string>

namespace warpcost {

// e.what() of the std::invalid_argument that f throws, or "(no exception)".
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace warpcost
