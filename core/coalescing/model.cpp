#include "core/coalescing/model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

#include "core/models.hpp"

namespace warpcost::coalescing {

int partial_sectors(const WarpRequest& request) {
  // Bytes written per sector; a byte two lanes write counts once.
  std::vector<std::uint64_t> bytes;
  for (const std::uint64_t a : request.addresses) {
    for (int i = 0; i < request.elem_bytes; ++i) bytes.push_back(a + static_cast<std::uint64_t>(i));
  }
  std::sort(bytes.begin(), bytes.end());
  bytes.erase(std::unique(bytes.begin(), bytes.end()), bytes.end());
  int partial = 0;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const std::uint64_t sector = bytes[i] / kSectorBytes;
    std::size_t j = i;
    while (j < bytes.size() && bytes[j] / kSectorBytes == sector) ++j;
    if (j - i < static_cast<std::size_t>(kSectorBytes)) ++partial;
    i = j;
  }
  return partial;
}

int distinct_granules(const WarpRequest& request, int granule_bytes) {
  if (granule_bytes <= 0 || request.elem_bytes <= 0) {
    throw std::invalid_argument("distinct_granules: granule and element size must be positive");
  }
  const auto g = static_cast<std::uint64_t>(granule_bytes);
  const auto size = static_cast<std::uint64_t>(request.elem_bytes);
  // A sorted vector, not a set: the 2D model calls this for every warp of a 1920x1080 frame.
  std::vector<std::uint64_t> touched;
  touched.reserve(request.addresses.size() * 2);
  for (const std::uint64_t a : request.addresses) {
    for (std::uint64_t k = a / g; k <= (a + size - 1) / g; ++k) touched.push_back(k);
  }
  // A warp's lanes mostly run up the addresses (every strided and 2D request does): then the list
  // is already in order and only the permuted requests pay the sort.
  if (!std::is_sorted(touched.begin(), touched.end())) std::sort(touched.begin(), touched.end());
  return static_cast<int>(std::unique(touched.begin(), touched.end()) - touched.begin());
}

double useful_per_moved(int active_lanes, int elem_bytes, int sectors) {
  if (sectors <= 0) return 0.0;
  return static_cast<double>(active_lanes) * elem_bytes / (static_cast<double>(kSectorBytes) * sectors);
}

WarpRequest strided_request(int elem_bytes, int stride, int offset) {
  WarpRequest r;
  r.elem_bytes = elem_bytes;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const auto element = static_cast<std::uint64_t>(offset) + static_cast<std::uint64_t>(lane) * stride;
    r.addresses.push_back(element * static_cast<std::uint64_t>(elem_bytes));
  }
  return r;
}

WarpRequest permuted_request(int elem_bytes, const std::array<int, kWarpSize>& perm) {
  WarpRequest r;
  r.elem_bytes = elem_bytes;
  for (const int element : perm) {
    r.addresses.push_back(static_cast<std::uint64_t>(element) * static_cast<std::uint64_t>(elem_bytes));
  }
  return r;
}

