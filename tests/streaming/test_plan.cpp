// The streaming and latency families' host side: the residency plan that holds
// an exact number of warps per SM, the ring permutation, the stream's host
// replay, and every bad-input message.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bench/streaming/runner.hpp"
#include "kernels/common/pattern.hpp"
#include "kernels/streaming/kernels_chase.hpp"
#include "kernels/streaming/kernels.hpp"

namespace warpcost {
namespace {

// An H200's limits (cc 9.0): 64 warps and 32 blocks an SM, 228 KiB of shared
// memory an SM, 227 KiB a block, 1 KiB reserved per block, shared memory
// allocated in 128-byte units.
const ResidencyLimits kH200{64, 32, 1024, 233472, 232448, 1024, 128};

TEST(ResidencyPlan, EveryHoldableCountIsPlannedSoKFitAndKPlusOneDoNot) {
  int feasible = 0;
  for (int w = 1; w <= 64; ++w) {
    const ResidencyPlan p = plan_residency(w, kH200);
    if (!p.problem.empty()) continue;
    ++feasible;
    EXPECT_EQ(p.warps_per_block * p.blocks_per_sm, w);
    EXPECT_LE(p.blocks_per_sm, 32);
    EXPECT_LE(p.warps_per_block, 32);
    if (p.shared_bytes > 0) {
      // What a block takes: its bytes and the reserved part, rounded up to
      // whole 128-byte units.
      const long long per_block = (p.shared_bytes + kH200.shared_reserved_per_block + 127) / 128 * 128;
      EXPECT_LE(p.blocks_per_sm * per_block, kH200.shared_per_sm) << w;
      EXPECT_GT((p.blocks_per_sm + 1) * per_block, kH200.shared_per_sm) << w;
      EXPECT_LE(p.shared_bytes, kH200.shared_per_block_optin) << w;
    } else {
      // Unpinned only where one more block would break the block or the warp
      // cap.
      EXPECT_TRUE(p.blocks_per_sm == 32 || (p.blocks_per_sm + 1) * p.warps_per_block > 64) << w;
    }
  }
  EXPECT_EQ(feasible, 57);  // 64 less the seven primes above 32
  EXPECT_EQ(plan_residency(1, kH200).warps_per_block, 1);
  EXPECT_EQ(plan_residency(64, kH200).warps_per_block, 2);
  EXPECT_EQ(plan_residency(64, kH200).blocks_per_sm, 32);
  EXPECT_EQ(plan_residency(33, kH200).warps_per_block, 3);
  // 11 one-warp blocks: 233472 / 11 = 21224 bytes, 21120 in whole 128-byte
  // units, less the 1024 reserved. The H200's occupancy API refused 20200
  // (21224 less 1024), which rounds up to 21248.
  EXPECT_EQ(plan_residency(11, kH200).shared_bytes, 20096);
}

TEST(ResidencyPlan, ImpossibleCountsSayWhy) {
  EXPECT_EQ(plan_residency(65, kH200).problem, "warps per SM = 65; allowed: 1..64");
  EXPECT_EQ(plan_residency(0, kH200).problem, "warps per SM = 0; allowed: 1..64");
  EXPECT_NE(plan_residency(37, kH200).problem.find("warps per SM = 37: no block of 1..32 warps"),
            std::string::npos);
}

TEST(Ring, RandomOrderIsAPermutationAndDiffersFromTheStride) {
  for (const std::uint64_t nodes : {2ull, 4ull, 64ull, 1024ull, 65536ull}) {
    std::set<std::uint64_t> seen;
    int in_place = 0;
    for (std::uint64_t j = 0; j < nodes; ++j) {
      const std::uint64_t n = kernels::ring_node(j, nodes, kernels::RingOrder::kRandom, 9);
      EXPECT_LT(n, nodes);
      seen.insert(n);
      if (n == j) ++in_place;
    }
    EXPECT_EQ(seen.size(), nodes) << nodes << " nodes";
    if (nodes >= 1024) {
      EXPECT_LT(in_place, static_cast<int>(nodes / 16)) << "hardly shuffled";
    }
  }
  EXPECT_EQ(kernels::ring_node(77, 1024, kernels::RingOrder::kStride, 9), 77u);
  EXPECT_NE(kernels::ring_node(5, 1024, kernels::RingOrder::kRandom, 9),
            kernels::ring_node(5, 1024, kernels::RingOrder::kRandom, 10));
}

TEST(ChaseConfig, FootprintsMustBePowersOfTwoThatFit) {
  ChaseConfig c;
  c.footprint_bytes = 3000;
  EXPECT_EQ(chase_problem(c, 1ull << 40),
            "footprint = 3000 bytes; allowed: a power of two of at least 512 "
            "bytes (two 256-byte nodes)");
  c.footprint_bytes = 1ull << 33;
  EXPECT_EQ(chase_problem(c, 1ull << 32),
            "footprint = 8589934592 bytes; allowed: at most the 4294967296 "
            "bytes of free device memory");
  c.footprint_bytes = 16384;
  EXPECT_EQ(chase_problem(c, 1ull << 32), "");
}

// The loaded chase: the ring as the chase's, a background of 0..32 warps, and two blocks of it
// beside each other on one SM (an SM of 64 warps holds 32 + 32; one of 48 does not).
TEST(LoadedChaseConfig, TheRingTheBackgroundSizeAndTwoBlocksAnSm) {
  LoadedChaseConfig c;
  c.footprint_bytes = 1ull << 30;
  for (const int w : {0, 1, 2, 4, 8, 16, 32}) {
    c.background_warps = w;
    EXPECT_EQ(loaded_chase_problem(c, 1ull << 40, 64, 1024), "") << w;
  }
  c.background_warps = 32;
  EXPECT_EQ(loaded_chase_problem(c, 1ull << 40, 48, 1024),
            "background warps = 32: the chaser's block and a background block of 32 warps each must share an SM, "
            "and an SM holds 48");
  EXPECT_EQ(loaded_chase_problem(c, 1ull << 40, 64, 512),
            "background warps = 32: a block of 1024 threads; allowed: at most 512");
  c.background_warps = 33;
  EXPECT_EQ(loaded_chase_problem(c, 1ull << 40, 64, 1024), "background warps = 33; allowed: 0..32");
  c.background_warps = -1;
  EXPECT_EQ(loaded_chase_problem(c, 1ull << 40, 64, 1024), "background warps = -1; allowed: 0..32");
  c.background_warps = 8;
  c.footprint_bytes = 3000;
  EXPECT_NE(loaded_chase_problem(c, 1ull << 40, 64, 1024).find("footprint = 3000 bytes"), std::string::npos);
  c.footprint_bytes = 1ull << 30;
  c.steps = 0;
  EXPECT_EQ(loaded_chase_problem(c, 1ull << 40, 64, 1024), "chase steps = 0; allowed: 1 or more");
}

TEST(StreamKernel, ProblemsAndTheHostReplay) {
  kernels::StreamKernelConfig k;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "");
  k.load_bytes = 12;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "load width = 12 bytes; allowed: 4, 8 or 16");
  k.load_bytes = 16;
  k.alu_per_load = -1;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "W = -1 ALU instructions per load; allowed: 0 or more");
  k.alu_per_load = 3;
  EXPECT_NE(kernels::stream_kernel_problem(k).find("allowed (compiled): 0, 1, 2, 4"), std::string::npos);
  // The run-time kernel takes any W up to 4096, one load in flight.
  k.run_time_alu = true;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "");
  k.alu_per_load = 4096;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "");
  k.alu_per_load = 4097;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "W = 4097 ALU instructions per load (run-time); allowed: 0..4096");
  k.alu_per_load = 0;
  k.loads_in_flight = 2;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "loads in flight = 2 with a run-time W; allowed: 1");
  k.loads_in_flight = 1;
  k.run_time_alu = false;
  // The GPU test of the run-time kernel (tests/streaming/test_gpu.cpp) holds its sums against this
  // replay with 33 warps/SM over 16 MiB of 16-byte loads, 7 or 8 loads a thread. A side chain
  // starts at 1 + (4 gid + c)·2^-23 and each FFMA takes 3/4 of its distance to 1.0 (rounded to
  // 2^-23), so it reaches 1.0 after n FFMAs once (4/3)^n > 2(4 gid + c): with 3 FFMAs a chain a
  // load, 22 in all, only threads below gid ~70 get there ((4/3)^22 ~ 560); every other thread's sum
  // changes with one FFMA more a load. Counted over every 97th thread: most differ.
  {
    kernels::StreamKernelConfig w12{16, 12, kernels::AluUse::kIndependent, 1, true};
    kernels::StreamKernelConfig w13 = w12;
    w13.alu_per_load = 13;
    const std::uint64_t threads = 33ull * 32 * 132;
    const std::uint64_t elements = (16ull << 20) / 16;
    std::uint64_t sampled = 0, differ = 0;
    for (std::uint64_t gid = 0; gid < threads; gid += 97) {
      ++sampled;
      differ += kernels::stream_reference(w12, gid, threads, elements, 11) !=
                kernels::stream_reference(w13, gid, threads, elements, 11);
    }
    EXPECT_GT(differ, sampled * 3 / 4) << differ << " of " << sampled;
  }

  k.alu_per_load = 0;
  k.loads_in_flight = 3;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "loads in flight = 3 a thread; allowed: 1, 2, 4 or 8");
  k.loads_in_flight = 4;
  EXPECT_EQ(kernels::stream_kernel_problem(k), "");
  k.alu_per_load = 4;
  EXPECT_EQ(kernels::stream_kernel_problem(k),
            "loads in flight = 4 with 16-byte loads and W = 4; allowed: more than 1 only with 16-byte loads "
            "and W = 0");

  // One thread, one 4-byte load, no ALU work: the word itself, xor the four
  // untouched side chains, which start as the floats 1 + (4 gid + c) 2^-23:
  // bits 0x3f800000 | (4 gid + c).
  kernels::StreamKernelConfig one{4, 0, kernels::AluUse::kIndependent};
  auto chains = [](std::uint32_t gid) {
    std::uint32_t x = 0;
    for (std::uint32_t c = 0; c < 4; ++c) x ^= 0x3f800000u | (4 * gid + c);
    return x;
  };
  EXPECT_EQ(kernels::stream_reference(one, 7, 100, 8, 3), pattern_word(7, 3) ^ chains(7));
  // A thread past the last element sums nothing but its chains.
  EXPECT_EQ(kernels::stream_reference(one, 50, 100, 8, 3), chains(50));
  // Dependent W = 1: the loaded word's mantissa m becomes the float 1 + m
  // 2^-23, one FFMA v * 0.75 + 0.25 makes it 1 + (3m/4) 2^-23, rounded to the
  // nearest mantissa, ties to even.
  kernels::StreamKernelConfig dep1{4, 1, kernels::AluUse::kDependent};
  const std::uint32_t m = pattern_word(7, 3) & 0x007fffffu;
  std::uint32_t scaled = (3 * m) / 4;
  const std::uint32_t rest = (3 * m) % 4;
  if (rest == 3 || (rest == 2 && (scaled & 1) != 0)) ++scaled;
  EXPECT_EQ(kernels::stream_reference(dep1, 7, 100, 8, 3), (0x3f800000u | scaled) ^ chains(7));
  // Dependent ALU work changes the loaded value; independent work changes only
  // the side chains.
  kernels::StreamKernelConfig dep{16, 8, kernels::AluUse::kDependent};
  kernels::StreamKernelConfig ind{16, 8, kernels::AluUse::kIndependent};
  EXPECT_NE(kernels::stream_reference(dep, 5, 64, 1000, 3), kernels::stream_reference(ind, 5, 64, 1000, 3));
  // Independent W = 4: each chain takes one FFMA, 1 + (4 gid + c) 2^-23 -> 1 +
  // 0.75 (4 gid + c) 2^-23.
  kernels::StreamKernelConfig ind4{4, 4, kernels::AluUse::kIndependent};
  std::uint32_t stepped = 0;
  for (std::uint32_t c = 0; c < 4; ++c) {
    const std::uint32_t mc = 4 * 5 + c;
    std::uint32_t q = (3 * mc) / 4;
    const std::uint32_t r = (3 * mc) % 4;
    if (r == 3 || (r == 2 && (q & 1) != 0)) ++q;
    stepped ^= 0x3f800000u | q;
  }
  EXPECT_EQ(kernels::stream_reference(ind4, 5, 100, 8, 3), pattern_word(5, 3) ^ stepped);
}

}  // namespace
}  // namespace warpcost

