#include "analysis/core/metrics.hpp"
#include "analysis/streaming/schema.hpp"

namespace warpcost::schema {

const FamilyDescriptor& latency::descriptor() {
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kChaseRandom, {param::kFootprintKib}},
       {benchmark::kChaseStride, {param::kFootprintKib}}},
      {{param::kFootprintKib, "KiB", "bytes the pointer ring spans"}},
      {{schema::latency::counter::kCyclesPerLoad, "cycles"}, {schema::latency::counter::kNsPerLoad, "ns"}, {schema::counter::kSmClockHz, "Hz"},
       {schema::latency::counter::kNodes, "count"}, {schema::latency::counter::kWarmSteps, "count"}, {schema::latency::counter::kSteps, "count"}, {schema::latency::counter::kFootprintBytes, "bytes"}},
      {},
      {}};
  return d;
}

const FamilyDescriptor& streaming::descriptor() {
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kReadIndependent, {param::kLoadBytes, param::kAluPerLoad, param::kWarpsPerSm}},
       {benchmark::kReadDependent, {param::kLoadBytes, param::kAluPerLoad, param::kWarpsPerSm}},
       {benchmark::kReadBatched, {param::kLoadBytes, param::kLoadsInFlight, param::kWarpsPerSm}},
       {benchmark::kReadOnePerThread, {param::kBlockThreads}},
       {benchmark::kReadPeak, {param::kLoadsPerThread, param::kBlockThreads}}},
      {{param::kLoadBytes, "bytes", "bytes one lane loads at once"},
       {param::kAluPerLoad, "instructions", "W: dependent ALU instructions per load"},
       {param::kWarpsPerSm, "warps", "resident warps per SM"},
       {param::kLoadsInFlight, "loads", "independent loads a lane issues before using one"},
       {param::kBlockThreads, "threads", "block size P"},
       {param::kLoadsPerThread, "loads", "loads of one thread"}},
      {{schema::streaming::counter::kGpuSeconds, "s"}, {schema::counter::kBytesRead, "bytes"}, {schema::streaming::counter::kLoads, "count"},
       {schema::streaming::counter::kUsefulInstructions, "count"}, {schema::streaming::counter::kLoadedLatencyCycles, "cycles"},
       {schema::streaming::counter::kWarpsPerBlock, "warps"}, {schema::counter::kBlocksPerSm, "blocks"}, {schema::streaming::counter::kSharedBytesPerBlock, "bytes"},
       {schema::counter::kBlocks, "blocks"}, {schema::streaming::counter::kResidentBlocksPerSm, "blocks"}, {schema::streaming::counter::kResidentWarpsPerSm, "warps"},
       {schema::streaming::counter::kLoadsPerThread, "loads"}},
      // Achieved warps per SM against the requested residency, DRAM bytes against the bytes the
      // kernel reads, the memory stall and issue-slot use. DRAM throughput is those bytes over the
      // event-timed kernel: CUPTI's dram__throughput.avg.pct_of_peak_sustained_elapsed is over the
      // user range, which also spans the launch and the sync, and read 9-11 % under Nsight
      // Compute's. Warp instructions issued give the knee models their instructions per load.
      {metric::kWarpsActive, metric::kDramBytes,
       metric::kLongScoreboardStalls,
       metric::kIssueActive, metric::kWarpsLaunched,
       metric::kWarpInstructions},
      {}};
  return d;
}

}  // namespace warpcost::schema
