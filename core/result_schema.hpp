// The contract between warpcost-bench and warpcost-analyze: the keys warpcost adds to the Google
// Benchmark JSON `context` block, and the schema version they belong to. Plain constants, no CUDA.
#pragma once

namespace warpcost::schema {

// 2: one name per idea in run names (partial_warp's block size P is block_threads and the grid
// tail's total N is total_threads, as in the streaming family). Runs of version 1 are still read:
// the reader maps their old parameter names onto the new ones (FamilyDescriptor::schema_1_names).
inline constexpr int kVersion = 2;
inline constexpr int kOldestReadableVersion = 1;
inline constexpr const char* kVersionKey = "warpcost_schema_version";

namespace key {
inline constexpr const char* kRunId = "run_id";
inline constexpr const char* kUtc = "utc";
inline constexpr const char* kGpuName = "gpu_name";
inline constexpr const char* kGpuUuid = "gpu_uuid";
inline constexpr const char* kCc = "cc";
inline constexpr const char* kSmCount = "sm_count";
inline constexpr const char* kWarpSize = "warp_size";
inline constexpr const char* kMaxThreadsPerSm = "max_threads_per_sm";
inline constexpr const char* kMaxWarpsPerSm = "max_warps_per_sm";
inline constexpr const char* kMaxBlocksPerSm = "max_blocks_per_sm";
inline constexpr const char* kMaxThreadsPerBlock = "max_threads_per_block";
inline constexpr const char* kL2Bytes = "l2_bytes";
inline constexpr const char* kGlobalMemoryBytes = "global_memory_bytes";
inline constexpr const char* kMemoryClockKhz = "memory_clock_khz";
inline constexpr const char* kMemoryBusWidthBits = "memory_bus_width_bits";
inline constexpr const char* kSmClockMaxKhz = "sm_clock_max_khz";
inline constexpr const char* kSmClockMeasuredKhz = "sm_clock_measured_khz";
inline constexpr const char* kDriverVersion = "driver_version";
inline constexpr const char* kCudaDriverApi = "cuda_driver_api";
inline constexpr const char* kCudaRuntime = "cuda_runtime";
inline constexpr const char* kGitRev = "git_rev";
inline constexpr const char* kCommandLine = "command_line";
// How the counter pass ran ("on: ...", "off: ...", "unavailable: ..."), and the unit of each metric
// it may collect as "metric=unit;metric=unit". Runs before the counter pass have neither.
inline constexpr const char* kCounterPass = "counter_pass";
inline constexpr const char* kCounterUnits = "counter_units";
// The machine's state (docs/running.md, "Machine states"); runs before issue 31 have none of these.
// The SM clock points are held against (MHz), and where it comes from ("maximum", or "application
// clocks ..." when an administrator held the clock below its maximum).
inline constexpr const char* kSmClockReferenceMhz = "sm_clock_reference_mhz";
inline constexpr const char* kSmClockReference = "sm_clock_reference";
// "none", or the MIG instance's profile ("1g.5gb") when the device is a MIG instance.
inline constexpr const char* kMigInstance = "mig_instance";
// "complete", or "partial: ..." (interrupted, or the device lost mid-run), and who else used the GPU.
inline constexpr const char* kRunStatus = "run_status";
inline constexpr const char* kOtherGpuProcesses = "other_gpu_processes";
}  // namespace key

// Every key a run must carry for the analysis to place it.
inline constexpr const char* kRequiredKeys[] = {
    key::kRunId,          key::kUtc,           key::kGpuName,       key::kGpuUuid,
    key::kCc,             key::kSmCount,       key::kWarpSize,      key::kMaxThreadsPerSm,
    key::kMaxWarpsPerSm,  key::kMaxBlocksPerSm, key::kMaxThreadsPerBlock, key::kL2Bytes,
    key::kGlobalMemoryBytes, key::kMemoryClockKhz, key::kMemoryBusWidthBits, key::kSmClockMaxKhz,
    key::kSmClockMeasuredKhz, key::kDriverVersion, key::kCudaDriverApi, key::kCudaRuntime,
    key::kGitRev,         key::kCommandLine};

}  // namespace warpcost::schema
