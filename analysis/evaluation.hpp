// Model against measurement: turns a run's benchmarks into rows of (metric, measured, model,
// predicted, relative error, verdict, why). One evaluator per family; a family without one gets
// its times only, with verdict "info".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/run_reader.hpp"
#include "analysis/reason.hpp"

namespace warpcost::analysis {

// What a row is (the CSV's `kind` column; docs/verdicts.md has every check):
//  model:  a prediction from inputs measured independently of the judged number, held to a
//          declared tolerance: holds, fails, warn (the miss is inside the point's own noise),
//          untestable here (the data cannot decide: docs/verdicts.md, the knee rule) or throttled.
//  target: a goal figure (best read >= 96 % of peak, CV <= 0.5 %): met or missed.
//  check:  an instrument check: a fact of the programming model or of an API (ceil(P/32) warps a
//          block, the tail's mask, the occupancy API against the formula it evaluates) that no GPU
//          measurement could change; it proves the instrument reads what it should: passes or
//          fails, counted apart from the model checks.
//  info:   a measurement, a physical bound or a consistency figure: never holds.
namespace kind {
inline constexpr const char* kModel = "model";
inline constexpr const char* kTarget = "target";
inline constexpr const char* kCheck = "check";
inline constexpr const char* kInfo = "info";
}  // namespace kind

namespace verdict {
inline constexpr const char* kHolds = "holds";
inline constexpr const char* kFails = "fails";
inline constexpr const char* kWarn = "warn";  // a miss inside twice the point's own noise
inline constexpr const char* kUntestable = "untestable here";  // prediction beyond the sweep
// The point ran with its SM clock under kThrottleFraction of the maximum: kept out of the model.
inline constexpr const char* kThrottled = "throttled";
inline constexpr const char* kMet = "met";        // a target reached
inline constexpr const char* kMissed = "missed";  // a target not reached
inline constexpr const char* kPasses = "passes";  // an instrument check that reads as it must
inline constexpr const char* kInfo = "info";    // measured, no model to hold it against
inline constexpr const char* kError = "error";  // the benchmark reported an error, or measured the impossible
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
  std::string kind = kind::kInfo;
  std::string verdict;
  // Why the row reads as it does, as data: the evaluators fill `reason`, and evaluate_run renders
  // it into `why` once every row is made (analysis/reason.hpp).
  Reason reason;
  std::string why;
  // The machine states this row depends on (machine_state::k..., ';'-joined; "" for none): the
  // CSV's machine_state column, docs/running.md's table of machine states.
  std::string machine_state;
};

// The codes of Row::machine_state (analysis/csv-schema.json's machine_state column).
namespace machine_state {
inline constexpr const char* kThrottled = "throttled";
inline constexpr const char* kOtherProcess = "other_process";
inline constexpr const char* kApplicationClocks = "application_clocks";
inline constexpr const char* kMigInstance = "mig_instance";
}  // namespace machine_state

// Thresholds the verdicts use, in one place; docs/verdicts.md gives the reason for each.
// A timed point whose lowest SM clock fell under this share of the maximum is throttled (nvbench
// discards such samples): it is flagged and kept out of every model verdict.
inline constexpr double kThrottleFraction = 0.95;
inline constexpr double kCvTarget = 0.005;           // CV target for kernels of >= 50 us
inline constexpr double kCvMinSeconds = 50e-6;
// A miss past its tolerance by no more than this many times the uncertainty of the judged
// statistic is warn, not fails: about a 95 % two-sided interval for a normal estimate, so a miss
// that close to the tolerance's edge could be the edge itself seen through the noise.
inline constexpr double kWarnNoiseMultiple = 2.0;
inline constexpr double kFractionTolerance = 0.02;   // partial warp time vs whole warps: 2 %
// (max - min) / min of the times of one staircase step: 1 %
inline constexpr double kStepSpreadTolerance = 0.01;
// A measured DRAM rate above the theoretical peak by more than this share is impossible: the bytes,
// the timing or the data's residency is wrong, and the row reads `error`. 2 % covers CUDA events'
// ~0.5 us resolution against kernels of milliseconds and the memory clock rounded to whole kHz.
inline constexpr double kPeakMeasurementTolerance = 0.02;
inline constexpr double kTailTimeTolerance = 0.05;   // grid-tail time ratio within 5 % of the model
// The second-order models (docs/models.md), declared before their first GPU run (ISSUE-33-DECLARED):
// a point's tolerance and its family's MAE target.
inline constexpr const char* kSecondOrderPrefix = "second-order: ";
inline constexpr double kSecondOrderStreamTolerance = 0.05;
inline constexpr double kSecondOrderStreamMaeTarget = 0.03;
inline constexpr int kSecondOrderKneeWarps = 3;
inline constexpr double kSecondOrderTailTolerance = 0.02;
inline constexpr double kSecondOrderTailMaeTarget = 0.02;
inline constexpr double kSecondOrderSlowdownTolerance = 0.02;
inline constexpr double kSecondOrderSlowdownMaeTarget = 0.02;
inline constexpr double kSecondOrderCoalescingTolerance = 0.05;  // ISSUE-33-COALESCING
inline constexpr double kSecondOrderCoalescingMaeTarget = 0.03;
inline constexpr double kSecondOrderPrimitivesMaeTarget = 0.05;  // ISSUE-33-PRIMITIVES
// The loaded chase against the unloaded one plus the locus' rise at the background's rate; no family
// target (ISSUE-33-LOADED-CHASE).
inline constexpr double kSecondOrderLoadedLatencyTolerance = 0.05;
inline constexpr double kSplitTolerance = 0.02;      // if/else and nested slowdowns within 2 %
inline constexpr double kKWayTolerance = 0.03;       // k-way switch slowdowns within 3 %
// Uniform warps whose p90/p10 cycles exceed this share a scheduler with others: their own cycles
// then include the issue slots they waited for.
inline constexpr double kContentionSpread = 1.05;
// The counter pass (one profiled launch, so a miss past these fails):
// Instructions outside the modelled region (a warp's lane-0 record, a block's thread-0 clock
// sample, the guard of a grid tail) run at other lane counts; at these sizes they move the ratio by
// at most 0.3 % on the H200.
inline constexpr double kLaneTolerance = 0.02;
// Achieved warps of a persistent grid: every block starts at once and runs to the end, so only the
// launch's ramp and drain take the average below the requested count.
inline constexpr double kResidencyTolerance = 0.05;
inline constexpr double kDramBytesTolerance = 0.02;
inline constexpr double kSameSlotsTolerance = 0.02;

std::vector<Row> evaluate_run(const Run& run);

// The sentence of a Reason (its prefixes first, each followed by "; "; then its own sentence, the
// check's outcome and its after_check notes): the shared sentences ("core/…") here, a family's
// from its Family::render_reason. Throws std::logic_error for a code no renderer knows, and
// std::out_of_range for a value the sentence needs and the reason lacks.
std::string render_reason(const Reason& reason);
// evaluate_run's last step: every row's reason rendered into its `why`, the one place a why is
// written. A reason its renderer refuses (an unknown code, a value the sentence needs and the
// evaluator did not give) costs that row alone: it becomes an evaluation_error row naming why, as
// a throwing evaluator's rows do.
void render_reasons(std::vector<Row>& rows);

// The if/else and nested slowdowns' tolerance the evaluators use: kSplitTolerance, unless a
// ScopedSplitTolerance lives. Only the verdict lock's negative control sets one (it changes this
// one tolerance and sees the lock test fail); no tool does.
double split_tolerance();
class ScopedSplitTolerance {
 public:
  explicit ScopedSplitTolerance(double tolerance);
  ~ScopedSplitTolerance();
  ScopedSplitTolerance(const ScopedSplitTolerance&) = delete;
  ScopedSplitTolerance& operator=(const ScopedSplitTolerance&) = delete;

