// The partial-warp family's sentences: each reason its evaluator gives (analysis/reason.hpp) as the
// why of its row.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "analysis/evaluation_support.hpp"
#include "analysis/partial_warp/family.hpp"
#include "core/text_format.hpp"

namespace warpcost::analysis::partial_warp {
namespace {

// A whole number the evaluator stored as a double, as std::to_string writes it.
std::string whole(const Reason& r, const std::string& key) { return std::to_string(std::llround(r.n(key))); }

std::string mask_text(const Reason& r, const char* key) {
  return hex_mask(static_cast<std::uint32_t>(r.n(key)));
}

// ", x% past the tolerance, ... too noisy to decide" when the miss is warn (detail::noise_note).
std::string noise(const Reason& r, const char* miss) {
  return detail::noise_note(r.n(miss), r.n("tolerance"), r.n("noise"));
}

// What a schedule point's sentences open with: its worked example and its P.
std::string schedule_tag(const Reason& r) { return r.t("example") + ", P = " + whole(r, "p") + ": "; }

// What a grid-tail point's sentences open with: its N and B.
std::string grid_tail_tag(const Reason& r) {
  return "N = " + whole(r, "total_threads") + ", B = " + whole(r, "block_threads") + ": ";
}

// What a counter row's sentence opens with: the point's P.
std::string counter_tag(const Reason& r) { return "P = " + whole(r, "p") + ": "; }

// What a grid-tail time says about the launch floor taken off it.
std::string floor_note(const Reason& r) {
  return r.f("launch_floor") ? " (launch floor " + fixed(r.n("launch_floor_s") * 1e6, 2) + " us taken off each time)"
                             : " (no launch floor in this run: times include it)";
}

// What a staircase step's rows end with: the throttled points the step left out, if any.
std::string left_out_note(const Reason& r) {
  const long long count = std::llround(r.n("left_out_count"));
  if (count == 0) return "";
  std::string sizes;
  for (long long i = 0; i < count; ++i) {
    sizes += (sizes.empty() ? "P = " : ", P = ") + whole(r, "left_out_" + std::to_string(i));
  }
  return "; " + whole(r, "left_out_count") + " throttled point(s) left out (" + sizes + ")";
}

// A staircase step's sentences open with its points and their warps.
std::string step_opening(const Reason& r) {
  return whole(r, "points") + " block sizes of " + whole(r, "warps") + " warps: ";
}

}  // namespace

std::string render(const Reason& r) {
  const std::string s = r.sentence();
  // The schedule of one block.
  if (s == "schedule_warps_per_block") {
    return schedule_tag(r) + fixed(r.n("warps"), 0) +
           (r.f("matches") ? " threads read %laneid 0: one per warp, as ceil(" + whole(r, "p") + "/32) = " +
                                 whole(r, "model_warps")
                           : " warps observed, model " + whole(r, "model_warps"));
  }
  if (s == "schedule_tail_mask") {
    return schedule_tag(r) + "the last warp's mask is " + mask_text(r, "mask") +
           (r.f("matches") ? ", " + whole(r, "tail_lanes") + " lanes" : ", model " + mask_text(r, "model_mask"));
  }
  if (s == "schedule_threads_mapped") {
    return schedule_tag(r) + (r.f("matches") ? "every thread's %laneid, coordinates and mask match the model"
                                             : fixed(r.n("p") - r.n("mapped"), 0) + " threads off the model");
  }
  if (s == "schedule_one_clock") {
    return schedule_tag(r) +
           (r.f("matches") ? "every warp's lanes read one clock64 value"
                           : fixed(r.n("model_warps") - r.n("one_clock"), 0) +
                                 " warps read several clock64 values: independent thread scheduling split them") +
           (r.has_flag("not_a_model_check") && r.f("not_a_model_check") ? " (allowed since cc 7.0, not a model check)"
                                                                        : "");
  }
  if (s == "schedule_one_sm") {
    return schedule_tag(r) + (r.f("matches") ? "all threads on one SM" : "threads of one block reported several SMs");
  }
  // The staircase of block sizes.
  if (s == "useful_fma_rate") {
    return "useful thread-FMAs per second: " + fixed(r.n("useful_threads"), 0) + " threads x " +
           fixed(r.n("fma_per_thread"), 0) + " FMAs";
  }
  if (s == "useful_fraction") {
    return "useful rate at P = " + whole(r, "p") + " is " + fixed(100 * r.n("fraction"), 2) + "% of P = " +
           whole(r, "next") + "'s; P/32ceil(P/32) = " + fixed(100 * r.n("predicted"), 2) + "% (" + whole(r, "warps") +
           " warps carry " + whole(r, "p") + " useful lanes); judged as step_time_spread";
  }
  if (s == "resident_blocks") {
    const bool same = r.f("matches");
    return std::string(same ? "the occupancy API reserves " : "the occupancy API gives ") + fixed(r.n("blocks"), 0) +
           " blocks of " + whole(r, "warps") + " warp slots (" + fixed(r.n("blocks") * r.n("warps"), 0) + " of " +
           fixed(r.n("max_warps"), 0) + " warps)" +
           (same ? (r.f("warp_cap_binds") ? ": the warp cap binds, counted in whole warps" : ": the block cap binds")
                 : "; the model predicts " + fixed(r.n("predicted"), 0) + ": registers or shared memory bind first");
  }
  if (s == "step_throttled") {
    return "throttled: fewer than two of the step's points ran unthrottled" + left_out_note(r);
  }
  if (s == "step_time_spread") {
    return step_opening(r) + "times spread " + fixed(100 * r.n("spread"), 2) + "% (max - min) / min" +
           (r.f("holds") ? "" : " (more than 1%)" + noise(r, "spread")) + left_out_note(r);
  }
  if (s == "step_cycle_spread") {
    const bool holds = r.f("holds");
    return step_opening(r) + "SM cycles spread " + fixed(100 * r.n("spread"), 2) + "% (times " +
           fixed(100 * r.n("time_spread"), 2) + "%)" +
           (r.f("time_holds") || !holds ? "" : ": the time spread is the SM clock moving between benchmarks") +
           (holds ? "" : noise(r, "spread")) + left_out_note(r);
  }
  // The grid tail.
  if (s == "tail_active_threads") {
    return grid_tail_tag(r) + (r.f("matches") ? "the last block runs " + whole(r, "last_block_threads") +
                                                    " threads (the guard i < N sets it)"
                                              : "the last block ran a different number of threads");
  }
  if (s == "tail_full_warps") {
    return grid_tail_tag(r) + (r.f("matches") ? whole(r, "full_warps") + " full warps + " + whole(r, "partial_lanes") +
                                                    " lanes"
                                              : "full warps in the last block differ from the model");
  }
  if (s == "grid_tail_mask") {
    return grid_tail_tag(r) + (r.f("matches") ? "the last warp runs with mask " : "the last warp's mask differs from ") +
           mask_text(r, "model_mask");
  }
  if (s == "time_vs_whole_warps") {
    return grid_tail_tag(r) + "took " + fixed(100 * r.n("ratio"), 2) + "% of N = " + whole(r, "whole") + "'s time" +
           floor_note(r) + (r.f("holds") ? "" : ": more than 2% apart" + noise(r, "miss"));
  }
  if (s == "cycles_vs_whole_warps") {
    return grid_tail_tag(r) + "took " + fixed(100 * r.n("ratio"), 2) + "% of N = " + whole(r, "whole") +
           "'s SM cycles" + (r.f("holds") ? "" : ": more than 2% apart" + noise(r, "miss"));
  }
  if (s == "relative_time") {
    return grid_tail_tag(r) + "took " + fixed(100 * r.n("share"), 1) +
           "% of one full block's time; the busiest block has " + whole(r, "busiest_warps") + " warps, " +
           fixed(r.n("busiest_per_scheduler"), 0) + " per scheduler, issuing " + fixed(r.n("issue_here"), 2) +
           " FMA/cycle per scheduler (full block: " + fixed(r.n("issue_full"), 2) + ")" + floor_note(r) +
           (r.f("holds") ? ""
                         : ": off by more than 5%, because so few warps per scheduler cannot cover the "
                           "FMA latency, so time is not proportional to warps per scheduler");
  }
  if (s == "second_order_relative_time") {
    return grid_tail_tag(r) + whole(r, "tail_warps_per_scheduler") + " warp(s) a scheduler at the busiest block: F = " +
           fixed(r.n("tail_fixed_s") * 1e6, 2) + " us, " + fixed(r.n("tail_fma_s") * 1e12, 3) + " ps an FMA (fma_issue " +
           r.t("tail_source") + "); a full block " + whole(r, "full_warps_per_scheduler") + " a scheduler: F = " +
           fixed(r.n("full_fixed_s") * 1e6, 2) + " us, " + fixed(r.n("full_fma_s") * 1e12, 3) + " ps an FMA; predicted " +
           fixed(100 * r.n("predicted"), 1) + "%, measured " + fixed(100 * r.n("measured"), 1) + "%" + floor_note(r) +
           (r.f("holds") ? "" : ": more than 2% apart" + noise(r, "miss"));
  }
  // The counter pass.
  if (s == "warps_launched") {
    return counter_tag(r) + "the hardware launched " + fixed(r.n("launched"), 0) + " warps for " +
           fixed(r.n("blocks"), 0) + " block(s): " + (r.f("matches") ? "" : "not ") + "ceil(P/32) = " +
           whole(r, "warps") + " each";
  }
  if (s == "lanes_per_instruction") {
    return counter_tag(r) + fixed(r.n("lanes"), 3) + " lanes on per instruction; " + fixed(r.n("useful"), 0) +
           " working threads in " + whole(r, "working_warps") + " warps give " + fixed(r.n("model_lanes"), 3);
  }
  if (s == "idle_warps_issue_guard") {
    return ": the warps past the total still issue their guard and exit with all lanes on, "
           "which weighs against so few useful lanes";
  }
  if (s == "achieved_warps") {
    return counter_tag(r) + "achieved " + fixed(r.n("achieved"), 1) + " of " + fixed(r.n("slots"), 0) +
           " reserved warp slots (" + fixed(100 * r.n("achieved") / r.n("slots"), 1) +
           "%): 4 full waves, each block's warps start and retire together, so the SM averages "
           "below its reservation between a block's end and the next one's start" +
           (r.f("above_reservation") ? "; above the reservation, so the occupancy figure is wrong" : "");
  }
  if (s == "achieved_warps_vs_whole_warp_block") {
    return counter_tag(r) + fixed(r.n("achieved"), 2) + " achieved warps/SM against " +
           fixed(r.n("whole_achieved"), 2) + " at P = " + whole(r, "next");
  }
  throw std::logic_error("partial_warp renders no reason '" + r.code + "'");
}

}  // namespace warpcost::analysis::partial_warp
