#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_util.cuh"
#include "kernels/streaming/kernels_chase.hpp"

namespace warpcost::kernels {
namespace {

__global__ void build_ring_kernel(unsigned char* buffer, std::uint64_t nodes, RingOrder order,
                                  std::uint32_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; j < nodes;
       j += stride) {
    const std::uint64_t here = ring_node(j, nodes, order, seed);
    const std::uint64_t next = ring_node((j + 1) & (nodes - 1), nodes, order, seed);
    *reinterpret_cast<std::uint64_t*>(buffer + here * kNodeBytes) =
        reinterpret_cast<std::uint64_t>(buffer + next * kNodeBytes);
  }
}

// The timed window of both chases: `steps` dependent loads from p, their clock64 cycles and
// %globaltimer ns into r; returns where the chase ended. The empty asm keeps the chase before the
// closing clock read in the compiler's order; it is no instruction, so the hardware may read the
// clock before the last load returns: the window can miss at most that one load's latency, under
// 1/steps of the time.
__device__ __forceinline__ std::uint64_t timed_chase(std::uint64_t p, std::uint64_t steps, ChaseResult& r) {
  const unsigned long long ns0 = device::globaltimer_ns();
  const long long c0 = clock64();
  for (std::uint64_t i = 0; i < steps; ++i) p = *reinterpret_cast<const std::uint64_t*>(p);
  asm volatile("" : "+l"(p)::"memory");
  const long long c1 = clock64();
  const unsigned long long ns1 = device::globaltimer_ns();
  r.cycles = c1 - c0;
  r.ns = ns1 - ns0;
  return p;
}

// Every load's address is the value of the load before: nothing overlaps, so cycles per step is
// the latency of the level the ring lives in.
__global__ void chase_kernel(const unsigned char* buffer, std::uint64_t start_node,
                             std::uint64_t warm_steps, std::uint64_t steps, ChaseResult* result) {
  std::uint64_t p = reinterpret_cast<std::uint64_t>(buffer + start_node * kNodeBytes);
  for (std::uint64_t i = 0; i < warm_steps; ++i) p = *reinterpret_cast<const std::uint64_t*>(p);
  ChaseResult r{};
  r.smid_start = device::smid();
  p = timed_chase(p, steps, r);
  r.final_node = (p - reinterpret_cast<std::uint64_t>(buffer)) / kNodeBytes;
  r.smid_end = device::smid();
  *result = r;
}

// ---- the loaded chase

// The chaser waits this long at most for every background block to begin: with two blocks an SM
// resident they begin within microseconds, so a longer wait means they cannot all run at once, and
// the chase goes on (the host then refuses the result) rather than wait for ever.
constexpr unsigned long long kStartWaitNs = 200'000'000;

__device__ __forceinline__ unsigned int read_phase(const LoadedChaseResult* r) {
  return *reinterpret_cast<const volatile unsigned int*>(&r->phase);
}

__device__ __forceinline__ void write_phase(LoadedChaseResult* r, unsigned int phase) {
  // Before the phase changes, the clock reads and the chase before it are done (program order, a
  // thread's own loads); the fence makes the word visible to the other SMs now, not at exit.
  *reinterpret_cast<volatile unsigned int*>(&r->phase) = phase;
  __threadfence();
}

__device__ __forceinline__ std::uint32_t fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// The sum of a value over the 32 lanes of a full warp.
__device__ __forceinline__ unsigned long long warp_sum(unsigned long long x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// A background thread: the W = 0 stream's loop (one 16-byte load a lane an iteration, folded into a
// register, grid stride), wrapping around the buffer, until the chaser says done. Every
// kBackgroundPollLoads loads it reads the phase word and books those loads to the phase it reads,
// so the loads counted while the chase is timed are the window's to within a poll at each end, as
// often early as late. The only store of the folded value hangs on gid == sink, which the host
// makes no thread's index: the compiler cannot know it, so the loads stay.
__device__ void background(const uint4* data, std::uint64_t elements, unsigned int blocks,
                           unsigned int* smids, LoadedChaseResult* result, std::uint64_t sink) {
  if (threadIdx.x == 0) {
    atomicMin(&result->background_start_ns, device::globaltimer_ns());
    smids[blockIdx.x] = device::smid();
    __threadfence();
    atomicAdd(&result->blocks_started, 1u);
  }
  const std::uint64_t stride = static_cast<std::uint64_t>(blocks) * blockDim.x;
  const std::uint64_t gid = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  // The watchdog: this thread's share of kBackgroundWatchdogLaps laps, then it stops by itself.
  const std::uint64_t most_polls = kBackgroundWatchdogLaps * (elements / stride + 1) / kBackgroundPollLoads + 1;
  std::uint64_t i = gid % elements;
  std::uint32_t acc = 0;
  unsigned long long loads = 0;
  unsigned long long window = 0;
  bool watchdog = true;
#pragma unroll 1
  for (std::uint64_t poll = 0; poll < most_polls; ++poll) {
#pragma unroll 1
    for (int k = 0; k < kBackgroundPollLoads; ++k) {
      acc += fold(data[i]);
      i += stride;
      if (i >= elements) i -= elements;
    }
    loads += kBackgroundPollLoads;
    const unsigned int phase = read_phase(result);
    if (phase == 1) window += kBackgroundPollLoads;
    if (phase == 2) {
      watchdog = false;
      break;
    }
  }
  if (gid == sink) smids[0] = acc;
  // Every lane of a warp ran the same number of polls only if they read the same phases; they may
  // not, so the sums go through the shuffle with the whole warp converged here.
  __syncwarp();
  loads = warp_sum(loads);
  window = warp_sum(window);
  const unsigned int stopped_by_watchdog = __ballot_sync(0xffffffffu, watchdog) != 0u ? 1u : 0u;
  if ((threadIdx.x & 31u) == 0) {
    atomicAdd(&result->background_loads, loads);
    atomicAdd(&result->window_loads, window);
    atomicAdd(&result->watchdog_stops, stopped_by_watchdog);
    atomicMax(&result->background_stop_ns, device::globaltimer_ns());
  }
}

// The chaser: thread 0 of the last block. It waits (bounded) for every background block to begin,
// warms up, marks the timed window with the phase word, chases exactly as chase_kernel does, and
// says done.
__device__ void chaser(const unsigned char* ring, std::uint64_t start_node, std::uint64_t warm_steps,
                       std::uint64_t steps, unsigned int background_blocks, LoadedChaseResult* result) {
  const unsigned long long wait_from = device::globaltimer_ns();
  const volatile unsigned int* started = &result->blocks_started;
  while (*started < background_blocks && device::globaltimer_ns() - wait_from < kStartWaitNs) {
  }
  result->started_at_chase = *started;
  std::uint64_t p = reinterpret_cast<std::uint64_t>(ring + start_node * kNodeBytes);
  for (std::uint64_t i = 0; i < warm_steps; ++i) p = *reinterpret_cast<const std::uint64_t*>(p);
  // The warm-up stays before the window in the compiler's order (no instruction: its last load may
  // still be in flight when the window opens, a part of one load's latency, under 1/steps).
  asm volatile("" : "+l"(p)::"memory");
  ChaseResult r{};
  r.smid_start = device::smid();
  write_phase(result, 1);
  p = timed_chase(p, steps, r);
  write_phase(result, 2);
  r.final_node = (p - reinterpret_cast<std::uint64_t>(ring)) / kNodeBytes;
  r.smid_end = device::smid();
  result->chase = r;
}

// Two blocks an SM at most kMostBackgroundWarps warps each: on the architectures of 2048 threads an
// SM, at most 32 registers a thread, so that two blocks of 1024 threads fit (as the run-time-W
// stream kernel, kernels.cu); elsewhere two such blocks exceed the SM and ptxas refuses the bound,
// so one block of 1024 bounds it, and the plan leaves out the background sizes two blocks of which
// do not fit.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030)
#define WARPCOST_CHASE_LOADED_MIN_BLOCKS 2
#else
#define WARPCOST_CHASE_LOADED_MIN_BLOCKS 1
#endif
__global__ void __launch_bounds__(kMostBackgroundWarps * 32, WARPCOST_CHASE_LOADED_MIN_BLOCKS)
    chase_loaded_kernel(const unsigned char* ring, std::uint64_t start_node, std::uint64_t warm_steps,
                        std::uint64_t steps, const uint4* data, std::uint64_t elements, unsigned int* smids,
                        LoadedChaseResult* result, std::uint64_t sink) {
  const unsigned int background_blocks = gridDim.x - 1;
  if (blockIdx.x < background_blocks) {
    background(data, elements, background_blocks, smids, result, sink);
  } else if (threadIdx.x == 0) {
    chaser(ring, start_node, warm_steps, steps, background_blocks, result);
  }
}

bool power_of_two(std::uint64_t n) { return n >= 2 && (n & (n - 1)) == 0; }

}  // namespace

void launch_build_ring(unsigned char* d_buffer, std::uint64_t nodes, RingOrder order,
                       std::uint32_t seed, cudaStream_t stream) {
  if (!power_of_two(nodes)) {
    throw std::invalid_argument("ring of " + std::to_string(nodes) +
                                " nodes; allowed: a power of two, at least 2");
  }
  const std::uint64_t wanted = (nodes + 255) / 256;
  const auto blocks = static_cast<unsigned int>(wanted < 65536 ? wanted : 65536);
  build_ring_kernel<<<blocks, 256, 0, stream>>>(d_buffer, nodes, order, seed);
  WARPCOST_CHECK_LAUNCH("build_ring_kernel");
}

void launch_chase(const unsigned char* d_buffer, std::uint64_t start_node, std::uint64_t warm_steps,
                  std::uint64_t steps, ChaseResult* d_result, cudaStream_t stream) {
  if (steps == 0) throw std::invalid_argument("chase steps = 0; allowed: 1 or more");
  chase_kernel<<<1, 1, 0, stream>>>(d_buffer, start_node, warm_steps, steps, d_result);
  WARPCOST_CHECK_LAUNCH("chase_kernel");
}

int chase_loaded_resident_blocks(int threads) {
  int blocks = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, chase_loaded_kernel, threads, 0));
  return blocks;
}

