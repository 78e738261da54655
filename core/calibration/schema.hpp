// The calibration family's contract (core/family_schema.hpp): the SM clock, the
// device-to-device copy and the launch overhead every other family is read against.
#pragma once

#include <vector>

#include "core/counters.hpp"
#include "core/family_schema.hpp"

namespace warpcost::schema::calibration {

inline constexpr const char* kFamily = "calibration";
namespace benchmark {
inline constexpr const char* kSmClock = "sm_clock";
inline constexpr const char* kD2dCopy = "d2d_copy";
inline constexpr const char* kLaunchOverhead = "launch_overhead";
}  // namespace benchmark
namespace param {
inline constexpr const char* kSpinCycles = "spin_cycles";
inline constexpr const char* kMib = "mib";
inline constexpr const char* kLaunches = "launches";
}  // namespace param

namespace counter {
inline constexpr const char* kBytesWritten = "bytes_written";
inline constexpr const char* kLaunches = "launches";
inline constexpr const char* kSmClockMaxHz = "sm_clock_max_hz";
}  // namespace counter

const FamilyDescriptor& descriptor();
// What this folder registers (core/families.hpp).
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }

}  // namespace warpcost::schema::calibration
