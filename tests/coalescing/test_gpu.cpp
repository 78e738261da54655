// The coalescing kernels on the GPU: every kind's output against the host replay (with a negative
// control that the check catches a wrong value), and, where the machine gives counters, the counted
// sectors and requests a warp request against the model, exactly. Skipped, with the reason, without
// a GPU or counters.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/coalescing/schema.hpp"
#include "bench/coalescing/runner.hpp"
#include "bench/common/counter_pass.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "kernels/common/cuda_check.hpp"
#include "tests/gpu_test_support.hpp"

namespace warpcost::coalescing {
namespace {

Point tile(Kind kind, int size, int stride, int offset) {
  Point p;
  p.kind = kind;
  p.elem_bytes = size;
  p.stride = stride;
  p.offset = offset;
  return p;
}
Point block(int x, int y) {
  Point p;
  p.kind = Kind::kBlock2d;
  p.x = x;
  p.y = y;
  return p;
}

// warpcost-coalesce block at an author's element size and image (check --measure's 2D runner).
Point image_block(int x, int y, int elem_bytes, int width, int height) {
  Point p = block(x, y);
  p.elem_bytes = elem_bytes;
  p.image_width = width;
  p.image_height = height;
  return p;
}
Point partial(int threads) {
  Point p;
  p.kind = Kind::kPartialBlock;
  p.threads = threads;
  return p;
}
std::string name(const Point& p) {
  std::string s = bench_name(p.kind);
  for (const long long a : args_of(p)) s += "/" + std::to_string(a);
  if (p.kind == Kind::kBlock2d) {
    s += " over " + std::to_string(p.image_width) + "x" + std::to_string(p.image_height) + " of " +
         std::to_string(p.elem_bytes) + " B";
  }
  return s;
}

// One buffer for the whole test program, as the bench has one for the family.
CoalescingBuffer& buffer() {
  static CoalescingBuffer* b = new CoalescingBuffer(kDramRegionBytes);
  return *b;
}

std::vector<Point> checked_points() {
  std::vector<Point> points;
  for (const int size : kElementSizes) {
    for (const int stride : {1, 3, 32}) points.push_back(tile(Kind::kLoadDram, size, stride, 0));
  }
  points.push_back(tile(Kind::kLoadDram, 4, 1, 5));
  points.push_back(tile(Kind::kLoadL2, 4, 2, 0));
  points.push_back(tile(Kind::kLoadL2, 16, 32, 0));
  for (const int size : kElementSizes) points.push_back(tile(Kind::kLoadPermuted, size, 1, 0));
  points.push_back(tile(Kind::kStoreDram, 1, 1, 0));
  points.push_back(tile(Kind::kStoreDram, 4, 8, 0));
  points.push_back(tile(Kind::kStoreDram, 4, 1, 31));
  points.push_back(tile(Kind::kStoreDram, 16, 3, 0));
  // A load after stores: the buffer must be refilled before its check.
  points.push_back(tile(Kind::kLoadDram, 8, 2, 0));
  for (const auto& [x, y] : {std::pair{32, 8}, std::pair{30, 30}, std::pair{16, 16}, std::pair{8, 32}, std::pair{48, 4}}) {
    points.push_back(block(x, y));
  }
  points.push_back(image_block(24, 24, 2, 1920, 1080));  // the course sample's C3
  points.push_back(image_block(20, 8, 4, 1000, 1000));
  points.push_back(image_block(30, 30, 1, 1000, 999));   // frames padded to whole lines
  points.push_back(image_block(16, 4, 16, 640, 480));
  for (const int threads : {16, 32, 48, 100}) points.push_back(partial(threads));
  return points;
}

TEST(GpuCoalescing, EveryKindMatchesTheHostReplay) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  for (const Point& p : checked_points()) {
    CoalescingRunner runner(device, p, buffer());
    EXPECT_NO_THROW(runner.check(stream)) << name(p);
    // A second check after a timed-style launch: the launch is repeatable.
    runner.launch(stream);
    EXPECT_NO_THROW(runner.check(stream)) << name(p);
  }
}

// Negative control: one word the first warp reads, changed on the device, makes the check fail.
TEST(GpuCoalescing, TheCheckCatchesAWrongValue) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  CoalescingRunner runner(device, tile(Kind::kLoadDram, 4, 1, 0), buffer());
  ASSERT_NO_THROW(runner.check(stream));
  // Slot 0, lane 0: warp 0's first tile. On the runner's own (non-blocking) stream, so the check's
  // launch comes after it.
  WARPCOST_CUDA(cudaMemsetAsync(buffer().bytes_data(), 0x5A, 4, stream.get()));
  stream.synchronize();
  EXPECT_THROW(runner.check(stream), std::runtime_error);
  buffer().mark_written();  // the next user refills the pattern
}

