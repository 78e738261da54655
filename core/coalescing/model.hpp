// The coalescing model: what one warp-level memory request costs in 32-byte sectors and 128-byte
// lines, given the byte addresses its active lanes touch, and the geometries the coalescing family
// measures (a strided warp, a shuffled warp, a 2D block over a row-major image, a 1D block of P
// threads). Pure functions, no CUDA (see docs/coalescing.md for the derivations).
#pragma once

#include "core/constants.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpcost::coalescing {

// The DRAM sweep's buffer (bench/coalescing/plan.hpp says why 2 GiB).
inline constexpr std::uint64_t kDramRegionBytes = std::uint64_t{2} << 30;

using warpcost::kSectorBytes;
using warpcost::kWarpSize;
inline constexpr int kLineBytes = 128;
// The DRAM granule the L2 may fetch on a sector miss (two sectors) on Hopper: where measured DRAM
// bytes exceed the sector model, this granule is the first explanation the evaluator tries.
inline constexpr int kPromotedGranuleBytes = 64;
inline constexpr int kElementSizes[] = {1, 2, 4, 8, 16};
// The launch geometry the kernels use, the bench plans with and the second-order model reads.
inline constexpr int kTileBlockThreads = 256;
inline constexpr int kUnroll = 4;  // loads in flight a thread in the tile and segment kernels
inline constexpr int kImageFramesInFlight = 8;  // the 2D kernel's `#pragma unroll 8` over frames
inline constexpr int kPartialBlocksPerSm = 32;  // partial_block launches 32 blocks an SM

// The byte addresses of one warp request's active lanes (inactive lanes are simply absent).
struct WarpRequest {
  int elem_bytes = 4;
  std::vector<std::uint64_t> addresses;
};

// Distinct g-byte granules the request touches: |U over lanes {floor(a/g) .. floor((a+size-1)/g)}|.
int distinct_granules(const WarpRequest& request, int granule_bytes);
// sectors = distinct 32-byte sectors the active lanes touch.
inline int sectors(const WarpRequest& r) { return distinct_granules(r, kSectorBytes); }
// Sectors the request writes only in part (fewer than 32 of their bytes): a store's L2 fills the
// rest of such a sector from DRAM before it writes the sector back (read-back once).
int partial_sectors(const WarpRequest& request);
// lines = distinct 128-byte lines the active lanes touch.
inline int lines(const WarpRequest& r) { return distinct_granules(r, kLineBytes); }
// useful bytes per moved byte = (active lanes x size) / (32 x sectors).
double useful_per_moved(int active_lanes, int elem_bytes, int sectors);
// predicted bandwidth = coalesced rate x useful bytes per moved byte.
inline double predicted_bandwidth(double coalesced_rate, double efficiency) {
  return coalesced_rate * efficiency;
}

// Lane l reads element offset + l*stride: byte (offset + l*stride) * size from a 128-byte line.
WarpRequest strided_request(int elem_bytes, int stride, int offset);
// Lane l reads element perm[l] of a 32-element window starting at a line.
WarpRequest permuted_request(int elem_bytes, const std::array<int, kWarpSize>& perm);
// A permutation of 0..31 from a seed: Fisher-Yates over std::mt19937 (whose output the standard
// fixes), so the bench and the analysis draw the same one.
std::array<int, kWarpSize> lane_permutation(std::uint32_t seed);

// Sums over a set of warp requests.
struct RequestTotals {
  long long requests = 0;      // warp requests with at least one active lane
  long long active_lanes = 0;  // over all requests
  long long sectors = 0;
  long long granules64 = 0;  // 64-byte granules (the promoted-fetch model)
  long long lines = 0;
  long long useful_bytes = 0;
  double sectors_per_request() const { return requests == 0 ? 0.0 : double(sectors) / double(requests); }
  double lines_per_request() const { return requests == 0 ? 0.0 : double(lines) / double(requests); }
  // useful bytes per moved byte = useful bytes / (32 x sectors).
  double useful_per_moved() const {
    return sectors == 0 ? 0.0 : double(useful_bytes) / double(sectors * kSectorBytes);
  }
};
void add_request(RequestTotals& totals, const WarpRequest& request);

// Every warp of every (x,y) block over one width x height frame of a row-major array, element
// (row, col) at byte (row*width + col)*size, lanes beyond the frame idle; warps are the block's
// linear thread index / 32 (x fastest). Frames are line-aligned (width*height*size % 128 == 0).
RequestTotals block_2d_totals(int x, int y, int width, int height, int elem_bytes);
// Distinct sectors of one frame that some lane reads: the bytes DRAM must move for a frame when
// blocks share sectors through the L2.
long long block_2d_frame_sectors(int x, int y, int width, int height, int elem_bytes);
// One 1D block of P threads reading P consecutive elements from a line-aligned base.
RequestTotals partial_block_totals(int threads, int elem_bytes);

// ---- the second-order model (docs/models.md, "Coalescing") -----------------------------------
// The pitch the bench lays one request's tiles at: max(32, next power of two >= the request's span,
// the last byte a lane touches + 1). Tiles repeat every pitch bytes.
std::uint64_t tile_pitch_bytes(const WarpRequest& request);
// Bytes DRAM moves for one request when the memory moves g-byte granules and the request's tile
// repeats every `pitch` bytes: tiles narrower than a granule share it with their neighbours, so the
// distinct granules of lcm(pitch, g) / pitch consecutive tiles are counted and divided among them.
double moved_bytes_per_tile(const WarpRequest& request, std::uint64_t pitch_bytes, int granule_bytes);
// A measured rate of moved bytes as a function of the byte spacing D between neighbouring lanes'
// elements: piecewise linear between its points, clamped to the first and last outside them.
class SpacingRate {
 public:
  SpacingRate() = default;
  // Throws std::invalid_argument for fewer than one point, a spacing or rate not finite and > 0,
  // or a spacing given twice.
  explicit SpacingRate(std::vector<std::pair<double, double>> spacing_and_rate);
  double at(double spacing_bytes) const;
  const std::vector<std::pair<double, double>>& points() const { return points_; }

 private:
  std::vector<std::pair<double, double>> points_;
};
// useful bandwidth = min(R(D), R_in_flight) x useful bytes / moved bytes; R_in_flight <= 0 means
// no in-flight bound (stores, the L2 level). Throws std::invalid_argument for moved <= 0.
double second_order_useful_bandwidth(double spacing_rate, double in_flight_rate, double useful_bytes,
                                     double moved_bytes);

// "" or one sentence naming (x, y) and what is allowed: sides of 1 or more, x*y <= max_threads.
std::string block_shape_problem(long long x, long long y, long long max_threads);

// "" or one sentence naming the element size and what is allowed (1, 2, 4, 8, 16 bytes).
std::string elem_bytes_problem(long long elem_bytes);
// "" or one sentence naming the image and what is allowed: sides 1..65536 and kImageFramesInFlight
// frames of it, each padded to whole lines, within the family's 2 GiB buffer. Host-only, so
// `warpcost check --plan` refuses what the runner would.
std::string image_problem(long long width, long long height, long long elem_bytes);

}  // namespace warpcost::coalescing
