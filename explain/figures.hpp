// This GPU's measured curves, taken from the evaluated rows of its newest suite run under results/:
// the figures `warpcost explain` prices a kernel's warp-granularity costs with. Each is optional:
// a run without a family (or without its counter pass) leaves that figure out, and the views that
// need it say they cannot be priced.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/evaluation.hpp"
#include "explain/kernel_model.hpp"

namespace warpcost::explain {

struct CurvePoint {
  double x = 0;
  double y = 0;
};

// y at x on a curve sorted by x: linear between points, the end value beyond either end.
double interpolate(const std::vector<CurvePoint>& curve, double x);

// One streaming curve: DRAM read rate against resident warps per SM for one load width, ALU work
// per load and independent loads in flight a thread (1: read_independent; 2, 4, 8: read_batched),
// with its measured knee and the warp instructions a load took (counted).
struct StreamCurve {
  int load_bytes = 0;
  int alu_per_load = 0;
  int loads_in_flight = 1;
  std::optional<double> inst_per_load;  // smsp__inst_executed.sum / warp loads, at the curve's last point
  std::vector<CurvePoint> rate_by_warps;  // x warps/SM, y B/s
  std::optional<double> knee_warps_per_sm;
  double plateau() const;  // the curve's largest rate
};

struct GpuFigures {
  std::string gpu;     // the run's GPU name
  std::string run_id;  // which run the figures come from
  // partial_warp staircase: block threads -> measured useful fraction (P/next)*(t_next/t_P).
  std::map<int, double> staircase_useful_fraction;
  // divergence: the 16/16 split with equal bodies at the sweep's largest residency, (measured
  // grid slowdown - 1) / (model slowdown - 1): how much of the serialised path the grid pays.
  std::optional<double> divergence_paid_fraction;
  std::string divergence_point;  // which benchmark it is read from
  // coalescing, DRAM loads of 4-byte elements: x = useful bytes / DRAM bytes, y = useful B/s.
  std::vector<CurvePoint> coalescing_useful_rate;
  std::vector<StreamCurve> streams;
  // The kernel model's parameters (explain/kernel_model.hpp, EXPLAIN-4), from the run itself: its
  // loaded-latency locus, r_sat, block turnover sweep, clock and residency limits. Absent when the
  // run has no locus or no r_sat: then each view is priced on its own (the single-cost pricing).
  std::optional<ModelParameters> model;
  std::string model_source;  // what the parameters are read from, or why there are none
};

// The figures in `rows` (analysis::evaluate_run of one run). `gpu`, `run_id` are copied in.
GpuFigures figures_from_rows(const std::vector<analysis::Row>& rows, const std::string& gpu,
                             const std::string& run_id);

// The kernel model's parameters of `run` (`rows`: its evaluated rows, for the block turnover):
// sets figures.model, or leaves it empty and says why in figures.model_source.
void add_model_parameters(GpuFigures& figures, const analysis::Run& run, const std::vector<analysis::Row>& rows);

// The newest of `runs` (folder name under results/<gpu>/, which starts with its UTC stamp) whose
// GPU is `gpu`; nullopt when none is. Each entry: (run folder name, GPU name of its context).
std::optional<std::string> newest_run_of(const std::string& gpu,
                                         const std::vector<std::pair<std::string, std::string>>& runs);

}  // namespace warpcost::explain
