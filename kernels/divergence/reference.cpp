// The divergence family's host side, compiled without nvcc: the split patterns' masks, the nested
// leaves, and the host replay each kernel's output is checked against (divergence.hpp declares them).
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/common/pattern.hpp"
#include "kernels/divergence/kernels.hpp"

namespace warpcost::kernels {

constexpr std::uint32_t kFullMask = kFullWarpMask;

const char* pattern_name(SplitPattern pattern) {
  switch (pattern) {
    case SplitPattern::kLowLanes: return "low";
    case SplitPattern::kInterleaved: return "interleaved";
    case SplitPattern::kRandom: return "random";
    case SplitPattern::kWarpUniform: return "warp_uniform";
  }
  return "unknown";
}

SplitPattern parse_pattern(const std::string& name) {
  for (const auto p : {SplitPattern::kLowLanes, SplitPattern::kInterleaved, SplitPattern::kRandom,
                       SplitPattern::kWarpUniform}) {
    if (name == pattern_name(p)) return p;
  }
  throw std::invalid_argument("split pattern '" + name +
                              "'; allowed: low, interleaved, random, warp_uniform");
}

std::string split_k_problem(int k) {
  return k < 0 || k > 32 ? "lane split k = " + std::to_string(k) +
                               "; allowed: 0..32 lanes of a 32-lane warp on the if side"
                         : std::string();
}

std::string trips_problem(const char* name, int trips) {
  return trips < 0 ? std::string("trip count ") + name + " = " + std::to_string(trips) +
                         "; allowed: 0 or more"
                   : std::string();
}

std::string paths_problem(int paths) {
  return paths < 1 || paths > kMaxPaths
             ? "paths = " + std::to_string(paths) + "; allowed: 1..32 distinct paths per 32-lane warp"
             : std::string();
}

std::string first_path_problem(int first_path) {
  return first_path < 0 || first_path >= kMaxPaths
             ? "first path = " + std::to_string(first_path) + "; allowed: 0..31"
             : std::string();
}

std::string leaves_problem(int leaves) {
  return leaves < 1 || leaves > 4 ? "nested leaves = " + std::to_string(leaves) +
                                        "; allowed: 1..4 (a two-level if has four leaves)"
                                  : std::string();
}

std::string switch_cases_problem(const std::vector<SwitchCase>& cases) {
  if (cases.empty() || cases.size() > static_cast<std::size_t>(kMaxPaths)) {
    return "switch cases = " + std::to_string(cases.size()) + "; allowed: 1..32 cases (LANES:TRIPS each)";
  }
  int lanes = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    if (cases[c].lanes < 0 || cases[c].lanes > 32) {
      return "case " + std::to_string(c) + "'s lanes = " + std::to_string(cases[c].lanes) + "; allowed: 0..32";
    }
    const std::string name = "of case " + std::to_string(c);
    if (const std::string p = trips_problem(name.c_str(), cases[c].trips); !p.empty()) return p;
    if (cases[c].trips > kMostCaseTrips) {
      return "trip count of case " + std::to_string(c) + " = " + std::to_string(cases[c].trips) + "; allowed: 0.." +
             std::to_string(kMostCaseTrips) + " (the host replays every lane's chain)";
    }
    lanes += cases[c].lanes;
  }
  if (lanes != 32) {
    return "the cases' lanes add to " + std::to_string(lanes) + "; allowed: 32 (every lane of the warp takes one case)";
  }
  return {};
}

SwitchTable switch_table(const std::vector<SwitchCase>& cases) {
  if (const std::string p = switch_cases_problem(cases); !p.empty()) throw std::invalid_argument(p);
  SwitchTable t{};
  int lane = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    t.trips[c] = cases[c].trips;
    for (int i = 0; i < cases[c].lanes; ++i) t.lane_path[lane++] = static_cast<unsigned char>(c);
  }
  return t;
}

SplitMasks split_masks(SplitPattern pattern, int k, std::uint32_t seed) {
  if (pattern != SplitPattern::kWarpUniform) {
    if (const std::string p = split_k_problem(k); !p.empty()) throw std::invalid_argument(p);
  }
  SplitMasks m{};
  for (int w = 0; w < kMaskTableSize; ++w) {
    std::uint32_t mask = 0;
    switch (pattern) {
      case SplitPattern::kLowLanes:
        mask = k == 32 ? kFullMask : (1u << k) - 1u;
        break;
      case SplitPattern::kInterleaved:
        for (int l = 0; l < 32; ++l) {
          if ((l + 1) * k / 32 > l * k / 32) mask |= 1u << l;
        }
        break;
      case SplitPattern::kRandom: {
        // Fisher-Yates over the 32 lanes, driven by the pattern hash: the same table on every
        // platform for a given seed, a different draw for every entry.
        int lanes[32];
        for (int l = 0; l < 32; ++l) lanes[l] = l;
        for (int i = 31; i > 0; --i) {
          const auto j = static_cast<int>(
              pattern_word(static_cast<std::uint64_t>(w) * 32u + static_cast<std::uint64_t>(i), seed) %
              static_cast<std::uint32_t>(i + 1));
          const int t = lanes[i];
          lanes[i] = lanes[j];
          lanes[j] = t;
        }
        for (int i = 0; i < k; ++i) mask |= 1u << lanes[i];
        break;
      }
      case SplitPattern::kWarpUniform:
        mask = w % 2 == 0 ? kFullMask : 0u;
        break;
    }
    m.lanes[w] = mask;
  }
  return m;
}

float path_reference(unsigned long long global_id, int path, int trips) {
  float a = chain_start(global_id);
  for (int i = 0; i < trips * kFmasPerTrip; ++i) {
    a = std::fma(a, path_multiplier(path), path_addend(path));
  }
  return a;
}

int nested_leaf(std::uint32_t outer_mask, std::uint32_t inner_mask, int lane_index) {
  const bool outer = (outer_mask >> lane_index) & 1u;
  const bool inner = (inner_mask >> lane_index) & 1u;
  return outer ? (inner ? 0 : 1) : (inner ? 2 : 3);
}

NestedMasks nested_masks(int leaves) {
  switch (leaves) {
    case 1: return {kFullMask, kFullMask};
    case 2: return {0x0000ffffu, kFullMask};
    case 3: return {0x0000ffffu, 0xffff00ffu};
    case 4: return {0x0000ffffu, 0x00ff00ffu};
    default:
      throw std::invalid_argument(leaves_problem(leaves));
  }
}

}  // namespace warpcost::kernels
