// The warp-primitives chain kernels' device code, shared by the files that instantiate them
// (kernels_chains_<n>.cu, one group of primitives each, so a build compiles the groups at once):
// one kernel per (primitive, chains), each running its primitive's op `ops` times in every chain,
// kPrimitiveChunkOps unrolled a loop trip, between two clock64() reads of each side. Built with
// -DWARPCOST_PRIMITIVES_PLAIN_MOVE (the SASS check's negative control) every primitive becomes a
// plain move of its input, and scripts/check-sass-primitives.sh must fail on that build.
// Included by .cu files only; kernels.cu dispatches over the groups.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/warp_primitives/model.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_util.cuh"
#include "kernels/warp_primitives/kernels.hpp"

namespace warpcost::kernels {
namespace {

using warp_primitives::Primitive;

constexpr int kMaxWarpsPerBlock = 32;

#if defined(WARPCOST_PRIMITIVES_PLAIN_MOVE)
#define WP_SHFL(mask, v, lane) (v)
#define WP_SHFL_UP(mask, v, d) (v)
#define WP_SHFL_DOWN(mask, v, d) (v)
#define WP_SHFL_XOR(mask, v, d) (v)
#define WP_BALLOT(mask, p) (static_cast<unsigned>(p))
#define WP_ANY(mask, p) (static_cast<int>(p))
#define WP_ALL(mask, p) (static_cast<int>(p))
#define WP_MATCH_ANY(mask, v) (v)
#define WP_MATCH_ALL(mask, v, pred) (v)
#define WP_REDUCE_ADD(mask, v) (v)
#define WP_REDUCE_MIN(mask, v) (v)
#define WP_REDUCE_MAX(mask, v) (v)
#define WP_SYNCWARP(mask) ((void)0)
#define WP_ACTIVEMASK() (0u)
#else
#define WP_SHFL(mask, v, lane) __shfl_sync(mask, v, lane)
#define WP_SHFL_UP(mask, v, d) __shfl_up_sync(mask, v, d)
#define WP_SHFL_DOWN(mask, v, d) __shfl_down_sync(mask, v, d)
#define WP_SHFL_XOR(mask, v, d) __shfl_xor_sync(mask, v, d)
#define WP_BALLOT(mask, p) __ballot_sync(mask, p)
#define WP_ANY(mask, p) __any_sync(mask, p)
#define WP_ALL(mask, p) __all_sync(mask, p)
#define WP_MATCH_ANY(mask, v) __match_any_sync(mask, v)
#define WP_MATCH_ALL(mask, v, pred) __match_all_sync(mask, v, pred)
#define WP_REDUCE_ADD(mask, v) __reduce_add_sync(mask, v)
#define WP_REDUCE_MIN(mask, v) __reduce_min_sync(mask, v)
#define WP_REDUCE_MAX(mask, v) __reduce_max_sync(mask, v)
#define WP_SYNCWARP(mask) __syncwarp(mask)
#define WP_ACTIVEMASK() __activemask()
#endif

// The reductions exist from cc 8.0 on; below, the kernel says so instead of running.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr bool kHasRedux = false;
#else
constexpr bool kHasRedux = true;
#endif

template <Primitive P>
struct ValueOf {
  using type = unsigned;
};
template <>
struct ValueOf<Primitive::kShflIdx64> {
  using type = unsigned long long;
};
template <>
struct ValueOf<Primitive::kShflUp64> {
  using type = unsigned long long;
};
template <>
struct ValueOf<Primitive::kShflDown64> {
  using type = unsigned long long;
};
template <>
struct ValueOf<Primitive::kShflXor64> {
  using type = unsigned long long;
};
template <>
struct ValueOf<Primitive::kSumButterfly64> {
  using type = unsigned long long;
};
template <>
struct ValueOf<Primitive::kSumButterflyF32> {
  using type = float;
};

// What a side's lanes know about their mask.
struct Lanes {
  unsigned mask;
  unsigned lane;
  unsigned lane_bit;
  int src_lane;  // the next lane of the mask above this one, cyclically (shfl_idx)
  unsigned delta;
};

// One op of primitive P on value v (two for alu_add: `aux` is its partner, y in x += y; y += x).
template <Primitive P, class T>
__device__ __forceinline__ void op(T& v, T& aux, const Lanes& l, unsigned* shared_row) {
  if constexpr (P == Primitive::kAlu) {
    v += aux;  // one op: the chain alternates the roles of v and aux (see chain_chunk)
  } else if constexpr (P == Primitive::kShflIdx32 || P == Primitive::kShflIdx64) {
    v = WP_SHFL(l.mask, v, l.src_lane);
  } else if constexpr (P == Primitive::kShflUp32 || P == Primitive::kShflUp64) {
    v = WP_SHFL_UP(l.mask, v, l.delta);
  } else if constexpr (P == Primitive::kShflDown32 || P == Primitive::kShflDown64) {
    v = WP_SHFL_DOWN(l.mask, v, l.delta);
  } else if constexpr (P == Primitive::kShflXor32 || P == Primitive::kShflXor64) {
    v = WP_SHFL_XOR(l.mask, v, l.delta);
  } else if constexpr (P == Primitive::kBallot) {
    v = WP_BALLOT(l.mask, (v & l.lane_bit) == 0u);
  } else if constexpr (P == Primitive::kAny) {
    v = static_cast<unsigned>(WP_ANY(l.mask, v == 0u));
  } else if constexpr (P == Primitive::kAll) {
    v = static_cast<unsigned>(WP_ALL(l.mask, v == 0u));
  } else if constexpr (P == Primitive::kMatchAny) {
    v = WP_MATCH_ANY(l.mask, v);
  } else if constexpr (P == Primitive::kMatchAll) {
    int pred = 0;
    v = WP_MATCH_ALL(l.mask, v, &pred);
  } else if constexpr (P == Primitive::kReduceAdd || P == Primitive::kReduceMin || P == Primitive::kReduceMax) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    if constexpr (P == Primitive::kReduceAdd) v = WP_REDUCE_ADD(l.mask, v);
    if constexpr (P == Primitive::kReduceMin) v = WP_REDUCE_MIN(l.mask, v);
    if constexpr (P == Primitive::kReduceMax) v = WP_REDUCE_MAX(l.mask, v);
#endif
  } else if constexpr (P == Primitive::kSyncwarp) {
    WP_SYNCWARP(l.mask);
  } else if constexpr (P == Primitive::kActivemask) {
    v ^= WP_ACTIVEMASK();
  } else if constexpr (P == Primitive::kSumButterfly || P == Primitive::kSumButterfly64 ||
                       P == Primitive::kSumButterflyF32) {
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1) v += WP_SHFL_XOR(l.mask, v, off);
  } else if constexpr (P == Primitive::kSumShared) {
    // shared_row[lane] holds v on entry and on exit (the chain stores it once before its first op).
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1) {
      const unsigned t = v + shared_row[l.lane ^ off];
      WP_SYNCWARP(l.mask);  // every lane has read its partner before any lane overwrites
      shared_row[l.lane] = t;
      v = t;
      WP_SYNCWARP(l.mask);  // every write is visible before the next step reads
    }
  }
  (void)aux;
  (void)shared_row;
}

