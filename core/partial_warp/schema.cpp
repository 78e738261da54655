#include "core/metrics.hpp"
#include "core/partial_warp/schema.hpp"

namespace warpcost::schema::partial_warp {

const FamilyDescriptor& descriptor() {
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kSchedule, {param::kX, param::kY, param::kZ}},
       {benchmark::kStaircase, {param::kBlockThreads}},
       {benchmark::kGridTail, {param::kBlockThreads, param::kTotalThreads}},
       {benchmark::kFmaIssue, {param::kWarpsPerBlock, param::kTrips}}},
      {{param::kX, "threads", "block x dimension"},
       {param::kY, "threads", "block y dimension"},
       {param::kZ, "threads", "block z dimension"},
       {param::kBlockThreads, "threads", "block size P"},
       {param::kTotalThreads, "threads", "total threads N of the grid"},
       {param::kWarpsPerBlock, "warps", "warps of the one block (fma_issue)"},
       {param::kTrips, "count", "rounds of the FMA loop a thread (fma_issue)"}},
      {{counter::kThreads, "threads"},
       {counter::kWarpsObserved, "warps"},
       {counter::kTailMaskObserved, "mask"},
       {counter::kThreadsMappedAsModel, "threads"},
       {counter::kWarpsWithOneClock, "warps"},
       {counter::kWarpsWithOneSm, "warps"},
       {counter::kDistinctSms, "SMs"},
       {schema::counter::kSmClockHz, "Hz"},
       {schema::counter::kBlocks, "blocks"},
       {schema::counter::kBlocksPerSm, "blocks"},
       {counter::kWaves, "waves"},
       {counter::kUsefulThreads, "threads"},
       {counter::kFmaPerThread, "FMA"},
       {counter::kTailActiveThreadsObserved, "threads"},
       {counter::kTailFullWarpsObserved, "warps"},
       {counter::kTailLastMaskObserved, "mask"}},
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
