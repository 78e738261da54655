// Model against measurement: turns a run's benchmarks into rows of (metric, measured, model,
// predicted, relative error, verdict, why). One evaluator per family; a family without one gets
// its times only, with verdict "info".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run_reader.hpp"

namespace warpcost::analysis {

namespace verdict {
inline constexpr const char* kHolds = "holds";
inline constexpr const char* kFails = "fails";
// The model holds for each warp's own cycles but not for the grid's time (which carries costs the
// model leaves out, such as the launch); the why says by how much and why.
inline constexpr const char* kHoldsPerWarp = "holds-per-warp";
inline constexpr const char* kWarn = "warn";    // measured but suspect (clock low, noisy)
inline constexpr const char* kInfo = "info";    // measured, no model to hold it against
inline constexpr const char* kError = "error";  // the benchmark reported an error
}  // namespace verdict

struct Row {
  std::string family;
  std::string benchmark;
  std::string params;
  std::string metric;
  double value = 0.0;
  std::string unit;
  std::string model;
  std::optional<double> predicted;
  std::optional<double> rel_error;
  std::string verdict;
  std::string why;
};

// Thresholds the verdicts use, in one place.
inline constexpr double kClockFloorFraction = 0.90;  // below this share of max clock: warn
inline constexpr double kCvTarget = 0.005;           // CV target for kernels of >= 50 us
inline constexpr double kCvMinSeconds = 50e-6;
inline constexpr double kBoundSlack = 0.02;          // a measured rate may exceed a peak by 2 %
inline constexpr double kFractionTolerance = 0.02;   // useful fraction within 2 % of the model
inline constexpr double kStepSpreadTolerance = 0.01; // times within one staircase step: 1 %
inline constexpr double kTailTimeTolerance = 0.05;   // grid-tail time ratio within 5 % of the model
inline constexpr double kSplitTolerance = 0.02;      // if/else and nested slowdowns within 2 %
inline constexpr double kKWayTolerance = 0.03;       // k-way switch slowdowns within 3 %
// Uniform warps whose p90/p10 cycles exceed this share a scheduler with others: their own cycles
// then include the issue slots they waited for.
inline constexpr double kContentionSpread = 1.05;

std::vector<Row> evaluate_run(const Run& run);

}  // namespace warpcost::analysis