template <Primitive P, int C>
__device__ __forceinline__ void run_side(const PrimitiveChainArgs& a, const Lanes& l, int side, unsigned* shared_rows) {
  using T = typename ValueOf<P>::type;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32u;
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  T v[C];
  T aux[C];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    unsigned start = a.seed + l.lane + 97u * static_cast<unsigned>(c);
    if constexpr (P == Primitive::kMatchAny) start = (l.lane & 3u) + 97u * static_cast<unsigned>(c);
    if constexpr (P == Primitive::kMatchAll) start = a.seed + 97u * static_cast<unsigned>(c);
    if constexpr (sizeof(T) == 8) {
      v[c] = static_cast<T>(start) * 0x100000001ull;  // both halves live: neither is a known constant
    } else {
      v[c] = static_cast<T>(start);
    }
    aux[c] = static_cast<T>(a.seed ^ 0x5bd1e995u);
    if constexpr (P == Primitive::kSumShared) shared_rows[c * 32 * kMaxWarpsPerBlock + l.lane] = start;
  }
  WP_SYNCWARP(l.mask);
  const long long t0 = clock64();
  for (unsigned chunk = 0; chunk < a.ops / kPrimitiveChunkOps; ++chunk) {
#pragma unroll
    for (int k = 0; k < kPrimitiveChunkOps; ++k) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        if constexpr (P == Primitive::kAlu) {
          // x += y, then y += x: every add reads the one before it.
          if (k % 2 == 0) {
            op<P>(v[c], aux[c], l, nullptr);
          } else {
            op<P>(aux[c], v[c], l, nullptr);
          }
        } else {
          op<P>(v[c], aux[c], l, shared_rows + c * 32 * kMaxWarpsPerBlock);
        }
      }
    }
  }
  const long long t1 = clock64();