std::array<int, kWarpSize> lane_permutation(std::uint32_t seed) {
  std::array<int, kWarpSize> perm{};
  for (int i = 0; i < kWarpSize; ++i) perm[static_cast<std::size_t>(i)] = i;
  std::mt19937 gen(seed);
  // Fisher-Yates with a modulo draw: std::uniform_int_distribution's algorithm is the library's
  // own, and the bench and the analysis must agree on every platform.
  for (int i = kWarpSize - 1; i > 0; --i) {
    const auto j = static_cast<int>(gen() % static_cast<std::uint32_t>(i + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
}

void add_request(RequestTotals& totals, const WarpRequest& request) {
  if (request.addresses.empty()) return;
  totals.requests += 1;
  totals.active_lanes += static_cast<long long>(request.addresses.size());
  totals.sectors += sectors(request);
  totals.granules64 += distinct_granules(request, kPromotedGranuleBytes);
  totals.lines += lines(request);
  totals.useful_bytes += static_cast<long long>(request.addresses.size()) * request.elem_bytes;
}

namespace {

// Calls visit(request) for every warp of every block over one frame.
template <class Visit>
void for_each_block_2d_warp(int x, int y, int width, int height, int elem_bytes, Visit&& visit) {
  if (x <= 0 || y <= 0 || width <= 0 || height <= 0) {
    throw std::invalid_argument("block_2d: block and frame sides must be positive");
  }
  const int threads = x * y;
  const int warps = (threads + kWarpSize - 1) / kWarpSize;
  const int blocks_x = (width + x - 1) / x;
  const int blocks_y = (height + y - 1) / y;
  WarpRequest r;
  r.elem_bytes = elem_bytes;
  for (int by = 0; by < blocks_y; ++by) {
    for (int bx = 0; bx < blocks_x; ++bx) {
      for (int w = 0; w < warps; ++w) {
        r.addresses.clear();
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const int linear = w * kWarpSize + lane;
          if (linear >= threads) break;  // the block's tail warp has no such lane
          const long long col = static_cast<long long>(bx) * x + linear % x;
          const long long row = static_cast<long long>(by) * y + linear / x;
          if (col >= width || row >= height) continue;  // off the frame's edge: idle
          r.addresses.push_back(static_cast<std::uint64_t>(row * width + col) *
                                static_cast<std::uint64_t>(elem_bytes));
        }
        visit(r);
      }
    }
  }
}

// The frame functions walk every warp of a frame (65k warps for 1920x1080 in 32x1 blocks) and the
// analysis asks them the same few frames for many rows and runs: each answer is computed once per
// process and kept. Guarded for the analysis' threads; the answer is the same either way.
template <class T, class Compute>
T remembered(std::map<std::array<int, 5>, T>& memo, std::mutex& lock, const std::array<int, 5>& key, Compute compute) {
  {
    const std::lock_guard<std::mutex> held(lock);
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
  }
  T value = compute();  // outside the lock: two threads may both compute one frame, with one answer
  const std::lock_guard<std::mutex> held(lock);
  return memo.emplace(key, value).first->second;
}

std::mutex g_frame_lock;
std::map<std::array<int, 5>, RequestTotals> g_frame_totals;
std::map<std::array<int, 5>, long long> g_frame_sectors;

long long compute_frame_sectors(int x, int y, int width, int height, int elem_bytes);

}  // namespace

RequestTotals block_2d_totals(int x, int y, int width, int height, int elem_bytes) {
  return remembered(g_frame_totals, g_frame_lock, {x, y, width, height, elem_bytes}, [&] {
    RequestTotals t;
    for_each_block_2d_warp(x, y, width, height, elem_bytes, [&](const WarpRequest& r) { add_request(t, r); });
    return t;
  });
}

long long block_2d_frame_sectors(int x, int y, int width, int height, int elem_bytes) {
  return remembered(g_frame_sectors, g_frame_lock, {x, y, width, height, elem_bytes},
                    [&] { return compute_frame_sectors(x, y, width, height, elem_bytes); });
}

namespace {

long long compute_frame_sectors(int x, int y, int width, int height, int elem_bytes) {
  const auto frame_bytes = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                           static_cast<std::uint64_t>(elem_bytes);
  std::vector<bool> touched((frame_bytes + kSectorBytes - 1) / kSectorBytes, false);
  for_each_block_2d_warp(x, y, width, height, elem_bytes, [&](const WarpRequest& r) {
    for (const std::uint64_t a : r.addresses) {
      for (std::uint64_t s = a / kSectorBytes; s <= (a + static_cast<std::uint64_t>(elem_bytes) - 1) / kSectorBytes;
           ++s) {
        touched[s] = true;
      }
    }
  });
  return static_cast<long long>(std::count(touched.begin(), touched.end(), true));
}

}  // namespace

RequestTotals partial_block_totals(int threads, int elem_bytes) {
  if (threads <= 0) throw std::invalid_argument("partial_block: a block needs at least one thread");
  RequestTotals t;
  for (int first = 0; first < threads; first += kWarpSize) {
    WarpRequest r;
    r.elem_bytes = elem_bytes;
    for (int i = first; i < std::min(threads, first + kWarpSize); ++i) {
      r.addresses.push_back(static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(elem_bytes));
    }
    add_request(t, r);
  }
  return t;
}

std::uint64_t tile_pitch_bytes(const WarpRequest& request) {
  std::uint64_t span = 0;
  for (const std::uint64_t a : request.addresses) {
    span = std::max<std::uint64_t>(span, a + static_cast<std::uint64_t>(request.elem_bytes));
  }
  std::uint64_t pitch = kSectorBytes;
  while (pitch < span) pitch *= 2;
  return pitch;
}

double moved_bytes_per_tile(const WarpRequest& request, std::uint64_t pitch_bytes, int granule_bytes) {
  if (pitch_bytes == 0 || granule_bytes <= 0) {
    throw std::invalid_argument("moved_bytes_per_tile: pitch = " + std::to_string(pitch_bytes) + ", granule = " +
                                std::to_string(granule_bytes) + "; allowed: both > 0");
  }
  const auto g = static_cast<std::uint64_t>(granule_bytes);
  const std::uint64_t tiles = std::lcm(pitch_bytes, g) / pitch_bytes;
  WarpRequest repeated;
  repeated.elem_bytes = request.elem_bytes;
  for (std::uint64_t k = 0; k < tiles; ++k) {
    for (const std::uint64_t a : request.addresses) repeated.addresses.push_back(a + k * pitch_bytes);
  }
  return static_cast<double>(distinct_granules(repeated, granule_bytes)) * static_cast<double>(g) /
         static_cast<double>(tiles);
}

SpacingRate::SpacingRate(std::vector<std::pair<double, double>> points) {
  if (points.empty()) throw std::invalid_argument("a spacing rate has 0 points; allowed: at least 1");
  for (const auto& [d, rate] : points) {
    if (!(std::isfinite(d) && d > 0) || !(std::isfinite(rate) && rate > 0)) {
      throw std::invalid_argument("spacing rate point (" + std::to_string(d) + " B, " + std::to_string(rate) +
                                  " B/s); allowed: both finite and > 0");
    }
  }
  std::sort(points.begin(), points.end());
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].first == points[i - 1].first) {
      throw std::invalid_argument("spacing " + std::to_string(points[i].first) + " B given twice; allowed: once");
    }
  }
  points_ = std::move(points);
}

