// The headline figures per GPU, one table row each: what a reader compares first across a fleet.
// Each figure is read from the evaluated rows (the evaluators' own names for them), from the newest
// run of that GPU that measured it, and keeps the evaluator's verdict.
#pragma once

#include <string>
#include <vector>

#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {

// The rows each headline is read from, as the evaluators name them.
namespace headline_source {
// The random ring's DRAM plateau (median cycles a dependent load over the DRAM-sized footprints).
inline constexpr const char* kDramLatencyBenchmark = "latency_plateau";
inline constexpr const char* kDramLatencyParams = "order=random;level=DRAM";
// The run's best streaming read, held against 96 % of the theoretical peak and the copy.
inline constexpr const char* kBestReadBenchmark = "peak_read";
// Ex 7's split: 20 lanes on the if side, 12 on the else, equal bodies, one warp per scheduler.
inline constexpr const char* kDivergenceBenchmark = "split_low";
inline constexpr const char* kDivergenceSplit = "k=20;";
inline constexpr const char* kDivergenceWarps = ";warps_per_sm=4";
// The partial-warp staircase: the useful fractions against P/(32 ceil(P/32)) (their largest miss)
// and the steps' spread (how many hold one time).
inline constexpr const char* kStaircaseFraction = "useful_fraction";
inline constexpr const char* kStaircaseStep = "step_time_spread";
// The bandwidth-bound stream (16-byte independent loads, no compute between them): its knee and
// Little's law's consistency figure beside it.
inline constexpr const char* kKneeParams = "use=independent;load_bytes=16;alu_per_load=0";
inline constexpr const char* kKneeLittlesLaw = "littles_law_consistency";
}  // namespace headline_source

struct HeadlineFigure {
  bool found = false;
  double value = 0;     // cycles, B/s, ratio, the largest useful-fraction miss, warps/SM
  std::string text;     // the figure for a person: "658 cycles", "4.178 TB/s, 86.8% of peak"
  std::string verdict;  // the evaluator's (the worst of them where the figure sums several rows)
  std::string run_id;   // the run it was read from
};

struct GpuHeadlines {
  std::string gpu;            // "NVIDIA H200 (GPU-0672368d)" (kDevice) or "NVIDIA H200" (kModel)
  std::string newest_run;     // this GPU's newest run
  double sm_clock_hz = 0;     // measured at the start of the newest run
  HeadlineFigure dram_latency;
  HeadlineFigure best_read;
  HeadlineFigure divergence_20_12;
  HeadlineFigure staircase;
  HeadlineFigure knee;
};

// What one row stands for: one physical GPU (name and UUID: two H200s of a host are two rows), or
// one GPU model (name only: every H200 run, whichever machine, fills one row).
enum class HeadlineGrouping { kDevice, kModel };

// One entry per GPU, ordered by GPU; each figure from the newest run of that GPU (context utc,
// then run id) that has it.
std::vector<GpuHeadlines> headline_figures(const std::vector<EvaluatedRun>& runs,
                                           HeadlineGrouping grouping = HeadlineGrouping::kDevice);

// The markdown table of headline_figures(runs, grouping), under a "## Headline figures per GPU"
// heading with a line saying where each figure comes from; GPUs none of whose runs has any of the
// figures are named below the table instead of filling a row of dashes. Empty when runs is empty.
std::string headline_table_markdown(const std::vector<EvaluatedRun>& runs,
                                    HeadlineGrouping grouping = HeadlineGrouping::kDevice);

}  // namespace warpcost::analysis
