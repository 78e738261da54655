#include "core/metrics.hpp"
#include "core/streaming/schema.hpp"

namespace warpcost::schema {

const FamilyDescriptor& latency::descriptor() {
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kChaseRandom, {param::kFootprintKib}},
       {benchmark::kChaseStride, {param::kFootprintKib}},
       {benchmark::kChaseLoaded, {param::kBgWarps}}},
      {{param::kFootprintKib, "KiB", "bytes the pointer ring spans"},
       {param::kBgWarps, "warps", "warps per SM of the background stream beside the chase (0: none)"}},
      {{counter::kCyclesPerLoad, "cycles"},
       {counter::kNsPerLoad, "ns"},
       {schema::counter::kSmClockHz, "Hz"},
       {counter::kNodes, "count"},
       {counter::kWarmSteps, "count"},
       {counter::kSteps, "count"},
       {counter::kFootprintBytes, "bytes"},
       {counter::kBackgroundBytesPerSecond, "bytes/s"},
       {counter::kBackgroundLifetimeBytesPerSecond, "bytes/s"},
       {counter::kBackgroundSms, "count"}},
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
       {benchmark::kReadPeak, {param::kLoadsPerThread, param::kBlockThreads}},
       {benchmark::kBlockTurnover, {param::kBlockThreads}},
       {benchmark::kCopyIndependent, {param::kLoadBytes, param::kWarpsPerSm}}},
      {{param::kLoadBytes, "bytes", "bytes one lane loads at once"},
       {param::kAluPerLoad, "instructions", "W: dependent ALU instructions per load"},
       {param::kWarpsPerSm, "warps", "resident warps per SM"},
       {param::kLoadsInFlight, "loads", "independent loads a lane issues before using one"},
       {param::kBlockThreads, "threads", "block size P"},
       {param::kLoadsPerThread, "loads", "loads of one thread"}},
      {{counter::kGpuSeconds, "s"},
       {schema::counter::kBytesRead, "bytes"},
       {counter::kBytesWritten, "bytes"},
       {counter::kLoads, "count"},
       {counter::kUsefulInstructions, "count"},
       {counter::kLoadedLatencyCycles, "cycles"},
       {counter::kLoadedLatencyMaxExcessW2, "cycles"},
       {counter::kLoadedLatencyMaxExcessW4, "cycles"},
       {counter::kLoadedLatencyMaxExcessW8, "cycles"},
       {counter::kLoadedLatencyMaxExcessW16, "cycles"},
       {counter::kLoadedLatencyMaxExcessW32, "cycles"},
       {counter::kWarpsPerBlock, "warps"},
       {schema::counter::kBlocksPerSm, "blocks"},
       {counter::kSharedBytesPerBlock, "bytes"},
       {schema::counter::kBlocks, "blocks"},
       {counter::kResidentBlocksPerSm, "blocks"},
       {counter::kResidentWarpsPerSm, "warps"},
       {counter::kLoadsPerThread, "loads"}},
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
