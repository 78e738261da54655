// Calibration kernels on the GPU, each checked against a host reference or a physical bound.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bench/common/device_info.hpp"
#include "bench/common/timing.hpp"
#include "kernels/common/pattern.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost {
namespace {

TEST(GpuDevice, ReportsConsistentFacts) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo info = query_device_info(0);
  EXPECT_EQ(info.warp_size, 32);
  EXPECT_EQ(info.max_warps_per_sm * 32, info.max_threads_per_sm);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0);
  EXPECT_GT(info.memory_clock_khz, 0);
  EXPECT_GT(info.sm_clock_max_khz, 0);
  EXPECT_EQ(info.uuid.rfind("GPU-", 0), 0u);
  EXPECT_EQ(info.uuid.size(), 4u + 32u + 4u);
}

TEST(GpuClockProbe, StaysOnOneSmAndMeasuresAPlausibleClock) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo info = query_device_info(0);
  Stream stream;
  SmClockMeter meter;
  constexpr long long kSpin = 5'000'000;
  const kernels::ClockSample s = meter.sample(stream, kSpin);
  EXPECT_EQ(s.smid_start, s.smid_end);
  EXPECT_LT(s.smid_start, static_cast<unsigned>(info.sm_count));
  EXPECT_GE(s.clock_end - s.clock_start, kSpin);
  const double hz = clock_hz_from_sample(s);
  const double max_hz = static_cast<double>(info.sm_clock_max_khz) * 1e3;
  EXPECT_LT(hz, 1.02 * max_hz);
  // The probe divides clock64 cycles by %globaltimer nanoseconds. CUDA events are a clock of their
  // own: the same spin timed by them gives at least kSpin cycles over the event time (which adds
  // the ~5 us launch to ~2.5 ms), so the two rates must agree within 3 % unless one clock is wrong.
  EventPair events;
  const double seconds = time_launch(stream, events, [&] { meter.launch(stream, kSpin); });
  const double hz_events = static_cast<double>(kSpin) / seconds;
  EXPECT_NEAR(hz / hz_events, 1.0, 0.03) << hz << " Hz by %globaltimer, " << hz_events << " by events";
}

TEST(GpuClockProbe, EventTimeIsAtLeastTheSpinAtMaximumClock) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo info = query_device_info(0);
  Stream stream;
  EventPair events;
  SmClockMeter meter;
  constexpr long long kSpin = 20'000'000;
  meter.sample(stream, kSpin);
  const double seconds = time_launch(stream, events, [&] { meter.launch(stream, kSpin); });
  // The kernel cannot finish faster than kSpin cycles at the fastest clock the device has.
  const double max_hz = static_cast<double>(info.sm_clock_max_khz) * 1e3;
  EXPECT_GE(seconds, static_cast<double>(kSpin) / (1.02 * max_hz));
  EXPECT_LT(seconds, 1.0);
}

TEST(GpuPattern, FillMatchesTheHostReference) {
  WARPCOST_REQUIRE_GPU();
  constexpr std::size_t kWords = (1u << 20) + 7;  // not a multiple of the grid stride
  constexpr std::uint32_t kSeed = 5;
  DeviceBuffer<std::uint32_t> d(kWords);
  Stream stream;
  kernels::launch_fill_pattern(d.data(), kWords, kSeed, stream.get());
  std::vector<std::uint32_t> h(kWords);
  WARPCOST_CUDA(cudaMemcpyAsync(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  for (std::size_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(h[i], pattern_word(i, kSeed)) << "word " << i;
  }
}

TEST(GpuPattern, MismatchCounterFindsPlantedErrors) {
  WARPCOST_REQUIRE_GPU();
  constexpr std::size_t kWords = 1u << 22;
  constexpr std::uint32_t kSeed = 9;
  DeviceBuffer<std::uint32_t> d(kWords);
  DeviceBuffer<unsigned long long> count(1);
  Stream stream;
  kernels::launch_fill_pattern(d.data(), kWords, kSeed, stream.get());
  for (const std::size_t i : {std::size_t{0}, std::size_t{12345}, kWords - 1}) {
    const std::uint32_t bad = ~pattern_word(i, kSeed);
    WARPCOST_CUDA(cudaMemcpyAsync(d.data() + i, &bad, sizeof bad, cudaMemcpyHostToDevice, stream.get()));
    stream.synchronize();
  }
  WARPCOST_CUDA(cudaMemsetAsync(count.data(), 0, count.bytes(), stream.get()));
  kernels::launch_count_pattern_mismatches(d.data(), kWords, kSeed, count.data(), stream.get());
  unsigned long long found = 0;
  WARPCOST_CUDA(cudaMemcpyAsync(&found, count.data(), sizeof found, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  EXPECT_EQ(found, 3u);
}

TEST(GpuL2Flusher, OverwritesTwiceTheL2) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo info = query_device_info(0);
  Stream stream;
  L2Flusher flusher(static_cast<std::size_t>(info.l2_bytes));
  EXPECT_EQ(flusher.bytes(), 2 * static_cast<std::size_t>(info.l2_bytes));
  EXPECT_NO_THROW(flusher.flush(stream));
  EXPECT_NO_THROW(stream.synchronize());
}

TEST(GpuLaunchWrapper, ReportsAnImpossibleConfigurationAsAnError) {
  WARPCOST_REQUIRE_GPU();
  Stream stream;
  // 2048 threads per block is over every NVIDIA GPU's limit of 1024.
  EXPECT_THROW(kernels::launch_empty(1, 2048, stream.get()), CudaError);
  EXPECT_THROW(kernels::launch_clock_probe(nullptr, 0, stream.get()), std::invalid_argument);
}

}  // namespace
}  // namespace warpcost
