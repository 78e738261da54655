// Pilot (not part of the suite): what the gathers' coalesced twin holds that a read-only stream
// does not. Times, with CUDA events (median of 15 launches after 2 warm-ups), on the GPU it runs on:
//  1. the twin itself (one 4-byte load and one 4-byte store a thread, 256-thread blocks, 16 Mi threads,
//     as examples/explain gather_stride's fixed variant) beside the same grid with the store replaced by
//     a warp's sum stored by lane 0, with the load removed, and with both removed (turnover only);
//  2. a read-only and a copy stream of 16-byte elements, long-lived blocks (grid-stride, one load in
//     flight a thread), swept over warps/SM: Little's law gives each its loaded latency at its DRAM rate.
// Every output is checked against a host reference outside the timed launches. Prints CSV.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "explain/programs/example_support.cuh"  // WARPCOST_CUDA, median_kernel_seconds
#include "pilots/pilot_main.hpp"

namespace {

constexpr long kTwin = 16L << 20;  // threads of the twin grid
constexpr long kStream = 64L << 20;  // 16-byte elements of the streams (1 GiB)

__global__ void twin_copy(const float* __restrict__ in, float* __restrict__ out) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[i] = 2.0f * in[i];
}
__global__ void twin_load_warp_store(const float* __restrict__ in, float* __restrict__ out) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}
__global__ void twin_store_only(float* __restrict__ out) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[i] = 2.0f * static_cast<float>(i % 1009);
}
__global__ void twin_turnover(float* __restrict__ out) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if ((threadIdx.x & 31) == 0) out[i / 32] = static_cast<float>(i % 1009);
}
__global__ void twin_copy_resident(const float* __restrict__ in, float* __restrict__ out) {
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kTwin; i += step) out[i] = 2.0f * in[i];
}

// One 16-byte element a thread (the suite's read_one_per_thread shape, at one block size): the read
// with a warp's sum stored by lane 0, and the copy storing each element.
__global__ void opt16_read(const uint4* __restrict__ in, unsigned* __restrict__ out) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 v = in[i];
  unsigned s = v.x + v.y + v.z + v.w;
  for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
  if ((threadIdx.x & 31) == 0) out[i / 32] = s;
}
__global__ void opt16_copy(const uint4* __restrict__ in, uint4* __restrict__ out) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 v = in[i];
  out[i] = make_uint4(v.x + 1u, v.y + 1u, v.z + 1u, v.w + 1u);
}

__global__ void stream_read(const uint4* __restrict__ in, unsigned* __restrict__ sums) {
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
  const long gid = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
#pragma unroll 1
  for (long i = gid; i < kStream; i += step) {
    const uint4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  sums[gid] = acc;
}
__global__ void stream_copy(const uint4* __restrict__ in, uint4* __restrict__ out) {
  const long step = static_cast<long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < kStream; i += step) {
    const uint4 v = in[i];
    out[i] = make_uint4(v.x + 1u, v.y + 1u, v.z + 1u, v.w + 1u);
  }
}
__global__ void spin(long long cycles, long long* sink) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) *sink = clock64() - t0;
}

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "output check failed: %s\n", what);
    ++failures;
  }
}

}  // namespace

