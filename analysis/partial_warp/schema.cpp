#include "analysis/core/metrics.hpp"
#include "analysis/partial_warp/schema.hpp"

namespace warpcost::schema::partial_warp {

const FamilyDescriptor& descriptor() {
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kSchedule, {param::kX, param::kY, param::kZ}},
       {benchmark::kStaircase, {param::kBlockThreads}},
       {benchmark::kGridTail, {param::kBlockThreads, param::kTotalThreads}}},
      {{param::kX, "threads", "block x dimension"},
       {param::kY, "threads", "block y dimension"},
       {param::kZ, "threads", "block z dimension"},
       {param::kBlockThreads, "threads", "block size P"},
       {param::kTotalThreads, "threads", "total threads N of the grid"}},
      {{"threads", "threads"}, {"warps_observed", "warps"}, {"tail_mask_observed", "mask"},
       {"threads_mapped_as_model", "threads"}, {"warps_with_one_clock", "warps"},
       {"warps_with_one_sm", "warps"}, {"distinct_sms", "SMs"}, {"sm_clock_hz", "Hz"},
       {"blocks", "blocks"}, {"blocks_per_sm", "blocks"}, {"waves", "waves"},
       {"useful_threads", "threads"}, {"fma_per_thread", "FMA"},
       {"tail_active_threads_observed", "threads"}, {"tail_full_warps_observed", "warps"},
       {"tail_last_mask_observed", "mask"}},
      // Warps launched against ceil(P/32) a block, lanes per instruction against P/ceil(P/32),
      // and achieved warps per SM against the occupancy API's slots.
      {metric::kWarpsLaunched, metric::kBlocksLaunched,
       metric::kLanes,
       metric::kWarpsActive, metric::kWarpInstructions,
       metric::kThreadInstructions},
      {{benchmark::kStaircase, "threads", param::kBlockThreads},
       {benchmark::kGridTail, "block", param::kBlockThreads},
       {benchmark::kGridTail, "threads", param::kTotalThreads}}};
  return d;
}

}  // namespace warpcost::schema::partial_warp
