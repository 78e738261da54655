#include "bench/coalescing/plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/coalescing/pattern.hpp"
#include "kernels/common/pattern.hpp"

namespace warpcost::coalescing {

const char* bench_name(Kind kind) {
  switch (kind) {
    case Kind::kLoadDram: return bench::kLoadDram;
    case Kind::kLoadL2: return bench::kLoadL2;
    case Kind::kStoreDram: return bench::kStoreDram;
    case Kind::kLoadPermuted: return bench::kLoadPermuted;
    case Kind::kBlock2d: return bench::kBlock2d;
    case Kind::kPartialBlock: return bench::kPartialBlock;
  }
  throw std::invalid_argument("unknown coalescing benchmark kind");
}

std::vector<std::string> arg_names(Kind kind) {
  return schema::coalescing::descriptor().arg_names(bench_name(kind));
}

std::vector<long long> args_of(const Point& p) {
  switch (p.kind) {
    case Kind::kLoadPermuted: return {p.elem_bytes};
    case Kind::kBlock2d: return {p.x, p.y};
    case Kind::kPartialBlock: return {p.threads};
    default: return {p.elem_bytes, p.stride, p.offset};
  }
}

Point point_from_args(Kind kind, const std::vector<long long>& args) {
  if (args.size() != arg_names(kind).size()) {
    throw std::invalid_argument(std::string(bench_name(kind)) + " takes " +
                                std::to_string(arg_names(kind).size()) + " arguments, got " +
                                std::to_string(args.size()));
  }
  Point p;
  p.kind = kind;
  const auto at = [&](std::size_t i) { return static_cast<int>(args[i]); };
  switch (kind) {
    case Kind::kLoadPermuted: p.elem_bytes = at(0); break;
    case Kind::kBlock2d: p.x = at(0); p.y = at(1); break;
    case Kind::kPartialBlock: p.threads = at(0); break;
    default: p.elem_bytes = at(0); p.stride = at(1); p.offset = at(2); break;
  }
  return p;
}

namespace {

Point tile_point(Kind kind, int size, int stride, int offset, bool counted) {
  Point p;
  p.kind = kind;
  p.elem_bytes = size;
  p.stride = stride;
  p.offset = offset;
  p.counted = counted;
  return p;
}

bool in(int v, std::initializer_list<int> set) { return std::find(set.begin(), set.end(), v) != set.end(); }

std::vector<Point> build_sweep() {
  // Strides 1..32 as a declared subset: every power of two and the odd and 3x steps between, so
  // the sector count climbs through each value it can take for every size.
  const int strides[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  std::vector<Point> s;
  for (const int size : kElementSizes) {
    for (const int stride : strides) {
      const bool counted = size == 4    ? in(stride, {1, 2, 4, 8, 32})
                           : size == 16 ? in(stride, {1, 2, 32})
                                        : in(stride, {1, 32});
      s.push_back(tile_point(Kind::kLoadDram, size, stride, 0, counted));
    }
  }
  for (int offset = 1; offset < 32; ++offset) {
    s.push_back(tile_point(Kind::kLoadDram, 4, 1, offset, in(offset, {1, 8, 31})));
  }
  for (const int size : kElementSizes) {
    for (const int stride : {1, 2, 4, 8, 16, 32}) {
      s.push_back(tile_point(Kind::kLoadL2, size, stride, 0, size == 4 && in(stride, {1, 32})));
    }
  }
  for (const int size : {1, 4, 16}) {
    for (const int stride : strides) {
      const bool counted = size == 4 ? in(stride, {1, 2, 8, 32}) : (size == 1 && stride == 1);
      s.push_back(tile_point(Kind::kStoreDram, size, stride, 0, counted));
    }
  }
  // Offsets 2 and 16 are the parameter points of ISSUE-33-STORE-MISALIGNED (docs/models.md): the
  // request rates of a dense store that writes two lines partly, with and without partial sectors.
  for (const int offset : {1, 2, 8, 16, 31}) s.push_back(tile_point(Kind::kStoreDram, 4, 1, offset, offset == 1));
  for (const int size : kElementSizes) {
    s.push_back(tile_point(Kind::kLoadPermuted, size, 1, 0, size == 4 || size == 16));
  }
  // Ex 9's two blocks, the square and the tall one, and Ex 3's (48,4) whose warps cut across rows.
  for (const auto& [x, y] : {std::pair{32, 8}, std::pair{30, 30}, std::pair{16, 16}, std::pair{8, 32},
                             std::pair{48, 4}}) {
    Point p;
    p.kind = Kind::kBlock2d;
    p.elem_bytes = 4;
    p.x = x;
    p.y = y;
    p.counted = true;
    s.push_back(p);
  }
  // Ex 4 (16 threads), a full warp, the 48-thread block whose second warp reads half a line, and
  // Ex 2 (100 threads, a 4-lane tail warp).
  for (const int threads : {16, 32, 48, 100}) {
    Point p;
    p.kind = Kind::kPartialBlock;
    p.elem_bytes = 4;
    p.threads = threads;
    p.counted = true;
    s.push_back(p);
  }
  return s;
}

}  // namespace

const std::vector<Point>& sweep() {
  static const std::vector<Point> s = build_sweep();
  return s;
}

std::string stride_problem(long long stride) {
  if (stride >= 1 && stride <= 1024) return {};
  return "stride = " + std::to_string(stride) + " elements; allowed: 1..1024";
}

std::string offset_problem(long long offset) {
  if (offset >= 0 && offset <= 31) return {};
  return "offset = " + std::to_string(offset) + " elements; allowed: 0..31";
}

std::string threads_problem(long long threads, long long max_threads) {
  if (threads >= 1 && threads <= max_threads) return {};
  return "block size = " + std::to_string(threads) + " threads; allowed: 1.." + std::to_string(max_threads);
}

std::string point_problem(const Point& p, long long max_threads_per_block) {
  switch (p.kind) {
    case Kind::kBlock2d:
      if (const std::string problem = block_shape_problem(p.x, p.y, max_threads_per_block); !problem.empty()) return problem;
      return image_problem(p.image_width, p.image_height, p.elem_bytes);
    case Kind::kPartialBlock:
      return threads_problem(p.threads, max_threads_per_block);
    case Kind::kLoadPermuted:
      return elem_bytes_problem(p.elem_bytes);
    default:
      if (std::string problem = elem_bytes_problem(p.elem_bytes); !problem.empty()) return problem;
      if (std::string problem = stride_problem(p.stride); !problem.empty()) return problem;
      return offset_problem(p.offset);
  }
}

std::uint64_t next_pow2(std::uint64_t v) {
  std::uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
std::uint64_t round_up(std::uint64_t a, std::uint64_t b) { return ceil_div(a, b) * b; }

}  // namespace

WarpRequest tile_request(const Point& p) {
  return p.kind == Kind::kLoadPermuted ? permuted_request(p.elem_bytes, lane_permutation(kPermutationSeed))
                                       : strided_request(p.elem_bytes, p.stride, p.offset);
}

std::uint64_t l2_region_bytes(long long l2_bytes) {
  if (l2_bytes < 3 * static_cast<long long>(kSectorBytes)) {
    throw std::invalid_argument("l2_region_bytes: an L2 of " + std::to_string(l2_bytes) + " bytes; allowed: 96 or more");
  }
  std::uint64_t region = 1;
  while (region * 2 <= static_cast<std::uint64_t>(l2_bytes) / 3) region *= 2;
  return region;
}

TilePlan plan_tiles(const Point& p, int sm_count, int max_threads_per_sm, long long l2_bytes) {
  if (p.kind == Kind::kBlock2d || p.kind == Kind::kPartialBlock) {
    throw std::invalid_argument("plan_tiles: not a tile benchmark");
  }
  if (const std::string problem = point_problem(p, 1024); !problem.empty()) throw std::invalid_argument(problem);
  if (sm_count < 1 || max_threads_per_sm < kTileBlockThreads) {
    throw std::invalid_argument("plan_tiles: a device needs SMs that hold a 256-thread block");
  }
  TilePlan t;
  t.kind = p.kind;
  t.elem_bytes = p.elem_bytes;
  t.store = p.kind == Kind::kStoreDram;
  const WarpRequest r = tile_request(p);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    t.lane_offset[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(r.addresses[static_cast<std::size_t>(lane)]);
  }
  // The analysis' second-order model reads the same pitch (core/coalescing/model.hpp).
  t.pitch_bytes = static_cast<std::uint32_t>(tile_pitch_bytes(r));
  t.region_bytes = p.kind == Kind::kLoadL2 ? l2_region_bytes(l2_bytes) : kDramRegionBytes;
  t.region_tiles = static_cast<std::uint32_t>(t.region_bytes / t.pitch_bytes);
  t.blocks = static_cast<unsigned int>(sm_count * (max_threads_per_sm / kTileBlockThreads));
  t.total_warps = t.blocks * (kTileBlockThreads / kWarpSize);
  t.sectors_per_request = sectors(r);
  const std::uint64_t tiles = ceil_div(kMovedTargetBytes, static_cast<std::uint64_t>(t.sectors_per_request) * kSectorBytes);
  t.tiles_per_warp = static_cast<std::uint32_t>(round_up(ceil_div(tiles, t.total_warps), kUnroll));
  return t;
}

SegmentPlan plan_segments(int threads, int sm_count) {
  if (const std::string problem = threads_problem(threads, 1024); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  SegmentPlan s;
  s.threads = threads;
  s.pitch_bytes = static_cast<std::uint32_t>(std::max<std::uint64_t>(kSectorBytes, next_pow2(4u * static_cast<std::uint64_t>(threads))));
  s.region_slots = static_cast<std::uint32_t>(kDramRegionBytes / s.pitch_bytes);
  s.blocks = static_cast<unsigned int>(sm_count * kPartialBlocksPerSm);
  const auto sectors_per_segment = static_cast<std::uint64_t>(partial_block_totals(threads, 4).sectors);
  const std::uint64_t segments = ceil_div(kMovedTargetBytes, sectors_per_segment * kSectorBytes);
  s.segments_per_block = static_cast<std::uint32_t>(round_up(ceil_div(segments, s.blocks), kUnroll));
  return s;
}

std::uint64_t ImagePlan::frame_elems() const {
  const std::uint64_t e = static_cast<std::uint64_t>(elem_bytes);
  return round_up(frame_words() * e, static_cast<std::uint64_t>(kLineBytes)) / e;
}

ImagePlan plan_image(int x, int y, int elem_bytes, int width, int height) {
  if (const std::string problem = block_shape_problem(x, y, 1024); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  if (const std::string problem = image_problem(width, height, elem_bytes); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  ImagePlan i;
  i.x = x;
  i.y = y;
  i.elem_bytes = elem_bytes;
  i.width = width;
  i.height = height;
  // The suite's span (kImageFrames frames of its 4-byte image) over this frame's bytes.
  const std::uint64_t span = std::uint64_t{kImageWidth} * kImageHeight * 4u * kImageFrames;
  const std::uint64_t frame = i.frame_elems() * static_cast<std::uint64_t>(elem_bytes);
  std::uint64_t frames = round_up(ceil_div(span, frame), static_cast<std::uint64_t>(kImageFramesInFlight));
  while (frames > static_cast<std::uint64_t>(kImageFramesInFlight) && frames * frame > kDramRegionBytes) {
    frames -= kImageFramesInFlight;
  }
  i.frames = static_cast<int>(frames);
  i.grid_x = static_cast<unsigned int>(ceil_div(static_cast<std::uint64_t>(i.width), static_cast<std::uint64_t>(x)));
  i.grid_y = static_cast<unsigned int>(ceil_div(static_cast<std::uint64_t>(i.height), static_cast<std::uint64_t>(y)));
  return i;
}

std::uint8_t pattern_byte(std::uint64_t address) {
  return static_cast<std::uint8_t>(pattern_word(address / 4, kPatternSeed) >> (8 * (address % 4)));
}

std::uint32_t element_fold(std::uint64_t address, int elem_bytes) {
  switch (elem_bytes) {
    case 1: return pattern_byte(address);
    case 2: return static_cast<std::uint32_t>(pattern_byte(address)) | (static_cast<std::uint32_t>(pattern_byte(address + 1)) << 8);
    case 4: case 8: case 16: {
      std::uint32_t sum = 0;
      for (int w = 0; w < elem_bytes / 4; ++w) sum += pattern_word(address / 4 + static_cast<std::uint64_t>(w), kPatternSeed);
      return sum;
    }
    default: throw std::invalid_argument(elem_bytes_problem(elem_bytes));
  }
}

std::uint32_t expected_tile_warp_sum(const TilePlan& plan, std::uint32_t warp) {
  std::uint32_t sum = 0;
  for (std::uint32_t k = 0; k < plan.tiles_per_warp; ++k) {
    const std::uint64_t tile = warp + std::uint64_t{k} * plan.total_warps;
    const std::uint64_t slot = tile & (plan.region_tiles - 1u);
    for (const std::uint32_t off : plan.lane_offset) sum += element_fold(slot * plan.pitch_bytes + off, plan.elem_bytes);
  }
  return sum;
}

std::uint32_t expected_segment_warp_sum(const SegmentPlan& plan, unsigned int block, int warp) {
  std::uint32_t sum = 0;
  const int first = warp * kWarpSize;
  const int last = std::min(plan.threads, first + kWarpSize);
  for (std::uint32_t k = 0; k < plan.segments_per_block; ++k) {
    const std::uint64_t segment = block + std::uint64_t{k} * plan.blocks;
    const std::uint64_t slot = segment & (plan.region_slots - 1u);
    for (int t = first; t < last; ++t) {
      sum += pattern_word(slot * plan.pitch_bytes / 4 + static_cast<std::uint64_t>(t), kPatternSeed);
    }
  }
  return sum;
}

std::uint32_t expected_image_warp_sum(const ImagePlan& plan, unsigned int block_x, unsigned int block_y, int warp) {
  std::uint32_t sum = 0;
  const int threads = plan.x * plan.y;
  const std::uint64_t e = static_cast<std::uint64_t>(plan.elem_bytes);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int linear = warp * kWarpSize + lane;
    if (linear >= threads) break;
    const std::uint64_t col = std::uint64_t{block_x} * static_cast<std::uint64_t>(plan.x) + static_cast<std::uint64_t>(linear % plan.x);
    const std::uint64_t row = std::uint64_t{block_y} * static_cast<std::uint64_t>(plan.y) + static_cast<std::uint64_t>(linear / plan.x);
    if (col >= static_cast<std::uint64_t>(plan.width) || row >= static_cast<std::uint64_t>(plan.height)) continue;
    for (int f = 0; f < plan.frames; ++f) {
      const std::uint64_t element = static_cast<std::uint64_t>(f) * plan.frame_elems() + row * static_cast<std::uint64_t>(plan.width) + col;
      sum += element_fold(element * e, plan.elem_bytes);
    }
  }
  return sum;
}

std::uint32_t written_slots(const TilePlan& plan) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(plan.tiles(), plan.region_tiles));
}

std::string check_stored_slot(const TilePlan& plan, std::uint32_t slot, const std::vector<std::uint8_t>& bytes) {
  if (bytes.size() != plan.pitch_bytes) {
    return "slot " + std::to_string(slot) + ": read back " + std::to_string(bytes.size()) + " bytes, expected " +
           std::to_string(plan.pitch_bytes);
  }
  // For each byte of the slot, the offset of the element that covers it (-1: no lane stores there).
  std::vector<long long> element_at(plan.pitch_bytes, -1);
  if (slot < written_slots(plan)) {
    for (const std::uint32_t off : plan.lane_offset) {
      for (int b = 0; b < plan.elem_bytes; ++b) element_at[off + static_cast<std::uint32_t>(b)] = off;
    }
  }
  const std::uint64_t base = std::uint64_t{slot} * plan.pitch_bytes;
  for (std::uint32_t i = 0; i < plan.pitch_bytes; ++i) {
    std::uint8_t want = pattern_byte(base + i);
    if (element_at[i] >= 0) {
      const auto within = static_cast<std::uint32_t>(i - static_cast<std::uint32_t>(element_at[i]));
      const std::uint32_t word = coalescing_store_word(base + static_cast<std::uint64_t>(element_at[i]), within / 4);
      want = static_cast<std::uint8_t>(word >> (8 * (within % 4)));
    }
    if (bytes[i] != want) {
      return "slot " + std::to_string(slot) + " byte " + std::to_string(i) + " is " + std::to_string(bytes[i]) +
             ", expected " + std::to_string(want) +
             (element_at[i] >= 0 ? " (stored by a lane)" : " (no lane stores there: the fill pattern)");
    }
  }
  return {};
}

std::vector<std::uint64_t> spread_sample(std::uint64_t n, int count) {
  std::vector<std::uint64_t> out;
  if (n == 0 || count <= 0) return out;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t v = count == 1 ? 0 : (n - 1) * static_cast<std::uint64_t>(i) / static_cast<std::uint64_t>(count - 1);
    if (out.empty() || out.back() != v) out.push_back(v);
  }
  return out;
}

}  // namespace warpcost::coalescing
