// The coalescing family's kernels, as plain C++ declarations: the tile kernels (one warp request a
// tile, loads or stores, element sizes 1..16 bytes), the segment kernel (1D blocks of P threads),
// the image kernel ((x,y) blocks over a row-major image) and the pattern fill.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace warpcost::kernels {

struct TileKernelArgs {
  unsigned char* base = nullptr;  // the region's first byte (line-aligned)
  std::uint32_t lane_offset[32] = {};
  std::uint32_t pitch_bytes = 0;   // a power of two
  std::uint32_t region_mask = 0;   // region tiles - 1 (a power of two less one)
  std::uint32_t total_warps = 0;
  std::uint32_t tiles_per_warp = 0;  // a multiple of 4
  std::uint32_t* warp_sums = nullptr;  // loads: one uint32 fold a warp (total_warps of them)
};

// elem_bytes 1, 2, 4, 8 or 16; blocks of 256 threads. Loads bypass L1 (ld.global.cg) so the L2 and
// DRAM are what a repeated tile measures, not an SM's L1.
void launch_tile_load(const TileKernelArgs& args, int elem_bytes, unsigned int blocks, cudaStream_t stream);
// Writes coalescing_store_word values (coalescing_pattern.hpp) into every element a lane touches.
void launch_tile_store(const TileKernelArgs& args, int elem_bytes, unsigned int blocks, cudaStream_t stream);

struct SegmentKernelArgs {
  const std::uint32_t* base = nullptr;
  std::uint32_t pitch_words = 0;
  std::uint32_t region_mask = 0;
  std::uint32_t segments_per_block = 0;  // a multiple of 4
  std::uint32_t* warp_sums = nullptr;    // blocks x ceil(threads/32)
};
void launch_segment_load(const SegmentKernelArgs& args, int threads, unsigned int blocks, cudaStream_t stream);

struct ImageKernelArgs {
  const std::uint32_t* base = nullptr;  // line-aligned
  int elem_bytes = 4;                   // 1, 2, 4, 8 or 16; each folded to uint32 as the tile kernels fold
  int width = 0, height = 0, frames = 0;
  std::uint64_t frame_elems = 0;        // elements from one frame's first to the next's (>= width*height)
  std::uint32_t* warp_sums = nullptr;   // grid_x x grid_y x ceil(x*y/32), block-major
};
void launch_image_load(const ImageKernelArgs& args, int x, int y, unsigned int grid_x, unsigned int grid_y,
                       cudaStream_t stream);

// words[i] = pattern_word(i, seed) for i < count.
void launch_pattern_fill(std::uint32_t* words, std::uint64_t count, std::uint32_t seed, cudaStream_t stream);

}  // namespace warpcost::kernels
