#include "core/models.hpp"
#include "core/text_format.hpp"

#include <algorithm>

#include <cmath>
#include <stdexcept>
#include <string>

namespace warpcost::model {
namespace {

[[noreturn]] void reject(const std::string& what, const std::string& value,
                         const std::string& allowed) {
  throw std::invalid_argument(what + " = " + value + "; allowed: " + allowed);
}

std::string str(long long v) { return std::to_string(v); }
std::string str(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void require_threads(long long threads) {
  if (threads < 1) reject("threads per block P", str(threads), "P >= 1");
}

void require_shape(const BlockShape& s) {
  if (s.x < 1 || s.y < 1 || s.z < 1) {
    reject("block shape", "(" + str(s.x) + "," + str(s.y) + "," + str(s.z) + ")",
           "every dimension >= 1");
  }
}

void require_paths(const std::vector<BranchPath>& paths) {
  int total = 0;
  for (const auto& p : paths) {
    if (p.lanes < 0 || p.lanes > kWarpSize) {
      reject("lanes on a path", str(static_cast<long long>(p.lanes)), "0..32");
    }
    if (!(p.cost >= 0.0) || !std::isfinite(p.cost)) reject("path cost", str(p.cost), ">= 0");
    total += p.lanes;
  }
  if (total > kWarpSize) {
    reject("lanes over all paths", str(static_cast<long long>(total)), "at most 32 (one warp)");
  }
}

}  // namespace

long long threads_per_block(const BlockShape& shape) {
  require_shape(shape);
  return shape.x * shape.y * shape.z;
}

long long linear_index(const BlockShape& shape, const ThreadCoord& t) {
  require_shape(shape);
  if (t.x < 0 || t.x >= shape.x || t.y < 0 || t.y >= shape.y || t.z < 0 || t.z >= shape.z) {
    reject("thread coordinate", "(" + str(t.x) + "," + str(t.y) + "," + str(t.z) + ")",
           "0 <= t < (" + str(shape.x) + "," + str(shape.y) + "," + str(shape.z) + ")");
  }
  return t.x + t.y * shape.x + t.z * shape.x * shape.y;
}

ThreadCoord thread_coord(const BlockShape& shape, long long linear) {
  const long long threads = threads_per_block(shape);
  if (linear < 0 || linear >= threads) {
    reject("linear index", str(linear), "0.." + str(threads - 1));
  }
  const long long plane = shape.x * shape.y;
  ThreadCoord t;
  t.z = linear / plane;
  t.y = (linear % plane) / shape.x;
  t.x = linear % shape.x;
  return t;
}

long long warp_of(long long linear) {
  if (linear < 0) reject("linear index", str(linear), ">= 0");
  return linear / kWarpSize;
}

int lane_of(long long linear) {
  if (linear < 0) reject("linear index", str(linear), ">= 0");
  return static_cast<int>(linear % kWarpSize);
}

long long warps_per_block(long long threads) {
  require_threads(threads);
  return (threads - 1) / kWarpSize + 1;
}

long long last_warp_id(long long threads) {
  require_threads(threads);
  return (threads - 1) / kWarpSize;
}

int tail_lanes(long long threads) {
  return static_cast<int>(threads - kWarpSize * (warps_per_block(threads) - 1));
}

std::uint32_t tail_mask(long long threads) {
  const int r = tail_lanes(threads);
  return r == kWarpSize ? kFullWarpMask : ((1u << r) - 1u);
}

std::uint32_t warp_mask(long long threads, long long warp) {
  const long long warps = warps_per_block(threads);
  if (warp < 0 || warp >= warps) reject("warp", str(warp), "0.." + str(warps - 1));
  return warp == warps - 1 ? tail_mask(threads) : kFullWarpMask;
}

long long wasted_lanes(long long threads) {
  return kWarpSize * warps_per_block(threads) - threads;
}

double lane_efficiency(long long threads) {
  return static_cast<double>(threads) / static_cast<double>(kWarpSize * warps_per_block(threads));
}

GridTail grid_tail(long long total_threads, long long block_threads) {
  if (total_threads < 1) reject("total threads N", str(total_threads), "N >= 1");
  require_threads(block_threads);
  GridTail g;
  g.blocks = (total_threads - 1) / block_threads + 1;
  g.last_block_threads = total_threads - block_threads * (g.blocks - 1);
  g.last_block_full_warps = g.last_block_threads / kWarpSize;
  g.last_block_partial_lanes = static_cast<int>(g.last_block_threads % kWarpSize);
  // The launch starts whole blocks: the last block's warps past N launch too and leave at the
  // kernel's guard, so they are launched (the hardware's smsp__warps_launched) but do no work.
  g.launched_warps = g.blocks * warps_per_block(block_threads);
  g.working_warps = (g.blocks - 1) * warps_per_block(block_threads) + warps_per_block(g.last_block_threads);
  g.wasted_lanes = kWarpSize * g.launched_warps - total_threads;
  return g;
}

int populated_paths(const std::vector<BranchPath>& paths) {
  require_paths(paths);
  int n = 0;
  for (const auto& p : paths) n += p.lanes > 0 ? 1 : 0;
  return n;
}

double divergent_time(const std::vector<BranchPath>& paths) {
  require_paths(paths);
  double t = 0.0;
  for (const auto& p : paths) t += p.lanes > 0 ? p.cost : 0.0;
  return t;
}

double divergence_slowdown(const std::vector<BranchPath>& paths, double uniform_cost) {
  if (!(uniform_cost > 0.0) || !std::isfinite(uniform_cost)) {
    reject("uniform cost", str(uniform_cost), "> 0");
  }
  return divergent_time(paths) / uniform_cost;
}

double predicted_lane_efficiency(const std::vector<BranchPath>& paths) {
  require_paths(paths);
  double useful = 0.0;
  double issued = 0.0;
  for (const auto& p : paths) {
    if (p.lanes == 0) continue;
    useful += p.lanes * p.cost;
    issued += kWarpSize * p.cost;
  }
  if (issued == 0.0) reject("populated path cost", "0", "at least one populated path with cost > 0");
  return useful / issued;
}

// A model's count past 2^53 is refused, not cast.
using analysis::kLargestExactWhole;

long long warps_to_hide_latency(double latency_cycles, double instructions_between_loads) {
  if (!(latency_cycles >= 0.0) || !std::isfinite(latency_cycles)) {
    reject("latency L", str(latency_cycles), "L >= 0 cycles");
  }
  if (!(instructions_between_loads > 0.0) || !std::isfinite(instructions_between_loads)) {
    reject("instructions between loads W", str(instructions_between_loads), "W > 0");
  }
  const double warps = std::ceil(latency_cycles / instructions_between_loads);
  if (!(warps <= kLargestExactWhole)) {
    reject("warps L/W", str(latency_cycles / instructions_between_loads), "at most 2^53 (a count held exactly)");
  }
  return static_cast<long long>(warps);
}

SchedulerDemand scheduler_demand(int schedulers_per_sm, double latency_cycles,
                                 double issue_interval_cycles, double independent_insts_per_warp,
                                 long long warp_cap) {
  if (schedulers_per_sm < 1) {
    reject("schedulers per SM N_sched", str(static_cast<long long>(schedulers_per_sm)), ">= 1");
  }
  if (!(latency_cycles >= 0.0) || !std::isfinite(latency_cycles)) {
    reject("latency L", str(latency_cycles), "L >= 0 cycles");
  }
  if (!(issue_interval_cycles > 0.0)) reject("issue interval T_issue", str(issue_interval_cycles), "> 0");
  if (!(independent_insts_per_warp > 0.0)) {
    reject("independent instructions per warp I_warp", str(independent_insts_per_warp), "> 0");
  }
  if (warp_cap < 1) reject("warp cap", str(warp_cap), ">= 1");
  SchedulerDemand d;
  d.instruction_slots = schedulers_per_sm * latency_cycles / issue_interval_cycles;
  d.warps_needed = d.instruction_slots / independent_insts_per_warp;
  if (!(d.warps_needed <= kLargestExactWhole)) {
    reject("warps needed N_sched·L/(T_issue·I_warp)", str(d.warps_needed), "at most 2^53 (a count held exactly)");
  }
  d.warps_needed_whole = static_cast<long long>(std::ceil(d.warps_needed - 1e-9));
  d.cap = warp_cap;
  d.fits = d.warps_needed_whole <= warp_cap;
  d.deficit = d.fits ? 0 : d.warps_needed_whole - warp_cap;
  return d;
}

LittlesLaw littles_law(double bandwidth_bytes_per_s, double latency_s,
                       double bytes_in_flight_per_warp) {
  if (!(bandwidth_bytes_per_s > 0.0)) reject("bandwidth", str(bandwidth_bytes_per_s), "> 0 B/s");
  if (!(latency_s >= 0.0)) reject("latency", str(latency_s), ">= 0 s");
  if (!(bytes_in_flight_per_warp > 0.0)) {
    reject("bytes in flight per warp", str(bytes_in_flight_per_warp), "> 0");
  }
  LittlesLaw l;
  l.bytes_in_flight = bandwidth_bytes_per_s * latency_s;
  l.warps_needed = l.bytes_in_flight / bytes_in_flight_per_warp;
  return l;
}

double primitive_cost_vs_full_warp(int active_lanes) {
  if (active_lanes < 1 || active_lanes > kWarpSize) {
    reject("active lanes", str(static_cast<long long>(active_lanes)), "1..32");
  }
  return 1.0;
}

int butterfly_reduction_steps(int lanes) {
  if (lanes < 2 || lanes > kWarpSize || (lanes & (lanes - 1)) != 0) {
    reject("lanes of a butterfly reduction", str(static_cast<long long>(lanes)),
           "a power of two from 2 to 32");
  }
  int steps = 0;
  for (int span = lanes; span > 1; span /= 2) ++steps;
  return steps;
}

double butterfly_reduction_cycles(double shuffle_cycles, double add_cycles, int lanes) {
  if (!(shuffle_cycles > 0.0) || !std::isfinite(shuffle_cycles)) {
    reject("shuffle latency", str(shuffle_cycles), "> 0 cycles");
  }
  if (!(add_cycles > 0.0) || !std::isfinite(add_cycles)) reject("add latency", str(add_cycles), "> 0 cycles");
  return butterfly_reduction_steps(lanes) * (shuffle_cycles + add_cycles);
}

double theoretical_dram_peak_bytes_per_s(long long memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz < 1) reject("memory clock", str(memory_clock_khz) + " kHz", "> 0");
  if (bus_width_bits < 8) reject("bus width", str(static_cast<long long>(bus_width_bits)) + " bits", ">= 8");
  return static_cast<double>(memory_clock_khz) * 1e3 * (bus_width_bits / 8.0) * 2.0;
}

Knee measured_knee(const std::vector<std::pair<double, double>>& points, double fraction) {
  if (points.empty()) reject("knee curve", "no points", "at least one (warps, rate) point");
  if (!(fraction > 0.0 && fraction <= 1.0)) reject("knee fraction", str(fraction), "0 < fraction <= 1");
  Knee k;
  for (const auto& [warps, rate] : points) {
    if (!(rate >= 0.0) || !std::isfinite(rate)) reject("rate", str(rate), ">= 0 and finite");
    k.plateau = std::max(k.plateau, rate);
  }
  k.warps = -1;
  for (const auto& [warps, rate] : points) {
    if (rate >= fraction * k.plateau && (k.warps < 0 || warps < k.warps)) {
      k.warps = warps;
      k.rate_at_knee = rate;
    }
  }
  // R: the second-largest rate, so a single high point cannot set the band.
  double largest = -1.0;
  double second = -1.0;
  for (const auto& [warps, rate] : points) {
    if (rate > largest) {
      second = largest;
      largest = rate;
    } else if (rate > second) {
      second = rate;
    }
  }
  k.reference = second >= 0.0 ? second : largest;
  k.flat_from = -1;
  double last = 0.0;
  for (const auto& [warps, rate] : points) {
    last = std::max(last, warps);
    if (rate >= (1.0 - kKneePlateauBand) * k.reference && (k.flat_from < 0 || warps < k.flat_from)) {
      k.flat_from = warps;
    }
  }
  for (const auto& [warps, rate] : points) {
    if (warps < k.flat_from) continue;
    const bool inside = std::fabs(rate - k.reference) <= kKneePlateauBand * k.reference;
    if (!inside) ++k.outliers;
    if (inside && warps > k.flat_from) ++k.flat_points;
  }
  k.flat_span = k.flat_from > 0.0 ? last / k.flat_from : 0.0;
  k.saturated = k.flat_points >= kKneePlateauPoints && k.outliers <= kKneePlateauOutliers &&
                k.flat_span >= kKneePlateauSpan;
  return k;
}

ArchParams arch_params(int cc_major, int cc_minor) {
  if (cc_major < 5 || cc_minor < 0) {
    reject("compute capability", str(static_cast<long long>(cc_major)) + "." +
                                     str(static_cast<long long>(cc_minor)),
           ">= 5.0 (Maxwell and later: 4 schedulers per SM)");
  }
  // From Maxwell (cc 5.0) to Blackwell every SM has four warp schedulers (one per SM sub-partition),
  // each able to issue one warp instruction per cycle (CUDA Programming Guide, compute capabilities).
  return ArchParams{4, 1.0};
}

LinearCost linear_cost(double units_a, double seconds_a, double units_b, double seconds_b) {
  for (const double v : {units_a, units_b}) {
    if (!std::isfinite(v) || v < 0) {
      throw std::invalid_argument("work units = " + std::to_string(v) + "; allowed: finite, >= 0");
    }
  }
  for (const double v : {seconds_a, seconds_b}) {
    if (!std::isfinite(v) || v <= 0) {
      throw std::invalid_argument("seconds = " + std::to_string(v) + "; allowed: finite, > 0");
    }
  }
  if (units_a == units_b) {
    throw std::invalid_argument("two points of " + std::to_string(units_a) +
                                " units each; allowed: two different amounts of work");
  }
  LinearCost c;
  c.seconds_per_unit = (seconds_b - seconds_a) / (units_b - units_a);
  c.fixed_seconds = seconds_a - units_a * c.seconds_per_unit;
  return c;
}

TailTimeModels grid_tail_time_models(long long tail_warps, long long full_warps, int schedulers, double tail_seconds,
                                     double full_seconds, double floor_seconds, const double (&units)[2],
                                     const double (&tail_issue_seconds)[2], const double (&full_issue_seconds)[2],
                                     double fma_per_thread) {
  if (schedulers < 1) reject("schedulers a SM", str(static_cast<long long>(schedulers)), ">= 1");
  if (!(full_seconds > floor_seconds)) {
    reject("a full block's time less the launch floor", std::to_string(full_seconds - floor_seconds) + " s", "> 0");
  }
  auto per_scheduler = [schedulers](long long warps) { return static_cast<double>((warps + schedulers - 1) / schedulers); };
  TailTimeModels m;
  m.measured = (tail_seconds - floor_seconds) / (full_seconds - floor_seconds);
  m.textbook = per_scheduler(tail_warps) / per_scheduler(full_warps);
  m.same_warps_per_scheduler = per_scheduler(tail_warps) == per_scheduler(full_warps);
  m.tail = linear_cost(units[0], tail_issue_seconds[0], units[1], tail_issue_seconds[1]);
  m.full = linear_cost(units[0], full_issue_seconds[0], units[1], full_issue_seconds[1]);
  m.second_order = grid_tail_relative_time(m.tail, m.full, fma_per_thread, floor_seconds);
  return m;
}

double grid_tail_relative_time(const LinearCost& tail, const LinearCost& full, double units, double floor_seconds) {
  const double denominator = full.at(units) - floor_seconds;
  if (!(denominator > 0)) {
    throw std::invalid_argument("the full block's predicted time less the floor = " + std::to_string(denominator) +
                                " s; allowed: > 0");
  }
  return (tail.at(units) - floor_seconds) / denominator;
}

double serialised_slowdown(const LinearCost& cost, double trips_cfg, double trips_ref) {
  const double reference = cost.at(trips_ref);
  if (!(reference > 0)) {
    throw std::invalid_argument("the reference's predicted time = " + std::to_string(reference) + " s; allowed: > 0");
  }
  return cost.at(trips_cfg) / reference;
}

double piecewise_linear(const std::vector<std::pair<double, double>>& points, double x) {
  if (points.empty()) throw std::logic_error("an empty curve was read");
  if (x <= points.front().first) return points.front().second;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& [x0, y0] = points[i - 1];
    const auto& [x1, y1] = points[i];
    if (x <= x1) return x1 > x0 ? y0 + (y1 - y0) * (x - x0) / (x1 - x0) : y1;
  }
  return points.back().second;
}

}  // namespace warpcost::model
