// What the per-family evaluators share: row construction, number formatting and the noise-aware
// verdict. Internal to the analysis library.
#pragma once

#include <string>
#include <optional>
#include <functional>
#include <vector>

#include "core/text_format.hpp"
#include "core/models.hpp"
#include "core/streaming/model.hpp"
#include "analysis/evaluation.hpp"

namespace warpcost::analysis {
namespace detail {

// The relative uncertainty of the point's median time (point_uncertainty).
double cv_of(const BenchmarkResult& b);
// A miss past `tolerance` by no more than kWarnNoiseMultiple x sigma (the uncertainty of the
// judged statistic) is warn (too noisy to decide); further past it, fails.
const char* miss_verdict(double miss, double tolerance, double sigma);
// ", x% past the tolerance, within twice ..." when the miss is warn, else "".
std::string noise_note(double miss, double tolerance, double sigma);
// A model check: kind model, holds when miss <= tolerance, else miss_verdict(...).
void judge(Row& r, double miss, double tolerance, double sigma);
Row base_row(const BenchmarkResult& b);
// Sets predicted and the relative error (value - predicted) / predicted.
Row with_prediction(Row r, double predicted);
// A whole-number parameter (a count, a size); throws std::out_of_range if absent.
long long iparam(const BenchmarkResult& b, const std::string& key);
// The theoretical DRAM peak of the run's GPU: memory clock x bus width/8 x 2, in bytes/s.
double dram_peak(const Run& run);
// The first error-free, unthrottled benchmark of this family, name and parameter text, or nullptr.
const BenchmarkResult* find_benchmark(const Run& run, const std::string& family,
                                      const std::string& benchmark, const std::string& params);

// A second-order model's linear cost from a parameter benchmark's points (docs/models.md): the two
// whose work `units` lie furthest apart; nullopt with fewer than two distinct amounts of work.
// `source` names the two points.
std::optional<model::LinearCost> two_point_cost(const std::vector<const BenchmarkResult*>& points,
                                                const std::function<double(const BenchmarkResult*)>& units,
                                                std::string& source);

// The loaded-latency locus Λ(BW) of the streaming family's 16-byte W = 0 sweep (docs/models.md),
// read by every second-order model that prices bytes in flight; nullopt without two unthrottled
// points. `description` names it.
std::optional<model::streaming::Locus> loaded_latency_locus(const Run& run, std::string& description);
// The copy locus (EXPLAIN-7, docs/explain.md): each unthrottled streaming copy_independent point's
// (read + write DRAM rate, cycles its loads wait by Little's law from the read rate and one 16-byte
// load in flight a warp's lane); nullopt with fewer than two points.
std::optional<model::streaming::Locus> copy_locus(const Run& run, std::string& description);

// ISSUE-33-GREEDY-ISSUE's run-wide inputs (analysis/streaming/evaluation.cpp): the load latency's
// spread sigma and M0; nullopt where the run cannot give them (not cc 9.0 with CUDA 13.0, or no
// unthrottled, finite spread at W = 0, 4 warps/SM), and the queue prices its curves.
struct GreedyRunInputs {
  double sigma = 0;
  double memory_latency = 0;
};
std::optional<GreedyRunInputs> greedy_run_inputs(const Run& run, const model::streaming::Locus& locus);
std::optional<std::pair<double, double>> copy_locus_point(const Run& run, const BenchmarkResult& b);

// The block-turnover parameter of a streaming/block_turnover point: cycles an SM spends a block of
// the one-load-a-thread grid without its load, SMs x median seconds x clock / blocks; nullopt
// without its block count, time, SM count or clock.
std::optional<double> block_turnover_cycles(const Run& run, const BenchmarkResult& b);

// r_sat: warp instructions a cycle a scheduler of partial_warp/fma_issue's FMA chains at 8 warps a
// scheduler, the slope between its two loop lengths (docs/models.md); nullopt without both points
// unthrottled and counted. `source` names them.
std::optional<double> saturated_issue_rate(const Run& run, int schedulers, std::string& source);

// A parameter of a second-order model as a row of its own (docs/models.md, kind info): family,
// benchmark "second_order_parameters", `params` saying which (e.g. "warps_per_scheduler=1"), the
// metric, its value and unit; its reason says what it is and where it was measured (`source`).
Row parameter_row(const std::string& family, const std::string& params, const std::string& metric, double value,
                  const std::string& unit, const std::string& what, const std::string& source);

// The run's architecture (schedulers per SM, issue interval) from its compute capability.
model::ArchParams arch_of(const Run& run);
// A counter-pass metric's row under its own name and unit.
Row counter_row(const BenchmarkResult& b, const std::string& metric, const std::string& unit);
// A counter check of one profiled launch: holds within `tolerance` of `predicted`, else fails. Its
// reason is `reason` with the check's outcome (flag check_holds, number check_tolerance), which the
// renderer turns into "; off by more than N%" after the sentence when it failed.
Row relative_check(Row r, const std::string& model, double predicted, double tolerance, Reason reason);
// Puts `note` before the row's sentence (a machine state the row depends on: "note; sentence").
void prefix_reason(Row& r, Reason note);

}  // namespace detail

}  // namespace warpcost::analysis
