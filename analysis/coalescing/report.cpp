// The coalescing family's sentences: each reason its evaluator gives (analysis/reason.hpp) as the
// why of its row, and the second-order price's numbers (CoalescingSecondOrderPrice::numbers).
#include <cmath>
#include <stdexcept>
#include <string>

#include "analysis/coalescing/family.hpp"
#include "analysis/coalescing/evaluation.hpp"
#include "analysis/evaluation_support.hpp"
#include "core/coalescing/schema.hpp"
#include "core/result_schema.hpp"
#include "core/text_format.hpp"

namespace warpcost::analysis::coalescing {
namespace {

namespace co = warpcost::coalescing;

std::string count(const Reason& r, const std::string& key) { return std::to_string(std::llround(r.n(key))); }

// A sentence that names a worked example starts with it.
std::string example(const Reason& r) { return r.t("example").empty() ? "" : r.t("example") + "; "; }

// The DRAM metrics a launch's bytes are read from: loads read, stores read + write.
std::string dram_source(const Reason& r) {
  return r.f("store") ? std::string(co::metric::kDramRead) + " + " + co::metric::kDramWrite
                      : std::string(co::metric::kDramRead);
}

// "32 blocks, 64 warps on the NVIDIA H200": the caps as the run's context records them.
std::string residency_caps(const Reason& r) {
  return r.t(schema::key::kMaxBlocksPerSm) + " blocks, " + r.t(schema::key::kMaxWarpsPerSm) + " warps on the " +
         r.t(schema::key::kGpuName);
}

// Why a useful-bandwidth point fails, in the evaluator's order of causes.
std::string bandwidth_miss(const Reason& r) {
  if (r.f("few_bytes_in_flight")) {
    return "too few bytes in flight: a warp of " + count(r, "elem_bytes") +
           "-byte elements keeps 32 x size x 4 (unroll) bytes in flight, and by Little's law "
           "bandwidth = bytes in flight / latency, short of the coalesced rate";
  }
  if (r.f("promoted_fetch")) {
    return "matches the 64-byte promoted-fetch model (" + fixed(r.n("bandwidth_fraction_64"), 3) +
           " of the coalesced rate): the L2 fetched two sectors from DRAM for each one asked";
  }
  if (r.n("ratio") > 1) {
    return "faster than the sector model: sectors a request did not need still came cheaper than a full "
           "DRAM sector (L2 hits on shared lines, DRAM burst and prefetch); see the DRAM bytes row";
  }
  return "slower than the sector model: more requests per useful byte than the memory pipeline "
         "serves at the coalesced rate (request throughput, not DRAM, bounds the point)";
}

std::string useful_bandwidth(const Reason& r) {
  const std::string base = example(r) + fixed(100 * r.n("bandwidth_fraction"), 1) + "% of the coalesced " +
                           fixed(r.n("reference_rate") * 1e-12, 3) + " TB/s (" + r.t("reference_params") + ")";
  if (r.f("holds")) return base;
  if (r.f("warn")) {
    return base + "; off by " + fixed(100 * r.n("miss"), 1) + "%" +
           detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma"));
  }
  return base + "; measured " + fixed(r.n("ratio"), 3) + "x the prediction; " + bandwidth_miss(r);
}

std::string dram_bytes(const Reason& r) {
  const std::string sentence = example(r) + dram_source(r) + " of one profiled launch";
  if (r.f("holds")) return sentence;
  const std::string miss =
      r.f("promoted") ? "matches 64-byte granules (" + fixed(r.n("promoted_ratio"), 2) + "x the sectors): L2 sector promotion"
      : r.n("ratio") > 1 ? std::string("DRAM moved more than the modelled sectors (burst granularity, prefetch)")
                         : std::string("DRAM moved less than the modelled sectors: some came from the L2");
  return sentence + "; " + fixed(r.n("ratio"), 3) + "x: " + miss;
}

// How a second-order point's moved bytes were counted, which its benchmark says.
std::string moved_text(const Reason& r) {
  const std::string& benchmark = r.t("benchmark");
  if (benchmark == co::bench::kStoreDram) {
    return fixed(r.n("written"), 0) + " B of sectors written + " + fixed(r.n("readback"), 0) +
           " B of partly written sectors read back";
  }
  if (benchmark == co::bench::kLoadL2) return fixed(r.n("moved"), 0) + " B of sectors";
  if (benchmark == co::bench::kBlock2d) return fixed(r.n("moved"), 1) + " B a request (the frame's sectors, each moved once)";
  if (benchmark == co::bench::kPartialBlock) return fixed(r.n("moved"), 1) + " B of 64-byte granules a request";
  return fixed(r.n("moved"), 0) + " B of 64-byte granules (tiles every " + count(r, "tile_pitch") + " B)";
}

// The level's fit points, "spacing B rate" in TB/s moved.
std::string fit_points(const Reason& r) {
  std::string text;
  for (long long i = 0; i < std::llround(r.n("fit_points")); ++i) {
    const std::string n = std::to_string(i);
    text += (text.empty() ? "" : ", ") + fixed(r.n("fit_spacing_" + n), 0) + " B " +
            fixed(r.n("fit_moved_rate_" + n) / 1e12, 2);
  }
  return text;
}

std::string in_flight_bound(const Reason& r) {
  if (r.f("in_flight_bound")) {
    return "; in flight " + count(r, "warps_per_sm") + " warps/SM x " + fixed(r.n("bytes_in_flight_per_warp"), 0) +
           " B by Little's law with the loaded-latency locus: " + fixed(r.n("in_flight") / 1e12, 3) + " TB/s moved";
  }
  if (r.t("benchmark") == co::bench::kStoreDram) return "; no in-flight bound (a store does not wait for its data)";
  if (r.t("benchmark") == co::bench::kLoadL2) return "; no in-flight bound (no L2 latency locus is measured)";
  return "; no in-flight bound (no loaded-latency locus in this run)";
}

// The fit set R(D) is read off: the 4-byte load_l2 points for narrower L2 loads (ISSUE-33-L2-NARROW),
// else the curve's 16-byte points.
std::string curve_text(const Reason& r) {
  return r.t("curve") == kL2NarrowCurve ? std::string("load_l2 4-byte") : r.t("curve") + " 16-byte";
}

}  // namespace

std::string render_second_order_price(const Reason& r) {
  return fixed(r.n("useful"), 0) + " useful B a request, moved " + moved_text(r) + "; R(" + fixed(r.n("spacing"), 0) +
         " B) = " + fixed(r.n("moved_rate") / 1e12, 3) + " TB/s moved (" + curve_text(r) + " points: " +
         fit_points(r) + " TB/s)" + in_flight_bound(r) +
         (r.has_flag("request_bound") && r.f("request_bound")
              ? "; the request-rate ceiling bounds it: " + fixed(r.n("request_rate") / 1e9, 2) +
                    " G requests/s (load_l2, 1-byte stride 1) x " + fixed(r.n("useful"), 0) + " useful B"
              : std::string()) +
         (r.has_flag("request_ceiling_missing") && r.f("request_ceiling_missing")
              ? "; no request-rate ceiling: the run's 1-byte stride-1 load_l2 point is missing, failed or throttled"
              : std::string()) +
         (r.has_flag("store_request_bound") && r.f("store_request_bound")
              ? "; the partial-store request ceiling bounds it: " + fixed(r.n("store_request_rate") / 1e9, 2) +
                    " G requests/s (store_dram, 1-byte stride 2) x " + fixed(r.n("useful"), 0) + " useful B"
              : std::string()) +
         (r.has_flag("store_request_ceiling_missing") && r.f("store_request_ceiling_missing")
              ? "; no partial-store request ceiling: the run's 1-byte stride-2 store_dram point is missing, failed or "
                "throttled"
              : std::string()) +
         (r.has_flag("misaligned_store_bound") && r.f("misaligned_store_bound")
              ? "; the misaligned-store request ceiling bounds it: " + fixed(r.n("misaligned_store_rate") / 1e9, 2) +
                    " G requests/s (store_dram, 4-byte offset " + count(r, "misaligned_offset") + ") x " +
                    fixed(r.n("useful"), 0) + " useful B"
              : std::string()) +
         (r.has_flag("misaligned_store_ceiling_missing") && r.f("misaligned_store_ceiling_missing")
              ? "; no misaligned-store request ceiling: the run's 4-byte offset-" + count(r, "misaligned_offset") +
                    " store_dram point is missing, failed or throttled"
              : std::string()) +
         "; predicted " + fixed(r.n("predicted") / 1e12, 3) + " TB/s useful";
}

std::string render(const Reason& r) {
  const std::string s = r.sentence();
  if (s == "dram_granule") {
    return "the DRAM access granule: " + fixed(r.n("dram_bytes"), 0) + " DRAM bytes for " + fixed(r.n("requests"), 0) +
           " requests of 32 lanes, each lane alone in its line (the counter pass); the second-order model prices DRAM loads in " +
           fixed(r.n("model_granule"), 0) + "-byte granules";
  }
  if (s == "efficiency") {
    return example(r) + fixed(r.n("sectors_per_request"), 3) + " sectors, " + fixed(r.n("lines_per_request"), 3) +
           " lines a request (model)";
  }
  if (s == "sectors_per_request") {
    return example(r) + r.t("sectors_metric") + " / " + r.t("requests_metric") +
           (r.f("holds") ? "" : "; off by more than 1%: the coalescer merged or split lanes unlike the model");
  }
  if (s == "bandwidth_residency_bound") {
    return example(r) + "blocks of " + count(r, "block_threads") + " threads are bound by how many an SM holds (" +
           residency_caps(r) + "), not by sectors: no bandwidth model";
  }
  if (s == "bandwidth_reference") {
    return "stride 1, offset 0 at 4, 8 or 16 B: the best of these three (this one) is the " +
           r.t("reference_benchmark") + " rate every other point is predicted from";
  }
  if (s == "bandwidth_no_reference") {
    return "no unthrottled coalesced reference (" + r.t("reference_benchmark") +
           " stride 1, offset 0, 4/8/16 B) in this run";
  }
  if (s == "useful_bandwidth") return useful_bandwidth(r);
  if (s == "dram_bytes_not_judged") {
    return dram_source(r) + " of the one profiled launch; not judged: that launch does not share the timed "
                            "launches' L2 state (the count can be the whole region read once), so it says "
                            "nothing about the timed launches' residency";
  }
  if (s == "dram_bytes") return dram_bytes(r);
  if (s == "second_order_fit_point") {
    if (r.t("curve") == kL2NarrowCurve) {
      return render_second_order_price(r) +
             "; not judged: a 4-byte offset-0 load_l2 point sets R(D) of the L2 loads narrower than 16 bytes (the "
             "declared fit set, ISSUE-33-L2-NARROW)";
    }
    return render_second_order_price(r) + "; not judged: a 16-byte offset-0 point sets R(D) (the declared fit set)";
  }
  if (s == "second_order_request_fit_point") {
    return render_second_order_price(r) +
           "; not judged: this point's requests a second set the request-rate ceiling every other point is held to "
           "(the declared fit point, ISSUE-33-COALESCING-REQUESTS)";
  }
  if (s == "second_order_store_request_fit_point") {
    return render_second_order_price(r) +
           "; not judged: this point's requests a second set the partial-store request ceiling every store writing "
           "part of a sector is held to (the declared fit point, ISSUE-33-STORE-PARTIAL)";
  }
  if (s == "second_order_misaligned_store_fit_point") {
    return render_second_order_price(r) +
           "; not judged: this point's requests a second set the request ceiling of the dense stores off their line "
           "in its class (whole sectors: offset 16; partly written sectors: offset 2; the declared fit point, "
           "ISSUE-33-STORE-MISALIGNED)";
  }
  if (s == "second_order_granule_point") {
    return render_second_order_price(r) +
           "; not judged: the DRAM granule is read off this point's own DRAM bytes (row dram_granule_bytes), so its "
           "moved bytes are its own count";
  }
  if (s == "second_order_useful_bandwidth") {
    return render_second_order_price(r) +
           (r.f("holds") ? "" : ": more than 5% apart" + detail::noise_note(r.n("miss"), r.n("tolerance"), r.n("sigma")));
  }
  throw std::logic_error("coalescing renders no reason '" + r.code + "'");
}

}  // namespace warpcost::analysis::coalescing
