// The coalescing family's host side: the declared sweep (one table, read by the registration, the
// runner and the analysis' names), the validators of each parameter, the work sizing of a launch,
// and the host replays the kernels' outputs are checked against. No CUDA here.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/coalescing/model.hpp"
#include "core/coalescing/schema.hpp"

namespace warpcost::coalescing {

enum class Kind { kLoadDram, kLoadL2, kStoreDram, kLoadPermuted, kBlock2d, kPartialBlock };
inline constexpr Kind kKinds[] = {Kind::kLoadDram,     Kind::kLoadL2,  Kind::kStoreDram,
                                  Kind::kLoadPermuted, Kind::kBlock2d, Kind::kPartialBlock};

struct Point {
  Kind kind = Kind::kLoadDram;
  int elem_bytes = 4;
  int stride = 1;   // elements between lanes
  int offset = 0;   // elements from a 128-byte line
  int x = 0, y = 0; // block_2d (its elem_bytes too; the suite's are 4)
  int image_width = kImageWidth, image_height = kImageHeight;  // block_2d (warpcost-coalesce block)
  int threads = 0;  // partial_block
  bool counted = false;  // the counter pass profiles this point (a declared subset: the pass costs
                         // some 0.25 s a benchmark on the H200)
};

const char* bench_name(Kind kind);
std::vector<std::string> arg_names(Kind kind);
std::vector<long long> args_of(const Point& p);
Point point_from_args(Kind kind, const std::vector<long long>& args);

// The declared sweep, in registration order.
const std::vector<Point>& sweep();

// Each parameter's one validator: "" or one sentence naming the value and what is allowed.
// (elem_bytes_problem: core/coalescing/model.hpp, which --plan reads too)
std::string stride_problem(long long stride);
std::string offset_problem(long long offset);
std::string threads_problem(long long threads, long long max_threads);
// Every parameter of the point that can be checked without a device (the block limit given).
std::string point_problem(const Point& p, long long max_threads_per_block);

// Sizes every launch shares: the DRAM sweep cycles over 2 GiB (the planner keeps it, like every
// DRAM footprint, at least kDramRegionPerL2 = 4 times the device's L2, so a pass's sectors are gone from the L2 when the next pass comes: 16x the
// largest L2 in data/device-profiles.csv), the L2 sweep over l2_region_bytes(L2), and every launch
// moves about 512 MiB of sectors by the model (~130 us from DRAM on an HBM3e GPU), so the launch
// overhead is the same share of every point and cancels in the bandwidth ratio.
// (kDramRegionBytes: core/coalescing/model.hpp)
inline constexpr int kDramRegionPerL2 = 4;
inline constexpr std::uint64_t kMovedTargetBytes = std::uint64_t{512} << 20;
inline constexpr std::uint32_t kPatternSeed = 17;

// Smallest power of two >= v (v >= 1).
std::uint64_t next_pow2(std::uint64_t v);

// A tile kernel launch (load_dram, load_l2, store_dram, load_dram_permuted): warp w handles tiles
// t = w + k * total_warps, k < tiles_per_warp; tile t lives in slot t mod region_tiles, at byte
// slot * pitch; lane l touches lane_offset[l] .. + elem_bytes - 1 there. Slots are a power of two
// bytes apart and at least a sector, so no two tiles share a sector.
struct TilePlan {
  Kind kind = Kind::kLoadDram;
  int elem_bytes = 4;
  std::array<std::uint32_t, kWarpSize> lane_offset{};
  std::uint32_t pitch_bytes = 0;
  std::uint64_t region_bytes = 0;
  std::uint32_t region_tiles = 0;  // a power of two
  unsigned int blocks = 0;
  std::uint32_t total_warps = 0;
  std::uint32_t tiles_per_warp = 0;
  int sectors_per_request = 0;  // the model's, for the work sizing
  bool store = false;
  std::uint64_t tiles() const { return std::uint64_t{total_warps} * tiles_per_warp; }
  std::uint64_t useful_bytes() const { return tiles() * kWarpSize * static_cast<std::uint64_t>(elem_bytes); }
};
WarpRequest tile_request(const Point& p);
// The L2 sweep's region on a device with `l2_bytes` of L2: the largest power of two at most a third
// of it, so the region, the warps' sums and whatever else the launch touches stay well inside
// (16 MiB of a 50 or 60 MiB L2, 1 MiB of a 4 MiB one).
std::uint64_t l2_region_bytes(long long l2_bytes);
TilePlan plan_tiles(const Point& p, int sm_count, int max_threads_per_sm, long long l2_bytes);

// The 1D-block kernel: block b handles segments s = b + k * blocks, k < segments_per_block, in
// slot s mod region_slots at byte slot * pitch; thread t reads the 4-byte element t there.
struct SegmentPlan {
  int threads = 0;
  std::uint32_t pitch_bytes = 0;
  std::uint32_t region_slots = 0;
  unsigned int blocks = 0;
  std::uint32_t segments_per_block = 0;
  std::uint64_t warp_requests() const {
    return std::uint64_t{blocks} * segments_per_block * static_cast<std::uint64_t>((threads + 31) / 32);
  }
  std::uint64_t useful_bytes() const { return std::uint64_t{blocks} * segments_per_block * threads * 4u; }
};
SegmentPlan plan_segments(int threads, int sm_count);

// The image kernel: an (x,y) block per tile of a width x height frame of elem_bytes elements,
// every thread reading its element in each of `frames` consecutive frames, each frame starting on a
// 128-byte line (frame_elems apart). The suite's: Ex 9's 1920 x 1080 4-byte pixels, 64 frames.
struct ImagePlan {
  int x = 0, y = 0;
  int elem_bytes = 4;
  int width = kImageWidth, height = kImageHeight, frames = kImageFrames;
  unsigned int grid_x = 0, grid_y = 0;
  int warps_per_block() const { return (x * y + kWarpSize - 1) / kWarpSize; }
  std::uint64_t warp_count() const { return std::uint64_t{grid_x} * grid_y * static_cast<std::uint64_t>(warps_per_block()); }
  std::uint64_t frame_words() const { return static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height); }
  // Elements from a frame's first to the next's: width*height rounded up to whole 128-byte lines.
  std::uint64_t frame_elems() const;
  // The bytes the frames span (the region the buffer must hold) and the bytes the threads read.
  std::uint64_t footprint_bytes() const { return frame_elems() * static_cast<std::uint64_t>(elem_bytes) * static_cast<std::uint64_t>(frames); }
  std::uint64_t useful_bytes() const { return frame_words() * static_cast<std::uint64_t>(elem_bytes) * static_cast<std::uint64_t>(frames); }
};
// The suite's frames (kImageFrames at 4 bytes, width and height the defaults) and the bytes they
// span are kept for any element size and image: frames = the suite's span over a frame's bytes, in
// whole groups of kImageFramesInFlight, at least one group. Throws std::invalid_argument naming a
// bad block (block_shape_problem), element size, or an image whose frames the 2 GiB buffer cannot
// hold (image_problem).
ImagePlan plan_image(int x, int y, int elem_bytes = 4, int width = kImageWidth, int height = kImageHeight);
// (image_problem: core/coalescing/model.hpp, which `warpcost check --plan` reads too)

