// The warp-primitives family's host entry points: the chain kernels' dispatch over the groups of
// kernels_chains_<n>.cu (their device code in kernels_chain.hpp), and the mask-facts kernel.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "core/warp_primitives/model.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/warp_primitives/kernels.hpp"
#include "kernels/warp_primitives/kernels_chain.hpp"

namespace warpcost::kernels {

#define WP_COUNT(name, C) +1
static_assert(0 WP_FOR_EACH_KERNEL(WP_COUNT) == 2 * warp_primitives::kPrimitiveCount,
              "every (primitive, chains) in one group of kernels_chain.hpp");
#undef WP_COUNT

namespace {

[[noreturn]] void unknown_primitive(int primitive) {
  throw std::invalid_argument("primitive = " + std::to_string(primitive) + ". allowed: 0.." +
                              std::to_string(warp_primitives::kPrimitiveCount - 1));
}

__global__ void mask_facts_kernel(MaskFacts* facts, int split, bool full_mask_shuffle) {
  const unsigned lane = threadIdx.x & 31u;
  MaskFacts f{0u, 0u, 0u, lane};
  if (static_cast<int>(lane) < split) {
    f.taken_activemask = __activemask();
    f.taken_ballot = __ballot_sync(f.taken_activemask, 1);
  }
  __syncwarp(__activemask());
  if (full_mask_shuffle) {
    // In a partial warp the full mask names lanes that do not exist: what synccheck reports.
    f.full_shuffle = __shfl_sync(0xffffffffu, lane, 0);
  } else {
    f.full_shuffle = __shfl_sync(__activemask(), lane, 0);
  }
  facts[threadIdx.x] = f;
}

// The groups' functions, in group order (kernels_chain.hpp).
#define WP_LAUNCHER(n) &launch_chain_group_##n,
#define WP_SIZER(n) &chain_group_max_blocks_per_sm_##n,
constexpr decltype(&launch_chain_group_0) kLaunchers[] = {WP_FOR_EACH_GROUP(WP_LAUNCHER)};
constexpr decltype(&chain_group_max_blocks_per_sm_0) kSizers[] = {WP_FOR_EACH_GROUP(WP_SIZER)};
#undef WP_LAUNCHER
#undef WP_SIZER

// An unknown primitive is named first, then a chain count other than 1 and kThroughputChains.
void check_chain_kernel(int primitive, int chains) {
  if (primitive < 0 || primitive >= warp_primitives::kPrimitiveCount) unknown_primitive(primitive);
  if (chains != 1 && chains != kThroughputChains) {
    throw std::invalid_argument("chains = " + std::to_string(chains) + ". allowed: 1, " +
                                std::to_string(kThroughputChains));
  }
}

[[noreturn]] void in_no_group(int primitive, int chains) {
  throw std::logic_error("primitive " + std::to_string(primitive) + " with " + std::to_string(chains) +
                         " chains is in no group of kernels_chain.hpp");
}

}  // namespace

void launch_primitive_chain(int primitive, int chains, const PrimitiveChainArgs& args, unsigned int blocks,
                            unsigned int threads_per_block, cudaStream_t stream) {
  check_chain_kernel(primitive, chains);
  for (const auto launch : kLaunchers) {
    if (launch(primitive, chains, args, blocks, threads_per_block, stream)) return;
  }
  in_no_group(primitive, chains);
}

int primitive_chain_max_blocks_per_sm(int primitive, int chains, int threads_per_block) {
  check_chain_kernel(primitive, chains);
  int blocks = 0;
  for (const auto size : kSizers) {
    if (size(primitive, chains, threads_per_block, &blocks)) return blocks;
  }
  in_no_group(primitive, chains);
}

void launch_mask_facts(MaskFacts* facts, int threads, int split, bool full_mask_shuffle, cudaStream_t stream) {
  if (threads < 1 || threads > 1024) {
    throw std::invalid_argument("threads = " + std::to_string(threads) + ". allowed: 1..1024");
  }
  mask_facts_kernel<<<1, static_cast<unsigned>(threads), 0, stream>>>(facts, split, full_mask_shuffle);
  WARPCOST_CHECK_LAUNCH("mask_facts_kernel");
}

}  // namespace warpcost::kernels
