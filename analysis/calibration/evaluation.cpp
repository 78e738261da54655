// The calibration family against its bounds: the device-to-device copy against the theoretical
// DRAM peak, and the launch overhead (the floor the grid tail's times are taken from). The SM clock
// row every clocked benchmark gets is generic (analysis/evaluation.cpp).
#include <string>
#include <vector>

#include "analysis/calibration/family.hpp"
#include "core/calibration/schema.hpp"
#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "analysis/evaluation_support.hpp"
#include "core/counters.hpp"

namespace warpcost::analysis::calibration {
namespace {

using detail::base_row;
using detail::with_prediction;
namespace names = schema::calibration;

void evaluate_d2d_copy(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const double bytes = b.counter_median(schema::counter::kBytesRead) + b.counter_median(schema::calibration::counter::kBytesWritten);
  const double peak = model::theoretical_dram_peak_bytes_per_s(
      static_cast<long long>(run.context.number(schema::key::kMemoryClockKhz)),
      static_cast<int>(run.context.number(schema::key::kMemoryBusWidthBits)));
  Row r = base_row(b);
  r.metric = "dram__bytes.sum.per_second";
  r.value = bytes / b.median_seconds();
  r.unit = "B/s";
  r.model = "peak = memory clock x bus width/8 x 2";
  r = with_prediction(r, peak);
  const double share = r.value / peak;
  // A bound: reaching it or not tests no model; passing it is impossible, so the measurement is wrong.
  const bool impossible = share > 1.0 + kPeakMeasurementTolerance;
  r.verdict = impossible ? verdict::kError : verdict::kInfo;
  r.reason = Reason("calibration/copy_share_of_peak").number("share", share).flag("impossible", impossible);
  rows.push_back(r);

  Row pct = base_row(b);
  pct.metric = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  pct.value = 100.0 * share;
  pct.unit = "%";
  pct.model = "share of memory clock x bus width/8 x 2";
  pct.verdict = verdict::kInfo;
  pct.reason = Reason("calibration/copy_reference");
  rows.push_back(pct);
}

void evaluate_launch_overhead(const BenchmarkResult& b, std::vector<Row>& rows) {
  const double launches = b.counter_median(schema::calibration::counter::kLaunches);
  Row r = base_row(b);
  r.metric = "gpu__time_duration.per_launch";
  r.value = b.median_seconds() / launches;
  r.unit = "s";
  r.verdict = verdict::kInfo;
  r.reason = Reason("calibration/launch_overhead").number("launches", launches);
  rows.push_back(r);
}

class Calibration final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override { return names::descriptor(); }
  void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    if (b.benchmark == names::benchmark::kD2dCopy) evaluate_d2d_copy(run, b, rows);
    if (b.benchmark == names::benchmark::kLaunchOverhead) evaluate_launch_overhead(b, rows);
  }
  std::string render_reason(const Reason& reason) const override { return render(reason); }
};

}  // namespace

std::vector<const Family*> families() {
  static const Calibration family;
  return {&family};
}

}  // namespace warpcost::analysis::calibration
