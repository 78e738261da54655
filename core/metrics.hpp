// The Nsight Compute metrics the families' models are held against, named once: the families'
// descriptors list them for the counter pass and their counter checks read them back.
#pragma once

namespace warpcost::schema::metric {

inline constexpr const char* kWarpsLaunched = "smsp__warps_launched.sum";
inline constexpr const char* kBlocksLaunched = "sm__ctas_launched.sum";
// Lanes on per warp instruction, the measure of partial warps and divergence alike.
inline constexpr const char* kLanes = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
inline constexpr const char* kLanesPredicatedOn =
    "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio";
inline constexpr const char* kWarpsActive = "sm__warps_active.avg.per_cycle_active";
inline constexpr const char* kWarpInstructions = "smsp__inst_executed.sum";
inline constexpr const char* kThreadInstructions = "smsp__thread_inst_executed.sum";
// Thread FFMAs with their predicate on: the FMA chains' work (partial_warp) and a stream's ALU work.
inline constexpr const char* kThreadFfma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline constexpr const char* kDivergent = "smsp__sass_branch_targets_threads_divergent.sum";
inline constexpr const char* kBranchTargets = "smsp__sass_branch_targets.sum";
inline constexpr const char* kDramBytes = "dram__bytes_read.sum";
inline constexpr const char* kLongScoreboardStalls =
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
inline constexpr const char* kIssueActive = "smsp__issue_active.avg.pct_of_peak_sustained_active";

}  // namespace warpcost::schema::metric
