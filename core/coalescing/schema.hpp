// The coalescing family's names, written once: benchmark names, parameter names, the counters the
// bench states its work in, and the Nsight Compute metrics the counter pass collects. The bench
// registers and writes with these, the evaluator and the report read with them. No CUDA here.
#pragma once

#include <string>
#include <vector>

#include "core/family_schema.hpp"

namespace warpcost::coalescing {

inline constexpr const char* kFamily = "coalescing";

// The seed of load_dram_permuted's lane permutation (lane_permutation in coalescing_model.hpp).
inline constexpr unsigned kPermutationSeed = 2026;
// Ex 9's image (1920 x 1080 4-byte pixels), 64 frames a launch: 531 MB, 8.8x the H200's L2.
inline constexpr int kImageWidth = 1920;
inline constexpr int kImageHeight = 1080;
inline constexpr int kImageFrames = 64;

// Benchmark names (the second part of "coalescing/<name>/...").
namespace bench {
inline constexpr const char* kLoadDram = "load_dram";        // stride sweep and offsets, data >> L2
inline constexpr const char* kLoadL2 = "load_l2";            // the stride sweep, data inside the L2
inline constexpr const char* kStoreDram = "store_dram";      // stores, data >> L2
inline constexpr const char* kLoadPermuted = "load_dram_permuted";  // 32 lanes shuffled in a window
inline constexpr const char* kBlock2d = "block_2d";          // (x,y) blocks over a row-major image
inline constexpr const char* kPartialBlock = "partial_block";  // 1D blocks of P threads
}  // namespace bench

// Parameter (argument) names, in registration order per benchmark.
namespace param {
inline constexpr const char* kElemBytes = "elem_bytes";
inline constexpr const char* kStride = "stride";  // in elements
inline constexpr const char* kOffset = "offset";  // in elements, from a 128-byte line
inline constexpr const char* kX = "x";
inline constexpr const char* kY = "y";
inline constexpr const char* kBlockThreads = "block_threads";  // P, threads of a 1D block (schema 1: "threads")
}  // namespace param

// What each benchmark states about one launch (Google Benchmark user counters).
namespace work {
inline constexpr const char* kUsefulBytes = "useful_bytes";    // bytes the active lanes asked for
inline constexpr const char* kWarpRequests = "warp_requests";  // warp-level memory instructions
inline constexpr const char* kRegionBytes = "region_bytes";    // the bytes the launch cycles over
inline constexpr const char* kImageWidth = "image_width";      // block_2d: elements a row
inline constexpr const char* kImageHeight = "image_height";    // block_2d: rows a frame
inline constexpr const char* kFrames = "frames";               // block_2d: frames read a launch
inline constexpr const char* kGpuSeconds = "gpu_seconds";
}  // namespace work

// The counter pass's metrics (Nsight Compute names; they resolve on GH100).
namespace metric {
inline constexpr const char* kSectorsLd = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kRequestsLd = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kSectorsSt = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kRequestsSt = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
}  // namespace metric

inline const std::vector<std::string>& counter_metrics() {
  static const std::vector<std::string> metrics = {metric::kSectorsLd, metric::kRequestsLd,
                                                   metric::kSectorsSt, metric::kRequestsSt,
                                                   metric::kDramRead,  metric::kDramWrite};
  return metrics;
}

// The derived rows the evaluator writes (metric column).
namespace row {
inline constexpr const char* kSectorsPerRequest = "sectors_per_request";
inline constexpr const char* kUsefulBandwidth = "useful_bandwidth";
inline constexpr const char* kDramBytes = "dram_bytes_per_launch";
inline constexpr const char* kEfficiency = "useful_per_moved_model";
}  // namespace row

}  // namespace warpcost::coalescing

// The family's descriptor (core/family_schema.hpp) for the registry (WARPCOST_FAMILIES).
namespace warpcost::schema::coalescing {
const FamilyDescriptor& descriptor();
inline std::vector<const FamilyDescriptor*> descriptors() { return {&descriptor()}; }
}  // namespace warpcost::schema::coalescing

// The registry calls analysis::coalescing::families(); the family's names stay visible there.
namespace warpcost::analysis::coalescing {
using namespace warpcost::coalescing;
}  // namespace warpcost::analysis::coalescing
