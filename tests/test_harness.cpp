// The harness pieces that need no GPU: the checking macro, run naming, the clock arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bench/common/device_info.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/pattern.hpp"

namespace warpcost {
namespace {

cudaError_t returns(cudaError_t e) { return e; }

TEST(CudaCheck, NamesTheCallTheFileLineAndTheError) {
  try {
    WARPCOST_CUDA(returns(cudaErrorInvalidValue));
    FAIL() << "no exception";
  } catch (const CudaError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("returns(cudaErrorInvalidValue) failed at ", 0), 0u) << m;
    EXPECT_NE(m.find("test_harness.cpp:"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorInvalidValue"), std::string::npos) << m;
    EXPECT_EQ(e.error(), cudaErrorInvalidValue);
  }
  EXPECT_NO_THROW(WARPCOST_CUDA(returns(cudaSuccess)));
  EXPECT_NO_THROW(WARPCOST_CUDA_NOTHROW(returns(cudaErrorInvalidValue)));
}

TEST(GpuSlug, LowercaseWordsJoinedByDashes) {
  EXPECT_EQ(gpu_slug("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(gpu_slug("NVIDIA GeForce RTX 4090"), "nvidia-geforce-rtx-4090");
  EXPECT_EQ(gpu_slug("Tesla T4 "), "tesla-t4");
  EXPECT_EQ(gpu_slug("  "), "unknown-gpu");
}

TEST(ClockArithmetic, CyclesOverGlobaltimerNanoseconds) {
  kernels::ClockSample s{};
  s.clock_start = 1000;
  s.clock_end = 1000 + 19'800'000;
  s.ns_start = 5'000'000;
  s.ns_end = 5'000'000 + 10'000'000;  // 10 ms
  s.smid_start = s.smid_end = 7;
  EXPECT_DOUBLE_EQ(clock_hz_from_sample(s), 1.98e9);
  s.smid_end = 8;
  EXPECT_THROW(clock_hz_from_sample(s), std::runtime_error);
  s.smid_end = 7;
  s.ns_end = s.ns_start;
  EXPECT_THROW(clock_hz_from_sample(s), std::runtime_error);
}

TEST(Pattern, DistinctNeighboursAndSeeds) {
  EXPECT_NE(pattern_word(0, 21), pattern_word(1, 21));
  EXPECT_NE(pattern_word(5, 21), pattern_word(5, 22));
  // A copy shifted by 1 to 64 words, or written with another seed, differs from the reference at
  // (nearly) every word: 32-bit words may collide by chance (about 1 in 2^32 a pair), never in runs.
  for (std::uint64_t shift = 1; shift <= 64; ++shift) {
    int same = 0;
    for (std::uint64_t i = 0; i < 4096; ++i) same += pattern_word(i, 3) == pattern_word(i + shift, 3);
    EXPECT_LE(same, 1) << "shift " << shift;
  }
  int same_seed = 0;
  for (std::uint64_t i = 0; i < 4096; ++i) same_seed += pattern_word(i, 3) == pattern_word(i, 4);
  EXPECT_LE(same_seed, 1);
}

}  // namespace
}  // namespace warpcost
