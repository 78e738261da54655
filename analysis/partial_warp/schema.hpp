// The partial-warp family's contract (analysis/core/family_schema.hpp): the schedule of one block,
// the staircase of block sizes and the grid tail.
#pragma once

#include <vector>

#include "analysis/core/family_schema.hpp"

namespace warpcost::schema::partial_warp {

inline constexpr const char* kFamily = "partial_warp";
namespace benchmark {
inline constexpr const char* kSchedule = "schedule";
inline constexpr const char* kStaircase = "staircase";
inline constexpr const char* kGridTail = "grid_tail";
}  // namespace benchmark
namespace param {
inline constexpr const char* kX = "x";
inline constexpr const char* kY = "y";
inline constexpr const char* kZ = "z";
// The staircase's block size P (run names of schema 1 call it "threads" as well).
inline constexpr const char* kStaircaseBlockThreads = "threads";
// The grid tail's block size P and total threads N.
inline constexpr const char* kTailBlockThreads = "block";
inline constexpr const char* kTailTotalThreads = "threads";
}  // namespace param

const FamilyDescriptor& descriptor();
// What this folder registers (analysis/core/families.hpp).
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }

}  // namespace warpcost::schema::partial_warp
