// The coalescing family's host side: the declared sweep, each parameter's validator, the work
// sizing of a launch, and the host replays the kernels' outputs are checked against.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <stdexcept>
#include <vector>

#include "bench/coalescing/plan.hpp"
#include "bench/common/counter_pass.hpp"
#include "kernels/coalescing/pattern.hpp"
#include "kernels/common/pattern.hpp"

namespace warpcost::coalescing {
namespace {

constexpr int kH200Sms = 132;
constexpr int kH200ThreadsPerSm = 2048;
constexpr long long kH200L2 = 62914560;  // the committed H200 run's l2_bytes

TEST(CoalescingPlan, TheSweepIsModestAndItsCountedSubsetSmall) {
  const std::vector<Point>& s = sweep();
  // ~100-200 points keep the family near 15 s of suite time; every one is valid.
  EXPECT_GE(s.size(), 100u);
  EXPECT_LE(s.size(), 200u);
  int counted = 0;
  std::set<std::pair<int, std::vector<long long>>> seen;
  for (const Point& p : s) {
    EXPECT_EQ(point_problem(p, 1024), "") << bench_name(p.kind);
    EXPECT_TRUE(seen.insert({static_cast<int>(p.kind), args_of(p)}).second) << "a point registered twice";
    counted += p.counted ? 1 : 0;
    EXPECT_EQ(args_of(point_from_args(p.kind, args_of(p))), args_of(p));
    EXPECT_EQ(args_of(p).size(), arg_names(p.kind).size());
  }
  // The counter pass costs ~0.25 s a point on the H200: at most 40 points, 10 s.
  EXPECT_GT(counted, 20);
  EXPECT_LE(counted, 40);
  // Every stride-sweep size has its coalesced reference, and every offset 0..31 is measured.
  for (const int size : kElementSizes) {
    EXPECT_TRUE(seen.count({static_cast<int>(Kind::kLoadDram), {size, 1, 0}})) << size;
    EXPECT_TRUE(seen.count({static_cast<int>(Kind::kLoadL2), {size, 1, 0}})) << size;
  }
  for (int o = 0; o < 32; ++o) EXPECT_TRUE(seen.count({static_cast<int>(Kind::kLoadDram), {4, 1, o}})) << o;
  for (const int size : {1, 4, 16}) EXPECT_TRUE(seen.count({static_cast<int>(Kind::kStoreDram), {size, 1, 0}}));
  // The misaligned dense stores: the judged offsets and the two parameter points (ISSUE-33-STORE-MISALIGNED).
  for (const int o : {1, 2, 8, 16, 31}) EXPECT_TRUE(seen.count({static_cast<int>(Kind::kStoreDram), {4, 1, o}})) << o;
}

// The counter pass asks for the family's own metric list, and the run-wide list (whose units the
// run records) holds each of them.
TEST(CoalescingPlan, TheCounterPassCollectsTheFamilysMetrics) {
  EXPECT_EQ(counters::default_metrics(schema::coalescing::descriptor()), counter_metrics());
  const std::vector<std::string> all = counters::all_default_metrics();
  for (const std::string& m : counter_metrics()) {
    EXPECT_NE(std::find(all.begin(), all.end(), m), all.end()) << m;
  }
}

TEST(CoalescingPlan, ValidatorsNameTheValueAndWhatIsAllowed) {
  EXPECT_EQ(stride_problem(0), "stride = 0 elements; allowed: 1..1024");
  EXPECT_EQ(stride_problem(1025), "stride = 1025 elements; allowed: 1..1024");
  EXPECT_EQ(stride_problem(32), "");
  EXPECT_EQ(elem_bytes_problem(3), "element size = 3 bytes; allowed: 1, 2, 4, 8, 16");
  EXPECT_EQ(elem_bytes_problem(32), "element size = 32 bytes; allowed: 1, 2, 4, 8, 16");
  EXPECT_EQ(elem_bytes_problem(16), "");
  EXPECT_EQ(offset_problem(-1), "offset = -1 elements; allowed: 0..31");
  EXPECT_EQ(offset_problem(32), "offset = 32 elements; allowed: 0..31");
  EXPECT_EQ(threads_problem(1025, 1024), "block size = 1025 threads; allowed: 1..1024");
  Point p;
  p.kind = Kind::kBlock2d;
  p.x = 48;
  p.y = 32;
  EXPECT_EQ(point_problem(p, 1024), "block (48,32) has 1536 threads; allowed: at most 1024");
  EXPECT_EQ(point_problem(p, 2048), "");
  p.kind = Kind::kLoadDram;
  p.elem_bytes = 4;
  p.stride = 0;
  EXPECT_EQ(point_problem(p, 1024), "stride = 0 elements; allowed: 1..1024");
  EXPECT_THROW(plan_tiles(p, kH200Sms, kH200ThreadsPerSm, kH200L2), std::invalid_argument);
}

// Tiles never share a sector (so DRAM moves each request's sectors), every slot is inside the
// region, and every launch moves about the same 512 MiB of sectors, so the launch overhead is the
// same share of every point.
TEST(CoalescingPlan, TilesOwnTheirSectorsAndEveryLaunchMovesTheSameSectorBytes) {
  for (const Point& p : sweep()) {
    if (p.kind == Kind::kBlock2d || p.kind == Kind::kPartialBlock) continue;
    const TilePlan t = plan_tiles(p, kH200Sms, kH200ThreadsPerSm, kH200L2);
    EXPECT_EQ(t.pitch_bytes % kSectorBytes, 0u);
    EXPECT_EQ(t.pitch_bytes & (t.pitch_bytes - 1), 0u) << "pitch must be a power of two";
    EXPECT_EQ(t.region_tiles & (t.region_tiles - 1), 0u);
    EXPECT_EQ(std::uint64_t{t.region_tiles} * t.pitch_bytes, t.region_bytes);
    for (const std::uint32_t off : t.lane_offset) EXPECT_LE(off + static_cast<std::uint32_t>(p.elem_bytes), t.pitch_bytes);
    EXPECT_EQ(t.tiles_per_warp % kUnroll, 0u);
    EXPECT_EQ(t.total_warps, 132u * 64u);
    const double moved = static_cast<double>(t.tiles()) * t.sectors_per_request * kSectorBytes;
    EXPECT_GE(moved, static_cast<double>(kMovedTargetBytes));
    EXPECT_LE(moved, 1.1 * static_cast<double>(kMovedTargetBytes)) << bench_name(p.kind) << " " << p.elem_bytes
                                                                    << " " << p.stride << " " << p.offset;
    EXPECT_EQ(t.sectors_per_request, sectors(tile_request(p)));
  }
}

TEST(CoalescingPlan, TheL2RegionFitsTheH200sL2AndTheDramRegionDoesNot) {
  const std::uint64_t l2 = 60u << 20;
  Point p;
  p.kind = Kind::kLoadL2;
  EXPECT_LT(plan_tiles(p, kH200Sms, kH200ThreadsPerSm, kH200L2).region_bytes, l2 / 2);
  p.kind = Kind::kLoadDram;
  EXPECT_GT(plan_tiles(p, kH200Sms, kH200ThreadsPerSm, kH200L2).region_bytes, 16 * l2);
  EXPECT_GT(plan_image(32, 8).footprint_bytes(), 8 * l2);
}

// The largest power of two at most a third of the L2, by hand: 60 MiB / 3 = 20 MiB -> 16 MiB;
// 50 MiB -> 16 MiB; 40 MiB / 3 = 13.3 MiB -> 8 MiB; 4 MiB / 3 = 1.33 MiB -> 1 MiB; 96 MiB -> 32 MiB.
TEST(CoalescingPlan, TheL2RegionIsTheLargestPowerOfTwoWithinAThirdOfTheL2) {
  EXPECT_EQ(l2_region_bytes(60LL << 20), 16u << 20);
  EXPECT_EQ(l2_region_bytes(50LL << 20), 16u << 20);
  EXPECT_EQ(l2_region_bytes(40LL << 20), 8u << 20);
  EXPECT_EQ(l2_region_bytes(4LL << 20), 1u << 20);
  EXPECT_EQ(l2_region_bytes(96LL << 20), 32u << 20);
  EXPECT_EQ(l2_region_bytes(48LL << 20), 16u << 20);
  EXPECT_THROW(l2_region_bytes(0), std::invalid_argument);
}

// The replay folds what the kernel folds: a hand-made 1-tile plan whose sum is computed here from
// the pattern words directly.
TEST(CoalescingPlan, TheTileReplayFoldsTheElementsTheLanesRead) {
  TilePlan t;
  t.elem_bytes = 8;
  t.pitch_bytes = 512;
  t.region_tiles = 4;
  t.total_warps = 2;
  t.tiles_per_warp = 3;  // warp 1: tiles 1, 3, 5 -> slots 1, 3, 1
  for (std::uint32_t l = 0; l < 32; ++l) t.lane_offset[l] = 16 * l;  // stride 2 of 8-byte elements
  std::uint32_t want = 0;
  for (const std::uint64_t slot : {1u, 3u, 1u}) {
    for (std::uint64_t l = 0; l < 32; ++l) {
      const std::uint64_t word = (slot * 512 + 16 * l) / 4;
      want += pattern_word(word, kPatternSeed) + pattern_word(word + 1, kPatternSeed);
    }
  }
  EXPECT_EQ(expected_tile_warp_sum(t, 1), want);
  EXPECT_NE(expected_tile_warp_sum(t, 0), want);
}

TEST(CoalescingPlan, ElementFoldsReadLittleEndianBytes) {
  const std::uint32_t w = pattern_word(5, kPatternSeed);
  EXPECT_EQ(element_fold(20, 1), w & 0xFFu);
  EXPECT_EQ(element_fold(23, 1), w >> 24);
  EXPECT_EQ(element_fold(22, 2), w >> 16);
  EXPECT_EQ(element_fold(20, 4), w);
  EXPECT_EQ(element_fold(20, 16), w + pattern_word(6, kPatternSeed) + pattern_word(7, kPatternSeed) +
                                      pattern_word(8, kPatternSeed));
  EXPECT_THROW(element_fold(20, 3), std::invalid_argument);
}

// The store check: a slot as a correct kernel leaves it passes; one element stored one place off,
// or a byte between elements overwritten, is named.
TEST(CoalescingPlan, TheStoreCheckCatchesAShiftedOrStrayStore) {
  Point p;
  p.kind = Kind::kStoreDram;
  p.elem_bytes = 4;
  p.stride = 2;
  const TilePlan t = plan_tiles(p, kH200Sms, kH200ThreadsPerSm, kH200L2);
  const std::uint32_t slot = 7;
  const std::uint64_t base = std::uint64_t{slot} * t.pitch_bytes;
  std::vector<std::uint8_t> bytes(t.pitch_bytes);
  for (std::uint32_t i = 0; i < t.pitch_bytes; ++i) bytes[i] = pattern_byte(base + i);
  for (const std::uint32_t off : t.lane_offset) {
    const std::uint32_t v = coalescing_store_word(base + off, 0);
    for (int b = 0; b < 4; ++b) bytes[off + static_cast<std::uint32_t>(b)] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  EXPECT_EQ(check_stored_slot(t, slot, bytes), "");
  // Before the store, the slot is the pattern: the check names the first byte a lane should have written.
  std::vector<std::uint8_t> untouched(t.pitch_bytes);
  for (std::uint32_t i = 0; i < t.pitch_bytes; ++i) untouched[i] = pattern_byte(base + i);
  EXPECT_NE(check_stored_slot(t, slot, untouched).find("byte 0 "), std::string::npos);
  std::vector<std::uint8_t> stray = bytes;
  stray[4] ^= 0x01;  // the gap between lanes 0 and 1 (stride 2 of words)
  EXPECT_NE(check_stored_slot(t, slot, stray).find("byte 4 "), std::string::npos);
  EXPECT_NE(check_stored_slot(t, slot, stray).find("fill pattern"), std::string::npos);
  // A slot beyond those the launch reaches keeps the pattern (512 MiB of 8-sector tiles is a quarter
  // of the 2 GiB region).
  ASSERT_LT(written_slots(t), t.region_tiles);
  std::vector<std::uint8_t> beyond(t.pitch_bytes);
  const std::uint64_t beyond_base = std::uint64_t{written_slots(t)} * t.pitch_bytes;
  for (std::uint32_t i = 0; i < t.pitch_bytes; ++i) beyond[i] = pattern_byte(beyond_base + i);
  EXPECT_EQ(check_stored_slot(t, written_slots(t), beyond), "");
  EXPECT_NE(check_stored_slot(t, written_slots(t) - 1, beyond), "");
}

TEST(CoalescingPlan, SegmentAndImagePlans) {
  const SegmentPlan s = plan_segments(48, kH200Sms);
  EXPECT_EQ(s.pitch_bytes, 256u);  // 192 B rounded to a power of two
  EXPECT_EQ(s.blocks, 132u * 32u);
  EXPECT_EQ(s.warp_requests(), std::uint64_t{s.blocks} * s.segments_per_block * 2);
  EXPECT_EQ(plan_segments(100, kH200Sms).pitch_bytes, 512u);
  EXPECT_EQ(plan_segments(16, kH200Sms).pitch_bytes, 64u);
  EXPECT_THROW(plan_segments(0, kH200Sms), std::invalid_argument);
  const ImagePlan i = plan_image(30, 30);
  EXPECT_EQ(i.grid_x, 64u);
  EXPECT_EQ(i.grid_y, 36u);
  EXPECT_EQ(i.warps_per_block(), 29);
  EXPECT_EQ(plan_image(16, 16).grid_y, 68u);  // 1080 / 16 = 67.5: one block row hangs over
}

// The author's image (warpcost-coalesce block --bytes --width --height): the suite's span kept, frames
// on whole lines. Hand-worked: the suite's 1920·1080·4·64 = 530,841,600 bytes.
TEST(CoalescingPlan, AnAuthorsImageKeepsTheSuitesSpanOnWholeLines) {
  const ImagePlan suite = plan_image(32, 8);
  EXPECT_EQ(suite.frames, 64);
  EXPECT_EQ(suite.frame_elems(), 1920u * 1080u);
  EXPECT_EQ(suite.footprint_bytes(), 530841600u);
  EXPECT_EQ(suite.useful_bytes(), 530841600u);
  // C3: (24,24) over 1920x1080 2-byte pixels: a frame is 4,147,200 bytes (32,400 lines), 128 frames.
  const ImagePlan c3 = plan_image(24, 24, 2, 1920, 1080);
  EXPECT_EQ(c3.frames, 128);
  EXPECT_EQ(c3.frame_elems(), 1920u * 1080u);
  EXPECT_EQ(c3.footprint_bytes(), 530841600u);
  EXPECT_EQ(c3.grid_x, 80u);
  EXPECT_EQ(c3.grid_y, 45u);
  EXPECT_EQ(c3.warps_per_block(), 18);
  // 1000x999 bytes = 999,000: padded to 7,805 lines = 999,040 bytes; 530,841,600 / 999,040 = 531.4
  // frames, 532 rounded up to whole groups of 8 = 536.
  const ImagePlan odd = plan_image(30, 30, 1, 1000, 999);
  EXPECT_EQ(odd.frame_elems(), 999040u);
  EXPECT_EQ(odd.frames, 536);
  EXPECT_EQ(odd.useful_bytes(), 999000u * 536u);
  EXPECT_EQ(odd.footprint_bytes(), 999040u * 536u);
  // 8 frames of 16384x16384 16-byte elements (4 GiB each) do not fit the 2 GiB buffer; 3-byte
  // elements are no element size.
  EXPECT_NE(image_problem(16384, 16384, 16).find("allowed: at most 2147483648 bytes"), std::string::npos);
  EXPECT_THROW(plan_image(8, 8, 16, 16384, 16384), std::invalid_argument);
  EXPECT_NE(image_problem(100, 100, 3).find("element size = 3"), std::string::npos) << image_problem(100, 100, 3);
  EXPECT_NE(image_problem(0, 10, 4).find("image 0x10; allowed: sides 1..65536"), std::string::npos);
  // A large frame keeps at least one group of 8 within the buffer: 8192x8192x4 = 256 MiB a frame.
  EXPECT_EQ(plan_image(32, 8, 4, 8192, 8192).frames, 8);
}

// A second implementation of the 2-byte image replay: each pixel's two pattern bytes, little-endian.
TEST(CoalescingPlan, TheTwoByteImageReplayReadsEachPixelsOwnTwoBytes) {
  const ImagePlan p = plan_image(24, 24, 2, 1920, 1080);
  // Block (1, 2), warp 1: linear threads 32..63, (col, row) = (24 + t % 24, 48 + t / 24).
  std::uint32_t want = 0;
  for (int t = 32; t < 64; ++t) {
    const std::uint64_t col = 24 + t % 24;
    const std::uint64_t row = 48 + t / 24;
    for (int f = 0; f < p.frames; ++f) {
      const std::uint64_t byte = (static_cast<std::uint64_t>(f) * 1920u * 1080u + row * 1920u + col) * 2u;
      const std::uint32_t w0 = pattern_word(byte / 4, kPatternSeed);
      const std::uint32_t lo = (w0 >> (8 * (byte % 4))) & 0xffu;
      const std::uint32_t w1 = pattern_word((byte + 1) / 4, kPatternSeed);
      const std::uint32_t hi = (w1 >> (8 * ((byte + 1) % 4))) & 0xffu;
      want += lo | (hi << 8);
    }
  }
  EXPECT_EQ(expected_image_warp_sum(p, 1, 2, 1), want);
}

TEST(CoalescingPlan, SpreadSampleKeepsTheEnds) {
  EXPECT_EQ(spread_sample(10, 3), (std::vector<std::uint64_t>{0, 4, 9}));
  EXPECT_EQ(spread_sample(2, 16), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_TRUE(spread_sample(0, 4).empty());
}

}  // namespace
}  // namespace warpcost::coalescing
