// What the coalescing store kernels write, shared by the device and the host check: word w of the
// element whose first byte is at `address` (bytes from the region's start) is
// (address * 2654435761) ^ w, low 32 bits. One multiply a lane (the fill pattern's hash would make
// the 1-byte store sweep compute-bound), and every element gets its own value, so a store that
// lands one element off is caught.
#pragma once

#include <cstdint>

#include "kernels/common/pattern.hpp"

namespace warpcost {

WARPCOST_HOST_DEVICE inline std::uint32_t coalescing_store_word(std::uint64_t address, std::uint32_t word) {
  return (static_cast<std::uint32_t>(address) * 2654435761u) ^ word;
}

}  // namespace warpcost
