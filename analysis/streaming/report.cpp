// The latency and streaming families' sentences: each reason their evaluator gives
// (analysis/reason.hpp) as the why of its row.
#include <cmath>
#include <stdexcept>
#include <string>

#include "analysis/evaluation_support.hpp"
#include "analysis/streaming/family.hpp"
#include "core/models.hpp"
#include "core/streaming/schema.hpp"
#include "core/text_format.hpp"

namespace warpcost::analysis::streaming {
namespace {

// A whole number the evaluator took from a parameter or a count, as it printed it (truncated).
std::string whole(const Reason& r, const std::string& key) {
  return std::to_string(static_cast<long long>(r.n(key)));
}

// "random ring, 64 KiB: ": the chase point a latency row is about.
std::string chase_tag(const Reason& r) {
  return std::string(r.f("random_ring") ? "random ring" : "fixed stride") + ", " + whole(r, "footprint_kib") + " KiB: ";
}

// "8 background warps/SM: " or "no background: ": the loaded chase point a row is about.
std::string loaded_tag(const Reason& r) {
  return r.n("bg_warps") == 0 ? std::string("no background: ") : whole(r, "bg_warps") + " background warps/SM: ";
}

// The loaded chase's model row (evaluation.cpp's evaluate_loaded_chase): what is missing, or the
// formula in numbers and how it judged.
std::string second_order_loaded_latency(const Reason& r) {
  const std::string tag = loaded_tag(r);
  if (!r.f("unloaded_measured") || !r.f("locus_measured")) {
    std::string missing;
    if (!r.f("unloaded_measured")) missing = "no unthrottled chase_loaded point at bg_warps = 0 (the chase alone, C(0))";
    if (!r.f("locus_measured")) {
      missing += (missing.empty() ? "" : " and ") +
                 std::string("no loaded-latency locus (two unthrottled read_independent 16-byte W = 0 points)");
    }
    return tag + "not judged: " + missing + " in this run; measured " + fixed(r.n("measured"), 0) +
           " cycles beside " + fixed(r.n("background") / 1e12, 3) + " TB/s";
  }
  return tag + "C(0) " + fixed(r.n("unloaded"), 0) + " cycles + Λ(" + fixed(r.n("background") / 1e12, 3) + " TB/s) " +
         fixed(r.n("locus_at_background"), 0) + " − Λ(0) " + fixed(r.n("locus_unloaded_cycles"), 0) + " = predicted " +
         fixed(r.n("predicted"), 0) + " cycles, measured " + fixed(r.n("measured"), 0) +
         (r.f("holds") ? "" : ": more than 5% apart" + detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma"))) +
         (r.f("past_ceiling") ? "; the background ran past the locus' ceiling, where Λ is held at its last point" : "") +
         "; " +
         locus_description(static_cast<std::size_t>(r.n("locus_points")), r.n("locus_unloaded_cycles"),
                           r.n("locus_ceiling"));
}

// What a stream point's rows open with (evaluation.cpp's stream_point): its benchmark says which.
std::string point_tag(const Reason& r) {
  namespace benchmark = schema::streaming::benchmark;
  const std::string& name = r.t("benchmark");
  if (name == benchmark::kReadOnePerThread) {
    return whole(r, "block_threads") + " threads a block, " + whole(r, "resident_blocks") + " blocks = " +
           whole(r, "resident_warps") + " warps/SM resident: ";
  }
  if (name == benchmark::kReadPeak) {
    return whole(r, "loads_per_thread") + " 16-byte loads a thread, " + whole(r, "block_threads") +
           " threads a block, no store: ";
  }
  if (name == benchmark::kCopyIndependent) {
    return whole(r, "warps_per_sm") + " warps/SM, " + whole(r, "load_bytes") + "-byte loads each stored again: ";
  }
  return whole(r, "warps_per_sm") + " warps/SM, " + whole(r, "load_bytes") + "-byte loads, " +
         (name == benchmark::kReadBatched ? whole(r, "loads_in_flight") + " loads in flight a thread"
                                          : "W = " + whole(r, "alu_per_load")) +
         ": ";
}

// Why a curve is or is not flat over its end (models.hpp: kKneePlateau*).
std::string flatness_text(const Reason& r) {
  return "95% of the second-largest rate first at " + fixed(r.n("flat_from"), 0) + " warps/SM, " +
         whole(r, "flat_points") + " point(s) past it within 5%, " + whole(r, "outliers") +
         " outside, the sweep ending at " + fixed(r.n("flat_span"), 2) + "x its warps (flat needs >= " +
         std::to_string(model::kKneePlateauPoints) + " points within 5%, at most " +
         std::to_string(model::kKneePlateauOutliers) + " outside, over >= " + fixed(model::kKneePlateauSpan, 2) +
         "x the warps)";
}

// The knee models' inputs: "unloaded L = ..., I = ..., W = ...".
std::string knee_inputs(const Reason& r) {
  return "unloaded L = " + fixed(r.n("latency"), 0) + " cycles (random-chase DRAM plateau), I = " +
         fixed(r.n("instructions_per_load"), 1) + " warp instructions a load (counter pass), W = " +
         whole(r, "alu_per_load");
}

// How the knee rule judged a knee model (evaluation.cpp's knee_row), after the model's sentence.
std::string knee_judgement(const Reason& r) {
  const double measured = r.n("knee");
  const double predicted = r.n("knee_predicted");
  const std::string sweep = fixed(r.n("swept_min"), 0) + ".." + fixed(r.n("swept_max"), 0) + " warps/SM swept";
  if (!r.f("flat")) {
    if (r.f("predicted_under_knee")) {
      return "; the curve is not flat over the sweep's end (" + flatness_text(r) + "), so the knee lies at " +
             fixed(measured, 0) + " warps/SM or later: the prediction is under it by " +
             fixed(measured - predicted, 0) + " (more than " + fixed(r.n("knee_tolerance"), 0) + ")";
    }
    return "; the knee is not reached in the sweep (" + flatness_text(r) + "): it lies at " + fixed(measured, 0) +
           " warps/SM or later, " +
           (r.f("predicted_beyond_sweep") ? "the prediction beyond the " + sweep
                                          : std::string("the prediction not under it")) +
           ", so the data cannot decide";
  }
  if (r.f("knee_at_first_point")) {
    return "; the knee is the sweep's first point (" + sweep +
           "), so it may lie anywhere under it, where the prediction lies";
  }
  return (r.f("knee_holds") ? "" : "; the model misses by " + fixed(std::fabs(measured - predicted), 0) + " warps/SM") +
         (r.f("predicted_beyond_sweep") ? " (the prediction lies beyond the " + sweep + ", on a curve flat over its end)"
                                        : "");
}

constexpr const char* kLocusCurveNotJudged = "; not judged: this curve is the locus the model reads (consistency)";

// What a second-order bandwidth sentence says after its figures: why it is not judged, or its miss.
std::string second_order_judgement(const Reason& r) {
  if (r.f("locus_curve")) return kLocusCurveNotJudged;
  if (r.f("fit_point")) return "; not judged: this 1-warp/SM point sets the curve's T0 (the declared fit point)";
  if (!r.f("holds")) return ": more than 5% apart" + detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma"));
  return "";
}

std::string second_order_bandwidth(const Reason& r) {
  std::string out = whole(r, "warps_per_sm") + " warps/SM (" + whole(r, "warps_per_scheduler") + " a scheduler), I = " +
                    fixed(r.n("instructions_per_iteration"), 1) + " instructions an iteration, T0 = " +
                    fixed(r.n("t0"), 0) + " cycles; at the fixed point a load waits " + fixed(r.n("loaded_cycles"), 0) +
                    " cycles and an iteration takes " + fixed(r.n("iteration_cycles"), 0) +
                    (r.f("at_ceiling") ? " (the locus' ceiling bounds it)" : "") + ": predicted " +
                    fixed(r.n("predicted") / 1e12, 3) + " TB/s, measured " + fixed(r.n("measured") / 1e12, 3) + " TB/s";
  out += second_order_judgement(r);
  return out + "; " + fixed(r.n("issue_rate"), 3) + " warp instructions a cycle a scheduler (" +
         r.t("issue_rate_source") + "), " +
         locus_description(static_cast<std::size_t>(r.n("locus_points")), r.n("locus_unloaded_cycles"),
                           r.n("locus_ceiling"));
}

// ISSUE-33-GREEDY-ISSUE's sentence: the loop, the latency terms and the fixed point.
std::string second_order_greedy(const Reason& r) {
  std::string out = whole(r, "warps_per_sm") + " warps/SM (" + whole(r, "warps_per_scheduler") +
                    " a scheduler), greedy-then-oldest issue over the loop's " + fixed(r.n("loop_cycles"), 0) +
                    " cycles of stall counts (" + r.t("loop") + "), a load M0 = " + fixed(r.n("memory_latency"), 0) +
                    " cycles unloaded (spread " + fixed(r.n("latency_sigma"), 0) + "), the constant " +
                    fixed(r.n("constant_latency"), 0) + " (from T0 = " + fixed(r.n("t0"), 0) +
                    "); at the fixed point a load waits " + fixed(r.n("loaded_cycles"), 0) + " cycles of the locus and an iteration takes " +
                    fixed(r.n("iteration_cycles"), 0) + (r.f("at_ceiling") ? " (the locus' ceiling bounds it)" : "") +
                    ": predicted " + fixed(r.n("predicted") / 1e12, 3) + " TB/s, measured " +
                    fixed(r.n("measured") / 1e12, 3) + " TB/s";
  return out + second_order_judgement(r) + "; " +
         locus_description(static_cast<std::size_t>(r.n("locus_points")), r.n("locus_unloaded_cycles"),
                           r.n("locus_ceiling"));
}

std::string memory_bound_vs_copy(const Reason& r) {
  const std::string sentence =
      "Ex 6 (W = 1: 400 warps > 64): the W = 0 stream's plateau " + fixed(r.n("plateau") / 1e12, 3) +
      " TB/s against the device-to-device copy's " + fixed(r.n("copy_rate") / 1e12, 3) + " TB/s" +
      (r.f("holds") ? ": bandwidth-bound, as the example says"
                    : std::string(": more than 10% ") + (r.f("under_copy") ? "under" : "over") + " the copy" +
                          detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma")));
  if (!r.f("impossible")) return sentence;
  return "the " + std::string(r.f("plateau_over_copy") ? "stream's plateau" : "copy") + " ran at " +
         fixed(100 * r.n("share_of_peak"), 1) + "% of the theoretical peak " + fixed(r.n("peak") / 1e12, 3) +
         " TB/s: impossible for DRAM, the measurement is wrong; " + sentence;
}

std::string best_read(const Reason& r) {
  const double rate = r.n("rate");
  const double peak = r.n("peak");
  return "best read " + r.t("benchmark") + " " + r.t("params") + ": " + fixed(rate / 1e12, 3) + " TB/s, " +
         fixed(100 * rate / peak, 1) + "% of the " + fixed(peak / 1e12, 3) + " TB/s peak" +
         (r.f("copy_measured") ? ", " + fixed(rate / r.n("copy_rate"), 3) + "x the copy's " +
                                     fixed(r.n("copy_rate") / 1e12, 3) + " TB/s"
                               : "; no device-to-device copy in this run") +
         (r.f("impossible") ? ": above the peak by more than 2%, impossible for DRAM, so the measurement is "
                              "wrong, not the target met"
                            : "") +
         (r.f("mig_instance") && !r.f("impossible")
              ? "; a MIG instance (" + r.t("mig") +
                    "): the reported memory clock and bus do not give its share of the GPU's memory slices, so "
                    "no peak target"
              : "");
}

}  // namespace

std::string footprint_key(std::size_t i) { return "footprint_kib_" + std::to_string(i); }

std::string locus_description(std::size_t points, double unloaded_cycles, double ceiling) {
  return "locus of " + std::to_string(points) + " points (read_independent 16-byte W = 0), " +
         fixed(unloaded_cycles, 0) + " cycles unloaded, ceiling " + fixed(ceiling / 1e12, 3) + " TB/s";
}

std::string render(const Reason& r) {
  const std::string s = r.sentence();
  // The latency family's chase points and plateaus.
  if (s == "chase_cycles") {
    return chase_tag(r) + "one thread, " + fixed(r.n("steps"), 0) + " dependent loads after " +
           fixed(r.n("warm_steps"), 0) + " untimed";
  }
  if (s == "chase_ns") return chase_tag(r) + "%globaltimer over the same loads";
  // The loaded chase (issue 33).
  if (s == "loaded_chase_cycles") {
    return loaded_tag(r) + "one thread, " + fixed(r.n("steps"), 0) + " dependent loads after " +
           fixed(r.n("warm_steps"), 0) + " untimed over a random ring of " + fixed(r.n("footprint_bytes") / 1048576.0, 0) +
           " MiB" + (r.n("bg_warps") == 0 ? "" : ", while every SM streams 16-byte loads");
  }
  if (s == "loaded_chase_background") {
    if (r.n("bg_warps") == 0) return loaded_tag(r) + "the chase alone, the loaded chase's unloaded point";
    return loaded_tag(r) + "16-byte loads booked while the chase was timed, over its window, from blocks on " +
           whole(r, "sms") + " SMs; " + fixed(r.n("lifetime") / 1e12, 3) +
           " TB/s over the background's whole life (its ramp, the warm-up and its stop included)";
  }
  if (s == "second_order_loaded_latency") return second_order_loaded_latency(r);
  if (s == "plateau") {
    std::string kib;
    const auto footprints = static_cast<std::size_t>(r.n("footprints"));
    for (std::size_t i = 0; i < footprints; ++i) kib += (kib.empty() ? "" : ", ") + whole(r, footprint_key(i));
    return r.t("level") + " plateau: median over footprints of " + kib + " KiB, " + fixed(r.n("ns"), 1) + " ns";
  }
  // The streaming family's points.
  if (s == "bandwidth_share_of_peak") {
    return point_tag(r) + fixed(100 * r.n("share"), 1) + "% of the theoretical peak" +
           (r.f("impossible") ? ": above the peak by more than 2%, impossible for DRAM: the stream did not "
                                "come from DRAM or the bytes or the timing are wrong"
                              : "");
  }
  if (s == "copy_locus") {
    return whole(r, "warps_per_sm") + " warps/SM copying 16 bytes a lane a step: " +
           fixed(r.n("total_bandwidth") / 1e12, 3) + " TB/s read + written (" + fixed(r.n("read_bandwidth") / 1e12, 3) +
           " TB/s read); a load waits its warps' bytes in flight over the read rate (Little's law): a point of the "
           "copy locus, explain's kernel model's parameter (EXPLAIN-7), not judged";
  }
  if (s == "block_turnover") {
    return whole(r, "block_threads") + " threads a block, " + whole(r, "resident_blocks") +
           " resident an SM: the one-load-a-thread grid without its load takes " + fixed(r.n("ns"), 1) +
           " ns of an SM a block (" + whole(r, "blocks") +
           " blocks); the block-turnover parameter of the one-load-a-thread model";
  }
  if (s == "second_order_block_bandwidth") {
    std::string out = point_tag(r) + "a block of " + fixed(r.n("bytes_per_block"), 0) + " bytes, turnover " +
                      fixed(r.n("turnover_cycles"), 0) + " cycles (block_turnover), its load " +
                      fixed(r.n("loaded_cycles"), 0) + " cycles at the fixed point: an SM takes a block every " +
                      fixed(r.n("block_cycles"), 0) + " cycles" +
                      (r.f("at_ceiling") ? " (the locus' ceiling " + fixed(r.n("locus_ceiling") / 1e12, 3) + " TB/s bounds it)" : "") +
                      ": predicted " + fixed(r.n("predicted") / 1e12, 3) + " TB/s";
    if (!r.f("holds")) out += ": more than 5% apart" + detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma"));
    return out;
  }
  if (s == "second_order_block_unpriced") {
    return point_tag(r) + (r.f("turnover_measured") ? "no resident-block or block count for this point"
                                                    : "no unthrottled block_turnover point of this block size in the run") +
           ": not priced";
  }
  if (s == "resident_warps") {
    return point_tag(r) + (r.f("block_cap_binds") ? "the " + whole(r, "block_cap") + "-block cap binds before the " +
                                                        whole(r, "warp_cap") + "-warp cap"
                           : !r.f("warp_cap_reached") ? "the warp cap leaves room for less than one more block"
                                                      : "the warp cap is reached");
  }
  if (s == "useful_instruction_rate") {
    return point_tag(r) +
           (r.f("useful_instructions_counted") ? "(W + 1) thread instructions per load over the launch" : "loads only");
  }
  if (s == "loaded_latency_probe") {
    return point_tag(r) +
           "median clock64 around one lane's load and first use, recorded by every block's lane 0 "
           "while the whole of its warp 0 takes the probe path (8 samples spread over the run)";
  }
  // The curves: knees, the knee models, Little's law, Ex 6.
  if (s == "knee") {
    return "fewest warps/SM reaching 90% of the curve's plateau " + fixed(r.n("plateau") / 1e12, 3) + " TB/s (" +
           whole(r, "residencies") + " residencies, " + fixed(r.n("swept_min"), 0) + ".." + fixed(r.n("swept_max"), 0) +
           ")" +
           (r.f("flat") ? ", flat from " + fixed(r.n("flat_from"), 0) + " warps/SM"
                        : ": not flat over the sweep's end (a lower bound of the knee), " + flatness_text(r));
  }
  if (s == "knee_no_instruction_count") {
    return "no prediction: the run's counter pass has no " + r.t("instructions_metric") +
           " for this curve, so the instructions per load are not known (W + 1 is not used)";
  }
  if (s == "knee_ceil_l_over_i") {
    return knee_inputs(r) + ": ceil(L/I) = " + whole(r, "per_scheduler") + " a scheduler, " + fixed(r.n("per_sm"), 0) +
           " an SM" + (r.f("over_cap") ? " > the cap of " + whole(r, "cap") : "") + knee_judgement(r);
  }
  if (s == "knee_scheduler_demand") {
    return knee_inputs(r) + ": " + fixed(r.n("instruction_slots"), 0) + " slots / " +
           fixed(r.n("instructions_per_load"), 1) + " = " + fixed(r.n("warps_needed"), 1) + " warps" +
           (r.f("fits") ? "" : ", short " + whole(r, "deficit") + " of the cap") + knee_judgement(r);
  }
  if (s == "littles_law_consistency") {
    return "plateau " + fixed(r.n("plateau") / 1e12, 3) + " TB/s x loaded " + fixed(r.n("loaded_latency"), 0) +
           " cycles = " + fixed(r.n("bytes_in_flight") / 1024, 0) + " KiB in flight, " + fixed(r.n("warps_per_sm"), 1) +
           " warps/SM at " + whole(r, "loads_in_flight") + " " + whole(r, "load_bytes") +
           "-byte load(s) per lane in flight, against the knee's " + fixed(r.n("knee"), 0);
  }
  if (s == "memory_bound_vs_copy") return memory_bound_vs_copy(r);
  // The second-order model.
  if (s == "second_order_bandwidth") return second_order_bandwidth(r);
  if (s == "second_order_greedy") return second_order_greedy(r);
  if (s == "second_order_knee") {
    return "measured knee " + fixed(r.n("knee"), 1) + " warps/SM (where the curve, linear between swept points, reaches 90% of " +
           fixed(r.n("plateau") / 1e12, 3) + " TB/s), predicted " + fixed(r.n("predicted_knee"), 1) +
           " (the same on the predicted curve)" +
           (r.f("locus_curve") ? kLocusCurveNotJudged : r.f("holds") ? "" : ": more than 3 warps/SM apart");
  }
  // The targets.
  if (s == "best_read") return best_read(r);
  if (s == "sweep_gpu_time") return whole(r, "points") + " points, every launch timed by events (checked, warm-up and timed)";
  // The counter pass.
  if (s == "warps_active_vs_requested") {
    return fixed(r.n("requested"), 0) + " warps/SM requested, " + fixed(r.n("active"), 2) +
           " active on average (the ramp and drain lower it)";
  }
  if (s == "warps_active_vs_occupancy") {
    return fixed(r.n("active"), 1) + " of " + fixed(r.n("theoretical"), 0) + " warps/SM achieved (" +
           fixed(100 * r.n("active") / r.n("theoretical"), 0) +
           "%): one load a thread, so blocks retire and new ones launch all the time";
  }
  if (s == "warps_active_unrequested") return fixed(r.n("active"), 1) + " warps/SM active on average; no residency was requested";
  if (s == "dram_bytes_vs_read") {
    return fixed(r.n("dram_bytes") / 1e9, 4) + " GB from DRAM for " + fixed(r.n("read_bytes") / 1e9, 4) + " GB read";
  }
  if (s == "dram_read_share_of_peak") {
    return "counted DRAM bytes over the median event-timed launch, against the theoretical peak " +
           fixed(r.n("peak") / 1e12, 3) +
           " TB/s (CUPTI's elapsed-based throughput spans the range's launch and sync, so it is not used)";
  }
  throw std::logic_error("latency and streaming render no reason '" + r.code + "'");
}

}  // namespace warpcost::analysis::streaming
