// The warp-primitives family's pure models and declared facts: the primitive table (what each chain
// op is, the SASS instruction it must contain and how many times, the compute capability it needs),
// the masks, and the three predictions the evaluator holds measurements against (butterfly
// composition, the Programming Guide's shuffle throughput, Little's law knee). No CUDA; built into
// the analysis core so the bench's plan sizes its sweep with the same table.
#pragma once

#include "core/constants.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpcost::warp_primitives {

using warpcost::kWarpSize;
inline constexpr std::uint32_t kFullMask = 0xffffffffu;

// The run-name ids of the primitives (the `primitive` parameter). Never renumber: committed runs
// carry these numbers.
enum class Primitive : int {
  kAlu = 0,            // baseline: a dependent 32-bit integer add (IADD3), x += y; y += x
  kShflIdx32 = 1,      // __shfl_sync on a 32-bit value
  kShflUp32 = 2,       // __shfl_up_sync
  kShflDown32 = 3,     // __shfl_down_sync
  kShflXor32 = 4,      // __shfl_xor_sync
  kShflIdx64 = 5,      // the same four on a 64-bit value (two SHFL each)
  kShflUp64 = 6,
  kShflDown64 = 7,
  kShflXor64 = 8,
  kBallot = 9,         // __ballot_sync
  kAny = 10,           // __any_sync
  kAll = 11,           // __all_sync
  kMatchAny = 12,      // __match_any_sync (32-bit)
  kMatchAll = 13,      // __match_all_sync (32-bit)
  kReduceAdd = 14,     // __reduce_add_sync (cc 8.0+)
  kReduceMin = 15,     // __reduce_min_sync (cc 8.0+)
  kReduceMax = 16,     // __reduce_max_sync (cc 8.0+)
  kSyncwarp = 17,      // __syncwarp(mask)
  kActivemask = 18,    // __activemask()
  kSumButterfly = 19,  // one full-warp 32-bit sum: 5 x (SHFL.BFLY + IADD3)
  kSumShared = 20,     // one full-warp 32-bit sum through shared memory and __syncwarp
  kSumButterfly64 = 21,   // 64-bit integer sum by butterfly (no hardware reduction for it)
  kSumButterflyF32 = 22,  // float sum by butterfly (no hardware reduction for it)
};
inline constexpr int kPrimitiveCount = 23;

enum class MaskShape : int {
  kContiguous = 0,  // lanes 0..n-1
  kScattered = 1,   // n lanes spread over the warp (lane_mask)
  kDivergent = 2,   // lanes 0..n-1 take one side of a branch, the rest the other; each side
                    // runs the chain with its own mask
};

struct PrimitiveInfo {
  Primitive id;
  const char* name;        // "shfl_xor32": plots, docs, the tool's --primitive
  const char* sass;        // the SASS mnemonic prefix the timed chain must contain ("SHFL.BFLY")
  int sass_per_op;         // how many of them one op issues
  int body_inst_per_op;    // every SASS instruction one op of the chain should issue (docs table)
  int min_cc;              // 10 x major + minor the primitive needs
  bool lane_sweep;         // may run with fewer than 32 lanes (a sum of the whole warp may not)
  bool shuffle32;          // a 32-bit shuffle: judged against the Guide's table
  bool shuffle64;          // a 64-bit shuffle: two SHFL an op, judged at half the table's rate
  bool data_dependent;     // each op reads the previous op's result (false: issue cost only)
};

const std::vector<PrimitiveInfo>& primitives();  // in id order
const PrimitiveInfo& info(Primitive p);          // throws std::out_of_range
const PrimitiveInfo* find_primitive(const std::string& name);  // nullptr when unknown
bool is_primitive_id(long long id);
// Whether a warp's chains of the primitive run one after another (ISSUE-33-PRIMITIVES-SERIAL): its
// op is a memory-ordering barrier (__syncwarp: sum_shared between its shared-memory steps, and
// syncwarp itself), so no chain's op may move past another chain's. The second-order curve then
// waits c x L an iteration, not L.
bool chains_serialise(Primitive p);

// On a device of compute capability cc (10 x major + minor), whether the primitive exists.
inline bool available(const PrimitiveInfo& p, int cc) { return cc >= p.min_cc; }

// The lanes of a mask of n active lanes. Contiguous: lanes 0..n-1. Scattered: lane i*32/n for
// i < n (n evenly spread lanes; 31 lanes leave lane 31 out... see the .cpp), the same count.
// Divergent: the first side's mask (lanes 0..n-1); the other side is its complement.
// Throws std::invalid_argument for n outside 1..32.
std::uint32_t lane_mask(int active_lanes, MaskShape shape);
int popcount(std::uint32_t mask);

// ---- the models

// Butterfly composition: one full-warp sum costs 5 steps, each one SHFL.BFLY and the add that reads
// it: latency = 5 x (shuffle latency + add latency), both from their own chains.
double butterfly_latency(double shuffle_cycles, double add_cycles);

// The CUDA C++ Programming Guide, "Arithmetic Instructions", table "Throughput of Native Arithmetic
// Instructions (Number of Results per Clock Cycle per Multiprocessor)", row "warp shuffle": 32 for
// compute capability 9.0. Results are per lane: one warp-wide SHFL gives 32, so the table's
// 32 results/clock/SM is 32/32 = 1 warp shuffle instruction per clock per SM.
inline constexpr double kGuideShuffleResultsPerClockCc90 = 32.0;
// Warp-ops per cycle per SM the table predicts for a primitive with `sass_per_op` SHFLs an op on a
// device of compute capability cc; empty where this project has not declared the table's value.
std::optional<double> guide_shuffle_ops_per_cycle(int cc, int sass_per_op);

// Little's law: warps an SM needs to keep `ops_per_cycle` warp-ops in flight each cycle when one
// op takes `latency_cycles` and each warp has `chains_per_warp` independent ops in flight:
// warps = latency x throughput / chains.
double little_knee_warps(double latency_cycles, double ops_per_cycle, int chains_per_warp);
// The measured knee: the smallest swept warps/SM whose throughput reaches `fraction` of the best
// throughput of the sweep; empty for an empty sweep. Points are (warps/SM, ops/cycle), any order.
std::optional<double> measured_knee(std::vector<std::pair<double, double>> points, double fraction);
// The second-order throughput (docs/models.md, "Warp primitives"): W warps an SM, each with c
// independent chains of one primitive, share the SM's pipe for it (P warp-ops a cycle at full
// residency). One iteration of a warp issues one op of each chain (service demand D = c / P at
// the pipe) and then waits for its first chain's result (delay Z = max(L - D, 0), L the chain's
// latency); a closed queue (mean-value analysis) of W such warps gives the iteration time T(W), and
// warp-ops a cycle an SM = c W / T(W). Throws std::invalid_argument for W < 1, c < 1, L or P not > 0.
double second_order_throughput(int warps, int chains, double latency_cycles, double pipe_ops_per_cycle);

}  // namespace warpcost::warp_primitives