double SpacingRate::at(double d) const {
  if (points_.empty()) throw std::logic_error("an empty spacing rate was read");
  return model::piecewise_linear(points_, d);
}

double second_order_useful_bandwidth(double spacing_rate, double in_flight_rate, double useful_bytes,
                                     double moved_bytes) {
  if (!(moved_bytes > 0) || !(useful_bytes >= 0) || !(spacing_rate > 0)) {
    throw std::invalid_argument("second_order_useful_bandwidth: rate = " + std::to_string(spacing_rate) +
                                ", useful = " + std::to_string(useful_bytes) + ", moved = " +
                                std::to_string(moved_bytes) + "; allowed: rate > 0, useful >= 0, moved > 0");
  }
  const double rate = in_flight_rate > 0 ? std::min(spacing_rate, in_flight_rate) : spacing_rate;
  return rate * useful_bytes / moved_bytes;
}

std::string block_shape_problem(long long x, long long y, long long max_threads) {
  if (x < 1 || y < 1) {
    return "block (" + std::to_string(x) + "," + std::to_string(y) + "); allowed: sides of 1 or more";
  }
  if (x * y > max_threads) {
    return "block (" + std::to_string(x) + "," + std::to_string(y) + ") has " + std::to_string(x * y) +
           " threads; allowed: at most " + std::to_string(max_threads);
  }
  return {};
}

namespace {
std::uint64_t round_up_to(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b * b; }
}  // namespace

std::string elem_bytes_problem(long long elem_bytes) {
  for (const int size : kElementSizes) {
    if (elem_bytes == size) return {};
  }
  return "element size = " + std::to_string(elem_bytes) + " bytes; allowed: 1, 2, 4, 8, 16";
}

std::string image_problem(long long width, long long height, long long elem_bytes) {
  if (const std::string p = elem_bytes_problem(elem_bytes); !p.empty()) return p;
  constexpr long long kMostSide = 65536;
  if (width < 1 || height < 1 || width > kMostSide || height > kMostSide) {
    return "image " + std::to_string(width) + "x" + std::to_string(height) + "; allowed: sides 1.." +
           std::to_string(kMostSide);
  }
  const std::uint64_t frame = round_up_to(static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                                           static_cast<std::uint64_t>(elem_bytes),
                                       static_cast<std::uint64_t>(kLineBytes));
  if (frame * static_cast<std::uint64_t>(kImageFramesInFlight) > kDramRegionBytes) {
    return "image " + std::to_string(width) + "x" + std::to_string(height) + " of " + std::to_string(elem_bytes) +
           "-byte elements: " + std::to_string(kImageFramesInFlight) + " frames of " + std::to_string(frame) +
           " bytes; allowed: at most " + std::to_string(kDramRegionBytes) + " bytes (the family's buffer)";
  }
  return {};
}

}  // namespace warpcost::coalescing