void launch_chase_loaded(const unsigned char* d_ring, std::uint64_t start_node, std::uint64_t warm_steps,
                         std::uint64_t steps, const void* d_background, std::uint64_t elements,
                         unsigned int background_blocks, int background_warps, unsigned int* d_background_smids,
                         LoadedChaseResult* d_result, cudaStream_t stream) {
  if (steps == 0) throw std::invalid_argument("chase steps = 0; allowed: 1 or more");
  if (background_warps < 0 || background_warps > kMostBackgroundWarps) {
    throw std::invalid_argument("background warps = " + std::to_string(background_warps) + "; allowed: 0.." +
                                std::to_string(kMostBackgroundWarps));
  }
  if (background_warps > 0 && (background_blocks == 0 || elements == 0)) {
    throw std::invalid_argument("a background of " + std::to_string(background_blocks) + " blocks over " +
                                std::to_string(elements) + " elements; allowed: at least 1 of each");
  }
  const int threads = background_warps > 0 ? background_warps * 32 : 32;
  const unsigned int grid = background_warps > 0 ? background_blocks + 1 : 1;
  const std::uint64_t background_threads = static_cast<std::uint64_t>(background_blocks) * static_cast<std::uint64_t>(threads);
  if (background_warps > 0 && elements < background_threads) {
    throw std::invalid_argument("background buffer = " + std::to_string(elements) + " 16-byte elements; allowed: at least one a background thread (" +
                                std::to_string(background_threads) + ")");
  }
  // Every block must be resident at once: the chaser waits for the background to begin, and the
  // background runs until the chaser is done. One background block an SM and the chaser's block
  // beside one of them need two blocks an SM.
  if (background_warps > 0) {
    const int resident = chase_loaded_resident_blocks(threads);
    if (resident < 2) {
      throw std::invalid_argument("background warps = " + std::to_string(background_warps) +
                                  ": the occupancy API allows " + std::to_string(resident) + " block(s) of " +
                                  std::to_string(threads) +
                                  " threads an SM; allowed: a size two blocks of which fit an SM (the chaser's block "
                                  "beside a background block)");
    }
  }
  WARPCOST_CUDA(cudaMemsetAsync(d_result, 0, sizeof(LoadedChaseResult), stream));
  WARPCOST_CUDA(cudaMemsetAsync(&d_result->background_start_ns, 0xFF, sizeof(unsigned long long), stream));
  const std::uint64_t sink = ~std::uint64_t{0};  // no thread has this index
  chase_loaded_kernel<<<grid, threads, 0, stream>>>(d_ring, start_node, warm_steps, steps,
                                                   static_cast<const uint4*>(d_background), elements,
                                                   d_background_smids, d_result, sink);
  WARPCOST_CHECK_LAUNCH("chase_loaded_kernel");
}

}  // namespace warpcost::kernels
