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

#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/statistics.hpp"
#include "core/counters.hpp"

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
  // Only a miss past its tolerance can be too noisy to decide; a row that holds says nothing of it.
  return miss > tolerance && undecided(miss, tolerance, sigma)
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

namespace {
// While one point is evaluated (evaluate_run's loop), the throttled points its evaluator looked up
// as references: they are returned, and afterwards the point's model rows read throttled. Outside
// that scope (a family's rows over the whole run) a throttled point is not returned at all.
thread_local std::vector<const BenchmarkResult*>* g_throttled_references = nullptr;
}  // namespace

const BenchmarkResult* find_benchmark(const Run& run, const std::string& family,
                                      const std::string& benchmark, const std::string& params) {
  for (const auto& other : run.benchmarks) {
    if (other.family == family && other.benchmark == benchmark && other.params_text() == params &&
        !other.error && !other.seconds.empty()) {
      if (!is_throttled(run, other)) return &other;
      if (g_throttled_references == nullptr) return nullptr;
      g_throttled_references->push_back(&other);
      return &other;
    }
  }
  return nullptr;
}

std::optional<model::LinearCost> two_point_cost(const std::vector<const BenchmarkResult*>& points,
                                                const std::function<double(const BenchmarkResult*)>& units,
                                                std::string& source) {
  if (points.size() < 2) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(points.begin(), points.end(),
                                            [&](const auto* a, const auto* b) { return units(a) < units(b); });
  if (units(*lo) == units(*hi)) return std::nullopt;
  source = (*lo)->params_text() + " and " + (*hi)->params_text();
  return model::linear_cost(units(*lo), (*lo)->median_seconds(), units(*hi), (*hi)->median_seconds());
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

Row relative_check(Row r, const std::string& model, double predicted, double tolerance, Reason reason) {
  r.model = model;
  r = with_prediction(r, predicted);
  // One profiled launch: no repetitions to call a miss noise, so a miss fails.
  const bool holds = std::fabs(*r.rel_error) <= tolerance;
  r.kind = kind::kModel;
  r.verdict = holds ? verdict::kHolds : verdict::kFails;
  r.reason = std::move(reason);
  r.reason.flag("check_holds", holds).number("check_tolerance", tolerance);
  return r;
}

void prefix_reason(Row& r, Reason note) {
  // A row without a sentence of its own still shows the note ("note; ").
  if (r.reason.code.empty()) r.reason.code = "core/no_sentence";
  r.reason.prefixes.insert(r.reason.prefixes.begin(), std::move(note));
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

double reference_sm_clock_mhz(const Run& run) {
  const auto& values = run.context.values;
  for (const char* key : {schema::key::kSmClockReferenceMhz, "sm_clock_max_mhz"}) {
    if (values.count(key) != 0) return run.context.number(key);
  }
  if (values.count(schema::key::kSmClockMaxKhz) != 0) return run.context.number(schema::key::kSmClockMaxKhz) / 1e3;
  return 0.0;
}

bool runs_at_application_clocks(const Run& run) {
  const auto it = run.context.values.find(schema::key::kSmClockReference);
  return it != run.context.values.end() && it->second.rfind("application clocks", 0) == 0;
}

std::string mig_instance(const Run& run) {
  const auto it = run.context.values.find(schema::key::kMigInstance);
  return it == run.context.values.end() || it->second == "none" ? std::string() : it->second;
}

bool is_throttled(const Run& run, const BenchmarkResult& b) {
  const auto lowest = b.counters.find(schema::counter::kWarpcostSmClockMhz);
  if (lowest == b.counters.end() || lowest->second.empty()) return false;
  const double reference_mhz = reference_sm_clock_mhz(run);
  if (reference_mhz <= 0.0) return false;
  const double low = *std::min_element(lowest->second.begin(), lowest->second.end());
  return low < kThrottleFraction * reference_mhz;
}

namespace {

using detail::base_row;
using detail::cv_of;
using detail::miss_verdict;
using detail::noise_note;
using detail::with_prediction;
using detail::judge;
using detail::prefix_reason;


void add_time_rows(const BenchmarkResult& b, std::vector<Row>& rows) {
  Row t = base_row(b);
  t.metric = "gpu__time_duration.median";
  t.value = b.median_seconds();
  t.unit = "s";
  t.verdict = verdict::kInfo;
  t.reason = Reason("core/repetitions").number("repetitions", static_cast<double>(b.seconds.size()));
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
    cv.reason = Reason("core/cv_short_kernel");
  } else {
    cv.kind = kind::kTarget;
    const bool met = cv.value <= kCvTarget;
    cv.verdict = met ? verdict::kMet : verdict::kMissed;
    cv.reason = Reason("core/cv").number("cv", cv.value).number("repetitions", static_cast<double>(b.seconds.size())).flag("met", met);
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
  r.reason = Reason("core/sm_clock").number("share", share);
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
    r.reason = Reason("core/counter_pass");
    rows.push_back(r);
  }
}

void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  if (b.error || b.seconds.empty()) {
    Row e = base_row(b);
    e.metric = "error";
    e.value = 1.0;
    e.verdict = verdict::kError;
    e.reason = b.error ? Reason("core/benchmark_error").text("message", b.error_message) : Reason("core/no_repetitions");
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

namespace {

// NVML's clocks-event reasons (nvml.h, nvmlClocksEventReasons) by name, for the throttled note.
std::string clock_event_reasons_text(double bits) {
  static const std::pair<unsigned, const char*> kReasons[] = {
      {0x2, "application clocks"}, {0x4, "software power cap"}, {0x8, "hardware slowdown"},
      {0x10, "sync boost"},        {0x20, "software thermal"},  {0x40, "hardware thermal"},
      {0x80, "power brake"},       {0x100, "display clocks"}};
  if (!(bits >= 1.0) || bits > 4294967295.0) return "";
  const auto mask = static_cast<unsigned>(bits);
  std::string text;
  for (const auto& [bit, name] : kReasons) {
    if ((mask & bit) != 0) text += (text.empty() ? "" : ", ") + std::string(name);
  }
  return text.empty() ? "" : " (NVML's reasons: " + text + ")";
}

void add_machine_state(Row& r, const char* state) {
  if (r.machine_state.find(state) != std::string::npos) return;
  r.machine_state += (r.machine_state.empty() ? "" : ";") + std::string(state);
}

// The whole run's states: another process seen during a run that did not record it per point,
// an administrator's application clocks, a MIG instance.
std::vector<const char*> run_states(const Run& run) {
  std::vector<const char*> states;
  bool per_point = false;
  for (const auto& b : run.benchmarks) per_point = per_point || b.has_counter(schema::counter::kWarpcostOtherProcesses);
  const auto others = run.context.values.find(schema::key::kOtherGpuProcesses);
  if (!per_point && others != run.context.values.end() && others->second != "none" &&
      others->second.rfind("unknown", 0) != 0) {
    states.push_back(machine_state::kOtherProcess);
  }
  if (runs_at_application_clocks(run)) states.push_back(machine_state::kApplicationClocks);
  if (!mig_instance(run).empty()) states.push_back(machine_state::kMigInstance);
  return states;
}

// A point's rows once evaluated: throttled (its model rows kept out, a marker row added), or
// measured while another process used the GPU (the rows say so, the verdicts stand).
void mark_point_states(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows, std::size_t first) {
  if (b.error) return;
  if (b.has_counter(schema::counter::kWarpcostOtherProcesses) &&
      b.counter_median(schema::counter::kWarpcostOtherProcesses) > 0.0) {
    for (std::size_t i = first; i < rows.size(); ++i) {
      add_machine_state(rows[i], machine_state::kOtherProcess);
      if (rows[i].kind == kind::kModel || rows[i].kind == kind::kTarget) {
        prefix_reason(rows[i], Reason("core/state_other_process"));
      }
    }
  }
  if (!is_throttled(run, b)) return;
  // nvbench discards such samples; here the point stays visible but judges no model.
  const auto low = b.counters.at(schema::counter::kWarpcostSmClockMhz);
  const double low_mhz = *std::min_element(low.begin(), low.end());
  const double reasons = b.has_counter(schema::counter::kWarpcostClockEventReasons)
                            ? b.counter_median(schema::counter::kWarpcostClockEventReasons)
                            : 0.0;
  const Reason note = Reason("core/state_throttled")
                          .number("low_mhz", low_mhz)
                          .flag("application_clocks", runs_at_application_clocks(run))
                          .number("clock_event_reasons", reasons);
  for (std::size_t i = first; i < rows.size(); ++i) {
    add_machine_state(rows[i], machine_state::kThrottled);
    if (rows[i].kind != kind::kModel) continue;
    rows[i].verdict = verdict::kThrottled;
    prefix_reason(rows[i], note);
  }
  Row t = base_row(b);
  t.metric = "sm_clock_low_mhz";
  t.value = low_mhz;
  t.unit = "MHz";
  t.verdict = verdict::kThrottled;
  t.reason = Reason(note).flag("marker", true);
  add_machine_state(t, machine_state::kThrottled);
  rows.push_back(t);
}

bool same_row(const Row& a, const Row& b) {
  const auto same_number = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return a.metric == b.metric && a.model == b.model && a.params == b.params && a.kind == b.kind &&
         a.verdict == b.verdict && same_number(a.value, b.value) && a.predicted.has_value() == b.predicted.has_value() &&
         (!a.predicted || same_number(*a.predicted, *b.predicted));
}

// A point judged against a reference point that ran throttled: the model rows that depend on the
// reference read throttled too (the point ran at its clock; the figure it is held against did not).
// Which rows depend on it is found by evaluating the point again with the throttled references
// hidden (find_benchmark then returns none): a row that changes or disappears depends on them.
void mark_throttled_references(const Run& run, const BenchmarkResult& b,
                               const std::vector<const BenchmarkResult*>& references, std::vector<Row>& rows,
                               std::size_t first) {
  std::string names;
  for (const BenchmarkResult* ref : references) {
    if (ref == &b || names.find(ref->run_name) != std::string::npos) continue;
    names += (names.empty() ? "" : ", ") + ref->run_name;
  }
  if (names.empty() || is_throttled(run, b)) return;
  std::vector<Row> without;
  evaluate_benchmark(run, b, without);
  for (std::size_t i = first; i < rows.size(); ++i) {
    if (rows[i].kind != kind::kModel) continue;
    const bool independent =
        std::any_of(without.begin(), without.end(), [&](const Row& w) { return same_row(w, rows[i]); });
    if (independent) continue;
    add_machine_state(rows[i], machine_state::kThrottled);
    rows[i].verdict = verdict::kThrottled;
    prefix_reason(rows[i], Reason("core/state_throttled_reference").text("names", names));
  }
}

// An evaluator that throws costs only its own rows: they become one error row naming why.
Row evaluation_error_row(const std::string& family, const std::string& benchmark, const std::string& params,
                         const std::string& what) {
  Row e;
  e.family = family;
  e.benchmark = benchmark;
  e.params = params;
  e.metric = "evaluation_error";
  e.value = 1.0;
  e.verdict = verdict::kError;
  e.reason = Reason("core/evaluation_error").text("what", what);
  return e;
}

}  // namespace

Row detail::parameter_row(const std::string& family, const std::string& params, const std::string& metric, double value,
                          const std::string& unit, const std::string& what, const std::string& source) {
  Row r;
  r.family = family;
  r.benchmark = "second_order_parameters";
  r.params = params;
  r.metric = metric;
  r.value = value;
  r.unit = unit;
  r.kind = kind::kInfo;
  r.verdict = verdict::kInfo;
  r.reason = Reason("core/second_order_parameter").text("what", what).text("source", source);
  return r;
}

// The second-order models' MAE per family against the targets declared before their first GPU run
// (docs/models.md), beside the MAE of the family's textbook model rows.
bool judged_model_row(const Row& r) {
  return r.kind == kind::kModel && r.rel_error.has_value() &&
         (r.verdict == verdict::kHolds || r.verdict == verdict::kFails || r.verdict == verdict::kWarn);
}

bool is_second_order(const Row& r) { return r.model.rfind(kSecondOrderPrefix, 0) == 0; }

void second_order_mae_rows(std::vector<Row>& rows) {
  struct Target {
    const char* family;
    const char* metric;
    double target;
  };
  static const Target targets[] = {{"streaming", "second_order_bandwidth", kSecondOrderStreamMaeTarget},
                                   {"partial_warp", "second_order_relative_time", kSecondOrderTailMaeTarget},
                                   {"divergence", "second_order_grid_slowdown", kSecondOrderSlowdownMaeTarget},
                                   {"coalescing", "second_order_useful_bandwidth", kSecondOrderCoalescingMaeTarget},
                                   {"warp_primitives", "second_order_throughput", kSecondOrderPrimitivesMaeTarget}};
  std::vector<Row> added;
  for (const Target& t : targets) {
    double sum = 0.0;
    int n = 0;
    int fails = 0;
    double textbook_sum = 0.0;
    int textbook_n = 0;
    for (const Row& r : rows) {
      if (r.family != t.family || !judged_model_row(r)) continue;
      if (r.metric == t.metric && is_second_order(r)) {
        sum += std::fabs(*r.rel_error);
        ++n;
        if (r.verdict != verdict::kHolds) ++fails;
      } else if (!is_second_order(r)) {
        textbook_sum += std::fabs(*r.rel_error);
        ++textbook_n;
      }
    }
    if (n == 0) continue;
    Row m;
    m.family = t.family;
    m.benchmark = "second_order";
    m.metric = std::string(t.metric) + "_mae";
    m.value = sum / n;
    m.unit = "ratio";
    m.model = std::string(kSecondOrderPrefix) + "mean |rel_error| of the family's judged " + t.metric + " rows";
    m.kind = kind::kTarget;
    m.verdict = m.value <= t.target ? verdict::kMet : verdict::kMissed;
    m.reason = Reason("core/second_order_mae")
                   .number("mae", m.value)
                   .number("rows", n)
                   .number("past_tolerance", fails)
                   .number("target", t.target)
                   .number("textbook_rows", textbook_n)
                   .number("textbook_mae", textbook_n > 0 ? textbook_sum / textbook_n : 0.0);
    added.push_back(m);
  }
  rows.insert(rows.end(), added.begin(), added.end());
}

std::vector<Row> evaluate_run(const Run& run) {
  std::vector<Row> rows;
  for (const auto& b : run.benchmarks) {
    const std::size_t first = rows.size();
    try {
      std::vector<const BenchmarkResult*> throttled_references;
      detail::g_throttled_references = &throttled_references;
      struct Reset {
        ~Reset() { detail::g_throttled_references = nullptr; }
      } reset;
      evaluate_benchmark(run, b, rows);
      detail::g_throttled_references = nullptr;
      mark_point_states(run, b, rows, first);
      mark_throttled_references(run, b, throttled_references, rows, first);
    } catch (const std::exception& e) {
      rows.resize(first);
      rows.push_back(evaluation_error_row(b.family, b.benchmark, b.params_text(), e.what()));
    }
  }
  std::map<std::string, const BenchmarkResult*> points;
  for (const auto& b : run.benchmarks) points[b.family + "|" + b.benchmark + "|" + b.params_text()] = &b;
  for (const Family* family : families()) {
    const std::size_t first = rows.size();
    try {
      family->evaluate_run(run, rows);
    } catch (const std::exception& e) {
      rows.resize(first);
      rows.push_back(evaluation_error_row(family->descriptor().name, "(run)", "", e.what()));
    }
    // A run-level row about one point (the second-order curves' rows) carries that point's states.
    for (std::size_t i = first; i < rows.size(); ++i) {
      const auto it = points.find(rows[i].family + "|" + rows[i].benchmark + "|" + rows[i].params);
      if (it == points.end() || it->second->error) continue;
      const BenchmarkResult& b = *it->second;
      if (b.has_counter(schema::counter::kWarpcostOtherProcesses) &&
          b.counter_median(schema::counter::kWarpcostOtherProcesses) > 0.0) {
        add_machine_state(rows[i], machine_state::kOtherProcess);
        if (rows[i].kind == kind::kModel || rows[i].kind == kind::kTarget) {
          prefix_reason(rows[i], Reason("core/state_other_process"));
        }
      }
      if (is_throttled(run, b)) {
        add_machine_state(rows[i], machine_state::kThrottled);
        if (rows[i].kind == kind::kModel) {
          rows[i].verdict = verdict::kThrottled;
          prefix_reason(rows[i], Reason("core/state_throttled_point"));
        }
      }
    }
  }
  second_order_mae_rows(rows);
  for (const char* state : run_states(run)) {
    for (Row& r : rows) add_machine_state(r, state);
  }
  render_reasons(rows);
  return rows;
}

void render_reasons(std::vector<Row>& rows) {
  for (Row& r : rows) {
    if (r.reason.code.empty()) continue;
    try {
      r.why = render_reason(r.reason);
    } catch (const std::exception& e) {
      Row e_row = evaluation_error_row(r.family, r.benchmark, r.params,
                                       "the reason of row " + r.metric + " could not be rendered: " + e.what());
      e_row.machine_state = r.machine_state;
      e_row.why = render_reason(e_row.reason);
      r = e_row;
    }
  }
}

namespace {

// The shared sentences: the rows every benchmark gets, the machine states, the MAE targets.
std::string render_core(const Reason& r) {
  const std::string s = r.sentence();
  auto count = [&](const char* key) { return std::to_string(std::llround(r.n(key))); };
  if (s == "repetitions") return count("repetitions") + " repetition(s)";
  if (s == "cv_short_kernel") return "kernel shorter than 50 us: launch jitter dominates, no CV target";
  if (s == "cv") {
    return "CV " + fixed(100 * r.n("cv"), 3) + "% over " + count("repetitions") + " repetitions" +
           (r.f("met") ? "" : ": above 0.5%, noisy, repeat the run");
  }
  if (s == "sm_clock") {
    return "ran at " + fixed(100 * r.n("share"), 1) + "% of the maximum clock" +
           (r.n("share") > 1.02 ? ": above the maximum, so clock64 and %globaltimer disagree with the attribute" : "");
  }
  if (s == "counter_pass") return source_note();
  if (s == "benchmark_error") return r.t("message");
  if (s == "no_repetitions") return "no timed repetitions";
  if (s == "evaluation_error") return "the analysis could not evaluate this: " + r.t("what");
  if (s == "state_other_process") return "another process computed on the GPU while this point ran";
  if (s == "state_throttled") {
    return "throttled: SM clock fell to " + fixed(r.n("low_mhz"), 0) + " MHz, under 95% of the " +
           (r.f("application_clocks") ? "application clock" : "maximum") + clock_event_reasons_text(r.n("clock_event_reasons")) +
           (r.has_flag("marker") && r.f("marker") ? ": kept out of every model verdict" : "");
  }
  if (s == "state_throttled_reference") {
    return "throttled: its reference point " + r.t("names") + " ran under 95% of the reference clock";
  }
  if (s == "state_throttled_point") return "throttled: SM clock under 95% of the reference";
  if (s == "no_sentence") return "";
  if (s == "schema_refused") return "the CSV schema refused this row (it was " + r.t("was") + "): " + r.t("what");
  if (s == "second_order_parameter") {
    return r.t("what") + ", a parameter of the second-order models (docs/models.md), measured by " + r.t("source");
  }
  if (s == "second_order_mae") {
    return "MAE " + fixed(100 * r.n("mae"), 2) + "% over " + count("rows") + " judged rows (" + count("past_tolerance") +
           " past their tolerance), target at most " + fixed(100 * r.n("target"), 0) +
           "% (docs/models.md); the family's textbook model rows: MAE " +
           (r.n("textbook_rows") > 0 ? fixed(100 * r.n("textbook_mae"), 2) + "% over " + count("textbook_rows") + " rows"
                                     : std::string("none"));
  }
  throw std::logic_error("no shared sentence '" + r.code + "'");
}

}  // namespace

std::string render_reason(const Reason& reason) {
  std::string out;
  for (const Reason& p : reason.prefixes) out += render_reason(p) + "; ";
  const auto slash = reason.code.find('/');
  const std::string owner = reason.code.substr(0, slash);
  std::string sentence;
  if (owner == "core") {
    sentence = render_core(reason);
  } else if (const Family* family = family_named(owner); family != nullptr && slash != std::string::npos) {
    sentence = family->render_reason(reason);
  } else {
    throw std::logic_error("no renderer for reason '" + reason.code + "'");
  }
  if (reason.has_flag("check_holds") && !reason.f("check_holds")) {
    sentence += "; off by more than " + fixed(100 * reason.n("check_tolerance"), 0) + "%";
  }
  for (const Reason& a : reason.after_check) sentence += render_reason(a);
  return out + sentence;
}

}  // namespace warpcost::analysis