namespace warpcost {
namespace {

TEST(OnePerThread, BadBlockSizesAndBuffersAreNamed) {
  EXPECT_EQ(one_per_thread_problem({256, 1024, 5}, 1024), "");
  EXPECT_EQ(one_per_thread_problem({48, 1024, 5}, 1024),
            "block size = 48 threads; allowed: a multiple of 32 from 32 to 1024");
  EXPECT_EQ(one_per_thread_problem({1056, 1024, 5}, 1024),
            "block size = 1056 threads; allowed: a multiple of 32 from 32 to 1024");
  EXPECT_EQ(one_per_thread_problem({0, 1024, 5}, 1024),
            "block size = 0 threads; allowed: a multiple of 32 from 32 to 1024");
  EXPECT_EQ(one_per_thread_problem({64, 24, 5}, 1024),
            "stream buffer = 24 bytes; allowed: a positive multiple of 16 bytes");
}

TEST(OnePerThread, TheHostReplayFoldsTheWarpsThirtyTwoLoadsAndStopsAtTheEnd) {
  // Warp 1 covers loads 32..63, words 128..255.
  std::uint32_t want = 0;
  for (std::uint64_t word = 128; word < 256; ++word) want ^= pattern_word(word, 3);
  EXPECT_EQ(kernels::one_per_thread_reference(1, 1000, 3), want);
  // With 40 loads, warp 1 holds loads 32..39 only; lanes past the end
  // contribute 0.
  std::uint32_t tail = 0;
  for (std::uint64_t word = 128; word < 160; ++word) tail ^= pattern_word(word, 3);
  EXPECT_EQ(kernels::one_per_thread_reference(1, 40, 3), tail);
  EXPECT_EQ(kernels::one_per_thread_reference(2, 40, 3), 0u);
}

// The block-turnover grid's host replay, against sums worked out apart (Python, mod 2^32): warp 0
// XORs 0·m … 31·m = 1047859968; a 40-element buffer's warp 1 holds elements 32 … 39 only,
// 2256797824; a warp past the end folds nothing.
TEST(BlockTurnoverReference, MatchesSumsWorkedOutApart) {
  EXPECT_EQ(kernels::block_turnover_reference(0, 1 << 20), 1047859968u);
  EXPECT_EQ(kernels::block_turnover_reference(1, 40), 2256797824u);
  EXPECT_EQ(kernels::block_turnover_reference(2, 40), 0u);
}

}  // namespace
}  // namespace warpcost
