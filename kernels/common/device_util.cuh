// Device-side pieces every kernel family shares. Included by .cu files only.
#pragma once

#include <cstdint>

namespace warpcost::device {

// %globaltimer is a nanosecond wall clock shared by all SMs; clock64() counts one SM's cycles.
// Their ratio over one SM is the SM clock the run actually had.
__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned int smid() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Keeps a computed value live: the store happens only when the value equals a runtime key the
// host never passes, but the compiler cannot prove that, so the work producing it stays.
template <class T>
__device__ __forceinline__ void sink(T value, T never_equal_key, T* slot) {
  if (value == never_equal_key) {
    *slot = value;
  }
}

}  // namespace warpcost::device
