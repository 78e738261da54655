// The textbook models warpcost holds measurements against, as pure functions. Each carries its
// formula in a one-line comment; bad arguments throw std::invalid_argument naming the value and
// what is allowed. No CUDA here: the models never touch a device.
#pragma once

#include "core/constants.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace warpcost::model {

using warpcost::kFullWarpMask;
using warpcost::kWarpSize;

// ---- where threads land ----------------------------------------------------------------------

struct BlockShape {
  long long x = 1;
  long long y = 1;
  long long z = 1;
};

struct ThreadCoord {
  long long x = 0;
  long long y = 0;
  long long z = 0;
  friend bool operator==(const ThreadCoord& a, const ThreadCoord& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
};

// P = Dx·Dy·Dz
long long threads_per_block(const BlockShape& shape);
// linear = tx + ty·Dx + tz·Dx·Dy (x fastest)
long long linear_index(const BlockShape& shape, const ThreadCoord& t);
// the inverse: tz = linear / (Dx·Dy), ty = (linear mod Dx·Dy) / Dx, tx = linear mod Dx
ThreadCoord thread_coord(const BlockShape& shape, long long linear);
// warp = linear / 32
long long warp_of(long long linear);
// lane = linear mod 32
int lane_of(long long linear);
// warps = ceil(P/32) = floor((P−1)/32) + 1
long long warps_per_block(long long threads);
// top warp id = floor((P−1)/32)
long long last_warp_id(long long threads);
// r = P − 32·(warps − 1): active lanes of the last warp, 1..32
int tail_lanes(long long threads);
// tail mask = (1 << r) − 1, all 32 bits when P is a multiple of 32
std::uint32_t tail_mask(long long threads);
// mask of warp w: full for w < last, tail mask for the last
std::uint32_t warp_mask(long long threads, long long warp);
// wasted lanes = 32·ceil(P/32) − P
long long wasted_lanes(long long threads);
// useful fraction = P / (32·ceil(P/32))
double lane_efficiency(long long threads);

struct GridTail {
  long long blocks = 0;                 // ceil(N/B)
  long long last_block_threads = 0;     // N − B·(ceil(N/B) − 1)
  long long last_block_full_warps = 0;  // floor(last / 32)
  int last_block_partial_lanes = 0;     // last mod 32 (0: no partial warp)
  long long launched_warps = 0;         // blocks·ceil(B/32): every warp of every block launches
  long long working_warps = 0;          // (blocks − 1)·ceil(B/32) + ceil(last/32): warps holding a thread < N
  long long wasted_lanes = 0;           // 32·launched_warps − N
};
// N threads in blocks of B: the last block holds N − B(ceil(N/B) − 1) threads
GridTail grid_tail(long long total_threads, long long block_threads);

// ---- divergence ------------------------------------------------------------------------------

struct BranchPath {
  int lanes = 0;      // lanes of the warp that take this path, 0..32
  double cost = 0.0;  // time of the path's body when it runs (any unit, same for all paths)
};

// number of paths with at least one lane
int populated_paths(const std::vector<BranchPath>& paths);
// T = Σ cost_p over populated paths (paths run one after another)
double divergent_time(const std::vector<BranchPath>& paths);
// slowdown = T / T_uniform
double divergence_slowdown(const std::vector<BranchPath>& paths, double uniform_cost);
// lane efficiency = Σ lanes_p·cost_p / (32·Σ cost_p), populated paths
double predicted_lane_efficiency(const std::vector<BranchPath>& paths);

// ---- latency hiding --------------------------------------------------------------------------

// N = ceil(L/W): warps a scheduler needs so others' W instructions cover one warp's L-cycle wait
long long warps_to_hide_latency(double latency_cycles, double instructions_between_loads);

struct SchedulerDemand {
  double instruction_slots = 0;   // N_sched·L/T_issue
  double warps_needed = 0;        // N_sched·L/T_issue/I_warp
  long long warps_needed_whole = 0;  // ceil of the above
  long long cap = 0;              // resident warps per SM the hardware allows
  long long deficit = 0;          // max(0, warps_needed_whole − cap)
  bool fits = false;              // warps_needed_whole <= cap
};
// warps ≥ N_sched·L/(T_issue·I_warp), against the cap maxThreadsPerSM/32
SchedulerDemand scheduler_demand(int schedulers_per_sm, double latency_cycles,
                                 double issue_interval_cycles, double independent_insts_per_warp,
                                 long long warp_cap);

struct LittlesLaw {
  double bytes_in_flight = 0;  // bandwidth × latency
  double warps_needed = 0;     // bytes_in_flight / bytes one warp keeps in flight
};
// bytes in flight = B × L; warps = B·L / bytes_per_warp
LittlesLaw littles_law(double bandwidth_bytes_per_s, double latency_s,
                       double bytes_in_flight_per_warp);

// Evidence that a curve is flat over its end (docs/verdicts.md, "plateau rule"). The reference R is
// the curve's second-largest rate, so no single point sets it; the plateau starts at s, the fewest
// warps reaching (1 - kKneePlateauBand) R. The curve is flat when (a) at least kKneePlateauPoints
// swept points past s lie within the band of R (either side), (b) at most kKneePlateauOutliers
// swept points at or past s lie outside it, and (c) the last swept point has at least
// kKneePlateauSpan times s's warps. One noisy point cannot flip it: a dip or a spike is the one
// outlier (b), and a spike cannot be R. (c) tells a plateau from a curve still rising in proportion
// to its warps: such a curve climbs its last 5 % of rate over its last 5 % of warps (61..64 of 64),
// so a densely swept straight line meets (a) and (b); a plateau holds its rate while the warps grow
// twice as much as the band.
inline constexpr int kKneePlateauPoints = 2;
inline constexpr int kKneePlateauOutliers = 1;
inline constexpr double kKneePlateauBand = 0.05;
inline constexpr double kKneePlateauSpan = 1.0 + 2 * kKneePlateauBand;

struct Knee {
  double plateau = 0;        // the largest rate of the curve
  double warps = 0;          // fewest warps whose rate reaches fraction x plateau
  double rate_at_knee = 0;
  double reference = 0;      // R: the second-largest rate (the only one's, for one point)
  double flat_from = 0;      // s: fewest warps reaching (1 - kKneePlateauBand) x R
  int flat_points = 0;       // swept points past s within the band of R
  int outliers = 0;          // swept points at or past s outside the band of R
  double flat_span = 0;      // last swept warps / s
  bool saturated = false;    // (a), (b) and (c) above: flat over the sweep's end
};
// knee = min { warps : rate(warps) >= fraction x max rate }, over (warps, rate) points in any order;
// saturated says whether the curve is flat over its end. When it is not, the knee is a lower bound
// of the true one: the true plateau is at least the largest rate measured.
Knee measured_knee(const std::vector<std::pair<double, double>>& warps_and_rate, double fraction);

// ---- warp primitives ------------------------------------------------------------------------
// The model issue 24's family (warp_primitives) holds its measurements to: a primitive is issued
// once per warp, so what it costs does not depend on how many lanes take part.

// cost(active lanes) / cost(32 lanes) = 1, for 1..32 active lanes
double primitive_cost_vs_full_warp(int active_lanes);
// butterfly steps over n lanes = log2(n): lane i reads i+n/2, then i+n/4, ... (5 for a warp)
int butterfly_reduction_steps(int lanes);
// butterfly time = log2(n) × (shuffle latency + add latency), both measured as dependent chains
double butterfly_reduction_cycles(double shuffle_cycles, double add_cycles, int lanes);

// ---- device facts ----------------------------------------------------------------------------

// peak = memory clock × bus width/8 × 2 (double data rate), bytes/s
double theoretical_dram_peak_bytes_per_s(long long memory_clock_khz, int bus_width_bits);

// What the device does not report: warp schedulers per SM and the issue interval, by cc.
struct ArchParams {
  int schedulers_per_sm = 0;
  double issue_interval_cycles = 0;
};
ArchParams arch_params(int cc_major, int cc_minor);

// ---- second-order models' shared piece (docs/models.md) -------------------------------------

// A cost linear in work, read from two measured points of a parameter benchmark: seconds =
// fixed + units x per_unit (the intercept is the launch's fixed cost, the slope the cost a unit of
// work at that residency). The grid tail and the divergence grid price their points with it.
// y at x on the polyline through points sorted by x (linear between neighbours, a vertical step
// where two share an x), clamped to the first and last y outside them. Throws std::logic_error
// for no points. The streaming locus and coalescing's spacing rate read their curves with it.
double piecewise_linear(const std::vector<std::pair<double, double>>& sorted_points, double x);

struct LinearCost {
  double fixed_seconds = 0.0;
  double seconds_per_unit = 0.0;
  double at(double units) const { return fixed_seconds + units * seconds_per_unit; }
};
// Throws std::invalid_argument naming the values when the two points' units are equal or a value
// is not finite (units >= 0, seconds > 0).
LinearCost linear_cost(double units_a, double seconds_a, double units_b, double seconds_b);
// The grid tail's relative time, the textbook row's own quantity: (T(tail) − floor) / (T(full) −
// floor), each T the cost at the busiest scheduler's warps of that launch and `units` of work.
double grid_tail_relative_time(const LinearCost& tail, const LinearCost& full, double units, double floor_seconds);
// A grid tail's last block alone against a full block (warpcost-record --grid, check --measure):
// the measured ratio with the launch floor taken off both, the textbook's warps-a-scheduler ratio
// ceil(tail warps / N_sched) / ceil(full warps / N_sched), and the second-order one from fma_issue
// points at each block's warps a scheduler, two loop lengths (`units`, FMAs a thread) each.
// Throws std::invalid_argument naming the value for a full block not above the floor, equal loop
// lengths or schedulers < 1.
struct TailTimeModels {
  double measured = 0;
  double textbook = 0;
  double second_order = 0;
  LinearCost tail;  // the fma_issue cost at the tail block's warps a scheduler
  LinearCost full;  // at a full block's
  bool same_warps_per_scheduler = false;  // then second_order is the textbook's claim, 1 by construction
};
TailTimeModels grid_tail_time_models(long long tail_warps, long long full_warps, int schedulers, double tail_seconds,
                                     double full_seconds, double floor_seconds, const double (&units)[2],
                                     const double (&tail_issue_seconds)[2], const double (&full_issue_seconds)[2],
                                     double fma_per_thread);
// The divergence grid's slowdown: the same kernel's cost at S_cfg trips a warp against S_ref.
double serialised_slowdown(const LinearCost& cost, double trips_cfg, double trips_ref);

}  // namespace warpcost::model