 private:
  double previous_;
};

// A point's relative noise of one sample: warpcost_noise (the bench's own samples) when the run has
// it, else the CV of its repetitions' times. Shown, not used for warn (point_uncertainty is).
double point_noise(const BenchmarkResult& b);
// The relative uncertainty of the point's judged statistic (its median time): warpcost_noise /
// sqrt(warpcost_samples) when the bench wrote both, else the robust standard error of the median of
// the repetitions (relative_median_standard_error), which one outlying repetition does not inflate.
double point_uncertainty(const BenchmarkResult& b);
// The same for the median of one per-repetition counter (a warp's cycles); 0 when absent.
double counter_uncertainty(const BenchmarkResult& b, const std::string& counter);
// The SM clock a run's points are held against, in MHz: the clock an administrator set
// (application clocks, context sm_clock_reference_mhz) where the bench recorded one, else the
// device's maximum (sm_clock_max_mhz, or sm_clock_max_khz in older runs); 0 when none is known.
double reference_sm_clock_mhz(const Run& run);
// True when the run's SM clock was held below its maximum by application clocks (context
// sm_clock_reference starts "application clocks").
bool runs_at_application_clocks(const Run& run);
// The MIG instance the run was on ("1g.5gb"), or "" for a whole GPU (context mig_instance).
std::string mig_instance(const Run& run);
// True when the point's lowest SM clock (warpcost_sm_clock_mhz) is under kThrottleFraction of the
// run's reference clock (reference_sm_clock_mhz); false for runs without the field.
bool is_throttled(const Run& run, const BenchmarkResult& b);
// A model row with a verdict that judged it (holds, fails, warn) and a relative error.
bool judged_model_row(const Row& r);
// A row of a second-order model (its model text begins kSecondOrderPrefix).
bool is_second_order(const Row& r);

}  // namespace warpcost::analysis