TEST(GpuCoalescing, TheDeviceLimitIsCheckedWithTheDevicesName) {
  WARPCOST_REQUIRE_GPU();
  const DeviceInfo device = query_device_info(0);
  Point p = block(device.max_threads_per_block, 2);
  try {
    CoalescingRunner runner(device, p, buffer());
    FAIL() << "a block over the device maximum was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: at most " + std::to_string(device.max_threads_per_block)),
              std::string::npos)
        << e.what();
  }
}

#define WARPCOST_REQUIRE_COUNTERS(profiler)                      \
  WARPCOST_REQUIRE_GPU();                                        \
  std::unique_ptr<counters::CuptiProfiler> profiler;             \
  try {                                                          \
    profiler = std::make_unique<counters::CuptiProfiler>();      \
  } catch (const counters::CountersUnavailable& e) {             \
    GTEST_SKIP() << "no counters on this machine: " << e.what(); \
  }

double model_sectors(const Point& p) {
  switch (p.kind) {
    case Kind::kBlock2d: return block_2d_totals(p.x, p.y, p.image_width, p.image_height, p.elem_bytes).sectors_per_request();
    case Kind::kPartialBlock: return partial_block_totals(p.threads, 4).sectors_per_request();
    default: return sectors(tile_request(p));
  }
}

// The counted sectors and requests of one launch against the model: requests = the warp-level
// memory instructions the plan issues, sectors/request = the distinct sectors of the active lanes.
TEST(GpuCoalescing, CountedSectorsPerRequestFollowTheModel) {
  WARPCOST_REQUIRE_COUNTERS(profiler);
  const DeviceInfo device = query_device_info(0);
  Stream stream;
  const std::vector<Point> points = {
      tile(Kind::kLoadDram, 4, 1, 0),  tile(Kind::kLoadDram, 4, 2, 0),  tile(Kind::kLoadDram, 4, 8, 0),
      tile(Kind::kLoadDram, 4, 32, 0), tile(Kind::kLoadDram, 4, 1, 1),  tile(Kind::kLoadDram, 1, 1, 0),
      tile(Kind::kLoadDram, 16, 1, 0), tile(Kind::kLoadDram, 16, 2, 0), tile(Kind::kLoadPermuted, 16, 1, 0),
      tile(Kind::kStoreDram, 4, 8, 0), tile(Kind::kStoreDram, 1, 1, 0), block(30, 30),
      block(32, 8),                    partial(48),                     partial(100),
      partial(16),                     image_block(24, 24, 2, 1920, 1080), image_block(20, 8, 4, 1000, 1000),
      image_block(30, 30, 1, 1000, 999), image_block(16, 4, 16, 640, 480)};
  for (const Point& p : points) {
    CoalescingRunner runner(device, p, buffer());
    runner.check(stream);
    const counters::Values v =
        profiler->profile(counter_metrics(), "coalescing", [&] { runner.launch(stream); });
    const bool store = p.kind == Kind::kStoreDram;
    const double s = v.at(store ? metric::kSectorsSt : metric::kSectorsLd);
    const double r = v.at(store ? metric::kRequestsSt : metric::kRequestsLd);
    EXPECT_EQ(r, static_cast<double>(runner.warp_requests())) << name(p);
    ASSERT_GT(r, 0) << name(p);
    EXPECT_NEAR(s / r, model_sectors(p), 0.01 * model_sectors(p)) << name(p);
    if (p.kind == Kind::kLoadDram && p.stride == 1 && p.offset == 0) {
      // Coalesced: DRAM moves the sectors once (the region cycles through 2 GiB, 34x the L2).
      const double moved = static_cast<double>(runner.warp_requests()) * model_sectors(p) * kSectorBytes;
      EXPECT_NEAR(v.at(metric::kDramRead), moved, 0.10 * moved) << name(p);
    }
  }
}

}  // namespace
}  // namespace warpcost::coalescing
