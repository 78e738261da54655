// Divergence family: warps whose lanes disagree at an if/else, a k-way switch or a two-level nested
// if. Every path is a dependent FMA chain with a runtime trip count and its own constants, so the
// compiler keeps a real branch; lane 0 of every warp records the SM cycles its warp spent in the
// branch region, the wall-clock interval of the region and the SM it ran on.
#pragma once

#include "core/constants.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/probe_kernels.hpp"

namespace warpcost::kernels {

// ---- lane splits -----------------------------------------------------------------------------

// How the k lanes that take the if side are chosen. kWarpUniform is the control: even warps send
// all 32 lanes to the if side and odd warps all 32 to the else side, so half the threads take each
// side and no warp diverges.
enum class SplitPattern { kLowLanes, kInterleaved, kRandom, kWarpUniform };

// "low", "interleaved", "random", "warp_uniform".
const char* pattern_name(SplitPattern pattern);
// The inverse; throws std::invalid_argument naming the text and the allowed names.
SplitPattern parse_pattern(const std::string& name);

// Warp w of the grid reads lanes[w % kMaskTableSize]; bit l set = lane l takes the if side.
inline constexpr int kMaskTableSize = 32;
struct SplitMasks {
  std::uint32_t lanes[kMaskTableSize];
};

// The mask table for k lanes of 32 on the if side (k is ignored for kWarpUniform):
//   low lanes    lanes 0..k-1 in every warp
//   interleaved  lane l takes the if side when floor((l+1)k/32) > floor(lk/32): k lanes spread
//                evenly over the warp (every other lane at k = 16)
//   random       k lanes drawn without replacement, a different draw per table entry, from `seed`
// Throws std::invalid_argument for k outside 0..32.
SplitMasks split_masks(SplitPattern pattern, int k, std::uint32_t seed);

// ---- the path bodies -------------------------------------------------------------------------

// Path p's chain: a <- fma(a, path_multiplier(p), path_addend(p)), kFmasPerTrip times per trip and
// `trips` trips (a loop the compiler may not unroll, around kFmasPerTrip unrolled FMAs), from a
// start of
// (global thread id mod 1024)/1024. Both constants are exact in float, so host and device agree
// bit for bit. Paths 0 and 1 are the if and else sides; the switch uses 0..31, the nested if 0..3.
inline constexpr int kMaxPaths = 32;
// 64 FMAs a trip: the chain's latency (~256 cycles) sets a trip's cost. With 8, identical loops
// cost 39 or 41 cycles a trip by where the compiler placed them (run 20261130T023823Z): the
// instruction fetch of a loop head off a 128-byte line costs ~2 cycles a trip, here under 1%.
inline constexpr int kFmasPerTrip = 64;
using warpcost::kFullWarpMask;
// Every thread's chain starts from its global index (so no two neighbours share a value).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline float chain_start(unsigned long long global_id) {
  return static_cast<float>(global_id % 1024u) * (1.0f / 1024.0f);
}
#if defined(__CUDACC__)
__host__ __device__
#endif
inline constexpr float path_multiplier(int path) {
  return 1.0f - static_cast<float>(path + 1) * (1.0f / 4096.0f);
}
#if defined(__CUDACC__)
__host__ __device__
#endif
inline constexpr float path_addend(int path) {
  return static_cast<float>(path + 1) * (1.0f / 1024.0f);
}

// Host replay of one thread's output.
float path_reference(unsigned long long global_id, int path, int trips);

// ---- what each warp records ------------------------------------------------------------------

struct WarpRecord {
  long long cycles;       // clock64() after the branch's reconvergence minus clock64() before it
  unsigned long long start_ns;  // %globaltimer just before the first clock64() read
  unsigned long long stop_ns;   // %globaltimer just after the second
  unsigned int smid;      // %smid at the end of the region
  unsigned int first_path_vote;  // __ballot_sync of "this lane takes the first path" (the if
                                 // side, the switch's case first_path, the nested if's outer if)
};

