// The partial-warp family's contract (core/family_schema.hpp): the schedule of one block,
// the staircase of block sizes and the grid tail.
#pragma once

#include <vector>

#include "core/counters.hpp"
#include "core/family_schema.hpp"

namespace warpcost::schema::partial_warp {

// The largest N of `warpcost-record --grid N B`: its thread slots (4 bytes each) stay within 512 MiB.
inline constexpr long long kMostGridThreads = 1LL << 27;

inline constexpr const char* kFamily = "partial_warp";
namespace benchmark {
inline constexpr const char* kSchedule = "schedule";
inline constexpr const char* kStaircase = "staircase";
inline constexpr const char* kGridTail = "grid_tail";
// A parameter benchmark (docs/models.md): one block of FMA chains at two loop lengths, so its
// fixed cost and its cycles per FMA at that many warps a scheduler are read apart.
inline constexpr const char* kFmaIssue = "fma_issue";
}  // namespace benchmark
namespace param {
inline constexpr const char* kX = "x";
inline constexpr const char* kY = "y";
inline constexpr const char* kZ = "z";
// Block size P (schema 1: "threads" in the staircase, "block" in the grid tail).
inline constexpr const char* kBlockThreads = "block_threads";
// The grid's total threads N (schema 1: "threads" in the grid tail).
inline constexpr const char* kTotalThreads = "total_threads";
inline constexpr const char* kWarpsPerBlock = "warps_per_block";
inline constexpr const char* kTrips = "trips";
}  // namespace param

namespace counter {
inline constexpr const char* kDistinctSms = "distinct_sms";
inline constexpr const char* kFmaPerThread = "fma_per_thread";
inline constexpr const char* kTailActiveThreadsObserved = "tail_active_threads_observed";
inline constexpr const char* kTailFullWarpsObserved = "tail_full_warps_observed";
inline constexpr const char* kTailLastMaskObserved = "tail_last_mask_observed";
inline constexpr const char* kTailMaskObserved = "tail_mask_observed";
inline constexpr const char* kThreads = "threads";
inline constexpr const char* kThreadsMappedAsModel = "threads_mapped_as_model";
inline constexpr const char* kUsefulThreads = "useful_threads";
inline constexpr const char* kWarpsObserved = "warps_observed";
inline constexpr const char* kWarpsWithOneClock = "warps_with_one_clock";
inline constexpr const char* kWarpsWithOneSm = "warps_with_one_sm";
inline constexpr const char* kWaves = "waves";
}  // namespace counter

const FamilyDescriptor& descriptor();
// What this folder registers (core/families.hpp).
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }

}  // namespace warpcost::schema::partial_warp
