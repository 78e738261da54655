// The warp-primitives family's kernels, as plain C++ declarations: one chain kernel per primitive
// and chain count (the primitive's op repeated `ops` times in each chain, kChunkOps ops unrolled a
// loop trip), and the mask-facts kernel. Ids are warp_primitives::Primitive
// (core/warp_primitives/model.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace warpcost::kernels {

// Ops unrolled in one loop trip of a chain (the SASS check counts the primitive per trip).
inline constexpr int kPrimitiveChunkOps = 64;
// Chains the throughput kernels run a warp (the latency kernels run one).
inline constexpr int kThroughputChains = 4;

// Each side's record of one warp: clock64() before and after its chain(s), by the side's lowest lane.
struct WarpSideClock {
  long long start;
  long long end;
};

// Each block's clock span on its SM: thread 0's clock64() at the block's start and after every
// warp of the block finished (a __syncthreads).
struct BlockSpan {
  long long start;
  long long end;
  unsigned int smid;
  unsigned int pad;
};

struct PrimitiveChainArgs {
  std::uint32_t mask_a = 0;  // the lanes of the first side (every lane set here runs with mask_a)
  std::uint32_t mask_b = 0;  // divergent points: the other side's lanes and mask; 0 otherwise
  std::uint32_t ops = 0;     // ops a chain, a multiple of kPrimitiveChunkOps
  std::uint32_t delta = 1;   // the shuffles' lane delta / xor mask
  std::uint32_t seed = 0;    // the chains' start values are seed + lane + 97 x chain
  unsigned long long* values = nullptr;  // per thread, per chain: the chain's final value (as 64 bits)
  WarpSideClock* warp_clocks = nullptr;  // per warp, 2 sides
  BlockSpan* block_spans = nullptr;      // per block
  int* not_on_this_gpu = nullptr;        // set to 1 by a reduction kernel built for cc < 8.0
};

// Launches primitive `primitive`'s chain kernel (1 chain a warp, or kThroughputChains).
// Throws std::invalid_argument for an unknown primitive or chain count.
void launch_primitive_chain(int primitive, int chains, const PrimitiveChainArgs& args, unsigned int blocks,
                            unsigned int threads_per_block, cudaStream_t stream);
// The static shared memory a chain kernel needs (sum_shared), for the occupancy check.
int primitive_chain_max_blocks_per_sm(int primitive, int chains, int threads_per_block);

// The lesson's mask facts, per thread of a block of `threads` (48: a partial second warp):
//  taken_activemask: __activemask() inside `if (lane < split)`; taken_ballot: the ballot of the lanes
//  that took it (__ballot_sync(__activemask(), 1)); full_shuffle: __shfl_sync(0xffffffff, lane, 0),
//  which in a partial warp names lanes that do not exist (synccheck reports it).
struct MaskFacts {
  unsigned int taken_activemask;
  unsigned int taken_ballot;
  unsigned int full_shuffle;
  unsigned int lane;
};
void launch_mask_facts(MaskFacts* facts, int threads, int split, bool full_mask_shuffle, cudaStream_t stream);

}  // namespace warpcost::kernels
