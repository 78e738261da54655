// The warp-primitives family's names, written once: benchmark names, parameter names, the counters
// the bench states its work in, and the Nsight Compute metrics the counter pass collects. The bench
// registers and writes with these, the evaluator and the report read with them. No CUDA here.
#pragma once

#include <string>
#include <vector>

#include "core/family_schema.hpp"

namespace warpcost::warp_primitives {

inline constexpr const char* kFamily = "warp_primitives";

// Benchmark names (the second part of "warp_primitives/<name>/...").
namespace bench {
// One warp an SM, one dependent chain: cycles per op from clock64() inside the kernel.
inline constexpr const char* kLatency = "latency";
// warps_per_sm warps an SM, kChainsPerWarp independent chains each: warp-ops per cycle per SM
// from each SM's own clock span (first block start to last block end on that SM).
inline constexpr const char* kThroughput = "throughput";
}  // namespace bench

// Parameter (argument) names, in registration order per benchmark.
namespace param {
inline constexpr const char* kPrimitive = "primitive";        // a Primitive id (primitives_model.hpp)
inline constexpr const char* kActiveLanes = "active_lanes";   // lanes in the mask (1..32)
inline constexpr const char* kMask = "mask";                  // a MaskShape id
inline constexpr const char* kWarpsPerSm = "warps_per_sm";    // resident warps an SM (throughput)
}  // namespace param

// What each benchmark states about one launch (Google Benchmark user counters).
namespace work {
inline constexpr const char* kCyclesPerOp = "cycles_per_op";          // latency: median warp's cycles / ops
inline constexpr const char* kOpsPerCycleSm = "ops_per_cycle_per_sm";  // throughput: median SM's warp-ops / span
inline constexpr const char* kSmSpanCycles = "sm_span_cycles";        // throughput: median SM's clock span
inline constexpr const char* kOpsPerWarp = "ops_per_warp";            // ops each chain runs
inline constexpr const char* kChainsPerWarp = "chains_per_warp";      // independent chains a warp
inline constexpr const char* kWarpsLaunched = "warps_launched";       // warps of the launch
inline constexpr const char* kBodyInstPerOp = "body_inst_per_op";     // the plan's SASS instructions an op
inline constexpr const char* kResidentWarpsCap = "resident_warps_cap";  // the device's warps/SM cap
inline constexpr const char* kGpuSeconds = "gpu_seconds";
}  // namespace work

// The counter pass's metrics (Nsight Compute names; they resolve on GH100,
// /work/shared/reference/gh100-metrics.txt).
namespace metric {
inline constexpr const char* kInstExecuted = "smsp__inst_executed.sum";
inline constexpr const char* kWarpsLaunched = "smsp__warps_launched.sum";
inline constexpr const char* kIssueActive = "smsp__issue_active.sum";
}  // namespace metric

inline const std::vector<std::string>& counter_metrics() {
  static const std::vector<std::string> metrics = {metric::kInstExecuted, metric::kWarpsLaunched,
                                                   metric::kIssueActive};
  return metrics;
}

// The derived rows the evaluator writes (metric column).
namespace row {
inline constexpr const char* kLatency = "cycles_per_op";
inline constexpr const char* kThroughput = "warp_ops_per_cycle_per_sm";
inline constexpr const char* kGranularityLatency = "latency_vs_full_warp";
inline constexpr const char* kGranularityThroughput = "throughput_vs_full_warp";
inline constexpr const char* kDivergentSides = "divergent_sides_vs_full_warp";
inline constexpr const char* kTableThroughput = "shuffle_throughput_vs_guide_table";
inline constexpr const char* kComposition = "butterfly_vs_5x_shuffle_plus_add";
inline constexpr const char* kReduxVsButterfly = "redux_vs_butterfly";
inline constexpr const char* kKnee = "throughput_knee_warps_per_sm";
inline constexpr const char* kInstPerOp = "inst_executed_per_op";
inline constexpr const char* kIssuePerOp = "issue_active_cycles_per_op";
inline constexpr const char* kNotOnThisGpu = "not_on_this_gpu";
}  // namespace row

}  // namespace warpcost::warp_primitives

// The family's descriptor (core/family_schema.hpp) for the registry (WARPCOST_FAMILIES).
namespace warpcost::schema::warp_primitives {
const FamilyDescriptor& descriptor();
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }
}  // namespace warpcost::schema::warp_primitives

// The registry calls analysis::warp_primitives::families(); the family's names stay visible there.
namespace warpcost::analysis::warp_primitives {
using namespace warpcost::warp_primitives;
}  // namespace warpcost::analysis::warp_primitives