int run() {
  using warpcost::examples::median_kernel_seconds;
  const warpcost::pilots::Device dev = warpcost::pilots::device(false);
  const int sms = dev.sms;
  const cudaDeviceProp& prop = dev.prop;
  // The SM clock: a spin of known cycles over its event time.
  long long* sink = nullptr;
  WARPCOST_CUDA(cudaMalloc(&sink, sizeof(long long)));
  const long long spin_cycles = 20000000;
  const double spin_s = median_kernel_seconds([&] {
    spin<<<1, 32>>>(spin_cycles, sink);
    WARPCOST_CHECK_LAUNCH("spin");
  });
  const double clock_hz = spin_cycles / spin_s;
  std::printf("# %s, %d SMs, SM clock %.0f MHz (spin)\n", prop.name, sms, clock_hz / 1e6);
  std::printf("kind,name,warps_per_sm,seconds,read_bytes,write_bytes\n");

  // ---- 1. the twin and its variants ----
  std::vector<float> host(kTwin);
  for (long j = 0; j < kTwin; ++j) host[j] = static_cast<float>(j % 1009);
  float *in = nullptr, *out = nullptr;
  WARPCOST_CUDA(cudaMalloc(&in, kTwin * sizeof(float)));
  WARPCOST_CUDA(cudaMalloc(&out, kTwin * sizeof(float)));
  WARPCOST_CUDA(cudaMemcpy(in, host.data(), kTwin * sizeof(float), cudaMemcpyHostToDevice));
  const int grid = static_cast<int>(kTwin / 256);
  int per_sm = 0;
  WARPCOST_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, twin_copy_resident, 256, 0));
  std::vector<float> got(kTwin);
  const double b4 = 4.0 * kTwin;
  auto row = [&](const char* name, int wps, double s, double r, double w) {
    std::printf("twin,%s,%d,%.9g,%.6g,%.6g\n", name, wps, s, r, w);
  };
  // Every variant starts from a sentinel (all bytes 0xFF: a NaN no kernel writes), outside its
  // timed launches, so its check sees only what it wrote.
  auto reset = [&] {
    WARPCOST_CUDA(cudaMemset(out, 0xFF, kTwin * sizeof(float)));
    WARPCOST_CUDA(cudaDeviceSynchronize());
  };
  reset();
  row("copy", 64, median_kernel_seconds([&] {
    twin_copy<<<grid, 256>>>(in, out);
    WARPCOST_CHECK_LAUNCH("twin_copy");
  }), b4, b4);
  WARPCOST_CUDA(cudaMemcpy(got.data(), out, kTwin * sizeof(float), cudaMemcpyDeviceToHost));
  { bool ok = true; for (long j = 0; j < kTwin; ++j) ok = ok && got[j] == 2.0f * host[j]; expect(ok, "twin copy"); }
  reset();
  row("copy_resident", 64, median_kernel_seconds([&] {
    twin_copy_resident<<<sms * per_sm, 256>>>(in, out);
    WARPCOST_CHECK_LAUNCH("twin_copy_resident");
  }), b4, b4);
  WARPCOST_CUDA(cudaMemcpy(got.data(), out, kTwin * sizeof(float), cudaMemcpyDeviceToHost));
  { bool ok = true; for (long j = 0; j < kTwin; ++j) ok = ok && got[j] == 2.0f * host[j]; expect(ok, "twin copy resident"); }
  reset();
  row("load_warp_store", 64, median_kernel_seconds([&] {
    twin_load_warp_store<<<grid, 256>>>(in, out);
    WARPCOST_CHECK_LAUNCH("twin_load_warp_store");
  }), b4, b4 / 32);
  auto check_warp_sums = [&](const char* what) {
    WARPCOST_CUDA(cudaMemcpy(got.data(), out, kTwin / 32 * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (long w = 0; w < kTwin / 32; ++w) {
      double s = 0;
      for (int l = 0; l < 32; ++l) s += host[w * 32 + l];
      ok = ok && std::fabs(got[w] - s) <= 1e-3 * s + 1;
    }
    expect(ok, what);
  };
  check_warp_sums("twin load + warp store");
  reset();
  row("copy_block32", 32, median_kernel_seconds([&] {
    twin_copy<<<grid * 8, 32>>>(in, out);
    WARPCOST_CHECK_LAUNCH("twin_copy");
  }), b4, b4);
  WARPCOST_CUDA(cudaMemcpy(got.data(), out, kTwin * sizeof(float), cudaMemcpyDeviceToHost));
  { bool ok = true; for (long j = 0; j < kTwin; ++j) ok = ok && got[j] == 2.0f * host[j]; expect(ok, "twin copy, 32-thread blocks"); }
  reset();
  row("load_warp_store_block32", 32, median_kernel_seconds([&] {
    twin_load_warp_store<<<grid * 8, 32>>>(in, out);
    WARPCOST_CHECK_LAUNCH("twin_load_warp_store");
  }), b4, b4 / 32);
  check_warp_sums("twin load + warp store, 32-thread blocks");
  reset();
  row("store_only", 64, median_kernel_seconds([&] {
    twin_store_only<<<grid, 256>>>(out);
    WARPCOST_CHECK_LAUNCH("twin_store_only");
  }), 0, b4);
  WARPCOST_CUDA(cudaMemcpy(got.data(), out, kTwin * sizeof(float), cudaMemcpyDeviceToHost));
  { bool ok = true; for (long j = 0; j < kTwin; ++j) ok = ok && got[j] == 2.0f * static_cast<float>(j % 1009); expect(ok, "twin store only"); }
  reset();
  row("turnover", 64, median_kernel_seconds([&] {
    twin_turnover<<<grid, 256>>>(out);
    WARPCOST_CHECK_LAUNCH("twin_turnover");
  }), 0, b4 / 32);
  WARPCOST_CUDA(cudaMemcpy(got.data(), out, kTwin / 32 * sizeof(float), cudaMemcpyDeviceToHost));
  { bool ok = true; for (long w = 0; w < kTwin / 32; ++w) ok = ok && got[w] == static_cast<float>((w * 32) % 1009); expect(ok, "twin turnover"); }
  WARPCOST_CUDA(cudaFree(in));
  WARPCOST_CUDA(cudaFree(out));

  // ---- 2. read-only and copy streams of 16-byte elements over warps/SM ----
  std::vector<uint4> h16(kStream);
  unsigned long long expect_sum = 0;
  for (long j = 0; j < kStream; ++j) {
    const unsigned b = static_cast<unsigned>(j * 2654435761u);
    h16[j] = make_uint4(b, b ^ 1u, b + 7u, b >> 3);
    expect_sum += static_cast<unsigned>(h16[j].x + h16[j].y + h16[j].z + h16[j].w);
  }
  uint4 *src = nullptr, *dst = nullptr;
  unsigned* sums = nullptr;
  WARPCOST_CUDA(cudaMalloc(&src, kStream * sizeof(uint4)));
  WARPCOST_CUDA(cudaMalloc(&dst, kStream * sizeof(uint4)));
  WARPCOST_CUDA(cudaMalloc(&sums, static_cast<size_t>(sms) * 64 * 32 * sizeof(unsigned)));
  unsigned* sums16 = nullptr;
  WARPCOST_CUDA(cudaMalloc(&sums16, (kStream / 4 / 32) * sizeof(unsigned)));
  WARPCOST_CUDA(cudaMemcpy(src, h16.data(), kStream * sizeof(uint4), cudaMemcpyHostToDevice));
  const double b16 = 16.0 * kStream;
  {
    const long n16 = kStream / 4;  // 16 Mi threads, one 16-byte element each
    const int g16 = static_cast<int>(n16 / 256);
    WARPCOST_CUDA(cudaMemset(sums16, 0xFF, (n16 / 32) * sizeof(unsigned)));
    WARPCOST_CUDA(cudaDeviceSynchronize());
    row("opt16_read", 64, median_kernel_seconds([&] {
      opt16_read<<<g16, 256>>>(src, sums16);
      WARPCOST_CHECK_LAUNCH("opt16_read");
    }), 16.0 * n16, 4.0 * n16 / 32);
    std::vector<unsigned> hs(n16 / 32);
    WARPCOST_CUDA(cudaMemcpy(hs.data(), sums16, hs.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (long w = 0; w < n16 / 32; ++w) {
      unsigned e = 0;
      for (int l = 0; l < 32; ++l) {
        const uint4& v = h16[w * 32 + l];
        e += v.x + v.y + v.z + v.w;
      }
      ok = ok && hs[w] == e;
    }
    expect(ok, "one 16-byte element a thread, read");
    WARPCOST_CUDA(cudaMemset(dst, 0xFF, n16 * sizeof(uint4)));
    WARPCOST_CUDA(cudaDeviceSynchronize());
    row("opt16_copy", 64, median_kernel_seconds([&] {
      opt16_copy<<<g16, 256>>>(src, dst);
      WARPCOST_CHECK_LAUNCH("opt16_copy");
    }), 16.0 * n16, 16.0 * n16);
    std::vector<uint4> got16(n16);
    WARPCOST_CUDA(cudaMemcpy(got16.data(), dst, n16 * sizeof(uint4), cudaMemcpyDeviceToHost));
    ok = true;
    for (long j = 0; j < n16; ++j) ok = ok && got16[j].x == h16[j].x + 1u && got16[j].w == h16[j].w + 1u;
    expect(ok, "one 16-byte element a thread, copy");
  }
  std::vector<uint4> back(kStream);
  for (int wps : {2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64}) {
    const int blocks = sms * wps / 2;  // 64-thread blocks, wps/2 of them an SM
    WARPCOST_CUDA(cudaMemset(sums, 0xFF, static_cast<size_t>(sms) * 64 * 32 * sizeof(unsigned)));
    WARPCOST_CUDA(cudaDeviceSynchronize());
    const double tr = median_kernel_seconds([&] {
      stream_read<<<blocks, 64>>>(src, sums);
      WARPCOST_CHECK_LAUNCH("stream_read");
    });
    std::printf("stream,read16,%d,%.9g,%.6g,0\n", wps, tr, b16);
    std::vector<unsigned> hs(static_cast<size_t>(blocks) * 64);
    WARPCOST_CUDA(cudaMemcpy(hs.data(), sums, hs.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned total = 0;
    for (unsigned v : hs) total += v;
    expect(total == static_cast<unsigned>(expect_sum), "read stream sum");
    WARPCOST_CUDA(cudaMemset(dst, 0xFF, kStream * sizeof(uint4)));
    WARPCOST_CUDA(cudaDeviceSynchronize());
    const double tc = median_kernel_seconds([&] {
      stream_copy<<<blocks, 64>>>(src, dst);
      WARPCOST_CHECK_LAUNCH("stream_copy");
    });
    std::printf("stream,copy16,%d,%.9g,%.6g,%.6g\n", wps, tc, b16, b16);
    WARPCOST_CUDA(cudaMemcpy(back.data(), dst, kStream * sizeof(uint4), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (long j = 0; j < kStream; ++j) {
      ok = ok && back[j].x == h16[j].x + 1u && back[j].y == h16[j].y + 1u && back[j].z == h16[j].z + 1u &&
           back[j].w == h16[j].w + 1u;
    }
    expect(ok, "copy stream");
  }
  std::printf("# clock_hz,%.6g\n# output checks failed: %d\n", clock_hz, failures);
  return failures == 0 ? 0 : 1;
}

int main() { return warpcost::pilots::main_of("store_twin_pilot", run); }