#pragma unroll
  for (int c = 0; c < C; ++c) {
    unsigned long long out;
    if constexpr (P == Primitive::kSumButterflyF32) {
      out = __float_as_uint(v[c]);
    } else if constexpr (P == Primitive::kAlu) {
      out = static_cast<unsigned long long>(v[c]) | (static_cast<unsigned long long>(aux[c]) << 32);
    } else {
      out = static_cast<unsigned long long>(v[c]);
    }
    a.values[static_cast<std::size_t>(thread) * C + c] = out;
  }
  if (l.lane == static_cast<unsigned>(__ffs(l.mask) - 1)) {
    a.warp_clocks[2 * warp + side] = WarpSideClock{t0, t1};
  }
}

// Throughput kernels run 64 warps an SM on the H200 as two blocks of 1024 threads: at most 32
// registers a thread, which the bounds make the compiler keep to where an SM holds 2048 threads
// (cc 8.0, 9.0); elsewhere one block of 1024 is all an SM holds of them anyway.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900)
#define WP_THROUGHPUT_MIN_BLOCKS 2
#else
#define WP_THROUGHPUT_MIN_BLOCKS 1
#endif
template <Primitive P, int C>
__global__ void __launch_bounds__(1024, C > 1 ? WP_THROUGHPUT_MIN_BLOCKS : 1) primitive_chain_kernel(PrimitiveChainArgs a) {
  __shared__ long long block_start;
  unsigned* shared_rows = nullptr;
  if constexpr (P == Primitive::kSumShared) {
    __shared__ unsigned rows[C * kMaxWarpsPerBlock * 32];
    shared_rows = rows + (threadIdx.x / 32u) * 32u;
  }
  if (threadIdx.x == 0) block_start = clock64();
  constexpr bool is_redux = P == Primitive::kReduceAdd || P == Primitive::kReduceMin || P == Primitive::kReduceMax;
  if constexpr (is_redux && !kHasRedux) {
    if (threadIdx.x == 0 && blockIdx.x == 0) *a.not_on_this_gpu = 1;
    return;
  } else {
    const unsigned lane = threadIdx.x & 31u;
    const unsigned bit = 1u << lane;
    const bool in_a = (a.mask_a & bit) != 0u;
    const bool in_b = (a.mask_b & bit) != 0u;
    if (in_a || in_b) {
      Lanes l;
      l.mask = in_a ? a.mask_a : a.mask_b;
      l.lane = lane;
      l.lane_bit = bit;
      const unsigned above = lane == 31u ? 0u : l.mask & ~((bit << 1) - 1u);
      l.src_lane = (above != 0u ? __ffs(above) : __ffs(l.mask)) - 1;
      l.delta = a.delta;
      if (in_a) {
        run_side<P, C>(a, l, 0, shared_rows);
      } else {
        run_side<P, C>(a, l, 1, shared_rows);
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      a.block_spans[blockIdx.x] = BlockSpan{block_start, clock64(), device::smid(), 0u};
    }
  }
}

template <Primitive P, int C>
void launch_one(const PrimitiveChainArgs& args, unsigned int blocks, unsigned int threads, cudaStream_t stream) {
  primitive_chain_kernel<P, C><<<blocks, threads, 0, stream>>>(args);
  WARPCOST_CHECK_LAUNCH("primitive_chain_kernel");
}

template <Primitive P, int C>
int occupancy_one(int threads) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, primitive_chain_kernel<P, C>, threads, 0));
  return blocks;
}

}  // namespace