// ---- host replays ----------------------------------------------------------------------------
// The byte at `address` of the pattern-filled buffer (little-endian pattern words).
std::uint8_t pattern_byte(std::uint64_t address);
// The uint32 fold of one element as the load kernels fold it: a 1-, 2- or 4-byte element as its
// value, an 8-byte one as the sum of its two words, a 16-byte one as the sum of its four.
std::uint32_t element_fold(std::uint64_t address, int elem_bytes);
std::uint32_t expected_tile_warp_sum(const TilePlan& plan, std::uint32_t warp);
std::uint32_t expected_segment_warp_sum(const SegmentPlan& plan, unsigned int block, int warp);
std::uint32_t expected_image_warp_sum(const ImagePlan& plan, unsigned int block_x, unsigned int block_y, int warp);
// A store tile kernel writes coalescing_store_word values into every element it touches. Checks
// `bytes` as read back from slot `slot` (pitch bytes); "" or the first byte that differs.
std::string check_stored_slot(const TilePlan& plan, std::uint32_t slot, const std::vector<std::uint8_t>& bytes);
// The slots a store launch writes: every slot below min(tiles, region_tiles).
std::uint32_t written_slots(const TilePlan& plan);
// Up to `count` indices spread over [0, n), always with 0 and n - 1.
std::vector<std::uint64_t> spread_sample(std::uint64_t n, int count);

}  // namespace warpcost::coalescing
