// The template family's contract (core/family_schema.hpp): one benchmark, `echo`, whose kernel
// writes the trip count it was given; its counter `echoed` is that value read back.
#pragma once

#include <vector>

#include "core/family_schema.hpp"

namespace warpcost::schema::demo {

inline constexpr const char* kFamily = "demo";
namespace benchmark {
inline constexpr const char* kEcho = "echo";
}  // namespace benchmark
namespace param {
inline constexpr const char* kTrips = "trips";  // a parameter the CSV schema already has
}  // namespace param
namespace counter {
inline constexpr const char* kEchoed = "echoed";
}  // namespace counter

const FamilyDescriptor& descriptor();
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }

}  // namespace warpcost::schema::demo
