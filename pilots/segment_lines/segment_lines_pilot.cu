// Pilot (not part of the suite): why the coalescing family's partial blocks run faster than the
// in-flight bound prices them (docs/models.md, "Where the misses are": on the H200 16-thread blocks
// +47..56 %, 32-thread blocks +17..19 %, at bytes in flight an SM where the streaming curves run
// 31 % and 16 % slower). Times with CUDA events (median of 15 launches after 2 warm-ups) the suite's
// segment kernel (1D blocks of P threads, thread t reads 4-byte element t of its segment,
// ld.global.cg, U segments in flight a thread, 32 blocks an SM) and variants of it that change one
// thing each: the pitch (whether a neighbouring block completes the segment's line), the block-to-
// segment map (a grid-wide contiguous front, or each block walking its own run), the segments in
// flight, the blocks an SM, and the request's size (16-byte elements: the stream's 512-byte warp
// request). Every output is checked against a host reference outside the timed launches. Prints CSV;
// pilots/segment_lines/README.md says what each row decides.
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

constexpr std::uint64_t kRegion = std::uint64_t{2} << 30;
constexpr std::uint64_t kUsefulTarget = std::uint64_t{512} << 20;  // useful bytes a launch
constexpr std::uint32_t kSeed = 23;

struct Args {
  const unsigned char* base;
  std::uint32_t pitch;      // bytes from one segment slot to the next
  std::uint32_t slot_mask;  // slots in the region - 1 (a power of two)
  std::uint32_t per_block;  // segments a block reads (a multiple of U)
  std::uint32_t private_map;  // 0: slot = b + k * blocks (the suite's); 1: slot = b * per_block + k
  std::uint32_t* sums;      // one a thread
};

template <int E> struct Elem;
template <> struct Elem<4> {
  using T = unsigned int;
  __device__ static std::uint32_t fold(T v) { return v; }
};
template <> struct Elem<16> {
  using T = uint4;
  __device__ static std::uint32_t fold(T v) { return v.x + v.y + v.z + v.w; }
};

template <int U, int E>
__global__ void segment_load(Args a) {
  using T = typename Elem<E>::T;
  const unsigned char* thread_base = a.base + static_cast<std::uint64_t>(threadIdx.x) * E;
  std::uint32_t sum = 0;
  // Not unrolled further: without this, nvcc unrolled U = 1's loop four times (five loads in its PTX),
  // so the first H100 reading's u1 configs held four segments in flight, not one.
#pragma unroll 1
  for (std::uint32_t k = 0; k < a.per_block; k += U) {
    T v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::uint32_t slot = (a.private_map ? blockIdx.x * a.per_block + (k + u) : blockIdx.x + (k + u) * gridDim.x) & a.slot_mask;
      v[u] = __ldcg(reinterpret_cast<const T*>(thread_base + static_cast<std::uint64_t>(slot) * a.pitch));
    }
#pragma unroll
    for (int u = 0; u < U; ++u) sum += Elem<E>::fold(v[u]);
  }
  a.sums[static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

__global__ void fill(std::uint32_t* words, std::uint64_t count) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    words[i] = warpcost::pattern_word(i, kSeed);
  }
}

struct Config {
  std::string name;
  int threads, elem, pitch, in_flight, blocks_per_sm, private_map;
};

// The configurations, each named in README.md.
std::vector<Config> configs() {
  return {
      {"p16", 16, 4, 64, 4, 32, 0},          {"p32", 32, 4, 128, 4, 32, 0},
      {"p48", 48, 4, 256, 4, 32, 0},         {"p100", 100, 4, 512, 4, 32, 0},
      {"p16_pitch128", 16, 4, 128, 4, 32, 0}, {"p16_pitch256", 16, 4, 256, 4, 32, 0},
      {"p16_private", 16, 4, 64, 4, 32, 1},  {"p32_private", 32, 4, 128, 4, 32, 1},
      {"p32_u1", 32, 4, 128, 1, 32, 0},      {"p32_u2", 32, 4, 128, 2, 32, 0},
      {"p32_u8", 32, 4, 128, 8, 32, 0},      {"p32_b8", 32, 4, 128, 4, 8, 0},
      {"p32_b16", 32, 4, 128, 4, 16, 0},     {"p32_e16_u1", 32, 16, 512, 1, 32, 0},
      {"p32_e16_u2", 32, 16, 512, 2, 32, 0},
  };
}

template <int E>
void launch_e(const Config& c, unsigned blocks, const Args& a) {
  switch (c.in_flight) {
    case 1: segment_load<1, E><<<blocks, c.threads>>>(a); break;
    case 2: segment_load<2, E><<<blocks, c.threads>>>(a); break;
    case 4: segment_load<4, E><<<blocks, c.threads>>>(a); break;
    default: segment_load<8, E><<<blocks, c.threads>>>(a); break;
  }
}

