// The latency and streaming kernels' host side, compiled without nvcc: the configurations' checks
// (one validator each), the names, and the host replays the kernels' outputs are held against
// (streaming.hpp and latency.hpp declare them).
#include <cmath>
#include <cstring>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/pattern.hpp"
#include "kernels/streaming/kernels_chase.hpp"
#include "kernels/streaming/kernels.hpp"

namespace warpcost::kernels {
namespace {

float unit_float(std::uint32_t bits) {
  const std::uint32_t b = (bits & kMantissaMask) | kOneBits;
  float f = 0;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::uint32_t float_bits(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float chain_step(float v) { return std::fma(v, kChainScale, kChainStep); }

}  // namespace

const char* ring_order_name(RingOrder order) {
  return order == RingOrder::kRandom ? "random" : "stride";
}

const char* alu_use_name(AluUse use) { return use == AluUse::kDependent ? "dependent" : "independent"; }

std::string stream_kernel_problem(const StreamKernelConfig& c) {
  if (c.load_bytes != 4 && c.load_bytes != 8 && c.load_bytes != 16) {
    return "load width = " + std::to_string(c.load_bytes) + " bytes; allowed: 4, 8 or 16";
  }
  if (c.alu_per_load < 0) {
    return "W = " + std::to_string(c.alu_per_load) + " ALU instructions per load; allowed: 0 or more";
  }
  bool in_flight_compiled = false;
  for (const int u : kStreamLoadsInFlight) in_flight_compiled = in_flight_compiled || u == c.loads_in_flight;
  if (!in_flight_compiled) {
    return "loads in flight = " + std::to_string(c.loads_in_flight) + " a thread; allowed: 1, 2, 4 or 8";
  }
  if (c.loads_in_flight > 1 && (c.load_bytes != 16 || c.alu_per_load != 0)) {
    return "loads in flight = " + std::to_string(c.loads_in_flight) + " with " +
           std::to_string(c.load_bytes) + "-byte loads and W = " + std::to_string(c.alu_per_load) +
           "; allowed: more than 1 only with 16-byte loads and W = 0";
  }
  if (c.run_time_alu) {
    if (c.loads_in_flight != 1) {
      return "loads in flight = " + std::to_string(c.loads_in_flight) + " with a run-time W; allowed: 1";
    }
    if (c.alu_per_load > kMostRunTimeAlu) {
      return "W = " + std::to_string(c.alu_per_load) + " ALU instructions per load (run-time); allowed: 0.." +
             std::to_string(kMostRunTimeAlu);
    }
    return {};
  }
  for (const int w : kStreamAluCounts) {
    if (w == c.alu_per_load) return {};
  }
  return "W = " + std::to_string(c.alu_per_load) +
         " ALU instructions per load; allowed (compiled): 0, 1, 2, 4, 8, 16, "
         "32, 64, 128, 256";
}

std::uint32_t one_per_thread_reference(std::uint64_t warp, std::uint64_t elements, std::uint32_t seed) {
  constexpr std::uint64_t kWordsPerLoad = 4;
  std::uint32_t acc = 0;
  for (std::uint64_t i = warp * 32; i < (warp + 1) * 32 && i < elements; ++i) {
    for (std::uint64_t k = 0; k < kWordsPerLoad; ++k) acc ^= pattern_word(i * kWordsPerLoad + k, seed);
  }
  return acc;
}

std::uint32_t block_turnover_reference(std::uint64_t warp, std::uint64_t elements) {
  std::uint32_t acc = 0;
  for (std::uint64_t i = warp * 32; i < (warp + 1) * 32 && i < elements; ++i) {
    acc ^= static_cast<std::uint32_t>(i) * kTurnoverMultiplier;
  }
  return acc;
}

std::uint32_t stream_reference(const StreamKernelConfig& c, std::uint64_t gid, std::uint64_t threads,
                               std::uint64_t elements, std::uint32_t seed) {
  const std::uint64_t words = static_cast<std::uint64_t>(c.load_bytes) / 4;
  std::uint32_t acc = 0;
  float side[kSideChains];
  for (int k = 0; k < kSideChains; ++k) {
    side[k] = unit_float(static_cast<std::uint32_t>(gid) * kSideChains + static_cast<std::uint32_t>(k));
  }
  for (std::uint64_t i = gid; i < elements; i += threads) {
    std::uint32_t x = 0;
    for (std::uint64_t k = 0; k < words; ++k) x ^= pattern_word(i * words + k, seed);
    if (c.use == AluUse::kDependent && c.alu_per_load > 0) {
      float v = unit_float(x);
      for (int j = 0; j < c.alu_per_load; ++j) v = chain_step(v);
      x = float_bits(v);
    } else if (c.use == AluUse::kIndependent) {
      for (int j = 0; j < c.alu_per_load; ++j) side[j % kSideChains] = chain_step(side[j % kSideChains]);
    }
    acc += x;
  }
  for (int k = 0; k < kSideChains; ++k) acc ^= float_bits(side[k]);
  return acc;
}

std::string peak_problem(int loads_per_thread, int threads_per_block) {
  bool compiled = false;
  for (const int u : kPeakLoadsPerThread) compiled = compiled || u == loads_per_thread;
  if (!compiled) {
    return "loads per thread = " + std::to_string(loads_per_thread) + "; allowed (compiled): 1, 2, 4 or 8";
  }
  if (threads_per_block < 32 || threads_per_block > 1024 || threads_per_block % 32 != 0) {
    return "block size = " + std::to_string(threads_per_block) +
           " threads; allowed: a multiple of 32 from 32 to 1024";
  }
  return {};
}

std::uint32_t peak_reference_total(std::uint64_t elements, std::uint32_t seed) {
  // Hundreds of millions of elements: split over the host's cores (the sum is order-free mod 2^32).
  constexpr std::uint64_t kParts = 16;
  std::vector<std::future<std::uint32_t>> parts;
  for (std::uint64_t p = 0; p < kParts; ++p) {
    parts.push_back(std::async(std::launch::async, [p, elements, seed] {
      std::uint32_t total = 0;
      for (std::uint64_t i = elements * p / kParts; i < elements * (p + 1) / kParts; ++i) {
        total += pattern_word(4 * i, seed) ^ pattern_word(4 * i + 1, seed) ^ pattern_word(4 * i + 2, seed) ^
                 pattern_word(4 * i + 3, seed);
      }
      return total;
    }));
  }
  std::uint32_t total = 0;
  for (auto& part : parts) total += part.get();
  return total;
}

}  // namespace warpcost::kernels