// The kernels' groups, one chain file each (kernels_chains_<n>.cu): X(primitive, chains) for every
// kernel of the group; together every (primitive, chains) once (kernels.cu checks the count). The
// sums unroll 5 steps an op and compile longest: sum_shared and sum_butterfly64 a file per chain
// count. The SASS of a kernel does not depend on its file.
#define WP_BOTH(X, name) X(name, 1) X(name, kThroughputChains)
#define WP_GROUP_0(X) \
  WP_BOTH(X, kAlu) WP_BOTH(X, kShflIdx32) WP_BOTH(X, kShflUp32) WP_BOTH(X, kShflDown32) WP_BOTH(X, kShflXor32)
#define WP_GROUP_1(X) WP_BOTH(X, kShflIdx64) WP_BOTH(X, kShflUp64) WP_BOTH(X, kShflDown64) WP_BOTH(X, kShflXor64)
#define WP_GROUP_2(X) \
  WP_BOTH(X, kBallot) WP_BOTH(X, kAny) WP_BOTH(X, kAll) WP_BOTH(X, kMatchAny) WP_BOTH(X, kMatchAll)
#define WP_GROUP_3(X) \
  WP_BOTH(X, kReduceAdd) WP_BOTH(X, kReduceMin) WP_BOTH(X, kReduceMax) WP_BOTH(X, kSyncwarp) WP_BOTH(X, kActivemask)
#define WP_GROUP_4(X) WP_BOTH(X, kSumButterfly)
#define WP_GROUP_5(X) X(kSumShared, 1)
#define WP_GROUP_6(X) X(kSumShared, kThroughputChains)
#define WP_GROUP_7(X) X(kSumButterfly64, 1)
#define WP_GROUP_8(X) X(kSumButterfly64, kThroughputChains)
#define WP_GROUP_9(X) WP_BOTH(X, kSumButterflyF32)
#define WP_FOR_EACH_KERNEL(X)                                                                                  \
  WP_GROUP_0(X) WP_GROUP_1(X) WP_GROUP_2(X) WP_GROUP_3(X) WP_GROUP_4(X) WP_GROUP_5(X) WP_GROUP_6(X) WP_GROUP_7(X) \
  WP_GROUP_8(X) WP_GROUP_9(X)
#define WP_FOR_EACH_GROUP(G) G(0) G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9)

// Group n's two functions: launch or size the kernel (primitive, chains) when it is in the group
// (true), else false. kernels.cu asks each group in turn.
#define WP_DECLARE_CHAIN_GROUP(n)                                                                             \
  bool launch_chain_group_##n(int primitive, int chains, const PrimitiveChainArgs& args, unsigned int blocks, \
                              unsigned int threads_per_block, cudaStream_t stream);                           \
  bool chain_group_max_blocks_per_sm_##n(int primitive, int chains, int threads_per_block, int* blocks);
WP_FOR_EACH_GROUP(WP_DECLARE_CHAIN_GROUP)

// Defines group n's two functions (in its kernels_chains_<n>.cu).
#define WP_LAUNCH_IF(name, C)                                                    \
  if (primitive == static_cast<int>(Primitive::name) && chains == (C)) {         \
    launch_one<Primitive::name, (C)>(args, blocks, threads_per_block, stream);   \
    return true;                                                                 \
  }
#define WP_OCCUPANCY_IF(name, C)                                                 \
  if (primitive == static_cast<int>(Primitive::name) && chains == (C)) {         \
    *blocks = occupancy_one<Primitive::name, (C)>(threads_per_block);            \
    return true;                                                                 \
  }
#define WP_DEFINE_CHAIN_GROUP(n)                                                                              \
  bool launch_chain_group_##n(int primitive, int chains, const PrimitiveChainArgs& args, unsigned int blocks, \
                              unsigned int threads_per_block, cudaStream_t stream) {                          \
    WP_GROUP_##n(WP_LAUNCH_IF) return false;                                                                  \
  }                                                                                                           \
  bool chain_group_max_blocks_per_sm_##n(int primitive, int chains, int threads_per_block, int* blocks) {     \
    WP_GROUP_##n(WP_OCCUPANCY_IF) return false;                                                               \
  }

}  // namespace warpcost::kernels