// Blocks of c.threads an SM can hold of the kernel that is launched (the occupancy API).
template <int E>
int resident_blocks(const Config& c) {
  int resident = 0;
  switch (c.in_flight) {
    case 1: WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, segment_load<1, E>, c.threads, 0)); break;
    case 2: WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, segment_load<2, E>, c.threads, 0)); break;
    case 4: WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, segment_load<4, E>, c.threads, 0)); break;
    default: WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, segment_load<8, E>, c.threads, 0)); break;
  }
  return resident;
}

}  // namespace

int run() {
  using warpcost::examples::median_kernel_seconds;
  const warpcost::pilots::Device dev = warpcost::pilots::device(true);
  const int sms = dev.sms;
  int failures = 0;
  std::printf("config,threads,elem_bytes,pitch,in_flight,blocks_per_sm,private_map,resident_blocks_per_sm,seconds,useful_bytes,segments\n");
  unsigned char* buf = nullptr;
  WARPCOST_CUDA(cudaMalloc(&buf, kRegion));
  fill<<<sms * 8, 256>>>(reinterpret_cast<std::uint32_t*>(buf), kRegion / 4);
  WARPCOST_CHECK_LAUNCH("fill");
  WARPCOST_CUDA(cudaDeviceSynchronize());
  std::uint32_t* sums = nullptr;
  std::uint64_t max_threads = 0;  // the largest grid's threads, for the per-thread sums
  for (const Config& c : configs()) {
    max_threads = std::max<std::uint64_t>(max_threads, std::uint64_t{static_cast<unsigned>(sms)} *
                                                           static_cast<unsigned>(c.blocks_per_sm) * static_cast<unsigned>(c.threads));
  }
  WARPCOST_CUDA(cudaMalloc(&sums, max_threads * sizeof(std::uint32_t)));
  for (const Config& c : configs()) {
    const unsigned blocks = static_cast<unsigned>(sms) * static_cast<unsigned>(c.blocks_per_sm);
    const std::uint64_t seg_bytes = static_cast<std::uint64_t>(c.threads) * static_cast<std::uint64_t>(c.elem);
    std::uint64_t per_block = (kUsefulTarget / seg_bytes + blocks - 1) / blocks;
    per_block = (per_block + c.in_flight - 1) / c.in_flight * c.in_flight;
    Args a{};
    a.base = buf;
    a.pitch = static_cast<std::uint32_t>(c.pitch);
    a.slot_mask = static_cast<std::uint32_t>(kRegion / static_cast<std::uint64_t>(c.pitch) - 1);
    a.per_block = static_cast<std::uint32_t>(per_block);
    a.private_map = static_cast<std::uint32_t>(c.private_map);
    a.sums = sums;
    const int resident = c.elem == 4 ? resident_blocks<4>(c) : resident_blocks<16>(c);
    WARPCOST_CUDA(cudaMemset(sums, 0xFF, max_threads * sizeof(std::uint32_t)));
    const double s = median_kernel_seconds([&] {
      if (c.elem == 4) launch_e<4>(c, blocks, a);
      else launch_e<16>(c, blocks, a);
      WARPCOST_CHECK_LAUNCH("segment_load");
    });
    const std::uint64_t segments = std::uint64_t{blocks} * per_block;
    std::printf("%s,%d,%d,%d,%d,%d,%d,%d,%.9g,%llu,%llu\n", c.name.c_str(), c.threads, c.elem, c.pitch, c.in_flight,
                c.blocks_per_sm, c.private_map, resident, s, static_cast<unsigned long long>(segments * seg_bytes),
                static_cast<unsigned long long>(segments));
    // Check 32 threads spread over the grid (and over the block's lanes, its partial warp included)
    // against the host's replay of their sums.
    std::vector<std::uint32_t> got(std::uint64_t{blocks} * static_cast<unsigned>(c.threads));
    WARPCOST_CUDA(cudaMemcpy(got.data(), sums, got.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (std::uint64_t i = 0; i < 32; ++i) {
      const std::uint64_t g = i * got.size() / 32 + i * static_cast<unsigned>(c.threads) / 32;
      const std::uint64_t b = g / static_cast<unsigned>(c.threads), t = g % static_cast<unsigned>(c.threads);
      std::uint32_t want = 0;
      for (std::uint64_t k = 0; k < per_block; ++k) {
        const std::uint64_t slot = (c.private_map ? b * per_block + k : b + k * blocks) & a.slot_mask;
        const std::uint64_t word = (slot * static_cast<std::uint64_t>(c.pitch) + t * static_cast<std::uint64_t>(c.elem)) / 4;
        for (int w = 0; w < c.elem / 4; ++w) want += warpcost::pattern_word(word + static_cast<std::uint64_t>(w), kSeed);
      }
      ok = ok && got[g] == want;
    }
    if (!ok) {
      std::fprintf(stderr, "output check failed: %s\n", c.name.c_str());
      ++failures;
    }
  }
  WARPCOST_CUDA(cudaFree(buf));
  WARPCOST_CUDA(cudaFree(sums));
  return warpcost::pilots::finish(failures);
}

int main() { return warpcost::pilots::main_of("segment_lines_pilot", run); }
