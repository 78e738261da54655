// The coalescing family's verdicts: per benchmark, the counted sectors per request against the
// sector model, the useful bandwidth against the coalesced rate of the same run times the model's
// useful-per-moved fraction, and the DRAM bytes of a profiled launch against the sectors the model
// says it moves. Tolerances in one table, each with its
// reason (docs/coalescing.md repeats it with the planted faults).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {

namespace coalescing_tolerance {
// Counted sectors per request: the measured launch issues no global load (for stores no global
// store) besides the modelled ones, so the count is exact; 1 % covers nothing else.
inline constexpr double kSectors = 0.01;
// Useful bandwidth: the prediction carries the reference's own noise, and the sector model
// leaves out DRAM row locality, which changes with the gap between touched sectors. 10 % still
// separates the 32-byte sector model from the 64-byte promoted-fetch model wherever they differ by
// 1.2x or more (every misaligned offset, every stride whose lanes each own a sector).
inline constexpr double kBandwidth = 0.10;
// DRAM bytes of one profiled launch: besides the modelled sectors the launch moves only the
// per-warp sums (34 KB of 512 MiB) and write-backs of earlier launches' dirty lines; 5 %.
// (Throttled points: the shared rule, is_throttled in analysis/evaluation.cpp.)
inline constexpr double kDramBytes = 0.05;
// The element sizes whose stride-1 rate is a fully coalesced rate: 1 and 2 B stride-1 launches keep
// too few bytes in flight to reach it (Little's law), so they are judged, not used as the reference.
inline constexpr int kReferenceSizes[] = {4, 8, 16};
}  // namespace coalescing_tolerance

// What the model says about one coalescing benchmark, from its parameters and stated work alone.
struct CoalescingModel {
  double sectors_per_request = 0;   // the sector model, averaged over the launch's requests
  double lines_per_request = 0;
  double useful_per_moved = 0;      // per request: (active lanes x size) / (32 x sectors)
  double useful_per_moved_64 = 0;   // the same with 64-byte granules (L2 sector promotion)
  double bandwidth_fraction = 0;    // of the reference rate: moved bytes the launch needs from DRAM
  double bandwidth_fraction_64 = 0;
  std::optional<double> dram_bytes;     // a launch, when the bench stated its requests
  std::optional<double> dram_bytes_64;
  std::optional<double> readback_bytes;  // stores: partly written sectors, read back once
  bool store = false;
  bool l2_resident = false;
  // The memory level's benchmark whose best stride-1, offset-0 rate over kReferenceSizes is the
  // fully coalesced rate this point's bandwidth is held against; "" for no bandwidth model.
  std::string reference_benchmark;
  bool is_reference = false;  // one of the points that rate is the best of
  std::string example;           // the worked example it measures, if any
};
// Throws std::out_of_range if a parameter is missing.
CoalescingModel coalescing_model(const BenchmarkResult& b);

void evaluate_coalescing(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows);
// The second-order rows (docs/models.md, "Coalescing"): every point's useful bandwidth from the
// bytes its level moves at the moved rate R(D) of its lane spacing (the 16-byte points; the 4-byte
// ones for narrower L2 loads), bounded by the bytes its warps keep in flight.
void coalescing_second_order_rows(const Run& run, std::vector<Row>& rows);
// ISSUE-33-L2-NARROW: a load_l2 point of elements narrower than 16 bytes is priced on this curve,
// R(D) of the 4-byte offset-0 load_l2 points, not on the 16-byte points'.
inline constexpr const char* kL2NarrowCurve = "load_l2_narrow";
bool l2_narrow_point(const std::string& benchmark, long long elem_bytes);
// One point's second-order useful bandwidth (B/s) priced from `params`, a run of the same GPU whose
// 16-byte points give R(D) and whose W = 0 sweep gives the loaded-latency locus; `numbers` says how.
// The point is a suite point or one made from a runner's report (warpcost check --measure); a
// block_2d point may carry elem_bytes (else 4). nullopt: no second-order input for this benchmark,
// or `params` has no fit point of its level.
struct CoalescingSecondOrderPrice {
  double predicted = 0;
  double moved_rate = 0;  // R(D) at the point's spacing, moved B/s
  double in_flight = 0;   // the bytes-in-flight bound, moved B/s; 0: none at this level
  std::string numbers;
  bool fit_point = false;  // a point of R(D)'s fit set (16-byte offset 0; 4-byte for narrow L2): never judged
  // The point a parameter is read off (the granule's or the request ceiling's): never judged.
  bool parameter_point = false;
  double request_rate = 0;  // the request-rate ceiling, warp requests/s; 0: none in the parameter run
  int granule = 0;          // the measured granule DRAM loads are priced in, bytes; 0: not measured (64 used)
};
std::optional<CoalescingSecondOrderPrice> coalescing_second_order_price(const Run& params, const BenchmarkResult& point);
// The family's summary tables for one run (stride sweep, block shapes); empty without the family.
std::string coalescing_summary_markdown(const EvaluatedRun& run);

}  // namespace warpcost::analysis
