// The warp-primitives family's verdicts (docs/warp-primitives.md has the table with the reasons).
// Every tolerance and statistic is declared here, before the family's first GPU run; none may be
// changed after looking at data (docs/verdicts.md).
#pragma once

#include <string>
#include <vector>

#include "analysis/evaluation.hpp"

namespace warpcost::analysis {

struct EvaluatedRun;

namespace warp_primitives_tolerance {
// Statistic of a latency point: the median over the launch's warps of (a warp's clock64 cycles
// across its chain / ops in the chain), one warp an SM; its uncertainty the robust standard error
// of the repetitions' medians (counter_uncertainty). Warp granularity holds when a lane count or
// mask shape costs within 2 % of the same primitive at 32 contiguous lanes: the same bound the
// partial-warp family holds ordinary instructions to (kFractionTolerance); a per-lane cost would
// move 1 lane against 32 by far more, and clock64 over >= 2048 ops puts the clock reads and the
// loop's entry under 0.5 %.
inline constexpr double kGranularityLatency = 0.02;
// Statistic of a throughput point: the median over SMs of (warp-ops run on the SM / the SM's clock
// span, first block start to last block end on it). 3 %: the span includes the SM's block ramp
// and drain, up to ~1 % at the shortest point of the sweep, on each of the two points compared.
inline constexpr double kGranularityThroughput = 0.03;
// Shuffle throughput at the device's full residency against the Programming Guide's table
// (kGuideShuffleResultsPerClockCc90 / 32 warp-ops per cycle per SM, halved for 64-bit values):
// 5 %, the two ramps above plus the table being a nominal figure with no stated precision.
inline constexpr double kGuideTable = 0.05;
// Butterfly latency against 5 x (shuffle latency + add latency) from their own chains: 5 %. A
// step's SHFL-to-IADD3 and IADD3-to-SHFL hand-offs may each differ from the same-pipe chains by a
// cycle, 2 cycles a step in a ~150-cycle sum (~7 % at worst but ~3 % expected); an extra
// instruction a step (a move, a predicate) adds >= 4 cycles a step, ~14 %, which 5 % catches.
inline constexpr double kComposition = 0.05;
// Little's law knee: the measured knee is the smallest swept warps/SM whose throughput reaches 90 %
// of the sweep's best; the prediction latency x best throughput / chains a warp. The sweep doubles
// warps/SM, so the knee is resolved to a factor of 2: holds when |log2(measured / predicted)| <= 1.
// A prediction beyond the sweep's largest point is untestable here; one below its smallest
// (a single warp saturates) is compared at the smallest.
inline constexpr double kKneeFraction = 0.90;
inline constexpr double kKneeLog2 = 1.0;
// The second-order throughput curve (ISSUE-33-PRIMITIVES, docs/models.md): 10 % a point (the
// queue model leaves out per-scheduler dispatch and a pipe's own structure), the 64-warps/SM point
// fits the pipe rate; its knee on the same swept point.
inline constexpr double kSecondOrderThroughput = 0.10;
inline constexpr int kSecondOrderFitWarps = 64;
// Counter pass (one profiled launch, exact counts, sigma 0: no warn): warp instructions executed
// per op against the kernel's written body (PrimitiveInfo::body_inst_per_op). 10 %: the chunked
// loop's counter, compare and branch (3 instructions a 64-op chunk, 4.7 % for a one-instruction
// op) and the clock reads, index set-up and stores of each warp (< 1 % at >= 2048 ops).
inline constexpr double kInstPerOp = 0.10;
}  // namespace warp_primitives_tolerance

void evaluate_warp_primitives(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows);
void evaluate_warp_primitives_counters(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows);
void evaluate_warp_primitives_run(const Run& run, std::vector<Row>& rows);
std::string warp_primitives_summary_markdown(const EvaluatedRun& run);

}  // namespace warpcost::analysis
