// The user counters more than one family writes, and the contract's per-point counters
// (docs/verdicts.md: warpcost_samples, warpcost_noise, warpcost_sm_clock_mhz), named once for the
// bench that writes them and the analysis that reads them. A family's own counters are in its
// analysis/<family>/schema.hpp (namespace counter).
#pragma once

namespace warpcost::schema::counter {

inline constexpr const char* kBlocks = "blocks";
inline constexpr const char* kBlocksPerSm = "blocks_per_sm";
inline constexpr const char* kBytesRead = "bytes_read";
inline constexpr const char* kLaunchOverheadSeconds = "launch_overhead_seconds";
inline constexpr const char* kSmClockHz = "sm_clock_hz";
inline constexpr const char* kWarpcostNoise = "warpcost_noise";
inline constexpr const char* kWarpcostSamples = "warpcost_samples";
inline constexpr const char* kWarpcostSmClockMhz = "warpcost_sm_clock_mhz";
// NVML's clocks-event reasons seen around and between the point's samples, OR-ed together
// (nvmlClocksEventReasons: 0x2 application clocks, 0x4 software power cap, 0x8 hardware slowdown,
// 0x20 software thermal, 0x40 hardware thermal, 0x80 power brake; 0x1 idle is left out).
inline constexpr const char* kWarpcostClockEventReasons = "warpcost_clock_event_reasons";
// How many other processes NVML listed computing on the GPU when the point's samples ended.
inline constexpr const char* kWarpcostOtherProcesses = "warpcost_other_processes";

}  // namespace warpcost::schema::counter
