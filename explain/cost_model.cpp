#include "explain/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text_format.hpp"
#include "explain/kernel_model.hpp"

namespace warpcost::explain {

namespace {

double clamp01(double x) { return std::min(1.0, std::max(0.0, x)); }

using analysis::fixed;

constexpr const char* kNoRun = "no suite run of this GPU under results/";

// The memory views' common ground: the kernel's DRAM rate, the comparable stream curve and the
// rate it reached at the kernel's residency.
struct MemoryGround {
  const StreamCurve* curve = nullptr;
  double kernel_rate = 0;     // B/s, read + write (the attributed writes)
  double rate_at_warps = 0;   // the curve at the kernel's warps/SM
  double memory_share = 0;    // kernel_rate / rate_at_warps, at most 1
};

// DRAM bytes written that can be the kernel's: at most the bytes of the sectors it stored. Under
// kernel replay the range also counts write-backs of memory the profiler restored between passes
// (docs/explain.md, the cross-check with ncu), which can exceed every byte the kernel stored
// (EXPLAIN-3).
double attributed_dram_write_bytes(const KernelCounters& k) {
  return std::min(k.dram_write_bytes, k.store_sectors * kSectorBytes);
}

MemoryGround memory_ground(const KernelCounters& k, const GpuFigures* figures) {
  MemoryGround g;
  g.kernel_rate = k.seconds > 0 ? (k.dram_read_bytes + attributed_dram_write_bytes(k)) / k.seconds : 0;
  if (figures == nullptr || k.load_requests <= 0 || k.seconds <= 0) return g;
  const double bytes_per_lane = k.load_bytes_asked / (k.load_requests * kWarpSize);
  g.curve = comparable_stream(*figures, bytes_per_lane, k.load_bytes_asked / k.seconds, k.warps_active_per_sm);
  if (g.curve == nullptr) return g;
  g.rate_at_warps = interpolate(g.curve->rate_by_warps, k.warps_active_per_sm);
  if (g.rate_at_warps > 0) g.memory_share = clamp01(g.kernel_rate / g.rate_at_warps);
  return g;
}

std::string curve_name(const StreamCurve& c) {
  if (c.loads_in_flight > 1) {
    return "streaming/read_batched load_bytes=" + std::to_string(c.load_bytes) +
           ";loads_in_flight=" + std::to_string(c.loads_in_flight);
  }
  return "streaming/read_independent load_bytes=" + std::to_string(c.load_bytes) +
         ";alu_per_load=" + std::to_string(c.alu_per_load);
}

View partial_warps(const KernelCounters& k, const GpuFigures* figures, int sm_count) {
  View v;
  v.name = view::kPartialWarps;
  const double p = k.block_threads();
  const double warps_per_block = std::ceil(p / kWarpSize);
  const double model_fraction = shape_useful_fraction(p);
  const double blocks = double(k.grid[0]) * k.grid[1] * k.grid[2];
  v.quantities.push_back({"block_threads", p, "threads"});
  v.quantities.push_back({"warps_per_block", warps_per_block, "warps"});
  v.quantities.push_back({"lanes_wasted_per_block", warps_per_block * kWarpSize - p, "lanes"});
  v.quantities.push_back({"shape_useful_fraction", model_fraction, "1"});
  // The grid tail: the last wave's blocks against a full wave (blocks resident on all SMs).
  const double per_wave = double(k.occupancy_blocks_per_sm) * sm_count;
  if (per_wave > 0 && blocks > 0) {
    const double waves = blocks / per_wave;
    const double tail = waves - std::floor(waves);
    v.quantities.push_back({"waves", waves, "1"});
    v.quantities.push_back({"last_wave_fill", tail == 0 ? 1.0 : tail, "1"});
  }
  const double issue_share = clamp01(k.issue_active);
  v.quantities.push_back({"issue_active", issue_share, "1"});
  std::optional<double> fraction;
  if (figures != nullptr) fraction = measured_useful_fraction(*figures, int(p));
  if (fraction) {
    v.priced_from = "the staircase of run " + figures->run_id + " (useful fraction " + fixed(*fraction, 4) + ")";
  } else {
    fraction = model_fraction;
    v.priced_from = figures == nullptr ? std::string("counters and the block shape only (") + kNoRun + ")"
                                       : "counters and the block shape only (the run's staircase has no point with this warp count)";
  }
  v.quantities.push_back({"useful_fraction_priced", *fraction, "1"});
  v.speedup = speedup_of_removed_fraction(issue_share * (1 - *fraction));
  v.assumptions =
      "the issue-active share of the time scales with warps launched; a whole-warp block doing the same "
      "work issues useful_fraction as many warp instructions; memory time unchanged";
  return v;
}

View divergence(const KernelCounters& k, const GpuFigures* figures) {
  View v;
  v.name = view::kDivergence;
  const double shape_fraction = shape_useful_fraction(k.block_threads());
  // Lanes per instruction against the lanes the block shape leaves: partial warps are not divergence.
  const double efficiency = clamp01(k.lanes_per_inst / (kWarpSize * shape_fraction));
  const bool diverges = k.divergent_branch_targets > 0;
  const double serialised = diverges ? 1 - efficiency : 0;
  v.quantities.push_back({"lanes_per_inst", k.lanes_per_inst, "lanes"});
  v.quantities.push_back({"lanes_pred_on_per_inst", k.lanes_pred_on_per_inst, "lanes"});
  v.quantities.push_back({"lane_efficiency", efficiency, "1"});
  v.quantities.push_back({"divergent_branch_targets", k.divergent_branch_targets, "branches"});
  v.quantities.push_back({"issue_slots_lost", k.inst_executed * serialised, "inst"});
  const double issue_share = clamp01(k.issue_active);
  double paid = 1;
  if (figures != nullptr && figures->divergence_paid_fraction) {
    paid = clamp01(*figures->divergence_paid_fraction);
    v.priced_from = "the 16/16 split of run " + figures->run_id + " (" + figures->divergence_point +
                    ": the grid pays " + fixed(paid, 3) + " of the serialised path)";
  } else {
    v.priced_from = std::string("counters only (") + (figures == nullptr ? kNoRun : "the run has no 16/16 split") +
                    "): every serialised issue slot is paid";
  }
  v.speedup = speedup_of_removed_fraction(issue_share * serialised * paid);
  v.assumptions = diverges ? "a converged warp issues lane_efficiency as many instructions for the same work; the "
                             "issue-active share of the time scales with them"
                           : "no divergent branch target was counted: lanes lost elsewhere (predication, "
                             "if-conversion) are not priced as divergence";
  return v;
}

View coalescing(const KernelCounters& k, const GpuFigures* figures, const MemoryGround& ground) {
  View v;
  v.name = view::kCoalescing;
  const double requests = k.load_requests + k.store_requests;
  const double sectors = k.load_sectors + k.store_sectors;
  const double asked = k.load_bytes_asked + k.store_bytes_asked;
  const double dram = k.dram_read_bytes + attributed_dram_write_bytes(k);  // EXPLAIN-3
  if (requests <= 0 || asked <= 0) {
    v.speedup = 1.0;
    v.priced_from = "counters only";
    v.assumptions = "no global loads or stores were counted";
    return v;
  }
  v.quantities.push_back({"sectors_per_request", sectors / requests, "sectors"});
  v.quantities.push_back({"ideal_sectors_per_request", asked / kSectorBytes / requests, "sectors"});
  v.quantities.push_back({"excess_sector_bytes", std::max(0.0, sectors * kSectorBytes - asked), "B"});
  const double useful = dram > 0 ? clamp01(asked / dram) : 1.0;
  v.quantities.push_back({"dram_useful_fraction", useful, "1"});
  v.quantities.push_back({"excess_dram_bytes", std::max(0.0, dram - asked), "B"});
  // The DRAM granule effect: DRAM bytes per sector byte; 2 when every sector drags in a 64-byte granule.
  if (sectors > 0) v.quantities.push_back({"dram_bytes_per_sector_byte", dram / (sectors * kSectorBytes), "1"});
  v.quantities.push_back({"memory_share", ground.memory_share, "1"});
  if (figures == nullptr || ground.curve == nullptr) {
    v.unpriced_reason = figures == nullptr      ? kNoRun
                        : k.load_requests <= 0 ? "stores only: the suite's streaming curves are loads"
                                               : "the run has no streaming curve for this load";
    return v;
  }
  // Where the defect sits on the DRAM stride curve (what its wasted DRAM bytes cost at the rates the
  // coalescing family measured): reported, not the price.
  double coalesced_rate = 0;
  if (!figures->coalescing_useful_rate.empty()) {
    const auto& curve = figures->coalescing_useful_rate;
    coalesced_rate = interpolate(curve, 1.0);
    if (coalesced_rate > 0) {
      v.quantities.push_back({"useful_rate_fraction", clamp01(interpolate(curve, useful) / coalesced_rate), "1"});
    }
    v.quantities.push_back({"coalesced_dram_rate", coalesced_rate, "B/s"});
  }
  // The coalesced twin: the same loads and stores asking the same bytes, every byte used, at the
  // same residency: its memory time is the bytes asked at the slower of the coalesced DRAM rate and
  // the comparable stream's rate at these warps/SM.
  const double twin_rate = coalesced_rate > 0 ? std::min(coalesced_rate, ground.rate_at_warps) : ground.rate_at_warps;
  v.quantities.push_back({"twin_rate", twin_rate, "B/s"});
  if (twin_rate <= 0 || k.seconds <= 0) {
    v.unpriced_reason = "the comparable stream has no rate at this residency";
    return v;
  }
  const double memory_seconds = ground.memory_share * k.seconds;
  const double twin_seconds = asked / twin_rate;
  v.quantities.push_back({"memory_seconds", memory_seconds, "s"});
  v.quantities.push_back({"twin_memory_seconds", twin_seconds, "s"});
  // The model's own ratio before the floor at 1: below 1 it says the twin would be slower than the
  // kernel (its stream runs slower than this kernel did), a contradiction the floor would hide.
  const double unfloored = k.seconds / (k.seconds - memory_seconds + twin_seconds);
  v.quantities.push_back({"unfloored_speedup", unfloored, "1"});
  v.speedup = speedup_of_removed_fraction(std::max(0.0, memory_seconds - twin_seconds) / k.seconds);
  v.priced_from = curve_name(*ground.curve) + " of run " + figures->run_id + " (" + fixed(ground.rate_at_warps, 0) +
                  " B/s at " + fixed(k.warps_active_per_sm, 1) + " warps/SM)" +
                  (coalesced_rate > 0 ? ", capped by the coalesced DRAM rate of its stride curve (" +
                                            fixed(coalesced_rate, 0) + " B/s)"
                                      : std::string("; the run has no DRAM stride curve")) +
                  (unfloored < 1 ? "; the priced twin is slower than the kernel ran (unfloored " + fixed(unfloored, 3) +
                                       "): floored at 1, the comparable stream under-rates this kernel"
                                 : std::string());
  v.assumptions =
      "the memory share of the time (DRAM rate over the comparable stream's at this residency) is memory time; "
      "a coalesced twin at the same residency moves only the bytes its loads and stores ask for, at the "
      "comparable stream's rate there, at most the coalesced DRAM rate; the rest of the time is unchanged";
  return v;
}

View latency_hiding(const KernelCounters& k, const GpuFigures* figures, const MemoryGround& ground) {
  View v;
  v.name = view::kLatencyHiding;
  v.quantities.push_back({"warps_active_per_sm", k.warps_active_per_sm, "warps"});
  v.quantities.push_back({"long_scoreboard_stalls_per_issue", k.long_scoreboard_per_issue, "warps"});
  v.quantities.push_back({"dram_write_bytes_attributed", attributed_dram_write_bytes(k), "B"});
  v.quantities.push_back({"dram_rate", ground.kernel_rate, "B/s"});
  if (k.load_requests <= 0) {
    v.speedup = 1.0;
    v.priced_from = "counters only";
    v.assumptions = "no global loads were counted: nothing to hide";
    return v;
  }
  if (figures == nullptr || ground.curve == nullptr) {
    v.unpriced_reason = figures == nullptr ? kNoRun : "the run has no streaming curve";
    return v;
  }
  const StreamCurve& c = *ground.curve;
  const double plateau = c.plateau();
  v.quantities.push_back({"comparable_loads_in_flight", double(c.loads_in_flight), "1"});
  v.quantities.push_back({"suite_rate_at_warps", ground.rate_at_warps, "B/s"});
  v.quantities.push_back({"suite_plateau_rate", plateau, "B/s"});
  if (c.knee_warps_per_sm) {
    v.quantities.push_back({"suite_knee_warps_per_sm", *c.knee_warps_per_sm, "warps"});
    v.quantities.push_back(
        {"warps_short_of_knee", std::max(0.0, *c.knee_warps_per_sm - k.warps_active_per_sm), "warps"});
  }
  v.quantities.push_back({"memory_share", ground.memory_share, "1"});
  // At or past the stream's measured knee (the fewest warps/SM reaching 90 % of its largest rate,
  // docs/verdicts.md) the view is 1: what is left, at most 10 % of the rate, is not priced as latency
  // hiding, so a curve's point-to-point jitter past its knee is no cost either (EXPLAIN-2).
  const bool past_knee = c.knee_warps_per_sm && k.warps_active_per_sm >= *c.knee_warps_per_sm;
  const double rate_fraction = past_knee ? 1.0 : plateau > 0 ? clamp01(ground.rate_at_warps / plateau) : 1.0;
  const double by_curve = speedup_of_removed_fraction(ground.memory_share * (1 - rate_fraction));
  // The DRAM ceiling (EXPLAIN-3): more warps cannot move DRAM bytes faster than the fastest rate of
  // the curves explain prices from (best_dram_rate); a kernel already moving (read + write) near it
  // gains at most the gap.
  const double best = best_dram_rate(*figures);
  // No ceiling without a best rate or a kernel DRAM rate (nothing moved): then the curve alone prices.
  const bool has_ceiling = best > 0 && ground.kernel_rate > 0;
  const double ceiling = has_ceiling ? std::max(1.0, best / ground.kernel_rate) : std::numeric_limits<double>::infinity();
  if (best > 0) v.quantities.push_back({"suite_best_dram_rate", best, "B/s"});
  if (has_ceiling) v.quantities.push_back({"dram_ceiling_speedup", ceiling, "1"});
  v.speedup = std::min(by_curve, ceiling);
  v.priced_from = curve_name(c) + " of run " + figures->run_id + " (" +
                  (past_knee ? "at or past its knee, within 10 % of its plateau: not priced"
                             : fixed(rate_fraction, 3) + " of its plateau") +
                  " at " + fixed(k.warps_active_per_sm, 1) + " warps/SM)" +
                  (ceiling < by_curve ? "; capped by the DRAM ceiling: the kernel moves " + fixed(ground.kernel_rate, 0) +
                                            " B/s" + (ground.kernel_rate >= best ? ", at least" : " of") + " the " +
                                            fixed(best, 0) + " of the fastest curve explain prices from"
                                      : std::string());
  v.assumptions =
      "the memory share of the time runs at the rate the comparable stream reached at this residency; full "
      "residency reaches the stream's plateau, and no more DRAM bytes a second than the fastest of those curves";
  return v;
}


// The kernel model's inputs from the counters, one launch's worth (explain/kernel_model.hpp).
KernelInputs model_inputs(const KernelCounters& k, const ModelParameters& p) {
  KernelInputs in;
  const double n = static_cast<double>(std::max(1L, k.launches));
  in.block_threads = k.block_threads();
  in.warps_per_block = std::ceil(in.block_threads / kWarpSize);
  // The blocks of a launch: every launch of the summary has this block, so the warps all launches
  // launched over w and the launches give the mean grid (launches at several grids priced as their
  // mean; the first launch's grid where no warp was counted).
  in.blocks = k.warps_launched > 0 && in.warps_per_block > 0 ? k.warps_launched / in.warps_per_block / n
                                                             : double(k.grid[0]) * k.grid[1] * k.grid[2];
  const double occupancy = k.occupancy_blocks_per_sm > 0 ? double(k.occupancy_blocks_per_sm)
                                                         : k.warps_active_per_sm / std::max(1.0, in.warps_per_block);
  in.resident_blocks = std::min(occupancy, in.blocks / p.sms);
  if (in.blocks <= 0) return in;
  in.inst_per_block = k.inst_executed / n / in.blocks;
  in.inst_per_warp = k.warps_launched > 0 ? k.inst_executed / k.warps_launched : 0;
  in.loads_per_warp = k.warps_launched > 0 ? k.load_requests / k.warps_launched : 0;
  in.dram_bytes_per_block = (k.dram_read_bytes + attributed_dram_write_bytes(k)) / n / in.blocks;
  in.asked_bytes_per_block = (k.load_bytes_asked + k.store_bytes_asked) / n / in.blocks;
  in.written_bytes_per_block = attributed_dram_write_bytes(k) / n / in.blocks;
  in.asked_store_bytes_per_block = k.store_bytes_asked / n / in.blocks;
  in.sectors_per_block = (k.load_sectors + k.store_sectors) / n / in.blocks;
  const double efficiency = clamp01(k.lanes_per_inst / (kWarpSize * shape_useful_fraction(in.block_threads)));
  in.serialised = k.divergent_branch_targets > 0 ? 1 - efficiency : 0;
  const double warps_a_scheduler = k.warps_active_per_sm / std::max(1, p.schedulers_per_sm);
  in.memory_stall_share =
      warps_a_scheduler > 0 ? clamp01(k.long_scoreboard_per_issue * clamp01(k.issue_active) / warps_a_scheduler) : 0;
  in.seconds = k.seconds / n;
  return in;
}

const char* fix_of_view(const std::string& name, Fix& fix) {
  if (name == view::kPartialWarps) fix = Fix::kFullWarps;
  else if (name == view::kDivergence) fix = Fix::kConverged;
  else if (name == view::kCoalescing) fix = Fix::kCoalesced;
  else if (name == view::kLatencyHiding) fix = Fix::kFullResidency;
  else if (name == view::kBlockTurnover) fix = Fix::kLongLivedBlocks;
  else if (name == view::kAllFixed) fix = Fix::kAll;
  else return nullptr;
  return fix_name(fix);
}

// Every view re-priced by the kernel model (EXPLAIN-4); the single-cost price stays a quantity.
void price_by_model(KernelCosts& c, const KernelCounters& k, const GpuFigures& f) {
  const ModelParameters& p = *f.model;
  const KernelInputs in = model_inputs(k, p);
  View* all = nullptr;
  for (View& v : c.views) {
    if (v.name == view::kAllFixed) all = &v;
  }
  // No model for this kernel: the two model-only views say why, the others keep the single-cost price.
  auto without_model = [&](const std::string& why) {
    for (View& v : c.views) {
      if (v.name == view::kBlockTurnover || v.name == view::kAllFixed) {
        v.unpriced_reason = why;
      } else if (v.speedup) {
        v.priced_from += "; no kernel model (" + why + "): the single-cost price";
      }
    }
  };
  if (!(in.blocks > 0) || !(in.seconds > 0) || !(in.resident_blocks > 0)) {
    without_model("the kernel model needs a grid, a residency and a measured time");
    return;
  }
  ModelFit fit;
  try {
    fit = fit_kernel(in, p);
  } catch (const std::invalid_argument& e) {
    without_model(std::string("the kernel model could not be fitted: ") + e.what());
    return;
  }
  const ModelKernel& base = fit.kernel;
  const double fitted = fit.at_fit.seconds;
  // How much a price leans on the measured time: the fit redone at the time 1 % lower and higher
  // (the examples' run-to-run spread), each view re-solved from it. Near the locus' ceiling the
  // fitted parameter is ill-conditioned (the loaded latency falls steeply as the throughput leaves
  // the ceiling), and these say by how much.
  std::optional<ModelFit> lower, higher;
  try {
    KernelInputs l = in, h = in;
    l.seconds *= 0.99;
    h.seconds *= 1.01;
    lower = fit_kernel(l, p);
    higher = fit_kernel(h, p);
  } catch (const std::invalid_argument&) {
    lower.reset();
    higher.reset();
  }
  if (all != nullptr) {
    auto& q = all->quantities;
    q.push_back({"model_fitted_seconds", fitted, "s"});
    q.push_back({"measured_seconds_a_launch", in.seconds, "s"});
    q.push_back({"fit_loads_in_flight", base.loads_in_flight, "1"});
    q.push_back({"fit_unexplained_block_cycles", base.unexplained_memory_cycles + base.unexplained_issue_cycles, "cycles"});
    q.push_back({"fit_unexplained_memory_share",
                 base.fit_dram_bytes_per_block > 0 ? 1.0 : in.memory_stall_share, "1"});
    q.push_back({"resident_blocks", in.resident_blocks, "blocks"});
    q.push_back({"full_residency_blocks", full_residency_blocks(p, in.warps_per_block), "blocks"});
    q.push_back({"turnover_cycles", turnover_cycles_at(p, in.block_threads), "cycles"});
    q.push_back({"model_dram_rate", fit.at_fit.bandwidth, "B/s"});
    q.push_back({"model_loaded_latency_cycles", fit.at_fit.loaded_cycles, "cycles"});
    q.push_back({"model_block_cycles", fit.at_fit.block_cycles, "cycles"});
  }
  const std::string fit_text =
      "fit to the measured " + fixed(in.seconds * 1e6, 3) + " us: " + fit.how +
      (fit.how == "loads in flight" ? " " + fixed(base.loads_in_flight, 2)
       : fit.how == "unexplained cycles"
           ? " " + fixed(base.unexplained_memory_cycles + base.unexplained_issue_cycles, 0) + " a block (" +
                 (base.fit_dram_bytes_per_block > 0
                      ? std::string("at the DRAM ceiling: all with the DRAM bytes, EXPLAIN-5)")
                      : fixed(100 * in.memory_stall_share, 0) +
                            " % with the sectors, the rest with the instructions a warp)")
           : " (model " + fixed(fitted * 1e6, 3) + " us; speedups are ratios of model times)");
  for (View& v : c.views) {
    Fix fix{};
    const char* what = fix_of_view(v.name, fix);
    if (what == nullptr) continue;
    if (v.name == view::kBlockTurnover && p.turnover_by_threads.empty()) {
      // Without the sweep D = 0 and this view would read 1 by construction: not priced.
      v.speedup.reset();
      v.unpriced_reason = "the run has no block_turnover sweep (a run before it): the block turnover is not measured";
      continue;
    }
    if (v.speedup) v.quantities.push_back({"single_cost_speedup", *v.speedup, "1"});
    ModelSolution fixed_solution;
    try {
      fixed_solution = solve_kernel(with_fix(base, fix, p), p);
    } catch (const std::invalid_argument& e) {
      v.speedup.reset();
      v.unpriced_reason = e.what();
      continue;
    }
    const double unfloored = fitted / fixed_solution.seconds;
    v.quantities.push_back({"model_fix_seconds", fixed_solution.seconds, "s"});
    v.quantities.push_back({"model_unfloored_speedup", unfloored, "1"});
    if (lower && higher) {
      auto speedup_of = [&](const ModelFit& refit) {
        return std::max(1.0, refit.at_fit.seconds / solve_kernel(with_fix(refit.kernel, fix, p), p).seconds);
      };
      try {
        v.quantities.push_back({"speedup_if_time_1pct_lower", speedup_of(*lower), "1"});
        v.quantities.push_back({"speedup_if_time_1pct_higher", speedup_of(*higher), "1"});
      } catch (const std::invalid_argument&) {
        // a re-solve the perturbed fit cannot make leaves the range out; the price stands
      }
    }
    if (v.name == view::kBlockTurnover) {
      v.quantities.push_back({"waves", in.blocks / (p.sms * in.resident_blocks), "1"});
      v.quantities.push_back({"turnover_cycles", turnover_cycles_at(p, in.block_threads), "cycles"});
    }
    v.speedup = std::max(1.0, unfloored);
    v.unpriced_reason.clear();
    v.priced_from = "the kernel model of run " + f.run_id + " re-solved with " + what + " (" +
                    fixed(fixed_solution.seconds * 1e6, 3) + " us against the fitted " + fixed(fitted * 1e6, 3) +
                    " us; " + fit_text + ")" +
                    (unfloored < 1 ? "; the fix would be slower (unfloored " + fixed(unfloored, 3) + "): floored at 1"
                                   : std::string());
    v.assumptions = "one model of the kernel's time (EXPLAIN-4, docs/explain.md): block slots a closed queue at the "
                    "SM, turnover and issue its stations, memory rounds at the loaded-latency locus; " +
                    (fix == Fix::kAll ? std::string("every input the five views change, changed at once")
                                      : std::string(what) + " changes one input") +
                    ", the fitted ones stay";
  }
  if (p.turnover_by_threads.empty()) {
    for (View& v : c.views) {
      if (v.speedup && v.name != view::kBlockTurnover) v.priced_from += "; the run has no block_turnover sweep: D = 0";
    }
  }
}

}  // namespace

double shape_useful_fraction(double block_threads) {
  if (block_threads <= 0) return 1;
  return block_threads / (kWarpSize * std::ceil(block_threads / kWarpSize));
}

double speedup_of_removed_fraction(double removed) {
  return 1.0 / (1.0 - std::min(0.99, std::max(0.0, removed)));
}

std::optional<double> measured_useful_fraction(const GpuFigures& figures, int block_threads) {
  const auto& s = figures.staircase_useful_fraction;
  const auto exact = s.find(block_threads);
  if (exact != s.end()) return exact->second;
  const int warps = (block_threads + kWarpSize - 1) / kWarpSize;
  std::optional<int> nearest;
  for (const auto& [p, fraction] : s) {
    if ((p + kWarpSize - 1) / kWarpSize != warps) continue;
    if (!nearest || std::abs(p - block_threads) < std::abs(*nearest - block_threads)) nearest = p;
  }
  if (!nearest) return std::nullopt;
  return shape_useful_fraction(block_threads) * s.at(*nearest) / shape_useful_fraction(*nearest);
}

const StreamCurve* comparable_stream(const GpuFigures& figures, double bytes_per_lane, double asked_load_rate,
                                     double warps_per_sm) {
  auto width_gap = [&](const StreamCurve& c) {
    return std::abs(std::log2(double(c.load_bytes)) - std::log2(std::max(1.0, bytes_per_lane)));
  };
  double best_width = std::numeric_limits<double>::infinity();
  for (const StreamCurve& c : figures.streams) best_width = std::min(best_width, width_gap(c));
  const StreamCurve* best = nullptr;
  double best_distance = std::numeric_limits<double>::infinity();
  for (const StreamCurve& c : figures.streams) {
    if (width_gap(c) != best_width) continue;
    const double rate = interpolate(c.rate_by_warps, warps_per_sm);
    const double distance = rate > 0 && asked_load_rate > 0 ? std::abs(std::log(rate / asked_load_rate))
                                                             : std::numeric_limits<double>::max();
    const bool better =
        best == nullptr || distance < best_distance ||
        (distance == best_distance && (c.loads_in_flight < best->loads_in_flight ||
                                       (c.loads_in_flight == best->loads_in_flight && c.alu_per_load < best->alu_per_load)));
    if (better) {
      best = &c;
      best_distance = distance;
    }
  }
  return best;
}

double best_dram_rate(const GpuFigures& figures) {
  double best = figures.coalescing_useful_rate.empty() ? 0.0 : interpolate(figures.coalescing_useful_rate, 1.0);
  for (const StreamCurve& c : figures.streams) best = std::max(best, c.plateau());
  return best;
}

std::string KernelCosts::largest_view() const {
  std::string name;
  double best = 0;
  for (const View& v : views) {
    if (v.name == view::kAllFixed) continue;
    if (v.speedup && *v.speedup > best) {
      best = *v.speedup;
      name = v.name;
    }
  }
  return name;
}

KernelCosts explain_kernel(const KernelCounters& kernel, const GpuFigures* figures, int sm_count) {
  KernelCosts c;
  c.kernel = &kernel;
  const MemoryGround ground = memory_ground(kernel, figures);
  c.views.push_back(partial_warps(kernel, figures, sm_count));
  c.views.push_back(divergence(kernel, figures));
  c.views.push_back(coalescing(kernel, figures, ground));
  c.views.push_back(latency_hiding(kernel, figures, ground));
  for (const char* name : {view::kBlockTurnover, view::kAllFixed}) {
    View v;
    v.name = name;
    v.unpriced_reason = figures == nullptr ? std::string("needs the kernel model: ") + kNoRun
                        : figures->model ? std::string()
                                         : "needs the kernel model: " + figures->model_source;
    c.views.push_back(v);
  }
  if (figures != nullptr && figures->model) price_by_model(c, kernel, *figures);
  return c;
}

}  // namespace warpcost::explain
