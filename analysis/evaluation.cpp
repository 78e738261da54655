#include "analysis/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "analysis/evaluation_support.hpp"
#include "analysis/family.hpp"

#include "analysis/core/models.hpp"
#include "analysis/core/result_schema.hpp"
#include "analysis/core/statistics.hpp"
#include "analysis/core/counters.hpp"

namespace warpcost::analysis {
namespace detail {

double cv_of(const BenchmarkResult& b) { return point_uncertainty(b); }

// A miss past its tolerance by no more than kWarnNoiseMultiple x the uncertainty of the compared
// statistic cannot be decided by this run: warn (repeat with more samples), not a failure of the
// model. What is held against the noise is the excess over the tolerance, not the whole miss: the
// tolerance already absorbs the model's own slack, and noise can only blur the tolerance's edge.
bool undecided(double miss, double tolerance, double sigma) {
  return miss - tolerance <= kWarnNoiseMultiple * sigma;
}

const char* miss_verdict(double miss, double tolerance, double sigma) {
  return undecided(miss, tolerance, sigma) ? verdict::kWarn : verdict::kFails;
}

std::string noise_note(double miss, double tolerance, double sigma) {
  return undecided(miss, tolerance, sigma)
             ? ", " + fixed(100 * (miss - tolerance), 2) +
                   "% past the tolerance, within twice the statistic's uncertainty (" +
                   fixed(100 * sigma, 2) + "%): too noisy to decide"
             : "";
}

void judge(Row& r, double miss, double tolerance, double sigma) {
  r.kind = kind::kModel;
  r.verdict = miss <= tolerance ? verdict::kHolds : miss_verdict(miss, tolerance, sigma);
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

const BenchmarkResult* find_benchmark(const Run& run, const std::string& family,
                                      const std::string& benchmark, const std::string& params) {
  for (const auto& other : run.benchmarks) {
    if (other.family == family && other.benchmark == benchmark && other.params_text() == params &&
        !other.error && !other.seconds.empty() && !is_throttled(run, other)) {
      return &other;
    }
  }
  return nullptr;
}

long long iparam(const BenchmarkResult& b, const std::string& key) {
  return std::llround(b.param(key));
}

double dram_peak(const Run& run) {
  return model::theoretical_dram_peak_bytes_per_s(
      static_cast<long long>(run.context.number(schema::key::kMemoryClockKhz)),
      static_cast<int>(run.context.number(schema::key::kMemoryBusWidthBits)));
}

model::ArchParams arch_of(const Run& run) {
  const std::string& cc = run.context.text(schema::key::kCc);
  const auto dot = cc.find('.');
  return model::arch_params(std::stoi(cc.substr(0, dot)),
                            dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1)));
}

Row counter_row(const BenchmarkResult& b, const std::string& metric, const std::string& unit) {
  Row r = base_row(b);
  r.metric = metric;
  r.value = b.counter_median(metric);
  r.unit = unit;
  return r;
}

Row relative_check(Row r, const std::string& model, double predicted, double tolerance,
                   const std::string& why) {
  r.model = model;
  r = with_prediction(r, predicted);
  // One profiled launch: no repetitions to call a miss noise, so a miss fails.
  const bool holds = std::fabs(*r.rel_error) <= tolerance;
  r.kind = kind::kModel;
  r.verdict = holds ? verdict::kHolds : verdict::kFails;
  r.why = why + (holds ? "" : "; off by more than " + fixed(100 * tolerance, 0) + "%");
  return r;
}

}  // namespace detail

namespace {
double g_split_tolerance = kSplitTolerance;
}  // namespace

double split_tolerance() { return g_split_tolerance; }

ScopedSplitTolerance::ScopedSplitTolerance(double tolerance) : previous_(g_split_tolerance) {
  g_split_tolerance = tolerance;
}

ScopedSplitTolerance::~ScopedSplitTolerance() { g_split_tolerance = previous_; }

double point_noise(const BenchmarkResult& b) {
  if (b.has_counter(schema::counter::kWarpcostNoise)) return b.counter_median(schema::counter::kWarpcostNoise);
  return coefficient_of_variation(b.seconds);
}

double point_uncertainty(const BenchmarkResult& b) {
  // The bench's own samples: their relative standard deviation over the square root of their count.
  if (b.has_counter(schema::counter::kWarpcostNoise) && b.has_counter(schema::counter::kWarpcostSamples) &&
      b.counter_median(schema::counter::kWarpcostSamples) >= 1.0) {
    return b.counter_median(schema::counter::kWarpcostNoise) / std::sqrt(b.counter_median(schema::counter::kWarpcostSamples));
  }
  return relative_median_standard_error(b.seconds);
}

double counter_uncertainty(const BenchmarkResult& b, const std::string& counter) {
  const auto it = b.counters.find(counter);
  return it == b.counters.end() ? 0.0 : relative_median_standard_error(it->second);
}

bool is_throttled(const Run& run, const BenchmarkResult& b) {
  const auto lowest = b.counters.find(schema::counter::kWarpcostSmClockMhz);
  if (lowest == b.counters.end() || lowest->second.empty()) return false;
  double max_mhz = 0.0;
  if (run.context.values.count("sm_clock_max_mhz") != 0) {
    max_mhz = run.context.number("sm_clock_max_mhz");
  } else if (run.context.values.count(schema::key::kSmClockMaxKhz) != 0) {
    max_mhz = run.context.number(schema::key::kSmClockMaxKhz) / 1e3;
  }
  if (max_mhz <= 0.0) return false;
  const double low = *std::min_element(lowest->second.begin(), lowest->second.end());
  return low < kThrottleFraction * max_mhz;
}

