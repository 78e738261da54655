#include "bench/coalescing/runner.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace warpcost::coalescing {

namespace {
// Warps (or blocks) whose output the host replays after the check launch: spread over the grid,
// the first and the last among them; enough to catch a wrong slot or lane mapping, few enough that
// the replay stays milliseconds a point.
constexpr int kCheckedWarps = 16;
constexpr int kCheckedSlots = 48;
}  // namespace

CoalescingBuffer::CoalescingBuffer(std::uint64_t bytes) : words_(bytes / sizeof(std::uint32_t)) {}

void CoalescingBuffer::ensure_pattern(const Stream& stream) {
  if (holds_pattern_) return;
  kernels::launch_pattern_fill(words_.data(), words_.size(), kPatternSeed, stream.get());
  stream.synchronize();
  holds_pattern_ = true;
}

std::string buffer_problem(std::uint64_t free_bytes) {
  if (free_bytes >= kDramRegionBytes) return {};
  return "the coalescing family needs " + std::to_string(kDramRegionBytes) + " bytes of device memory; allowed: at most the " +
         std::to_string(free_bytes) + " bytes free";
}

CoalescingRunner::CoalescingRunner(const DeviceInfo& device, const Point& point, CoalescingBuffer& buffer)
    : point_(point), buffer_(buffer) {
  if (const std::string p = point_problem(point, device.max_threads_per_block); !p.empty()) {
    throw std::invalid_argument(p + " (" + device.name + ")");
  }
  if (buffer.bytes() < kDramRegionBytes) throw std::invalid_argument(buffer_problem(buffer.bytes()));
  switch (point.kind) {
    case Kind::kBlock2d:
      if (point.x > device.max_block_dim[0] || point.y > device.max_block_dim[1]) {
        throw std::invalid_argument("block (" + std::to_string(point.x) + "," + std::to_string(point.y) +
                                    "); allowed on " + device.name + ": x <= " + std::to_string(device.max_block_dim[0]) +
                                    ", y <= " + std::to_string(device.max_block_dim[1]));
      }
      image_ = plan_image(point.x, point.y, point.elem_bytes, point.image_width, point.image_height);
      warp_sums_ = DeviceBuffer<std::uint32_t>(image_.warp_count());
      break;
    case Kind::kPartialBlock:
      segments_ = plan_segments(point.threads, device.sm_count);
      warp_sums_ = DeviceBuffer<std::uint32_t>(std::uint64_t{segments_.blocks} * static_cast<std::uint64_t>((point.threads + 31) / 32));
      break;
    default:
      tiles_ = plan_tiles(point, device.sm_count, device.max_threads_per_sm, device.l2_bytes);
      warp_sums_ = DeviceBuffer<std::uint32_t>(tiles_.total_warps);
      break;
  }
}

std::uint64_t CoalescingRunner::useful_bytes() const {
  switch (point_.kind) {
    case Kind::kBlock2d: return image_.useful_bytes();
    case Kind::kPartialBlock: return segments_.useful_bytes();
    default: return tiles_.useful_bytes();
  }
}

std::uint64_t CoalescingRunner::warp_requests() const {
  switch (point_.kind) {
    case Kind::kBlock2d:
      return static_cast<std::uint64_t>(block_2d_totals(image_.x, image_.y, image_.width, image_.height, image_.elem_bytes).requests) *
             static_cast<std::uint64_t>(image_.frames);
    case Kind::kPartialBlock: return segments_.warp_requests();
    default: return tiles_.tiles();
  }
}

std::uint64_t CoalescingRunner::region_bytes() const {
  switch (point_.kind) {
    case Kind::kBlock2d: return image_.footprint_bytes();
    case Kind::kPartialBlock: return kDramRegionBytes;
    default: return tiles_.region_bytes;
  }
}

