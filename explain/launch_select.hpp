// Which matching launches `warpcost explain` profiles, as Nsight Compute users choose them
// (--launch-skip, --launch-count) plus one mode of its own (--each-shape): the first launch of each
// distinct (kernel, grid, block, dynamic shared memory) shape, so a program that sweeps
// configurations is explained configuration by configuration in one run. Pure and header-only: the
// injection library decides with it, its tests drive it without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <tuple>

namespace warpcost::explain {

// A launch's shape: the function (its handle, as a number), grid, block and dynamic shared bytes.
struct LaunchKey {
  std::uintptr_t function = 0;
  std::array<unsigned, 3> grid{}, block{};
  unsigned dynamic_shared = 0;
  bool operator<(const LaunchKey& o) const {
    return std::tie(function, grid, block, dynamic_shared) < std::tie(o.function, o.grid, o.block, o.dynamic_shared);
  }
};

struct SelectSettings {
  long skip = 0;            // matching launches passed over before any is chosen
  long count = 1;           // launches chosen at most
  bool each_shape = false;  // choose a launch only when no launch of its shape was chosen
};

class LaunchSelector {
 public:
  explicit LaunchSelector(SelectSettings s) : s_(s) {}

  // Whether the matching launch number `matched_index` (0-based, among the launches whose name
  // matched, whatever else happened to them) may be chosen: past the skip, under the count, of a
  // shape not chosen yet in each-shape mode. Does not choose it (the profiler may be busy).
  bool eligible(long matched_index, const LaunchKey& key) const {
    if (matched_index < s_.skip || chosen_ >= s_.count) return false;
    return !s_.each_shape || shapes_.count(key) == 0;
  }
  // The launch is chosen: it counts against the count, its shape is taken.
  void choose(const LaunchKey& key) {
    ++chosen_;
    shapes_.insert(key);
  }
  long chosen() const { return chosen_; }
  const SelectSettings& settings() const { return s_; }

 private:
  SelectSettings s_;
  long chosen_ = 0;
  std::set<LaunchKey> shapes_;
};

}  // namespace warpcost::explain
