#include "core/calibration/schema.hpp"

namespace warpcost::schema::calibration {

const FamilyDescriptor& descriptor() {
  static const FamilyDescriptor d{
      kFamily,
      {{benchmark::kSmClock, {param::kSpinCycles}},
       {benchmark::kD2dCopy, {param::kMib}},
       {benchmark::kLaunchOverhead, {param::kLaunches}}},
      {{param::kSpinCycles, "cycles", "SM cycles one thread busy-waits"},
       {param::kMib, "MiB", "bytes copied device to device"},
       {param::kLaunches, "count", "empty kernels launched back to back"}},
      {{schema::counter::kSmClockHz, "Hz"},
       {counter::kSmClockMaxHz, "Hz"},
       {schema::counter::kBytesRead, "bytes"},
       {counter::kBytesWritten, "bytes"},
       {counter::kLaunches, "count"}},
      {},
      {}};
  return d;
}

}  // namespace warpcost::schema::calibration
