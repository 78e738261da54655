// The coalescing model against the reference texts: the note's fully coalesced warp, Ex 2 and Ex 4's
// partial warps, the 48-thread block's second warp, Ex 9's two blocks and Ex 3's (48,4), each worked
// by hand in the comments, plus the cases where the sector and line counts part ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "core/coalescing/model.hpp"
#include "core/coalescing/schema.hpp"

namespace warpcost::coalescing {
namespace {

// The note: "a warp-wide 32-bit load from consecutive addresses covers exactly 128 bytes, built
// from four 32-byte sectors", one line.
TEST(CoalescingModel, NoteAFullyCoalescedWarpOfWordsIsOneLineOfFourSectors) {
  const WarpRequest r = strided_request(4, 1, 0);
  EXPECT_EQ(sectors(r), 4);
  EXPECT_EQ(lines(r), 1);
  EXPECT_DOUBLE_EQ(useful_per_moved(32, 4, sectors(r)), 1.0);
}

// Stride s of 4-byte words: lanes 4s bytes apart. s = 2 spans 256 B (8 sectors, 2 lines, half of
// each sector used); from s = 8 (32 B apart) every lane has its own sector; from s = 32 its own line.
TEST(CoalescingModel, StridedWordsSpreadOverSectorsThenLines) {
  EXPECT_EQ(sectors(strided_request(4, 2, 0)), 8);
  EXPECT_EQ(lines(strided_request(4, 2, 0)), 2);
  EXPECT_EQ(sectors(strided_request(4, 3, 0)), 12);  // 384 B: lanes 12 B apart, 12 sectors
  EXPECT_EQ(sectors(strided_request(4, 8, 0)), 32);
  EXPECT_EQ(lines(strided_request(4, 8, 0)), 8);
  EXPECT_EQ(lines(strided_request(4, 32, 0)), 32);
  EXPECT_DOUBLE_EQ(useful_per_moved(32, 4, 32), 0.125);
}

// 16-byte elements: a coalesced warp is 512 B, 16 sectors, 4 lines; stride 2 puts each lane in its
// own sector (32 B apart) with half of it used.
TEST(CoalescingModel, SixteenByteElements) {
  EXPECT_EQ(sectors(strided_request(16, 1, 0)), 16);
  EXPECT_EQ(lines(strided_request(16, 1, 0)), 4);
  EXPECT_EQ(sectors(strided_request(16, 2, 0)), 32);
  EXPECT_DOUBLE_EQ(useful_per_moved(32, 16, 32), 0.5);
}

// One-byte elements: 32 lanes fill one sector; stride 32 (32 B apart) gives each its own.
TEST(CoalescingModel, OneByteElements) {
  EXPECT_EQ(sectors(strided_request(1, 1, 0)), 1);
  EXPECT_EQ(sectors(strided_request(1, 32, 0)), 32);
  EXPECT_EQ(sectors(strided_request(1, 4, 0)), 4);  // 128 B span
}

// Misalignment: words from element o of a line. o = 8 starts on a sector boundary (4 sectors, 2
// lines), o = 1 straddles one more sector (5) and two lines, o = 0 is the aligned case.
TEST(CoalescingModel, MisalignedWordsTouchOneMoreSectorUnlessSectorAligned) {
  for (int o = 0; o < 32; ++o) {
    const WarpRequest r = strided_request(4, 1, o);
    EXPECT_EQ(sectors(r), o % 8 == 0 ? 4 : 5) << "offset " << o;
    EXPECT_EQ(lines(r), o == 0 ? 1 : 2) << "offset " << o;
  }
  // With 64-byte granules an offset of 1 word touches bytes 4..131: granules 0, 1, 2 = 192 B moved.
  EXPECT_EQ(distinct_granules(strided_request(4, 1, 1), kPromotedGranuleBytes), 3);
}

// The order of the lanes does not matter, only the set of addresses.
TEST(CoalescingModel, APermutationTouchesTheSectorsOfStrideOne) {
  const std::array<int, kWarpSize> perm = lane_permutation(kPermutationSeed);
  std::array<int, kWarpSize> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < kWarpSize; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);
  EXPECT_NE(perm, sorted) << "the seed must shuffle";
  for (const int size : kElementSizes) {
    EXPECT_EQ(sectors(permuted_request(size, perm)), sectors(strided_request(size, 1, 0))) << size;
  }
  EXPECT_NE(lane_permutation(1), lane_permutation(2));
}

// Ex 2: a block of 100 threads is 3 full warps (4 sectors each) and a tail warp of 4 lanes: bytes
// 384..399, one sector. 13 sectors over 4 requests.
TEST(CoalescingModel, Ex2TheTailWarpOfA100ThreadBlockReadsOneSector) {
  const RequestTotals t = partial_block_totals(100, 4);
  EXPECT_EQ(t.requests, 4);
  EXPECT_EQ(t.active_lanes, 100);
  EXPECT_EQ(t.sectors, 3 * 4 + 1);
  EXPECT_DOUBLE_EQ(t.sectors_per_request(), 13.0 / 4.0);
  // 400 useful bytes over 13 x 32 = 416 moved.
  EXPECT_DOUBLE_EQ(t.useful_per_moved(), 400.0 / 416.0);
}

// Ex 4: a block smaller than a warp. 16 threads read 64 B: two sectors of one line; every moved
// byte is used, though half the lanes idle.
TEST(CoalescingModel, Ex4ASixteenThreadBlockReadsTwoSectors) {
  const RequestTotals t = partial_block_totals(16, 4);
  EXPECT_EQ(t.requests, 1);
  EXPECT_EQ(t.sectors, 2);
  EXPECT_EQ(t.lines, 1);
  EXPECT_DOUBLE_EQ(t.useful_per_moved(), 1.0);
}

// The issue: a 48-thread block's second warp touches half a line (threads 32..47: bytes 128..191,
// two sectors), so the block averages 3 sectors a request.
TEST(CoalescingModel, TheSecondWarpOfA48ThreadBlockReadsHalfALine) {
  const RequestTotals t = partial_block_totals(48, 4);
  EXPECT_EQ(t.requests, 2);
  EXPECT_EQ(t.sectors, 4 + 2);
  EXPECT_EQ(t.lines, 2);
  EXPECT_DOUBLE_EQ(t.sectors_per_request(), 3.0);
}

// Ex 9, (32,8): every warp is one 128-byte row segment of one block, aligned because block x
// origins are multiples of 32 words: 4 sectors, 1 line, 8 warps a block, no idle lane.
TEST(CoalescingModel, Ex9TheAlignedBlockReadsOneLineAWarp) {
  const RequestTotals t = block_2d_totals(32, 8, kImageWidth, kImageHeight, 4);
  EXPECT_EQ(t.requests, (1920 / 32) * (1080 / 8) * 8);
  EXPECT_EQ(t.active_lanes, 1920LL * 1080);
  EXPECT_DOUBLE_EQ(t.sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(t.lines_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(t.useful_per_moved(), 1.0);
}

// Ex 9, (30,30): 29 warps a block, the last with 4 lanes; a warp holds the tail of one 30-word row
// and the head of the next, 7680 B apart, and block origins fall every 120 B, so requests touch
// more sectors than (32,8)'s 4 and waste part of them. Warp 0 of block (0,0): row 0 words 0..29
// (120 B: sectors 0..3) and row 1 words 0..1 (8 B: 1 sector) = 5 sectors, 2 lines.
TEST(CoalescingModel, Ex9TheSquareBlockWastesSectorsAcrossRows) {
  const RequestTotals one_block = block_2d_totals(30, 30, 30, 30, 4);
  EXPECT_EQ(one_block.requests, 29);
  WarpRequest warp0;
  warp0.elem_bytes = 4;
  for (int i = 0; i < 30; ++i) warp0.addresses.push_back(static_cast<std::uint64_t>(i) * 4);
  for (int i = 0; i < 2; ++i) warp0.addresses.push_back(1920u * 4 + static_cast<std::uint64_t>(i) * 4);
  EXPECT_EQ(sectors(warp0), 5);
  EXPECT_EQ(lines(warp0), 2);

  const RequestTotals square = block_2d_totals(30, 30, kImageWidth, kImageHeight, 4);
  const RequestTotals aligned = block_2d_totals(32, 8, kImageWidth, kImageHeight, 4);
  EXPECT_EQ(square.active_lanes, aligned.active_lanes);  // the same image
  EXPECT_EQ(square.requests, (1920 / 30) * (1080 / 30) * 29);
  EXPECT_GT(square.sectors_per_request(), aligned.sectors_per_request());
  EXPECT_LT(square.useful_per_moved(), aligned.useful_per_moved());
  // Across the launch no byte is wasted: every sector of the frame is some lane's.
  EXPECT_EQ(block_2d_frame_sectors(30, 30, kImageWidth, kImageHeight, 4), 1920LL * 1080 * 4 / 32);
}

// Ex 3's (48,4): warp 1 is words 32..47 of row 0 and 0..15 of row 1: 64 B + 64 B.
TEST(CoalescingModel, Ex3WarpsCutAcrossRowsOfA48WideBlock) {
  const RequestTotals one_block = block_2d_totals(48, 4, 48, 4, 4);
  EXPECT_EQ(one_block.requests, 6);
  // Row pitch 192 B: row r starts at 192r. Warp 0: row 0 words 0..31 = bytes 0..127 (4 sectors);
  // warp 1: bytes 128..191 (2) + 192..255 (2); warp 2: row 1 words 16..47 = bytes 256..383 (4).
  // Rows 2 and 3 repeat rows 0 and 1 shifted by 384 B: 4 + 4 + 4 per pair of rows.
  EXPECT_EQ(one_block.sectors, 24);
}

// A (16,16) block over the 1080-row image: its bottom blocks hang 8 rows over the edge; those lanes
// idle, and warps with no lane on the image issue nothing.
TEST(CoalescingModel, LanesOffTheImageIdle) {
  const RequestTotals t = block_2d_totals(16, 16, kImageWidth, kImageHeight, 4);
  EXPECT_EQ(t.active_lanes, 1920LL * 1080);
  EXPECT_EQ(t.requests, 1920LL * 1080 / 32);  // each warp: 2 rows of 16 words, all on or all off
  EXPECT_DOUBLE_EQ(t.sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(t.lines_per_request(), 2.0);
}

TEST(CoalescingModel, BlockShapeProblemsNameTheShape) {
  EXPECT_EQ(block_shape_problem(32, 8, 1024), "");
  EXPECT_EQ(block_shape_problem(64, 32, 1024), "block (64,32) has 2048 threads; allowed: at most 1024");
  EXPECT_EQ(block_shape_problem(0, 8, 1024), "block (0,8); allowed: sides of 1 or more");
}

// A store's read-back: sectors written only in part. Offset 1 of words writes bytes 4..131: 5
// sectors, the first (28 bytes) and the last (4 bytes) in part; stride 2 writes half of each of its 8.
TEST(CoalescingModel, PartialSectorsAreTheSectorsWrittenInPart) {
  EXPECT_EQ(partial_sectors(strided_request(4, 1, 0)), 0);
  EXPECT_EQ(partial_sectors(strided_request(4, 1, 1)), 2);
  EXPECT_EQ(sectors(strided_request(4, 1, 1)), 5);
  EXPECT_EQ(partial_sectors(strided_request(4, 2, 0)), 8);
  EXPECT_EQ(partial_sectors(strided_request(1, 1, 0)), 0);  // 32 bytes: one whole sector
  EXPECT_EQ(partial_sectors(strided_request(16, 2, 0)), 32);  // 16 B at the start of each of 32 sectors
}

}  // namespace
}  // namespace warpcost::coalescing
