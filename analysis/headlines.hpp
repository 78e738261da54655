// The headline figures per GPU, one table row each: what a reader compares first across a fleet.
// Each figure is read from the evaluated rows (the evaluators' own names for them), from the newest
// run of that GPU that measured it, and keeps the evaluator's verdict.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {

// The rows each headline is read from, as the evaluators name them.
namespace headline_source {
// The random ring's DRAM plateau (median cycles a dependent load over the DRAM-sized footprints).
inline constexpr const char* kDramLatencyBenchmark = "latency_plateau";
inline constexpr const char* kDramLatencyParams = "order=random;level=DRAM";
// The run's best streaming read: the target row (96 % of the theoretical peak, and the copy) that
// the evaluator puts on the fastest point's own bandwidth row.
inline constexpr const char* kBestReadMetric = "dram__bytes_read.sum.per_second";
// Ex 7's split: 20 lanes on the if side, 12 on the else, equal bodies, one warp per scheduler.
inline constexpr const char* kDivergenceBenchmark = "split_low";
inline constexpr const char* kDivergenceSplit = "k=20;";
inline constexpr const char* kDivergenceWarps = ";warps_per_sm=4";
// The partial-warp staircase: its steps' time spread (how many hold one time); the figure is the
// step with the worst verdict, the largest spread among equals.
inline constexpr const char* kStaircaseStepBenchmark = "staircase_step";
inline constexpr const char* kStaircaseStep = "step_time_spread";
// The bandwidth-bound stream (16-byte independent loads, no compute between them): its knee and
// Little's law's consistency figure beside it.
inline constexpr const char* kKneeParams = "use=independent;load_bytes=16;alu_per_load=0";
inline constexpr const char* kKneeW16Params = "use=independent;load_bytes=16;alu_per_load=16";
inline constexpr const char* kKneeLittlesLaw = "littles_law_consistency";
}  // namespace headline_source

struct HeadlineFigure {
  bool found = false;
  double value = 0;     // the row's value: cycles, B/s, ratio, the step's spread, warps/SM
  std::string text;     // the figure for a person: "658 cycles", "4.178 TB/s, 86.8% of peak"
  std::string verdict;  // the row's verdict
  std::string run_id;   // the run it was read from
  const Row* row = nullptr;  // the row it is: the CSV's headline column marks it
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

  // The figures under the names the CSV's headline column gives them, in the table's order.
  std::vector<std::pair<std::string, const HeadlineFigure*>> figures() const {
    return {{"dram_latency", &dram_latency}, {"best_read", &best_read},
            {"divergence_20_12", &divergence_20_12}, {"staircase", &staircase}, {"knee", &knee}};
  }
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
