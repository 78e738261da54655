// The warp-primitives family's sentences: each reason its evaluator gives (analysis/reason.hpp) as
// the why of its row.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "analysis/evaluation_support.hpp"
#include "analysis/warp_primitives/family.hpp"
#include "core/text_format.hpp"
#include "core/warp_primitives/model.hpp"
#include "core/warp_primitives/schema.hpp"

namespace warpcost::analysis::warp_primitives {
namespace {

namespace wp = warpcost::warp_primitives;

std::string count(const Reason& r, const std::string& key) { return std::to_string(std::llround(r.n(key))); }

// A relative number as a signed percentage: -0.0312 -> "-3.1 %".
std::string percent(double x, int digits) { return format_number(digits == 0 ? "%+.0f %%" : "%+.1f %%", 100.0 * x); }

// A point's active lanes and mask shape: "16 contiguous lanes (mask ...)".
std::string mask_text(const Reason& r) {
  const int lanes = static_cast<int>(std::lround(r.n("lanes")));
  const int mask = static_cast<int>(std::lround(r.n("mask")));
  const std::uint32_t m = wp::lane_mask(lanes, static_cast<wp::MaskShape>(mask == 2 ? 0 : mask));
  return std::to_string(lanes) +
         (mask == 1 ? " scattered" : mask == 2 ? " + " + std::to_string(32 - lanes) + " (divergent sides)" : " contiguous") +
         " lanes (mask " + hex_mask(m) + ")";
}

// A check's relative error as a signed percentage.
std::string relative_error(const Reason& r) { return percent(r.n("rel_error"), 1); }
// The note of a miss too noisy to decide (detail::noise_note), "" for any other.
std::string noise(const Reason& r) { return detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma")); }

// Little's law knee: the prediction's inputs and the measured knee.
std::string knee_inputs(const Reason& r) {
  return r.t("primitive") + ": " + fixed(r.n("latency"), 2) + " cycles x " + fixed(r.n("peak"), 3) +
         " warp-ops/cycle / " + count(r, "chains") + " chains = " + fixed(r.n("predicted"), 2) +
         " warps; measured knee (" + fixed(100.0 * r.n("knee_fraction"), 0) + " %" + " of the best) at " +
         fixed(r.n("knee"), 0);
}

// The second-order queue model's inputs and both throughputs of one swept point.
std::string second_order_numbers(const Reason& r) {
  return r.t("primitive") + ": L = " + fixed(r.n("latency"), 2) + " cycles (its latency chain), P = " +
         fixed(r.n("pipe_rate"), 3) + " warp-ops/cycle/SM (64 warps/SM), c = " + count(r, "chains") + ", W = " +
         count(r, "warps_per_sm") + (r.f("serial_chains") ? " (the chains one after another at its __syncwarp: a warp waits c x L)" : "") +
         ": predicted " + fixed(r.n("predicted"), 3) + ", measured " + fixed(r.n("measured"), 3);
}

}  // namespace

std::string render(const Reason& r) {
  const std::string s = r.sentence();
  if (s == "latency") {
    return r.t("primitive") + ", " + mask_text(r) + ", one warp an SM; " +
           (r.f("data_dependent") ? "each op reads the last one's result" : "no data dependence: the issue cost of one op");
  }
  if (s == "divergent_sides") {
    return "the warp's cycles a side-op over the 32-lane chain's: no published rule says whether the scheduler "
           "interleaves the two sides' dependent chains, so the ratio is measured, not judged";
  }
  if (s == "divergent_sides_no_reference") return "no full-warp point of " + r.t("primitive") + " in this run";
  if (s == "granularity_latency_no_reference") return "no unthrottled full-warp point of " + r.t("primitive") + " in this run";
  if (s == "granularity_latency") {
    return r.t("primitive") + ", " + mask_text(r) + " against 32 lanes: " + relative_error(r) +
           (r.f("holds") ? "" : "; the cost depends on the lanes: not a pure warp cost") + noise(r);
  }
  if (s == "throughput") {
    return r.t("primitive") + ", " + count(r, "warps_per_sm") + " warps/SM, " + mask_text(r) + "; per-SM clock spans";
  }
  if (s == "granularity_throughput_no_reference") {
    return "no unthrottled full-warp point of " + r.t("primitive") + " at " + count(r, "warps_per_sm") + " warps/SM";
  }
  if (s == "granularity_throughput") {
    return r.t("primitive") + ", " + mask_text(r) + " against 32 lanes: " + relative_error(r) + noise(r);
  }
  if (s == "guide_table_undeclared") return "the table's value for cc " + r.t("cc") + " is not declared here (only 9.0's)";
  if (s == "guide_table") {
    return r.t("primitive") + " at the device's full residency (" + count(r, "warps_per_sm") + " warps/SM), " +
           count(r, "shfl_per_op") + " SHFL an op: " + relative_error(r) + " from the table" + noise(r);
  }
  if (s == "composition") {
    return "5 x (" + fixed(r.n("shuffle_latency"), 2) + " + " + fixed(r.n("alu_latency"), 2) +
           ") cycles from their own chains; butterfly " + relative_error(r) + noise(r);
  }
  if (s == "composition_missing_inputs") return "the shfl_xor32 or alu_add full-warp latency point is missing or throttled";
  if (s == "redux_vs_butterfly") {
    return "a measured comparison: NVIDIA publishes no REDUX latency, so there is no independent prediction to judge";
  }
  if (s == "knee_no_inputs") return r.t("primitive") + ": no full-warp latency point or no chains count in this run";
  if (s == "knee") {
    return knee_inputs(r) + "; |log2(measured/predicted)| = " + fixed(r.n("miss"), 2) + " (one sweep step = 1)" +
           (r.f("flat") ? "" : "; the curve still rises at the sweep's end (the plateau rule), so the true knee "
                               "lies at or past the measured one, and the prediction is under it");
  }
  if (s == "knee_untestable") {
    return knee_inputs(r) + "; the curve still rises at the sweep's " + fixed(r.n("max_warps_per_sm"), 0) +
           " warps/SM (the plateau rule): its knee is at least the measured one, which the prediction "
           "does not undercut, so the data cannot decide";
  }
  if (s == "second_order_fit_point") {
    return second_order_numbers(r) + "; not judged: the 64-warps/SM point sets the pipe rate P (the declared fit point)";
  }
  if (s == "second_order_throughput") {
    return second_order_numbers(r) + (r.f("holds") ? "" : ": more than 10% apart" + noise(r));
  }
  if (s == "second_order_knee") {
    return r.t("primitive") + ": measured knee " + fixed(r.n("knee"), 0) + " warps/SM, predicted " +
           fixed(r.n("predicted"), 0) + " (90% of each curve's largest; the same swept point or fails)";
  }
  if (s == "inst_per_op") {
    return std::string(wp::metric::kInstExecuted) + " / (" + wp::metric::kWarpsLaunched + " x chains x ops): " +
           relative_error(r) + " from the body" +
           (r.f("holds") ? "" : "; the compiled chain issues other work than the kernel's source says");
  }
  if (s == "inst_per_op_no_body") return "the point states no body instruction count";
  if (s == "issue_per_op") {
    return "issue-active scheduler cycles an op, summed over the SMSPs: shown beside the instruction count, no model";
  }
  if (s == "not_on_this_gpu") {
    const long long min_cc = std::llround(r.n("min_cc"));
    return r.t("primitive") + " needs cc " + std::to_string(min_cc / 10) + "." + std::to_string(min_cc % 10) +
           "; not on this GPU (cc " + r.t("cc") + "): left out of the plan";
  }
  throw std::logic_error("warp_primitives renders no reason '" + r.code + "'");
}

}  // namespace warpcost::analysis::warp_primitives
