// The latency and streaming families' contract (core/family_schema.hpp): pointer chases
// by footprint, and reads by load width, ALU work per load, loads in flight, residency and block.
#pragma once

#include <vector>

#include "core/counters.hpp"
#include "core/family_schema.hpp"

namespace warpcost::schema {

namespace latency {
namespace counter {
inline constexpr const char* kCyclesPerLoad = "cycles_per_load";
inline constexpr const char* kFootprintBytes = "footprint_bytes";
inline constexpr const char* kNodes = "nodes";
inline constexpr const char* kNsPerLoad = "ns_per_load";
inline constexpr const char* kSteps = "steps";
inline constexpr const char* kWarmSteps = "warm_steps";
// The loaded chase's background: its 16-byte loads while the chase was timed, over the chase's
// own window; its whole life's loads over its own window (first block's start to last warp's
// stop); the distinct SMs its blocks ran on.
inline constexpr const char* kBackgroundBytesPerSecond = "background_bytes_per_second";
inline constexpr const char* kBackgroundLifetimeBytesPerSecond = "background_lifetime_bytes_per_second";
inline constexpr const char* kBackgroundSms = "background_sms";
}  // namespace counter
inline constexpr const char* kFamily = "latency";
namespace benchmark {
inline constexpr const char* kChaseRandom = "chase_random";
inline constexpr const char* kChaseStride = "chase_stride";
// The random DRAM chase beside a background stream (issue 33).
inline constexpr const char* kChaseLoaded = "chase_loaded";
}  // namespace benchmark
namespace param {
inline constexpr const char* kFootprintKib = "footprint_kib";
inline constexpr const char* kBgWarps = "bg_warps";
}  // namespace param
const FamilyDescriptor& descriptor();
}  // namespace latency

namespace streaming {
namespace counter {
inline constexpr const char* kGpuSeconds = "gpu_seconds";
inline constexpr const char* kLoadedLatencyCycles = "loaded_latency_cycles";
// The spread of the probe's latency samples on the locus' curve (16-byte loads, W = 0; the
// store-twin pilot's H3, pilots/store_twin): the expected excess of the slowest of w samples over
// their mean, w = 2, 4, 8, 16, 32 (core/streaming/model.hpp: expected_max_excesses). A measurement
// for a later model; no row reads them.
inline constexpr const char* kLoadedLatencyMaxExcessW2 = "loaded_latency_max_excess_w2_cycles";
inline constexpr const char* kLoadedLatencyMaxExcessW4 = "loaded_latency_max_excess_w4_cycles";
inline constexpr const char* kLoadedLatencyMaxExcessW8 = "loaded_latency_max_excess_w8_cycles";
inline constexpr const char* kLoadedLatencyMaxExcessW16 = "loaded_latency_max_excess_w16_cycles";
inline constexpr const char* kLoadedLatencyMaxExcessW32 = "loaded_latency_max_excess_w32_cycles";
inline constexpr const char* kLoads = "loads";
inline constexpr const char* kLoadsPerThread = "loads_per_thread";
inline constexpr const char* kResidentBlocksPerSm = "resident_blocks_per_sm";
inline constexpr const char* kResidentWarpsPerSm = "resident_warps_per_sm";
inline constexpr const char* kSharedBytesPerBlock = "shared_bytes_per_block";
inline constexpr const char* kUsefulInstructions = "useful_instructions";
inline constexpr const char* kWarpsPerBlock = "warps_per_block";
inline constexpr const char* kBytesWritten = "bytes_written";
}  // namespace counter
inline constexpr const char* kFamily = "streaming";
// The W values (ALU instructions between loads) the streaming kernels are compiled for: each is its
// own fully unrolled kernel (kernels/streaming/); any other W up to kMostRunTimeAlu runs the
// run-time-W kernel (warpcost-stream only; the suite runs these).
inline constexpr int kCompiledAluCounts[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
// The largest W of the run-time-W kernel (a W without an unrolled kernel; warpcost-stream).
inline constexpr int kMostRunTimeAlu = 4096;
namespace benchmark {
inline constexpr const char* kReadIndependent = "read_independent";
inline constexpr const char* kReadDependent = "read_dependent";
inline constexpr const char* kReadBatched = "read_batched";
inline constexpr const char* kReadOnePerThread = "read_one_per_thread";
inline constexpr const char* kReadPeak = "read_peak";
// The one-load-a-thread grid without its load: the block-turnover parameter (docs/models.md).
inline constexpr const char* kBlockTurnover = "block_turnover";
// 16-byte loads each stored again, at pinned warps/SM: the copy locus (EXPLAIN-7, docs/explain.md).
inline constexpr const char* kCopyIndependent = "copy_independent";
}  // namespace benchmark
namespace param {
inline constexpr const char* kLoadBytes = "load_bytes";
inline constexpr const char* kAluPerLoad = "alu_per_load";
inline constexpr const char* kWarpsPerSm = "warps_per_sm";
inline constexpr const char* kLoadsInFlight = "loads_in_flight";
inline constexpr const char* kBlockThreads = "block_threads";
inline constexpr const char* kLoadsPerThread = "loads_per_thread";
}  // namespace param
const FamilyDescriptor& descriptor();
// What this folder registers (core/families.hpp): both families, latency first.
inline std::vector<const FamilyDescriptor*> descriptors() {
  return {&latency::descriptor(), &streaming::descriptor()};
}
}  // namespace streaming

}  // namespace warpcost::schema
