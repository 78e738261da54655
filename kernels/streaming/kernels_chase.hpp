// Latency family: a single thread chases pointers around a ring of nodes, one node per 256-byte
// line, so every load depends on the one before and the time per load is the memory latency of
// whatever level the ring fits in.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "kernels/common/pattern.hpp"

namespace warpcost::kernels {

// Random: the nodes in the order of a seeded permutation (what the cache and the TLB cannot
// predict); stride: node i points to node i + 1 (the fixed-stride definition many published
// latency tables use, which prefetchers and open DRAM pages help).
enum class RingOrder { kRandom, kStride };
const char* ring_order_name(RingOrder order);

inline constexpr std::uint64_t kNodeBytes = 256;

// The j-th node of the ring, for a ring of `nodes` (a power of two, at least 2): a bijection of
// [0, nodes) built from odd multiplications, additions and xor-shifts modulo nodes (each one
// invertible on log2(nodes) bits), its constants drawn from `seed`. The stride order is the
// identity. Host and device compute the same node.
WARPCOST_HOST_DEVICE inline std::uint64_t ring_node(std::uint64_t j, std::uint64_t nodes,
                                                    RingOrder order, std::uint32_t seed) {
  if (order == RingOrder::kStride) return j;
  const std::uint64_t mask = nodes - 1;
  int bits = 0;
  while ((std::uint64_t{1} << bits) < nodes) ++bits;
  std::uint64_t x = j;
  for (std::uint64_t round = 0; round < 3; ++round) {
    const std::uint64_t odd = static_cast<std::uint64_t>(pattern_word(2 * round, seed)) | 1u;
    const std::uint64_t add = pattern_word(2 * round + 1, seed);
    x = (x * odd + add) & mask;
    const int shift = bits / 2 + 1;
    if (shift < bits) x ^= x >> shift;
  }
  return x;
}

struct ChaseResult {
  long long cycles;              // clock64() over the timed steps
  unsigned long long ns;         // %globaltimer over the timed steps
  unsigned long long final_node; // node index the chase ended on
  unsigned int smid_start;
  unsigned int smid_end;
};

// Writes the ring into d_buffer (nodes × kNodeBytes bytes): the first 8 bytes of node
// ring_node(j) hold the address of node ring_node(j + 1 mod nodes). Throws std::invalid_argument
// for a node count that is not a power of two of at least 2.
void launch_build_ring(unsigned char* d_buffer, std::uint64_t nodes, RingOrder order,
                       std::uint32_t seed, cudaStream_t stream);

// One thread from node ring_node(0): warm_steps loads untimed, then `steps` timed loads.
void launch_chase(const unsigned char* d_buffer, std::uint64_t start_node, std::uint64_t warm_steps,
                  std::uint64_t steps, ChaseResult* d_result, cudaStream_t stream);

// ---- the loaded chase (issue 33): the same chase beside a background load stream ----------------

// Warps a block of the loaded chase may have (the background's warps per SM).
inline constexpr int kMostBackgroundWarps = 32;
// A background thread reads the phase word once every this many loads. Every warp reads the same
// word, so one L2 slice serves all the polls: at 32 loads a poll they add a few per cent to that
// slice's requests at the heaviest background, where 8 would add a third; the window's loads are
// counted to within a poll at each end, as often early as late.
inline constexpr int kBackgroundPollLoads = 32;
// The background stops by itself after this many laps of its buffer (a thread's share of them),
// so that a chaser that never signals cannot hold the GPU: 64 laps of a 2 GiB buffer take 30 ms
// at the H200's whole DRAM rate, several times the longest chase the suite plans.
inline constexpr std::uint64_t kBackgroundWatchdogLaps = 64;

// The loaded chase's control words and its result. The launch zeroes it (the background window's
// start to all ones, for atomicMin) before the kernel runs.
struct LoadedChaseResult {
  ChaseResult chase;                       // the chaser's own numbers, as launch_chase's
  unsigned long long background_loads;     // 16-byte loads the background made, start to stop
  unsigned long long window_loads;         // of them, those counted while the chase was timed
  unsigned long long background_start_ns;  // %globaltimer: the first background block's start
  unsigned long long background_stop_ns;   // the last background warp's stop
  unsigned int blocks_started;             // background blocks that had begun
  unsigned int started_at_chase;           // of them, those begun when the chaser stopped waiting
  unsigned int watchdog_stops;             // background warps that stopped on the watchdog
  unsigned int phase;                      // 0 warm-up, 1 timed, 2 done (written by the chaser)
};

// Blocks of `threads` threads of the loaded chase kernel an SM holds at once (the occupancy API).
int chase_loaded_resident_blocks(int threads);

// The loaded chase: background_blocks blocks (one an SM: the caller passes the SM count) of
// background_warps warps each stream 16-byte loads over d_background (`elements` uint4s, grid
// stride, wrapping) until the chase is done; one more block's thread 0 waits until every background
// block has begun, then chases the ring at d_ring from start_node: warm_steps untimed loads, then
// `steps` timed ones. background_warps = 0: no background, a grid of the chaser's block alone (one
// warp). d_background_smids receives each background block's SM (background_blocks words).
// Throws std::invalid_argument naming the value when background_warps is outside
// 0..kMostBackgroundWarps, steps is 0, or two blocks of the kernel do not fit an SM (the chaser's
// block and a background block must run at once, else the chaser would wait for ever).
void launch_chase_loaded(const unsigned char* d_ring, std::uint64_t start_node, std::uint64_t warm_steps,
                         std::uint64_t steps, const void* d_background, std::uint64_t elements,
                         unsigned int background_blocks, int background_warps, unsigned int* d_background_smids,
                         LoadedChaseResult* d_result, cudaStream_t stream);

}  // namespace warpcost::kernels
