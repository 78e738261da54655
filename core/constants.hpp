// The few facts of the programming model every layer shares, defined once (kernels, bench,
// analysis and the tools read them from here): a warp's lanes, its full mask, and the L1/L2 sector
// a memory request is counted in. The same on every compute capability warpcost builds for (7.5 to
// 12.0: the CUDA C++ Programming Guide; the run's context records warp_size, and the reader refuses
// nothing else than what the device reported). Host and device code alike; no CUDA header.
#pragma once

#include <cstdint>

namespace warpcost {

inline constexpr int kWarpSize = 32;
inline constexpr std::uint32_t kFullWarpMask = 0xffffffffu;
inline constexpr int kSectorBytes = 32;

}  // namespace warpcost
