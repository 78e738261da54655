// One divergence configuration on the device: validated, launched at an exact number of resident
// warps per SM, its outputs checked against the host replay, and its per-warp records summarised.
// The benchmarks, warpcost-diverge and the GPU tests all go through it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"
#include "kernels/divergence/kernels.hpp"

namespace warpcost {

// kSwitchTable: the switch with a lane table (cases of their own lanes and trips; warpcost-diverge
// --cases), which the suite does not sweep.
enum class BranchKind { kIfElse, kSwitch, kNested, kSwitchTable };

struct DivergenceConfig {
  BranchKind kind = BranchKind::kIfElse;
  // if/else
  kernels::SplitPattern pattern = kernels::SplitPattern::kLowLanes;
  int k = 16;  // lanes of 32 on the if side (ignored by the warp-uniform control)
  int if_trips = 384;
  int else_trips = 384;
  std::uint32_t seed = 1;  // the random pattern's draw
  // switch and nested if: every path `trips` long
  int paths = 1;   // switch: 1..32
  int first_path = 0;  // switch: lane l takes path (first_path + l mod paths) mod 32
  int leaves = 1;  // nested: 1..4
  int trips = 384;
  // switch with a lane table: case i takes the next cases[i].lanes lanes and runs cases[i].trips
  std::vector<kernels::SwitchCase> cases;
  // residency: warps per SM, in blocks of 4 warps, one wave; 0: the device's full residency
  int warps_per_sm = 0;
};

// Empty when the configuration can run; otherwise one sentence naming the value and what is
// allowed. `resident_blocks_per_sm` is what the occupancy API allows for the kernel; with
// max_warps_per_sm <= 0 (no device yet) the residency is checked only for its shape.
// The most warps/SM the kind's kernel can hold on the device in whole blocks: the device's warp and
// block caps, and, for the device this process runs on (facts.profile empty), the occupancy API's
// answer for the compiled kernel (its registers). A profile has no compiled kernel to ask, so its
// cap is the architectural one.
int divergence_full_residency(const DeviceFacts& facts, BranchKind kind);

std::string divergence_config_problem(const DivergenceConfig& config, int max_warps_per_sm,
                                      int resident_blocks_per_sm);

// "LANES:TRIPS,LANES:TRIPS,..." (warpcost-diverge --cases): one case each, in lane order. Throws
// std::invalid_argument naming the piece that is not two whole numbers; the cases themselves are
// checked by kernels::switch_cases_problem.
std::vector<kernels::SwitchCase> parse_switch_cases(const std::string& text);

// Which path (0..31) global thread `gid` takes and how many trips it runs.
struct ThreadPath {
  int path = 0;
  int trips = 0;
};
ThreadPath thread_path(const DivergenceConfig& config, const kernels::SplitMasks& masks,
                       unsigned long long gid);
// The ballot of "takes path 0" warp `warp` must produce.
std::uint32_t planned_vote(const DivergenceConfig& config, const kernels::SplitMasks& masks,
                           unsigned long long warp);
// Paths with at least one lane in warp `warp`.
int populated_paths(const DivergenceConfig& config, const kernels::SplitMasks& masks,
                    unsigned long long warp);

struct WarpCycleSummary {
  long long warps = 0;
  double median_cycles = 0;
  double p10_cycles = 0;
  double p90_cycles = 0;
  // Medians over the warps whose lanes all took path 0 / none did (the warp-uniform control has
  // both kinds); 0 when there are no such warps.
  double all_first_path_median = 0;
  double no_first_path_median = 0;
  // %globaltimer from the first warp entering the region to the last one leaving it: the grid's
  // time in the branch region, without launch, prologue and stores.
  double region_span_s = 0;
  long long votes_as_planned = 0;  // warps whose ballot equals planned_vote
  int sms = 0;                     // distinct SMs the warps reported
  int max_warps_on_one_sm = 0;
  int min_warps_on_one_sm = 0;
};
WarpCycleSummary summarize_warps(const DivergenceConfig& config, const kernels::SplitMasks& masks,
                                 const std::vector<kernels::WarpRecord>& records);

class DivergenceRunner {
 public:
  // Throws std::invalid_argument with divergence_config_problem's sentence for a bad config.
  DivergenceRunner(const DeviceInfo& device, const DivergenceConfig& config);

  void launch(const Stream& stream);
  // Replays a sample of threads (every lane of the first 32 warps, so every mask-table entry, and
  // the last warp) on the host; throws std::runtime_error naming the first thread that differs.
  void check_outputs(const Stream& stream) const;
  WarpCycleSummary read_warps(const Stream& stream) const;
  // The SM clock of the last launch, from its two probe threads.
  double clock_hz(const Stream& stream) const;

  unsigned int blocks() const noexcept { return blocks_; }
  unsigned long long threads() const noexcept {
    return static_cast<unsigned long long>(blocks_) * kernels::kDivergenceBlockThreads;
  }
  const kernels::SplitMasks& masks() const noexcept { return masks_; }
  const DivergenceConfig& config() const noexcept { return config_; }

 private:
  DivergenceConfig config_;
  kernels::SplitMasks masks_{};
  kernels::NestedMasks nested_{};
  kernels::SwitchTable table_{};
  unsigned int blocks_ = 0;
  DeviceBuffer<float> out_;
  DeviceBuffer<kernels::WarpRecord> records_;
  DeviceBuffer<kernels::ClockSample> clocks_;
};

}  // namespace warpcost
