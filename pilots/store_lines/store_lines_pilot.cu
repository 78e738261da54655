// Pilot (not part of the suite): where a warp request that straddles two 128-byte lines pays, the
// coalescing family's largest misses (docs/models.md: 4-byte stores offset by 1, 8 and 31 elements,
// loads offset by 16, block_2d). Times with CUDA events (median of 15 launches after 2 warm-ups) the
// suite's tile kernel shape (256-thread blocks, 8 an SM, 4 requests in flight a thread, ld/st.global.cg,
// 4-byte elements, 128 useful bytes a request, 4 Mi requests a launch) over access patterns that
// separate the request path (SM to L2: the same patterns on a region inside the L2) from the DRAM side
// (a 2 GiB region), and a request's lines from the granules left half-covered. Every output is checked
// against a host reference outside the timed launches. Prints CSV; pilots/store_lines/README.md says
// what each row decides.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "explain/programs/example_support.cuh"  // WARPCOST_CUDA, median_kernel_seconds
#include "kernels/common/pattern.hpp"
#include "pilots/pilot_main.hpp"

namespace {

constexpr std::uint64_t kDramRegion = std::uint64_t{2} << 30;
constexpr std::uint64_t kL2Region = std::uint64_t{16} << 20;
constexpr std::uint64_t kSlack = 4096;
constexpr std::uint64_t kRequests = std::uint64_t{4} << 20;
constexpr int kUnroll = 4;
constexpr std::uint32_t kSeed = 17;

struct Args {
  unsigned char* base;
  std::uint32_t lane_offset[32];
  std::uint32_t pitch;
  std::uint32_t slot_mask;
  std::uint32_t total_warps;
  std::uint32_t tiles_per_warp;
  std::uint32_t* warp_sums;
};

__host__ __device__ inline std::uint32_t stored_word(std::uint64_t address) {
  return static_cast<std::uint32_t>(address) * 2654435761u;
}

__global__ void __launch_bounds__(256) tile_load(Args a) {
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned char* lane_base = a.base + a.lane_offset[lane];
  std::uint32_t sum = 0;
  for (std::uint32_t k = 0; k < a.tiles_per_warp; k += kUnroll) {
    std::uint32_t v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t slot = (warp + (k + u) * a.total_warps) & a.slot_mask;
      v[u] = __ldcg(reinterpret_cast<const std::uint32_t*>(lane_base + static_cast<std::uint64_t>(slot) * a.pitch));
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += v[u];
  }
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (lane == 0) a.warp_sums[warp] = sum;
}

__global__ void __launch_bounds__(256) tile_store(Args a) {
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const std::uint32_t off = a.lane_offset[lane];
  for (std::uint32_t k = 0; k < a.tiles_per_warp; k += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t slot = (warp + (k + u) * a.total_warps) & a.slot_mask;
      const std::uint64_t address = static_cast<std::uint64_t>(slot) * a.pitch + off;
      __stcg(reinterpret_cast<std::uint32_t*>(a.base + address), stored_word(address));
    }
  }
}

__global__ void fill(std::uint32_t* words, std::uint64_t count) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    words[i] = warpcost::pattern_word(i, kSeed);
  }
}

// An access pattern: lane l touches bytes lane_offset[l] .. +3 of slot s, at s * pitch; the slots
// cover `span` bytes of the region (span / pitch of them, a power of two).
struct Pattern {
  std::string name;
  int lines;  // 128-byte lines a request touches
  std::uint32_t lane_offset[32];
  std::uint32_t pitch;
  std::uint64_t span;
};

// offset_bytes + 4 l, tiles `pitch` apart: a* (pitch 256: no two requests share a line, as the
// suite's offset points) and c* (pitch 128: the array covered contiguously, each line shared by two
// neighbouring requests). h2: two 64-byte halves half a region apart (block_2d's 16x16 rows); h4:
// four 32-byte quarters a quarter region apart (8x32).
std::vector<Pattern> patterns(std::uint64_t region) {
  std::vector<Pattern> out;
  auto linear = [&](const char* name, std::uint32_t offset, std::uint32_t pitch) {
    Pattern p{name, (offset % 128 == 0) ? 1 : 2, {}, pitch, region};
    for (int l = 0; l < 32; ++l) p.lane_offset[l] = offset + 4u * static_cast<std::uint32_t>(l);
    out.push_back(p);
  };
  linear("a0", 0, 128);
  linear("a1", 4, 256);
  linear("a8", 32, 256);
  linear("a16", 64, 256);
  linear("c1", 4, 128);
  linear("c8", 32, 128);
  linear("c16", 64, 128);
  Pattern h2{"h2", 2, {}, 64, region / 2};
  for (int l = 0; l < 32; ++l) h2.lane_offset[l] = (l < 16 ? 0u : static_cast<std::uint32_t>(region / 2)) + 4u * (l % 16);
  out.push_back(h2);
  Pattern h4{"h4", 4, {}, 32, region / 4};
  for (int l = 0; l < 32; ++l) h4.lane_offset[l] = static_cast<std::uint32_t>(l / 8 * (region / 4)) + 4u * (l % 8);
  out.push_back(h4);
  return out;
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "output check failed: %s\n", what.c_str());
    ++failures;
  }
}

}  // namespace

