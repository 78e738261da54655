// The harness pieces that need no GPU: the checking macro, run naming, the clock arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bench/common/device_info.hpp"
#include "bench/common/machine_state.hpp"
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

// Issue 31: the machine states the bench records (bench/common/machine_state.cpp), by hand.
TEST(MachineState, TheClockReferenceIsTheMaximumUnlessAnAdministratorSetApplicationClocks) {
  EXPECT_EQ(sm_clock_reference(1980, std::nullopt, std::nullopt).mhz, 1980);
  EXPECT_EQ(sm_clock_reference(1980, std::nullopt, std::nullopt).source, "maximum");
  // The H200's default: application clock at the maximum.
  EXPECT_EQ(sm_clock_reference(1980, 1980u, 1980u).source, "maximum");
  // A vendor default under the maximum (the GPU boosts past it on its own) is not an administrator's.
  EXPECT_EQ(sm_clock_reference(1530, 1312u, 1312u).mhz, 1530);
  const ClockReference set = sm_clock_reference(1980, 1500u, 1980u);
  EXPECT_EQ(set.mhz, 1500);
  EXPECT_EQ(set.source, "application clocks: 1500 MHz set by an administrator (maximum 1980 MHz, default 1980 MHz)");
  EXPECT_EQ(sm_clock_reference(1980, 1500u, std::nullopt).mhz, 1500);
}

TEST(MachineState, AMigInstanceIsNamedByItsProfile) {
  EXPECT_EQ(mig_instance_of("NVIDIA H200", nullptr), "none");
  EXPECT_EQ(mig_instance_of("NVIDIA H200", "0,1"), "none");
  EXPECT_EQ(mig_instance_of("NVIDIA A100-SXM4-40GB MIG 1g.5gb", nullptr), "1g.5gb");
  EXPECT_EQ(mig_instance_of("NVIDIA H100 80GB HBM3 MIG 3g.40gb", "MIG-0f3b1c2a-aaaa-bbbb-cccc-0123456789ab"), "3g.40gb");
  EXPECT_EQ(mig_instance_of("NVIDIA A100-SXM4-40GB", "MIG-0f3b1c2a-aaaa-bbbb-cccc-0123456789ab"), "unknown profile");
  // The folder and headline never share the whole GPU's name.
  EXPECT_EQ(run_gpu_name("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "1g.5gb"), "NVIDIA A100-SXM4-40GB MIG 1g.5gb");
  EXPECT_EQ(run_gpu_name("NVIDIA A100-SXM4-40GB", "unknown profile"), "NVIDIA A100-SXM4-40GB MIG instance");
  EXPECT_EQ(gpu_slug(run_gpu_name("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "1g.5gb")), "nvidia-a100-sxm4-40gb-mig-1g-5gb");
  EXPECT_EQ(run_gpu_name("NVIDIA H200", "none"), "NVIDIA H200");
}

TEST(MachineState, ALostDeviceSaysWhereInTheRunStatus) {
  EXPECT_EQ(device_lost_status("timing", "kernel: cudaErrorLaunchFailure"),
            "partial: the device was lost during the timing phase (kernel: cudaErrorLaunchFailure); the points "
            "measured before it are kept");
}

}  // namespace
}  // namespace warpcost
