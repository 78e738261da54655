// The streaming family's second-order model (docs/models.md): Little's law in bytes as a fixed
// point with the loaded-latency locus, bounded by the issue rate of the busiest scheduler (a
// mean-value analysis of its closed queue). Pure arithmetic: the analysis and `warpcost predict`
// feed it parameters measured on the GPU under test, or given by hand.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace warpcost::model::streaming {

// The loaded-latency locus: pairs (DRAM throughput in bytes/s, cycles one iteration of the plain
// 16-byte W = 0 stream took at it). Interpolated piecewise-linearly in the throughput, made
// non-decreasing, flat below the slowest point; its largest throughput is the ceiling.
class Locus {
 public:
  Locus() = default;
  // Throws std::invalid_argument naming the pair when a point is not finite and positive, or when
  // fewer than two points are given.
  explicit Locus(std::vector<std::pair<double, double>> bandwidth_and_cycles);
  double cycles_at(double bandwidth) const;  // Λ(BW)
  double unloaded_cycles() const;            // Λ(0): the slowest point's cycles
  double ceiling() const;                    // BW_max
  const std::vector<std::pair<double, double>>& points() const { return points_; }

 private:
  std::vector<std::pair<double, double>> points_;
};

// Mean-value analysis of one scheduler as a closed queue: `warps` customers, each iteration `demand`
// cycles of issue at the scheduler and `delay` cycles away from it. Returns the cycles one
// iteration of a warp takes (warps / throughput). warps >= 1, demand >= 0, delay >= 0.
double mva_iteration_cycles(int warps, double demand, double delay);

struct StreamPoint {
  int sms = 0;                    // S
  int schedulers_per_sm = 4;
  int warps_per_sm = 0;           // N
  double bytes_per_warp_iteration = 0;  // 32 lanes x load bytes x loads in flight
  double instructions_per_iteration = 0;  // I, counted (warp instructions an iteration of a warp)
  double unloaded_iteration_cycles = 0;   // T0: this curve's iteration at one warp per SM
  double clock_hz = 0;            // f
};

struct StreamPrediction {
  double bandwidth = 0;       // bytes/s
  double iteration_cycles = 0;
  double loaded_cycles = 0;   // Λ(BW) at the fixed point
  bool at_ceiling = false;    // the locus' ceiling bounds it
  int warps_per_scheduler = 0;
};

// The fixed point BW = min(S·N·B·f / T_iter(BW), BW_max), T_iter from the queue with
// demand I / r_sat and delay max(T0 + Λ(BW) − Λ(0) − demand, 0). Throws std::invalid_argument
// naming the value when an input is out of its range (warps >= 1, bytes, clock, rate > 0).
StreamPrediction predict_stream(const StreamPoint& p, const Locus& locus, double issue_rate);

// The one-load-a-thread stream (docs/models.md, "one load a thread"): short-lived blocks, each a
// customer of a closed queue at its SM: k resident block slots, each block `turnover_cycles` of
// service at the SM (launch, reduction, store and retirement, measured by the same grid without
// its load: the block_turnover benchmark) and Λ(BW) cycles away from it (its one load, at the
// loaded latency of the DRAM throughput BW).
struct BlockStreamPoint {
  int sms = 0;                   // S
  int resident_blocks = 0;       // k: blocks an SM holds at once (the occupancy API's count)
  double bytes_per_block = 0;    // threads x bytes a thread loads
  double turnover_cycles = 0;    // D: cycles an SM spends a block without the load (> 0)
  double clock_hz = 0;           // f
};

struct BlockStreamPrediction {
  double bandwidth = 0;          // bytes/s
  double block_cycles = 0;       // cycles an SM takes a block at the fixed point (1 / its block rate)
  double loaded_cycles = 0;      // Λ(BW) at the fixed point
  bool at_ceiling = false;       // the locus' ceiling bounds it
};

// The fixed point BW = min(S·f·bytes / c(BW), BW_max), c(BW) = T(k, D, Λ(BW)) / k the cycles a
// block at the SM, T the mean-value analysis' cycle time (mva_iteration_cycles) of k customers with
// demand D and delay Λ(BW). Throws std::invalid_argument naming the value when an input is out of
// its range.
BlockStreamPrediction predict_block_stream(const BlockStreamPoint& p, const Locus& locus);

// The expected excess of the largest of `draws` independent draws from the empirical distribution
// of `samples` over their mean: sum_i x_(i) [(i/n)^draws - ((i-1)/n)^draws] - mean, x_(i) sorted
// ascending (sampling with replacement, so exact for any n). 0 for draws = 1. Throws
// std::invalid_argument naming the value for no samples, a non-finite sample or draws < 1.
double expected_max_excess(std::vector<double> samples, int draws);
// The same for each of `draws` (one sort for all). Never negative: a rounding under 0 reads 0.
std::vector<double> expected_max_excesses(std::vector<double> samples, const std::vector<int>& draws);

// The first warps/SM of a curve whose value reaches `fraction` of the curve's largest value (the knee
// `warpcost predict` and `check` state for a predicted curve; the suite's second-order knee rows
// read knee_crossing_of). Curve sorted by warps. 0 when empty.
int knee_of(const std::vector<std::pair<int, double>>& warps_and_value, double fraction);

// Where a curve first reaches `fraction` of its largest value, read linearly between the swept
// points on either side of the crossing (the second-order knee of both the measured and the
// predicted streaming curve, ISSUE-33-KNEE-CROSSING: a sweep spaced wider than the knee's ±3
// warps/SM cannot resolve it at a swept point). The first point when it already reaches it; 0 when
// empty. Curve sorted by warps.
double knee_crossing_of(const std::vector<std::pair<int, double>>& warps_and_value, double fraction);

}  // namespace warpcost::model::streaming