int run() {
  using warpcost::examples::median_kernel_seconds;
  const warpcost::pilots::Device dev = warpcost::pilots::device(false);
  const int sms = dev.sms;
  const cudaDeviceProp& prop = dev.prop;
  const unsigned blocks = static_cast<unsigned>(sms) * 8u;
  const std::uint32_t total_warps = blocks * 8u;
  const std::uint32_t tiles_per_warp =
      static_cast<std::uint32_t>((kRequests + total_warps - 1) / total_warps + kUnroll - 1) / kUnroll * kUnroll;
  const std::uint64_t requests = std::uint64_t{total_warps} * tiles_per_warp;
  std::printf("# %s, %d SMs, L2 %d bytes, %u blocks of 256, %u tiles a warp\n", prop.name, sms, prop.l2CacheSize, blocks,
              tiles_per_warp);
  std::printf("op,level,pattern,lines,seconds,requests,useful_bytes\n");
  unsigned char* buf = nullptr;
  WARPCOST_CUDA(cudaMalloc(&buf, kDramRegion + kSlack));
  std::uint32_t* sums = nullptr;
  WARPCOST_CUDA(cudaMalloc(&sums, total_warps * sizeof(std::uint32_t)));
  auto args_of = [&](const Pattern& p) {
    Args a{};
    a.base = buf;
    std::copy(p.lane_offset, p.lane_offset + 32, a.lane_offset);
    a.pitch = p.pitch;
    a.slot_mask = static_cast<std::uint32_t>(p.span / p.pitch - 1);
    a.total_warps = total_warps;
    a.tiles_per_warp = tiles_per_warp;
    a.warp_sums = sums;
    return a;
  };
  // Warps whose results are checked: 64 spread over the grid.
  std::vector<std::uint32_t> checked;
  for (std::uint32_t i = 0; i < 64; ++i) checked.push_back(static_cast<std::uint32_t>(std::uint64_t{i} * total_warps / 64));
  const struct {
    const char* name;
    std::uint64_t region;
  } levels[] = {{"dram", kDramRegion}, {"l2", kL2Region}};

  // Stores first: each pattern starts from a buffer of 0xFF bytes (outside its timed launches); its
  // check reads back the checked warps' last tiles.
  for (const auto& level : levels) {
    for (const Pattern& p : patterns(level.region)) {
      if (p.name[0] == 'h') continue;  // the far patterns are block_2d's, a load
      const Args a = args_of(p);
      WARPCOST_CUDA(cudaMemset(buf, 0xFF, kDramRegion + kSlack));
      WARPCOST_CUDA(cudaDeviceSynchronize());
      const double s = median_kernel_seconds([&] {
        tile_store<<<blocks, 256>>>(a);
        WARPCOST_CHECK_LAUNCH("tile_store");
      });
      std::printf("store,%s,%s,%d,%.9g,%llu,%llu\n", level.name, p.name.c_str(), p.lines, s,
                  static_cast<unsigned long long>(requests), static_cast<unsigned long long>(requests * 128));
      bool ok = true;
      for (std::uint32_t w : checked) {
        const std::uint32_t slot = (w + (tiles_per_warp - 1) * total_warps) & a.slot_mask;
        for (int l = 0; l < 32; ++l) {
          const std::uint64_t address = std::uint64_t{slot} * p.pitch + p.lane_offset[l];
          std::uint32_t got = 0;
          WARPCOST_CUDA(cudaMemcpy(&got, buf + address, 4, cudaMemcpyDeviceToHost));
          ok = ok && got == stored_word(address);
        }
      }
      expect(ok, std::string("store ") + level.name + " " + p.name);
    }
  }
  // Loads: the buffer holds pattern_word(i) in word i; each warp's sum against the host's.
  fill<<<sms * 8, 256>>>(reinterpret_cast<std::uint32_t*>(buf), (kDramRegion + kSlack) / 4);
  WARPCOST_CHECK_LAUNCH("fill");
  WARPCOST_CUDA(cudaDeviceSynchronize());
  for (const auto& level : levels) {
    for (const Pattern& p : patterns(level.region)) {
      if (p.name == "c1" || p.name == "a1") continue;  // the offset-1 load holds in the suite already
      const Args a = args_of(p);
      WARPCOST_CUDA(cudaMemset(sums, 0xFF, total_warps * sizeof(std::uint32_t)));
      WARPCOST_CUDA(cudaDeviceSynchronize());
      const double s = median_kernel_seconds([&] {
        tile_load<<<blocks, 256>>>(a);
        WARPCOST_CHECK_LAUNCH("tile_load");
      });
      std::printf("load,%s,%s,%d,%.9g,%llu,%llu\n", level.name, p.name.c_str(), p.lines, s,
                  static_cast<unsigned long long>(requests), static_cast<unsigned long long>(requests * 128));
      std::vector<std::uint32_t> got(total_warps);
      WARPCOST_CUDA(cudaMemcpy(got.data(), sums, got.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      bool ok = true;
      for (std::uint32_t w : checked) {
        std::uint32_t want = 0;
        for (std::uint32_t k = 0; k < tiles_per_warp; ++k) {
          const std::uint32_t slot = (w + k * total_warps) & a.slot_mask;
          for (int l = 0; l < 32; ++l) want += warpcost::pattern_word((std::uint64_t{slot} * p.pitch + p.lane_offset[l]) / 4, kSeed);
        }
        ok = ok && got[w] == want;
      }
      expect(ok, std::string("load ") + level.name + " " + p.name);
    }
  }
  WARPCOST_CUDA(cudaFree(buf));
  WARPCOST_CUDA(cudaFree(sums));
  return warpcost::pilots::finish(failures);
}

int main() { return warpcost::pilots::main_of("store_lines_pilot", run); }
