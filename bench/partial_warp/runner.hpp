// Runs the schedule recorder for one block shape and hands its slots to the analysis' gates.
#pragma once

#include <string>
#include <vector>

#include "core/schedule_check.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"

namespace warpcost {

// Empty when the device can launch a block of this shape; otherwise one sentence naming the value
// and what is allowed.
std::string block_shape_problem(const DeviceInfo& device, long long x, long long y, long long z);

struct RecordedBlock {
  std::vector<analysis::ThreadRecord> slots;  // every slot, the guard past the block included
  analysis::ScheduleCheck check;
};

// Poisons max_threads_per_block + a guard of slots, launches one block of `shape`, copies every
// slot back and checks it. Throws std::invalid_argument for a shape the device cannot launch.
RecordedBlock record_schedule(const DeviceInfo& device, const model::BlockShape& shape,
                              const Stream& stream);

// The grid tail's loop length (rounds of kernels::kFmaChains FMAs a thread) and the two loop lengths
// of the fma_issue parameter points: the suite's partial_warp/grid_tail and fma_issue use these, and
// so does `warpcost-record --grid`.
inline constexpr int kGridTailIterations = 4096;
inline constexpr int kFmaIssueShortTrips = kGridTailIterations / 4;
inline constexpr int kFmaIssueLongTrips = 2 * kGridTailIterations;

// Correctness before time: 1024 of the first `written_threads` results spread over the buffer, and
// the last, against the host replay (kernels::fma_reference); throws naming the first that differs.
void check_fma_outputs(const DeviceBuffer<float>& out, unsigned long long written_threads, int iterations,
                       const Stream& stream);

// What the grid recorder (kernels::launch_record_grid) saw for N threads in 1D blocks of B.
struct RecordedGrid {
  long long blocks = 0;                 // blocks with at least one launched warp
  long long launched_warps = 0;         // warps whose lane 0 wrote its mask before the guard
  long long launched_threads = 0;       // bits over those masks
  long long working_warps = 0;          // warps with a thread past the guard (g < N)
  long long working_threads = 0;        // threads past the guard
  long long last_block_threads = 0;     // of them, in the last block
  long long last_block_full_warps = 0;  // warps of the last block whose 32 threads all passed, mask full
  int last_block_partial_lanes = 0;     // the last block's partial warp: its threads (0: none)
  unsigned int last_mask = 0;           // the mask the last working warp's threads read after the guard
  std::vector<std::string> gate_failures;  // each a sentence; empty: every gate passed
};

// Zeroes the slots, launches ceil(N/B) blocks of B threads with the grid recorder, copies every
// slot back and reads it. Throws std::invalid_argument for a block the device cannot launch.
RecordedGrid record_grid(const DeviceInfo& device, unsigned long long total_threads, unsigned int block_threads,
                         const Stream& stream);

// The last block of N threads in blocks of B, alone on the GPU, against one full block: each a
// one-block launch of the grid tail's FMA work (kGridTailIterations rounds), event-timed with the
// suite's sampling rule, median of its samples; and the parameters of the second-order model, the
// fma_issue points at the two blocks' warps a scheduler (kFmaIssueShortTrips, kFmaIssueLongTrips);
// and the launch floor (one empty one-thread kernel). Every FMA result is checked on the host.
struct TailTiming {
  long long tail_threads = 0;
  long long tail_warps = 0;
  long long full_warps = 0;
  double tail_seconds = 0;
  double full_seconds = 0;
  double floor_seconds = 0;
  double tail_noise = 0;  // relative standard deviation of each one's samples
  double full_noise = 0;
  double fma_per_thread = 0;
  // fma_issue at ceil(tail_warps / schedulers) and ceil(full_warps / schedulers) warps a scheduler,
  // 4 per SM-scheduler group: seconds at each of the two loop lengths.
  double tail_issue_short = 0, tail_issue_long = 0;
  double full_issue_short = 0, full_issue_long = 0;
};
TailTiming time_grid_tail(const DeviceInfo& device, unsigned long long total_threads, unsigned int block_threads,
                          int schedulers_per_sm, const Stream& stream);

}  // namespace warpcost
