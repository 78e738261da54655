#include "evaluation.hpp"

#include <cmath>
#include <cstdio>

#include "models.hpp"
#include "result_schema.hpp"
#include "statistics.hpp"

namespace warpcost::analysis {
namespace {

std::string fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

Row base_row(const BenchmarkResult& b) {
  Row r;
  r.family = b.family;
  r.benchmark = b.benchmark;
  r.params = b.params_text();
  return r;
}

Row with_prediction(Row r, double predicted) {
  r.predicted = predicted;
  if (predicted != 0.0) r.rel_error = (r.value - predicted) / predicted;
  return r;
}

void add_time_rows(const BenchmarkResult& b, std::vector<Row>& rows) {
  Row t = base_row(b);
  t.metric = "gpu__time_duration.median";
  t.value = b.median_seconds();
  t.unit = "s";
  t.verdict = verdict::kInfo;
  t.why = std::to_string(b.seconds.size()) + " repetition(s)";
  rows.push_back(t);
  if (b.seconds.size() < 2) return;

  Row cv = base_row(b);
  cv.metric = "gpu__time_duration.cv";
  cv.value = coefficient_of_variation(b.seconds);
  cv.unit = "ratio";
  cv.model = "cv <= 0.5% for kernels of 50 us or more";
  cv.predicted = kCvTarget;
  if (t.value < kCvMinSeconds) {
    cv.verdict = verdict::kInfo;
    cv.why = "kernel shorter than 50 us: launch jitter dominates, no CV target";
  } else if (cv.value <= kCvTarget) {
    cv.verdict = verdict::kHolds;
    cv.why = "CV " + fixed(100 * cv.value, 3) + "% over " + std::to_string(b.seconds.size()) +
             " repetitions";
  } else {
    cv.verdict = verdict::kWarn;
    cv.why = "CV " + fixed(100 * cv.value, 3) + "% is above 0.5%: noisy, repeat the run";
  }
  rows.push_back(cv);
}

void evaluate_sm_clock(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  Row r = base_row(b);
  r.metric = "sm__cycles_elapsed.avg.per_second";
  r.value = b.counter_median("sm_clock_hz");
  r.unit = "Hz";
  r.model = "max SM clock (cudaDevAttrClockRate)";
  const double max_hz = run.context.number(schema::key::kSmClockMaxKhz) * 1e3;
  r = with_prediction(r, max_hz);
  const double share = r.value / max_hz;
  if (share > 1.0 + kBoundSlack) {
    r.verdict = verdict::kFails;
    r.why = "measured clock is " + fixed(100 * share, 1) +
            "% of the reported maximum: clock64 and %globaltimer disagree with the attribute";
  } else if (share < kClockFloorFraction) {
    r.verdict = verdict::kWarn;
    r.why = "ran at " + fixed(100 * share, 1) +
            "% of the maximum clock (below 90%): throttled or not yet ramped";
  } else {
    r.verdict = verdict::kHolds;
    r.why = "ran at " + fixed(100 * share, 1) + "% of the maximum clock";
  }
  rows.push_back(r);
}

void evaluate_d2d_copy(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const double bytes = b.counter_median("bytes_read") + b.counter_median("bytes_written");
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
  if (share > 1.0 + kBoundSlack) {
    r.verdict = verdict::kFails;
    r.why = "copy moved " + fixed(100 * share, 1) +
            "% of the theoretical peak: the peak formula or the reported memory clock is wrong, "
            "or the copy ran from L2";
  } else {
    r.verdict = verdict::kHolds;
    r.why = "bound holds: the copy (bytes read + written) reached " + fixed(100 * share, 1) +
            "% of the theoretical peak";
  }
  rows.push_back(r);

  Row pct = base_row(b);
  pct.metric = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
  pct.value = 100.0 * share;
  pct.unit = "%";
  pct.model = "share of memory clock x bus width/8 x 2";
  pct.verdict = verdict::kInfo;
  pct.why = "device-to-device cudaMemcpy, the reference the streaming family is held against";
  rows.push_back(pct);
}

void evaluate_launch_overhead(const BenchmarkResult& b, std::vector<Row>& rows) {
  const double launches = b.counter_median("launches");
  Row r = base_row(b);
  r.metric = "gpu__time_duration.per_launch";
  r.value = b.median_seconds() / launches;
  r.unit = "s";
  r.verdict = verdict::kInfo;
  r.why = launches == 1 ? "one empty kernel between two events: the launch latency floor"
                        : fixed(launches, 0) + " empty kernels back to back: the issue rate";
  rows.push_back(r);
}

void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (b.error || b.seconds.empty()) {
    Row e = base_row(b);
    e.metric = "error";
    e.value = 1.0;
    e.verdict = verdict::kError;
    e.why = b.error ? b.error_message : "no timed repetitions";
    rows.push_back(e);
    return;
  }
  add_time_rows(b, rows);
  if (b.family == "calibration") {
    if (b.benchmark == "sm_clock") evaluate_sm_clock(run, b, rows);
    if (b.benchmark == "d2d_copy") evaluate_d2d_copy(run, b, rows);
    if (b.benchmark == "launch_overhead") evaluate_launch_overhead(b, rows);
  }
}

}  // namespace

std::vector<Row> evaluate_run(const Run& run) {
  std::vector<Row> rows;
  for (const auto& b : run.benchmarks) {
    try {
      evaluate_benchmark(run, b, rows);
    } catch (const std::exception& e) {
      throw RunFormatError(run.source.string(), b.run_name, e.what());
    }
  }
  return rows;
}

}  // namespace warpcost::analysis