namespace {

using detail::base_row;
using detail::cv_of;
using detail::miss_verdict;
using detail::noise_note;
using detail::with_prediction;
using detail::judge;


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
  cv.model = "target: cv <= 0.5% for kernels of 50 us or more";
  cv.predicted = kCvTarget;
  if (t.value < kCvMinSeconds) {
    cv.verdict = verdict::kInfo;
    cv.why = "kernel shorter than 50 us: launch jitter dominates, no CV target";
  } else {
    cv.kind = kind::kTarget;
    const bool met = cv.value <= kCvTarget;
    cv.verdict = met ? verdict::kMet : verdict::kMissed;
    cv.why = "CV " + fixed(100 * cv.value, 3) + "% over " + std::to_string(b.seconds.size()) +
             " repetitions" + (met ? "" : ": above 0.5%, noisy, repeat the run");
  }
  rows.push_back(cv);
}

void evaluate_sm_clock(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  Row r = base_row(b);
  r.metric = "sm__cycles_elapsed.avg.per_second";
  r.value = b.counter_median(schema::counter::kSmClockHz);
  r.unit = "Hz";
  r.model = "max SM clock (cudaDevAttrClockRate)";
  const double max_hz = run.context.number(schema::key::kSmClockMaxKhz) * 1e3;
  r = with_prediction(r, max_hz);
  const double share = r.value / max_hz;
  // A bound, not a model: the clock cannot exceed its maximum, and a low clock flags the point as
  // throttled (is_throttled) rather than failing anything here.
  r.verdict = verdict::kInfo;
  r.why = "ran at " + fixed(100 * share, 1) + "% of the maximum clock" +
          (share > 1.02 ? ": above the maximum, so clock64 and %globaltimer disagree with the "
                          "attribute"
                        : "");
  rows.push_back(r);
}

// ---- the counter pass's metrics ----------------------------------------------------------------

const char* source_note() { return "CUPTI counter pass, one profiled launch after the timed ones"; }

bool is_ncu_metric(const std::string& name) { return name.find("__") != std::string::npos; }

// "metric=unit;metric=unit" from the run's context; empty for runs before the counter pass.
CounterUnits counter_units(const Run& run) {
  const auto it = run.context.values.find(schema::key::kCounterUnits);
  return it == run.context.values.end() ? CounterUnits{} : parse_key_values(it->second);
}

// Every Nsight Compute metric a benchmark carries becomes a row under its own name and unit; the
// ones that test a model of its family are held against it by the family (Family::evaluate_counters).
void evaluate_counters(const Run& run, const Family* family, const BenchmarkResult& b,
                       std::vector<Row>& rows) {
  std::vector<std::string> metrics;
  for (const auto& [name, values] : b.counters) {
    if (is_ncu_metric(name) && !values.empty()) metrics.push_back(name);
  }
  if (metrics.empty()) return;
  const CounterUnits units = counter_units(run);
  std::set<std::string> done;
  if (family != nullptr) family->evaluate_counters(run, b, units, rows, done);
  for (const auto& m : metrics) {
    if (done.count(m) != 0) continue;
    Row r = detail::counter_row(b, m, units.count(m) ? units.at(m) : "");
    r.verdict = verdict::kInfo;
    r.why = source_note();
    rows.push_back(r);
  }
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
  // Any benchmark that measured its SM clock is held against the maximum like the calibration one.
  if (b.has_counter(schema::counter::kSmClockHz)) evaluate_sm_clock(run, b, rows);
  const Family* family = family_named(b.family);
  if (family != nullptr) family->evaluate_benchmark(run, b, rows);
  evaluate_counters(run, family, b, rows);
}

}  // namespace

std::vector<Row> evaluate_run(const Run& run) {
  std::vector<Row> rows;
  for (const auto& b : run.benchmarks) {
    try {
      const std::size_t first = rows.size();
      evaluate_benchmark(run, b, rows);
      if (!b.error && is_throttled(run, b)) {
        // nvbench discards such samples; here the point stays visible but judges no model.
        const auto low = b.counters.at(schema::counter::kWarpcostSmClockMhz);
        const std::string note = "throttled: SM clock fell to " +
                                 fixed(*std::min_element(low.begin(), low.end()), 0) +
                                 " MHz, under 95% of the maximum";
        for (std::size_t i = first; i < rows.size(); ++i) {
          if (rows[i].kind != kind::kModel) continue;
          rows[i].verdict = verdict::kThrottled;
          rows[i].why = note + "; " + rows[i].why;
        }
        Row t = base_row(b);
        t.metric = "sm_clock_low_mhz";
        t.value = *std::min_element(low.begin(), low.end());
        t.unit = "MHz";
        t.verdict = verdict::kThrottled;
        t.why = note + ": kept out of every model verdict";
        rows.push_back(t);
      }
    } catch (const std::exception& e) {
      throw RunFormatError(run.source.string(), b.run_name, e.what());
    }
  }
  for (const Family* family : families()) family->evaluate_run(run, rows);
  return rows;
}

}  // namespace warpcost::analysis
