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

}  // namespace warpcost::kernels