void CoalescingRunner::launch(const Stream& stream) {
  switch (point_.kind) {
    case Kind::kBlock2d: {
      kernels::ImageKernelArgs a;
      a.base = buffer_.words();
      a.elem_bytes = image_.elem_bytes;
      a.width = image_.width;
      a.height = image_.height;
      a.frames = image_.frames;
      a.frame_elems = image_.frame_elems();
      a.warp_sums = warp_sums_.data();
      kernels::launch_image_load(a, image_.x, image_.y, image_.grid_x, image_.grid_y, stream.get());
      return;
    }
    case Kind::kPartialBlock: {
      kernels::SegmentKernelArgs a;
      a.base = buffer_.words();
      a.pitch_words = segments_.pitch_bytes / 4;
      a.region_mask = segments_.region_slots - 1;
      a.segments_per_block = segments_.segments_per_block;
      a.warp_sums = warp_sums_.data();
      kernels::launch_segment_load(a, segments_.threads, segments_.blocks, stream.get());
      return;
    }
    default: {
      kernels::TileKernelArgs a;
      a.base = buffer_.bytes_data();
      std::copy(tiles_.lane_offset.begin(), tiles_.lane_offset.end(), a.lane_offset);
      a.pitch_bytes = tiles_.pitch_bytes;
      a.region_mask = tiles_.region_tiles - 1;
      a.total_warps = tiles_.total_warps;
      a.tiles_per_warp = tiles_.tiles_per_warp;
      a.warp_sums = warp_sums_.data();
      if (tiles_.store) {
        kernels::launch_tile_store(a, tiles_.elem_bytes, tiles_.blocks, stream.get());
        buffer_.mark_written();
      } else {
        kernels::launch_tile_load(a, tiles_.elem_bytes, tiles_.blocks, stream.get());
      }
      return;
    }
  }
}

void CoalescingRunner::check(const Stream& stream) {
  buffer_.ensure_pattern(stream);
  launch(stream);
  stream.synchronize();
  if (point_.kind == Kind::kStoreDram) {
    check_stores(stream);
  } else {
    check_load_sums(stream);
  }
}

void CoalescingRunner::check_load_sums(const Stream& stream) {
  std::vector<std::uint32_t> sums(warp_sums_.size());
  WARPCOST_CUDA(cudaMemcpyAsync(sums.data(), warp_sums_.data(), warp_sums_.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  const std::string where = std::string(bench_name(point_.kind)) + " ";
  if (point_.kind == Kind::kBlock2d) {
    const std::uint64_t blocks = std::uint64_t{image_.grid_x} * image_.grid_y;
    const auto warps = static_cast<std::uint64_t>(image_.warps_per_block());
    for (const std::uint64_t b : spread_sample(blocks, kCheckedWarps)) {
      const auto bx = static_cast<unsigned int>(b % image_.grid_x);
      const auto by = static_cast<unsigned int>(b / image_.grid_x);
      for (std::uint64_t w = 0; w < warps; ++w) {
        const std::uint32_t want = expected_image_warp_sum(image_, bx, by, static_cast<int>(w));
        if (sums[b * warps + w] != want) {
          throw std::runtime_error(where + "block (" + std::to_string(bx) + "," + std::to_string(by) + ") warp " +
                                   std::to_string(w) + ": sum " + std::to_string(sums[b * warps + w]) +
                                   ", host replay " + std::to_string(want));
        }
      }
    }
    return;
  }
  if (point_.kind == Kind::kPartialBlock) {
    const auto warps = static_cast<std::uint64_t>((segments_.threads + 31) / 32);
    for (const std::uint64_t b : spread_sample(segments_.blocks, kCheckedWarps)) {
      for (std::uint64_t w = 0; w < warps; ++w) {
        const std::uint32_t want = expected_segment_warp_sum(segments_, static_cast<unsigned int>(b), static_cast<int>(w));
        if (sums[b * warps + w] != want) {
          throw std::runtime_error(where + "block " + std::to_string(b) + " warp " + std::to_string(w) + ": sum " +
                                   std::to_string(sums[b * warps + w]) + ", host replay " + std::to_string(want));
        }
      }
    }
    return;
  }
  for (const std::uint64_t w : spread_sample(tiles_.total_warps, kCheckedWarps)) {
    const std::uint32_t want = expected_tile_warp_sum(tiles_, static_cast<std::uint32_t>(w));
    if (sums[w] != want) {
      throw std::runtime_error(where + "warp " + std::to_string(w) + ": sum " + std::to_string(sums[w]) +
                               ", host replay " + std::to_string(want));
    }
  }
}

void CoalescingRunner::check_stores(const Stream& stream) {
  std::vector<std::uint64_t> slots = spread_sample(tiles_.region_tiles, kCheckedSlots);
  const std::uint32_t written = written_slots(tiles_);
  slots.push_back(written - 1);
  if (written < tiles_.region_tiles) slots.push_back(written);  // the first slot no tile reaches
  std::vector<std::uint8_t> bytes(tiles_.pitch_bytes);
  for (const std::uint64_t slot : slots) {
    WARPCOST_CUDA(cudaMemcpyAsync(bytes.data(), buffer_.bytes_data() + slot * tiles_.pitch_bytes, bytes.size(),
                                  cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    if (const std::string p = check_stored_slot(tiles_, static_cast<std::uint32_t>(slot), bytes); !p.empty()) {
      throw std::runtime_error(std::string(bench_name(point_.kind)) + " read back: " + p);
    }
  }
}

}  // namespace warpcost::coalescing
