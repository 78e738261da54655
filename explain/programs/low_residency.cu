// Defect: a streaming read (16-byte loads, four in flight a thread) run by one 256-thread block a
// SM: 8 warps/SM, far under the knee the streaming family measures; fixed twin: 8 blocks a SM
// (64 warps/SM) over the same buffer. Each thread sums the words it reads; the per-thread sums
// add to an exact total checked against the host's. `--unroll 1|4` (default 4): loads in flight a
// thread; `--blocks-per-sm N` (1..8, default 1): the defect's residency (the proof's held-out cases
// use unroll 1, and 2 blocks an SM). The fixed twin always runs 8 blocks an SM with the same unroll.
#include <vector>

#include "explain/programs/example_support.cuh"

namespace {

constexpr long kVectors = 32L << 20;  // 32 Mi uint4 = 512 MiB
constexpr int kBlock = 256;

__host__ __device__ inline unsigned word(long j) { return static_cast<unsigned>(j % 7); }

// Every thread reads `groups` groups of kUnroll vectors (whole groups only: no thread diverges); the
// vectors past the last whole group are the host's.
template <int kUnroll>
__global__ void stream_sum(const uint4* __restrict__ in, unsigned long long* __restrict__ sums, long groups) {
  const long threads = static_cast<long>(gridDim.x) * blockDim.x;
  const long t = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long acc[kUnroll] = {};
#pragma unroll 1
  for (long g = 0; g < groups; ++g) {
    const long j = t + g * kUnroll * threads;
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = in[j + u * threads];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc[u] += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  unsigned long long total = 0;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) total += acc[u];
  sums[t] = total;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpcost::examples;
  IntOption unroll{"unroll", 4, 1, 4};
  IntOption defect_blocks{"blocks-per-sm", 1, 1, 8};
  const Variant v = parse_variant(argc, argv, true, {&unroll, &defect_blocks});
  if (unroll.value != 1 && unroll.value != 4) {
    std::fprintf(stderr, "%s: --unroll %d; allowed: 1 or 4\n", argv[0], unroll.value);
    return 2;
  }
  const int kUnroll = unroll.value;
  try {
    int device = 0, sms = 0;
    WARPCOST_CUDA(cudaGetDevice(&device));
    WARPCOST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int blocks_per_sm = v == Variant::kDefect ? defect_blocks.value : 8;
    const int grid = sms * blocks_per_sm;
    const long threads = static_cast<long>(grid) * kBlock;
    const long groups = kVectors / (threads * kUnroll);
    std::vector<uint4> host(kVectors);
    unsigned long long want = 0;
    for (long j = 0; j < kVectors; ++j) {
      host[j] = {word(4 * j), word(4 * j + 1), word(4 * j + 2), word(4 * j + 3)};
      want += host[j].x + host[j].y + host[j].z + host[j].w;
    }
    uint4* in = nullptr;
    unsigned long long* sums = nullptr;
    WARPCOST_CUDA(cudaMalloc(&in, kVectors * sizeof(uint4)));
    WARPCOST_CUDA(cudaMalloc(&sums, threads * sizeof(unsigned long long)));
    WARPCOST_CUDA(cudaMemcpy(in, host.data(), kVectors * sizeof(uint4), cudaMemcpyHostToDevice));
    const double seconds = median_kernel_seconds([&] {
      if (kUnroll == 4) {
        stream_sum<4><<<grid, kBlock>>>(in, sums, groups);
      } else {
        stream_sum<1><<<grid, kBlock>>>(in, sums, groups);
      }
      WARPCOST_CHECK_LAUNCH("stream_sum");
    });
    std::vector<unsigned long long> got(threads);
    WARPCOST_CUDA(cudaMemcpy(got.data(), sums, threads * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    WARPCOST_CUDA(cudaFree(in));
    WARPCOST_CUDA(cudaFree(sums));
    unsigned long long total = 0;
    for (unsigned long long s : got) total += s;
    // The vectors past the whole groups are the host's (whatever the grid and unroll).
    const long covered = groups * threads * kUnroll;
    for (long j = covered; j < kVectors; ++j) total += host[j].x + host[j].y + host[j].z + host[j].w;
    return report("low_residency", v, seconds, total == want ? 0 : 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "low_residency: %s\n", e.what());
    return 1;
  }
}
