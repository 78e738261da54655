// The counters `warpcost explain` reads for each kernel launch, under the names Nsight Compute uses
// (each resolves on GH100: /work/shared/reference/gh100-metrics.txt, and the host test
// ExplainMetrics.ResolveOnGh100 adds them to one CUPTI configuration). Header only: the injection
// library and the analysis both read it.
#pragma once

#include <array>

namespace warpcost::explain::metric {

inline constexpr const char* kDuration = "gpu__time_duration.sum";
inline constexpr const char* kLanesPerInst = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
inline constexpr const char* kLanesPredOnPerInst = "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio";
inline constexpr const char* kDivergentTargets = "smsp__sass_branch_targets_threads_divergent.sum";
inline constexpr const char* kBranchTargets = "smsp__sass_branch_targets.sum";
inline constexpr const char* kInstExecuted = "smsp__inst_executed.sum";
inline constexpr const char* kThreadInstExecuted = "smsp__thread_inst_executed.sum";
inline constexpr const char* kLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
// The bytes the threads asked for (each lane's access size, summed), the ideal the sectors are held to.
inline constexpr const char* kLoadBytesAsked = "sm__sass_data_bytes_mem_global_op_ld.sum";
inline constexpr const char* kStoreBytesAsked = "sm__sass_data_bytes_mem_global_op_st.sum";
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kWarpsActive = "sm__warps_active.avg.per_cycle_active";
inline constexpr const char* kIssueActivePct = "smsp__issue_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kLongScoreboard = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
inline constexpr const char* kWarpsLaunched = "smsp__warps_launched.sum";
inline constexpr const char* kSmClock = "sm__cycles_elapsed.avg.per_second";

inline constexpr std::array<const char*, 20> kAll = {
    kDuration,       kLanesPerInst,     kLanesPredOnPerInst, kDivergentTargets, kBranchTargets,
    kInstExecuted,   kThreadInstExecuted, kLoadRequests,     kLoadSectors,      kStoreRequests,
    kStoreSectors,   kLoadBytesAsked,   kStoreBytesAsked,    kDramRead,         kDramWrite,
    kWarpsActive,    kIssueActivePct,   kLongScoreboard,     kWarpsLaunched,    kSmClock};

// The DRAM pass (docs/explain.md): a launch chosen for profiling is profiled with these alone, and
// the next launch of the same kernel, shape and context with kAll (kernel replay, several passes
// with the kernel's memory restored between them). They fit one pass, so the DRAM pass's launch is
// not replayed: its DRAM bytes are the traffic of a launch as the application runs it, which the
// replayed range does not give (the H200 rounds of 97b9472 and c537be0: dram__bytes_write 1.09x to
// 10x Nsight Compute's on the same launch where the kernel's writes reach DRAM, 10^4x where they
// stay in the L2). The analysis takes the DRAM bytes from this pass.
inline constexpr std::array<const char*, 3> kDramPass = {kDuration, kDramRead, kDramWrite};

}  // namespace warpcost::explain::metric

namespace warpcost::explain::env {
// The environment the explain tool hands the injection library.
inline constexpr const char* kOut = "WARPCOST_EXPLAIN_OUT";            // records file (JSON lines)
inline constexpr const char* kKernel = "WARPCOST_EXPLAIN_KERNEL";      // ECMAScript regex, searched in the name
inline constexpr const char* kLaunches = "WARPCOST_EXPLAIN_LAUNCHES";  // profile at most this many launches
inline constexpr const char* kLaunchSkip = "WARPCOST_EXPLAIN_LAUNCH_SKIP";  // pass over this many matching ones first
inline constexpr const char* kEachShape = "WARPCOST_EXPLAIN_EACH_SHAPE";    // 1: the first launch of each shape
inline constexpr const char* kDramPass = "WARPCOST_EXPLAIN_DRAM_PASS";  // 1 (default): DRAM pass first; 0: none
}  // namespace warpcost::explain::env
