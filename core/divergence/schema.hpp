// The divergence family's contract (core/family_schema.hpp): if/else splits by pattern,
// warp-uniform branches, k-way switches and nested branches, each at a residency in warps per SM.
#pragma once

#include <vector>

#include "core/counters.hpp"
#include "core/family_schema.hpp"

namespace warpcost::schema::divergence {

inline constexpr const char* kFamily = "divergence";
namespace benchmark {
inline constexpr const char* kSplitLow = "split_low";
inline constexpr const char* kSplitInterleaved = "split_interleaved";
inline constexpr const char* kSplitRandom = "split_random";
inline constexpr const char* kWarpUniform = "warp_uniform";
inline constexpr const char* kSwitch = "switch";
inline constexpr const char* kNested = "nested";
// Parameter benchmarks of the second-order grid model (docs/models.md): each kernel with every lane
// on its first path, at a few trip counts (0 included) and residencies, so a grid's fixed cost
// and its cost a trip at that residency are measured apart from the points they price.
inline constexpr const char* kPathCostIf = "path_cost_if";
inline constexpr const char* kPathCostSwitch = "path_cost_switch";
inline constexpr const char* kPathCostNested = "path_cost_nested";
}  // namespace benchmark
namespace param {
inline constexpr const char* kSplitK = "k";
inline constexpr const char* kIfTrips = "if_trips";
inline constexpr const char* kElseTrips = "else_trips";
inline constexpr const char* kWarpsPerSm = "warps_per_sm";
inline constexpr const char* kPaths = "paths";
inline constexpr const char* kFirstPath = "first_path";
inline constexpr const char* kTrips = "trips";
inline constexpr const char* kLeaves = "leaves";
}  // namespace param

namespace counter {
inline constexpr const char* kFirstPathWarpCyclesMedian = "first_path_warp_cycles_median";
inline constexpr const char* kMaxWarpsOnOneSm = "max_warps_on_one_sm";
inline constexpr const char* kMinWarpsOnOneSm = "min_warps_on_one_sm";
inline constexpr const char* kOtherPathWarpCyclesMedian = "other_path_warp_cycles_median";
inline constexpr const char* kPopulatedPaths = "populated_paths";
inline constexpr const char* kRegionSpanS = "region_span_s";
inline constexpr const char* kSmsObserved = "sms_observed";
inline constexpr const char* kWarpCyclesMedian = "warp_cycles_median";
inline constexpr const char* kWarpCyclesP10 = "warp_cycles_p10";
inline constexpr const char* kWarpCyclesP90 = "warp_cycles_p90";
inline constexpr const char* kWarps = "warps";
}  // namespace counter

const FamilyDescriptor& descriptor();
// What this folder registers (core/families.hpp).
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }

// The parameter text of a split_* point ("k=0;if_trips=..;else_trips=..;warps_per_sm=.."): the key
// its one-path reference is found by.
// Written here once; the evaluators and the report both look the reference up by it.
std::string split_params(long long k, long long if_trips, long long else_trips,
                         long long warps_per_sm);

}  // namespace warpcost::schema::divergence
