#include "core/metrics.hpp"
#include "core/divergence/schema.hpp"

namespace warpcost::schema::divergence {

const FamilyDescriptor& descriptor() {
  static const std::vector<const char*> split = {param::kSplitK, param::kIfTrips, param::kElseTrips,
                                                 param::kWarpsPerSm};
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kSplitLow, split},
       {benchmark::kSplitInterleaved, split},
       {benchmark::kSplitRandom, split},
       {benchmark::kWarpUniform, {param::kIfTrips, param::kElseTrips, param::kWarpsPerSm}},
       {benchmark::kSwitch, {param::kPaths, param::kFirstPath, param::kTrips, param::kWarpsPerSm}},
       {benchmark::kNested, {param::kLeaves, param::kTrips, param::kWarpsPerSm}},
       {benchmark::kPathCostIf, {param::kTrips, param::kWarpsPerSm}},
       {benchmark::kPathCostSwitch, {param::kTrips, param::kWarpsPerSm}},
       {benchmark::kPathCostNested, {param::kTrips, param::kWarpsPerSm}}},
      {{param::kSplitK, "lanes", "split k: lanes on the if side"},
       {param::kIfTrips, "trips", "FMA loop trips of the if side"},
       {param::kElseTrips, "trips", "FMA loop trips of the else side"},
       {param::kWarpsPerSm, "warps", "resident warps per SM"},
       {param::kPaths, "paths", "switch paths the lanes spread over"},
       {param::kFirstPath, "path", "the path lane 0 takes"},
       {param::kTrips, "trips", "FMA loop trips of every path"},
       {param::kLeaves, "leaves", "leaves of the nested branch"}},
      {{schema::counter::kSmClockHz, "Hz"},
       {counter::kWarpCyclesMedian, "cycles"},
       {counter::kWarpCyclesP10, "cycles"},
       {counter::kWarpCyclesP90, "cycles"},
       {counter::kFirstPathWarpCyclesMedian, "cycles"},
       {counter::kOtherPathWarpCyclesMedian, "cycles"},
       {counter::kRegionSpanS, "s"},
       {counter::kWarps, "warps"},
       {schema::counter::kBlocks, "blocks"},
       {counter::kSmsObserved, "SMs"},
       {counter::kMaxWarpsOnOneSm, "warps"},
       {counter::kMinWarpsOnOneSm, "warps"},
       {counter::kPopulatedPaths, "paths"}},
      // Lanes per instruction against the predicted lane efficiency, lanes predicated on, and
      // divergent branch targets (the proof the branch is real).
      {metric::kLanes,
       metric::kLanesPredicatedOn,
       metric::kDivergent, metric::kBranchTargets,
       metric::kWarpsLaunched, metric::kWarpInstructions},
      {}};
  return d;
}

std::string split_params(long long k, long long if_trips, long long else_trips,
                         long long warps_per_sm) {
  return descriptor().params_text(benchmark::kSplitLow, {k, if_trips, else_trips, warps_per_sm});
}

}  // namespace warpcost::schema::divergence
