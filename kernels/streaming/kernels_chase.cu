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

// Every load's address is the value of the load before: nothing overlaps, so cycles per step is
// the latency of the level the ring lives in.
__global__ void chase_kernel(const unsigned char* buffer, std::uint64_t start_node,
                             std::uint64_t warm_steps, std::uint64_t steps, ChaseResult* result) {
  std::uint64_t p = reinterpret_cast<std::uint64_t>(buffer + start_node * kNodeBytes);
  for (std::uint64_t i = 0; i < warm_steps; ++i) p = *reinterpret_cast<const std::uint64_t*>(p);
  ChaseResult r{};
  r.smid_start = device::smid();
  const unsigned long long ns0 = device::globaltimer_ns();
  const long long c0 = clock64();
  for (std::uint64_t i = 0; i < steps; ++i) p = *reinterpret_cast<const std::uint64_t*>(p);
  // The last load must have returned before the clock is read again.
  asm volatile("" : "+l"(p)::"memory");
  const long long c1 = clock64();
  const unsigned long long ns1 = device::globaltimer_ns();
  r.cycles = c1 - c0;
  r.ns = ns1 - ns0;
  r.final_node = (p - reinterpret_cast<std::uint64_t>(buffer)) / kNodeBytes;
  r.smid_end = device::smid();
  *result = r;
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

}  // namespace warpcost::kernels