// ---- launches --------------------------------------------------------------------------------
// All three kernels run 1D blocks of kDivergenceBlockThreads (4 warps, one per scheduler of a
// 4-scheduler SM); every thread writes its chain's result to d_out[global id], lane 0 of every warp
// writes d_records[global warp], and the probe threads write d_clocks[0..1] (see partial_warp.hpp).
// Trip counts must be >= 0; the wrappers throw std::invalid_argument naming a bad value.
inline constexpr unsigned int kDivergenceBlockThreads = 128;

// if (lane's bit in masks) path 0 for if_trips, else path 1 for else_trips.
void launch_if_else(const SplitMasks& masks, int if_trips, int else_trips, unsigned int blocks,
                    float* d_out, WarpRecord* d_records, ClockSample* d_clocks, cudaStream_t stream);

// switch ((first_path + lane mod paths) mod 32) with 32 cases, each its own chain of `trips`;
// paths in 1..32, first_path in 0..31 (paths = 1 with first_path p runs path p uniformly).
void launch_switch(int paths, int first_path, int trips, unsigned int blocks, float* d_out,
                   WarpRecord* d_records, ClockSample* d_clocks, cudaStream_t stream);

// The switch with a lane table (warpcost-diverge --cases): lane l takes case lane_path[l], and case
// p runs its own chain of trips[p] trips, so the cases may differ in cost and in lanes. The same 32
// cases as launch_switch; `table` from switch_table().
struct SwitchTable {
  unsigned char lane_path[32];
  int trips[kMaxPaths];
};
// One case of a lane table: `lanes` consecutive lanes, each running `trips` trips.
struct SwitchCase {
  int lanes = 0;
  int trips = 0;
};
// Case i takes the next cases[i].lanes lanes (case 0 from lane 0): lanes 0..l0-1, then l0..l0+l1-1,
// ...; throws std::invalid_argument with switch_cases_problem's sentence.
SwitchTable switch_table(const std::vector<SwitchCase>& cases);
void launch_switch_table(const SwitchTable& table, unsigned int blocks, float* d_out, WarpRecord* d_records,
                         ClockSample* d_clocks, cudaStream_t stream);

// Two levels: if (outer bit) { if (inner bit) path 0 else path 1 } else { if (inner bit) path 2
// else path 3 }, each leaf `trips` long.
void launch_nested(std::uint32_t outer_mask, std::uint32_t inner_mask, int trips,
                   unsigned int blocks, float* d_out, WarpRecord* d_records, ClockSample* d_clocks,
                   cudaStream_t stream);

// The leaf a lane reaches in launch_nested: 0..3 as above.
int nested_leaf(std::uint32_t outer_mask, std::uint32_t inner_mask, int lane);

// Outer and inner masks that populate `leaves` (1..4) of the nested if's four leaves:
//   1: every lane at leaf 0; 2: lanes 0-15 leaf 0, 16-31 leaf 2; 3: adds leaf 1 for lanes 8-15;
//   4: the inner split in both halves. Throws std::invalid_argument outside 1..4.
struct NestedMasks {
  std::uint32_t outer;
  std::uint32_t inner;
};
NestedMasks nested_masks(int leaves);

// Resident blocks per SM of each kernel, from cudaOccupancyMaxActiveBlocksPerMultiprocessor.
enum class DivergenceKernel { kIfElse, kSwitch, kNested, kSwitchTable };
int divergence_blocks_per_sm(DivergenceKernel kernel);

// Each parameter's one validator (divergence_plan.cpp): "" when allowed, else the sentence naming
// the value and what is allowed. The planners, the launch wrappers and the runner's configuration
// check all call these.
std::string split_k_problem(int k);
std::string trips_problem(const char* name, int trips);
std::string paths_problem(int paths);
std::string first_path_problem(int first_path);
std::string leaves_problem(int leaves);
// 1..32 cases, each lanes >= 0 and trips 0..kMostCaseTrips, the lanes adding to 32. (A case of no
// lanes is how the runner measures one case alone; warpcost-diverge --cases also asks case 0, its
// uniform reference, to be populated with trips >= 1.)
inline constexpr int kMostCaseTrips = 1000000;
std::string switch_cases_problem(const std::vector<SwitchCase>& cases);

}  // namespace warpcost::kernels
