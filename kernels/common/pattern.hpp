// A deterministic word pattern shared by device fills and host references, so a kernel's output
// can be checked without copying the reference to the device.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define WARPCOST_HOST_DEVICE __host__ __device__
#else
#define WARPCOST_HOST_DEVICE
#endif

namespace warpcost {

// splitmix-style mix of the index: every word differs, so a shifted or partial copy is caught.
WARPCOST_HOST_DEVICE inline std::uint32_t pattern_word(std::uint64_t index, std::uint32_t seed) {
  std::uint64_t z = index + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(seed) + 1u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>(z ^ (z >> 31));
}

}  // namespace warpcost
