// Streaming family: every thread of a persistent grid reads a buffer far larger
// than the L2 with 4-, 8- or 16-byte loads and does W ALU instructions (FFMAs)
// per load, either on the loaded value (dependent: the load must return first)
// or on four chains of its own (independent: they can issue while the load is
// in flight). Thread 0 of every block times loads spread over its run with clock64.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/streaming/schema.hpp"

namespace warpcost::kernels {

// The streaming kernels' ALU work, shared with the host replay: a dependent chain v <- v x scale +
// step on a float in [1, 2) made of a loaded word's mantissa, and kSideChains independent ones.
inline constexpr float kChainScale = 0.75f;
inline constexpr float kChainStep = 0.25f;
inline constexpr std::uint32_t kMantissaMask = 0x007fffffu;
inline constexpr std::uint32_t kOneBits = 0x3f800000u;  // 1.0f
inline constexpr int kSideChains = 4;

enum class AluUse { kIndependent, kDependent };
const char* alu_use_name(AluUse use);

// The compiled W values (ALU instructions per load): each is its own kernel,
// fully unrolled, so the instruction count between loads is exactly W plus the
// loop's own few.
inline constexpr const auto& kStreamAluCounts = schema::streaming::kCompiledAluCounts;
inline constexpr int kLatencySamplesPerBlock = 8;

// Loads a thread keeps in flight: 1 is the loop above; 2, 4 or 8 issue that
// many independent 16-byte loads (a grid stride apart) before using any, with W
// = 0.
inline constexpr int kStreamLoadsInFlight[] = {1, 2, 4, 8};

// The largest W the run-time kernel takes (core's, which warpcost check plans with).
inline constexpr int kMostRunTimeAlu = schema::streaming::kMostRunTimeAlu;

struct StreamKernelConfig {
  int load_bytes = 16;   // 4, 8 or 16
  int alu_per_load = 0;  // one of kStreamAluCounts; with run_time_alu any of 0..kMostRunTimeAlu
  AluUse use = AluUse::kIndependent;
  int loads_in_flight = 1;  // one of kStreamLoadsInFlight; above 1 only with 16 bytes and W = 0
  // W as a kernel argument: one kernel a load width and use whose ALU work is a loop (its counter,
  // compare and branch come on top of the W FFMAs), for a W without a compiled kernel; one load in
  // flight only. The suite runs the compiled kernels.
  bool run_time_alu = false;
};

// Empty when the kernel exists; otherwise one sentence naming the value and
// what is allowed.
std::string stream_kernel_problem(const StreamKernelConfig& config);

// The kernel itself, for cudaFuncSetAttribute and the occupancy API. Throws
// std::invalid_argument for a configuration stream_kernel_problem rejects.
const void* stream_kernel_function(const StreamKernelConfig& config);

// Reads `elements` loads of load_bytes from d_data (the pattern words of
// kernels/common/probe_kernels.hpp's fill); thread g writes its folded sum to d_sums[g]; thread
// 0 of block b writes the clock64 cycles of kLatencySamplesPerBlock loads spread
// over its run (one mid-way through each equal slice) to
// d_latency[b * kLatencySamplesPerBlock ..] (fewer when it has fewer loads; the
// rest stay as they were). `shared_bytes` of dynamic shared memory
// per block only pin how many blocks fit on an SM.
void launch_stream(const StreamKernelConfig& config, const void* d_data, std::uint64_t elements,
                   unsigned int blocks, unsigned int threads_per_block, std::size_t shared_bytes,
                   std::uint32_t* d_sums, long long* d_latency, cudaStream_t stream);

// Host replay of thread `gid`'s sum for a grid of `threads` threads over data
// filled with pattern_word(word, seed).
std::uint32_t stream_reference(const StreamKernelConfig& config, std::uint64_t gid, std::uint64_t threads,
                               std::uint64_t elements, std::uint32_t seed);

// The non-persistent variant: one 16-byte load per thread and no loop, a grid
// of ceil(elements / threads_per_block) blocks that the block scheduler feeds
// to the SMs as earlier blocks retire. Each warp XOR-folds its 32 loaded values
// with one __reduce_xor_sync (a shuffle tree before sm_80) and lane 0 writes the result to d_warp_sums[warp],
// 4 bytes written for every 512 read. threads_per_block is a multiple of 32;
// lanes past `elements` contribute 0.
void launch_stream_one_per_thread(const void* d_data, std::uint64_t elements, unsigned int threads_per_block,
                                  std::uint32_t* d_warp_sums, cudaStream_t stream);

// Blocks of threads_per_block an SM holds at once for that kernel, by the
// occupancy API.
int one_per_thread_resident_blocks(int threads_per_block);

// The block-turnover grid (docs/models.md, "one load a thread"): the one-load-a-thread grid with
// the load taken out. Thread gid folds gid * kTurnoverMultiplier (mod 2^32) instead of a loaded
// element; the warp's XOR goes to d_warp_sums[warp] as before. block_turnover_reference replays it.
inline constexpr std::uint32_t kTurnoverMultiplier = 0x9E3779B1u;
void launch_block_turnover(std::uint64_t elements, unsigned int threads_per_block, std::uint32_t* d_warp_sums,
                           cudaStream_t stream);
int block_turnover_resident_blocks(int threads_per_block);
std::uint32_t block_turnover_reference(std::uint64_t warp, std::uint64_t elements);

// Host replay of warp `warp`'s folded value over data filled with
// pattern_word(word, seed).
std::uint32_t one_per_thread_reference(std::uint64_t warp, std::uint64_t elements, std::uint32_t seed);

// The copy stream (streaming/copy_independent, the copy locus of EXPLAIN-7): every thread copies
// 16-byte elements src[i] -> dst[i] in a grid-stride loop, one load and one store a step, with no
// other work. `shared_bytes` of dynamic shared memory (unused by the kernel) pin the residency
// (bench/streaming/runner.hpp's plan). copy_stream_kernel_function() is the kernel for the
// occupancy API.
void launch_copy_stream(const void* d_src, void* d_dst, std::uint64_t elements, unsigned int blocks,
                        unsigned int threads_per_block, std::size_t shared_bytes, cudaStream_t stream);
const void* copy_stream_kernel_function();
// (Its destination is checked with kernels/common/probe_kernels.hpp's launch_count_pattern_mismatches.)

// The plain peak read: every thread loads U (1, 2, 4 or 8) 16-byte elements a block apart, issued
// together, over a grid that covers the buffer once (no loop, no residency pinning). Timed with
// check = false it executes no store; with check = true each warp adds its sum of folds to
// *d_total (which the caller zeroes), to be held against peak_reference_total.
inline constexpr int kPeakLoadsPerThread[] = {1, 2, 4, 8};
std::string peak_problem(int loads_per_thread, int threads_per_block);
void launch_stream_peak(const void* d_data, std::uint64_t elements, int loads_per_thread,
                        unsigned int threads_per_block, bool check, std::uint32_t* d_total, cudaStream_t stream);
// The sum (mod 2^32) over all `elements` of the XOR of each element's four pattern words.
std::uint32_t peak_reference_total(std::uint64_t elements, std::uint32_t seed);

}  // namespace warpcost::kernels
