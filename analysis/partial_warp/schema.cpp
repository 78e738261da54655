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
      {{schema::partial_warp::counter::kThreads, "threads"}, {schema::partial_warp::counter::kWarpsObserved, "warps"}, {schema::partial_warp::counter::kTailMaskObserved, "mask"},
       {schema::partial_warp::counter::kThreadsMappedAsModel, "threads"}, {schema::partial_warp::counter::kWarpsWithOneClock, "warps"},
       {schema::partial_warp::counter::kWarpsWithOneSm, "warps"}, {schema::partial_warp::counter::kDistinctSms, "SMs"}, {schema::counter::kSmClockHz, "Hz"},
       {schema::counter::kBlocks, "blocks"}, {schema::counter::kBlocksPerSm, "blocks"}, {schema::partial_warp::counter::kWaves, "waves"},
       {schema::partial_warp::counter::kUsefulThreads, "threads"}, {schema::partial_warp::counter::kFmaPerThread, "FMA"},
       {schema::partial_warp::counter::kTailActiveThreadsObserved, "threads"}, {schema::partial_warp::counter::kTailFullWarpsObserved, "warps"},
       {schema::partial_warp::counter::kTailLastMaskObserved, "mask"}},
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
