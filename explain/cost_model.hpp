// What warp and block granularity cost one kernel, in five views and an all-fixed estimate, each
// with an estimated speedup of removing it. Pure functions of the kernel's counters (records.hpp)
// and this GPU's measured figures (figures.hpp); docs/explain.md states every formula and
// assumption. Each speedup is one factor removed with all else equal (the views do not multiply).
//
// With the kernel model's parameters in the run (figures.model; EXPLAIN-4, explain/kernel_model.hpp)
// every view is priced by re-solving one model of the kernel's time with one input changed (full
// warps, converged lanes, coalesced accesses, full residency, long-lived blocks), speedup = the
// fitted model's time over the re-solved one, at least 1; each view keeps its single-cost price below
// as the quantity single_cost_speedup. Without them (a run with no locus or r_sat) the single-cost
// pricing below is the price.
//
// The single-cost form: a view removes a fraction r of the kernel's time, speedup = 1 / (1 - r), where
//   r = (share of the time the view's resource sets) x (fraction of that resource the defect wastes,
//       as this GPU's measured curve prices it).
// Issue-bound views (partial warps, divergence) take the share from issue activity; memory views
// (coalescing, latency hiding) from the kernel's DRAM rate over the rate the suite measured at the
// kernel's residency for a comparable load. The coalescing view prices its twin's memory time
// directly: the bytes asked at the slower of the coalesced DRAM rate and the comparable stream's
// rate at this residency (rule EXPLAIN-2, docs/verdict-changes.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/constants.hpp"
#include "explain/figures.hpp"
#include "explain/records.hpp"

namespace warpcost::explain {

using warpcost::kWarpSize;  // the device record checks it
// The sector (core/constants.hpp) as the double the prices are computed in.
inline constexpr double kSectorBytes = warpcost::kSectorBytes;

namespace view {
inline constexpr const char* kPartialWarps = "partial_warps";
inline constexpr const char* kDivergence = "divergence";
inline constexpr const char* kCoalescing = "coalescing";
inline constexpr const char* kLatencyHiding = "latency_hiding";
// Short-lived blocks: the SM's block launch and retirement paid once a block (priced only by the
// kernel model, EXPLAIN-4).
inline constexpr const char* kBlockTurnover = "block_turnover";
// Not a defect: the kernel model re-solved with every fix at once (never the largest view).
inline constexpr const char* kAllFixed = "all_fixed";
}  // namespace view

// One quantity a view reports (its CSV row): name, value, unit.
struct Quantity {
  std::string metric;
  double value = 0;
  std::string unit;
};

struct View {
  std::string name;
  std::vector<Quantity> quantities;
  std::optional<double> speedup;  // estimated speedup of removing the defect; none when unpriced
  std::string priced_from;        // which measured figure (or "counters only") set the price
  std::string unpriced_reason;    // why there is no speedup
  std::string assumptions;
};

struct KernelCosts {
  const KernelCounters* kernel = nullptr;
  // partial warps, divergence, coalescing, latency hiding, block turnover, and the all-fixed estimate
  std::vector<View> views;
  // The view with the largest estimated speedup (empty when none is priced; all_fixed is not a view
  // of one cost and never the largest).
  std::string largest_view() const;
};

// Formulas, one a function (each tested by hand in tests/explain/test_cost_model.cpp).
// Useful fraction of a block's lanes: P / (32 ceil(P/32)).
double shape_useful_fraction(double block_threads);
// Speedup of removing a fraction r of the time: 1 / (1 - r); r is clamped to [0, 0.99].
double speedup_of_removed_fraction(double removed);
// The staircase's measured useful fraction at P: measured at P, else the model's at P scaled by
// measured/model at the nearest swept P with the same whole-warp count; nullopt when none is swept.
std::optional<double> measured_useful_fraction(const GpuFigures& figures, int block_threads);
// The streaming curve whose load is most like the kernel's (rule EXPLAIN-2): among the curves of the
// nearest load width (bytes a lane a load, in log2), the one whose rate at the kernel's warps/SM is
// nearest, in log, to the rate the kernel read the bytes its loads asked for (`asked_load_rate`,
// B/s): the loads in flight and the work between them that the counters cannot name are those of
// the stream that ran as fast at the same residency. Ties: fewer loads in flight, then less ALU
// work. nullptr when the figures have no curve.
const StreamCurve* comparable_stream(const GpuFigures& figures, double bytes_per_lane, double asked_load_rate,
                                     double warps_per_sm);

// The fastest DRAM rate of the curves explain prices from: the coalesced rate of the DRAM stride
// curve and every read_independent / read_batched curve's largest point, the largest of them; 0 when
// the figures have none. Not the streaming family's read_peak (a kernel built for the peak: 4.60e12
// on the H200 against 4.30e12 here; docs/explain.md gives what it would change).
double best_dram_rate(const GpuFigures& figures);

KernelCosts explain_kernel(const KernelCounters& kernel, const GpuFigures* figures, int sm_count);

}  // namespace warpcost::explain
