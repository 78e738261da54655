// The streaming family's second-order model (docs/models.md): Little's law in bytes as a fixed
// point with the loaded-latency locus, bounded by the issue rate of the busiest scheduler (a
// mean-value analysis of its closed queue). Pure arithmetic: the analysis and `warpcost predict`
// feed it parameters measured on the GPU under test, or given by hand.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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

// ---- The greedy-issue model (docs/models.md, "Greedy issue over the loop's stall
// counts"; rule ISSUE-33-GREEDY-ISSUE): the busiest scheduler of an SM simulated over the compiled
// loop's own stall counts, greedy-then-oldest (the running warp issues while it can; when it
// cannot, the oldest warp that can takes the scheduler and keeps it), a load's data back a latency
// later that rises with the DRAM throughput along the loaded-latency locus, Little's law in bytes
// as a fixed point. A handover happens wherever the loop stalls and a mate is ready, at no rate
// chosen by hand. Pure arithmetic and a seeded simulation: the same inputs give the same figures
// on every machine.

// One step of a loop program: an instruction with its stall count (cycles before the warp's next
// instruction may issue), or a run of stall-1 instructions without a wait (`cycles` of them, which
// a greedy scheduler issues back to back).
struct LoopStep {
  enum class Kind { kStall, kRun, kLoad, kWaitLoad, kConstant, kWaitConstant };
  int cycles = 1;
  Kind kind = Kind::kStall;
};

// "4 13 2:constant 4:wait_constant 6 1:load 1r 4:wait_load 262r 6": whitespace-separated steps, each
// a stall count 1..15, or N r (a run of N >= 1 stall-1 instructions), or a stall count with
// :load (issues the load), :wait_load (waits for its data), :constant (issues a constant load),
// :wait_constant. Exactly one :load and one :wait_load; a :wait_constant needs a :constant before
// it. Throws std::invalid_argument naming the token and what is allowed.
std::vector<LoopStep> parse_loop_program(const std::string& text);
std::string format_loop_program(const std::vector<LoopStep>& program);
// The sum of the program's stall counts and run lengths: the cycles a lone warp spends in it
// besides the waits.
double loop_cycles(const std::vector<LoopStep>& program);
bool waits_for_constant(const std::vector<LoopStep>& program);
// The cycles a lone warp spends in the loop besides waiting for its load and its constant: the
// stall counts less those of the steps from the load to its wait (and from the constant to its
// wait), which run while the load is out. A lone warp's iteration is exactly this + the load's
// latency + the constant's.
double lone_overhead_cycles(const std::vector<LoopStep>& program);
// The model's two fitted latencies, one derivation for the analysis and `warpcost predict`: M0, a
// load's unloaded latency from its issue to its use, is the locus' unloaded cycles Λ(0) less the
// suite's W = 0 loop's lone overhead (at least 0); C, for a loop that waits for a constant, is its
// curve's 1-warp iteration T0 less M0 less the loop's lone overhead (at least 0; 0 without one).
double greedy_memory_latency(double locus_unloaded_cycles);
double greedy_constant_latency(double t0, double memory_latency, const std::vector<LoopStep>& program);

// The suite's own loops (core/suite_loops.cpp, generated by
// scripts/suite-loop-programs.py from nvcc 13.0's sm_90 cubin): stream_kernel<W, false, 16> for
// W = 0, 1, 2, 4, 8, 16, 32, 64, 128, 256; nullopt for any other W.
std::optional<std::string> suite_read_independent_program(int alu_per_load);

// The declared simulation (ISSUE-33-GREEDY-ISSUE): seeds 1..4, 200 iterations a warp, latencies
// simulated 50 cycles apart and read linearly between.
struct GreedySettings {
  int seeds = 4;
  int iterations = 200;
  double latency_grid_cycles = 50.0;
};

// Cycles an iteration of `warps` warps sharing one scheduler, each running `program`: the slowest
// warp's end after `iterations` iterations, divided by them. A load's data is back
// latency + sigma·z cycles after it issues (z standard normal, Box-Muller over a 64-bit Mersenne
// twister seeded with `seed`), a constant's `constant_latency` cycles after. Throws
// std::invalid_argument naming the value out of range (warps >= 1, latency >= 0, sigma >= 0,
// constant latency >= 0, iterations >= 1).
double greedy_scheduler_cycles(int warps, const std::vector<LoopStep>& program, double latency, double sigma,
                               double constant_latency, std::uint64_t seed, int iterations);

struct GreedyStreamInputs {
  int sms = 0;
  int schedulers_per_sm = 4;
  double bytes_per_warp_iteration = 512;
  double clock_hz = 0;
  double memory_latency = 0;     // M0: the locus' unloaded cycles less the W = 0 loop's lone overhead
  double sigma = 0;              // the spread of one load's latency (cycles)
  double constant_latency = 0;   // C: the constant load's cycles (0 for a loop without one)
};

// One curve's predictions: the scheduler periods are cached across its points.
class GreedyStream {
 public:
  GreedyStream(std::vector<LoopStep> program, GreedyStreamInputs inputs, Locus locus, GreedySettings settings = {});
  // The fixed point BW = min(S·N·B·f / T(N, BW), BW_max), T the slowest scheduler's period
  // (schedulers hold N / schedulers_per_sm warps, rounded both ways) at latency
  // M0 + Λ(BW) − Λ(0). Throws std::invalid_argument for warps < 1.
  StreamPrediction predict(int warps_per_sm);
  double period(int warps_per_scheduler, double latency);

 private:
  std::vector<LoopStep> program_;
  GreedyStreamInputs in_;
  Locus locus_;
  GreedySettings settings_;
  std::map<std::pair<int, long long>, double> cache_;  // (warps a scheduler, grid index) -> cycles
};

}  // namespace warpcost::model::streaming
