#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/result_schema.hpp"
#include "core/statistics.hpp"
#include "core/text_format.hpp"
#include "analysis/tidy_csv.hpp"
#include "core/counters.hpp"

namespace warpcost::analysis {
namespace {

// U of sample a against b: pairs with a < b count 1, ties one half.
double u_statistic(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0;
  for (const double x : a) {
    for (const double y : b) u += x < y ? 1.0 : (x == y ? 0.5 : 0.0);
  }
  return u;
}

// The two-sided U test's smallest p-value for n and m untied values: the two extreme splits of
// the C(n+m, n) possible.
double smallest_p(std::size_t n, std::size_t m) {
  double splits = 1.0;
  for (std::size_t i = 1; i <= n; ++i) splits = splits * static_cast<double>(m + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / splits);
}

std::string pct(double ratio) { return format_number("%+.2f", 100.0 * (ratio - 1.0)) + "%"; }

std::string mhz(double hz) { return format_number("%.0f", hz / 1e6) + " MHz"; }

Measurements measurements(const BenchmarkResult& b, std::vector<double> values) {
  Measurements m;
  m.values = std::move(values);
  if (b.has_counter(schema::counter::kWarpcostNoise) && b.has_counter(schema::counter::kWarpcostSamples)) {
    m.has_sample_noise = true;
    m.sample_noise = b.counter_median(schema::counter::kWarpcostNoise);
    m.samples = b.counter_median(schema::counter::kWarpcostSamples);
  }
  return m;
}

// The clock counter of b that holds one value a repetition, or nullptr.
const std::vector<double>* clock_counter(const BenchmarkResult& b, const char* name) {
  const auto it = b.counters.find(name);
  return it == b.counters.end() || it->second.empty() ? nullptr : &it->second;
}

}  // namespace

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) {
    throw std::invalid_argument("Mann-Whitney U test: both samples need at least one value");
  }
  const double n = static_cast<double>(a.size());
  const double m = static_cast<double>(b.size());
  const double centre = n * m / 2.0;
  const double observed = std::fabs(u_statistic(a, b) - centre);
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  if (pooled.size() <= 20) {
    // Every way to pick |a| of the pooled values as "a": the exact permutation distribution.
    long long extreme = 0;
    long long total = 0;
    const std::size_t size = pooled.size();
    std::vector<double> x;
    std::vector<double> y;
    for (unsigned long mask = 0; mask < (1ul << size); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcountl(mask)) != a.size()) continue;
      x.clear();
      y.clear();
      for (std::size_t j = 0; j < size; ++j) ((mask >> j) & 1ul ? x : y).push_back(pooled[j]);
      ++total;
      if (std::fabs(u_statistic(x, y) - centre) >= observed - 1e-9) ++extreme;
    }
    return static_cast<double>(extreme) / static_cast<double>(total);
  }
  // Normal approximation with continuity correction (no tie correction beyond 20 values).
  const double sigma = std::sqrt(n * m * (n + m + 1.0) / 12.0);
  const double z = (observed - 0.5) / sigma;
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

Judgement judge(const Measurements& base, const Measurements& next) {
  Judgement j;
  j.base_median = median(base.values);
  j.new_median = median(next.values);
  j.ratio = j.new_median / j.base_median;
  const std::size_t n = base.values.size();
  const std::size_t m = next.values.size();
  const double floor_p = smallest_p(n, m);
  const bool samples_usable = base.has_sample_noise && next.has_sample_noise && base.samples >= 2 &&
                              next.samples >= 2;
  std::string evidence;
  std::string overlap_note;
  if (floor_p < kSignificance || !samples_usable) {
    j.test = floor_p < kSignificance ? compare_test::kRepetitions : compare_test::kNone;
    j.p_value = mann_whitney_p(base.values, next.values);
    evidence = std::to_string(n) + " and " + std::to_string(m) + " repetitions, U-test p = " +
               format_number("%.3g", j.p_value);
    overlap_note = floor_p >= kSignificance
                       ? "; with so few repetitions the smallest possible p is " +
                             format_number("%.3g", floor_p) +
                             (base.has_sample_noise || next.has_sample_noise
                                  ? ""
                                  : " and the runs record no sample noise")
                       : ", CVs " + format_number("%.2f", 100 * coefficient_of_variation(base.values)) +
                             "% and " + format_number("%.2f", 100 * coefficient_of_variation(next.values)) + "%";
  } else {
    // Too few repetitions for the U test: the points' own samples decide. log(ratio) against the
    // two medians' standard errors combined.
    j.test = compare_test::kSamples;
    const double se_base = kMedianStandardErrorFactor * base.sample_noise / std::sqrt(base.samples);
    const double se_new = kMedianStandardErrorFactor * next.sample_noise / std::sqrt(next.samples);
    const double se = std::hypot(se_base, se_new);
    const double distance = std::fabs(std::log(j.ratio));
    j.p_value = se > 0 ? std::erfc(distance / se / std::sqrt(2.0)) : (distance > 0 ? 0.0 : 1.0);
    evidence = format_number("%.0f", base.samples) + " and " + format_number("%.0f", next.samples) +
               " samples of noise " + format_number("%.2f", 100 * base.sample_noise) + "% and " +
               format_number("%.2f", 100 * next.sample_noise) + "%, z-test p = " +
               format_number("%.3g", j.p_value);
    overlap_note = "";
  }
  if (std::fabs(j.ratio - 1.0) < kSameBand) {
    j.verdict = compare_verdict::kSame;
    j.why = "medians " + pct(j.ratio) + " apart, inside the 1% band (" + evidence + ")";
  } else if (j.p_value < kSignificance) {
    j.verdict = j.ratio < 1.0 ? compare_verdict::kFaster : compare_verdict::kSlower;
    j.why = "new median " + pct(j.ratio) + " and the measurements separate (" + evidence + ")";
  } else {
    j.verdict = compare_verdict::kUnclear;
    j.why = "medians " + pct(j.ratio) + " apart but the measurements overlap (" + evidence +
            overlap_note + ")";
  }
  return j;
}

std::vector<double> repetition_clocks_hz(const Run& run, const BenchmarkResult& b, std::string* source) {
  const std::size_t reps = b.seconds.size();
  const std::vector<double>* point_mhz = clock_counter(b, "warpcost_sm_clock_mhz");
  const std::vector<double>* point_hz = clock_counter(b, "sm_clock_hz");
  if (point_mhz != nullptr || point_hz != nullptr) {
    if (source != nullptr) *source = "point";
    const double scale = point_mhz != nullptr ? 1e6 : 1.0;
    const std::vector<double>& values = point_mhz != nullptr ? *point_mhz : *point_hz;
    if (values.size() == reps) {
      std::vector<double> out;
      for (const double v : values) out.push_back(v * scale);
      return out;
    }
    // A counter missing from some repetitions: its median stands for all of them.
    return std::vector<double>(reps, median(values) * scale);
  }
  if (source != nullptr) *source = "run";
  return std::vector<double>(reps, run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3);
}

std::string gpu_label(const Run& run) {
  const std::string& uuid = run.context.text(schema::key::kGpuUuid);
  const std::string hex = uuid.rfind("GPU-", 0) == 0 ? uuid.substr(4) : uuid;
  return run.context.text(schema::key::kGpuName) + " (GPU-" + hex.substr(0, 8) + ")";
}

RunComparison compare_runs(const Run& base, const Run& next) {
  RunComparison c;
  c.base_run = base.run_id();
  c.new_run = next.run_id();
  c.base_gpu = gpu_label(base);
  c.new_gpu = gpu_label(next);
  std::map<std::string, const BenchmarkResult*> in_new;
  for (const auto& b : next.benchmarks) in_new[b.run_name] = &b;
  std::map<std::string, bool> matched;
  for (const auto& b : base.benchmarks) {
    const auto it = in_new.find(b.run_name);
    if (it == in_new.end()) {
      c.only_in_base.push_back(b.run_name);
      continue;
    }
    matched[b.run_name] = true;
    const BenchmarkResult& n = *it->second;
    BenchmarkComparison r;
    r.family = b.family;
    r.benchmark = b.benchmark;
    r.params = b.params_text();
    if (b.error || n.error || b.seconds.empty() || n.seconds.empty()) {
      r.verdict = r.cycles_verdict = compare_verdict::kError;
      r.why = b.error ? "base: " + b.error_message
                      : n.error ? "new: " + n.error_message : "no timed repetitions";
      r.cycles_why = r.why;
      c.rows.push_back(r);
      continue;
    }
    const Judgement time = judge(measurements(b, b.seconds), measurements(n, n.seconds));
    r.base_median_s = time.base_median;
    r.new_median_s = time.new_median;
    r.ratio = time.ratio;
    r.base_cv = coefficient_of_variation(b.seconds);
    r.new_cv = coefficient_of_variation(n.seconds);
    r.p_value = time.p_value;
    r.verdict = time.verdict;
    r.why = time.why;

    const std::vector<double> base_clock = repetition_clocks_hz(base, b, &r.base_clock_source);
    const std::vector<double> new_clock = repetition_clocks_hz(next, n, &r.new_clock_source);
    std::vector<double> base_cycles;
    std::vector<double> new_cycles;
    for (std::size_t i = 0; i < b.seconds.size(); ++i) base_cycles.push_back(b.seconds[i] * base_clock[i]);
    for (std::size_t i = 0; i < n.seconds.size(); ++i) new_cycles.push_back(n.seconds[i] * new_clock[i]);
    r.base_clock_hz = median(base_clock);
    r.new_clock_hz = median(new_clock);
    const Judgement cycles = judge(measurements(b, base_cycles), measurements(n, new_cycles));
    r.cycles_ratio = cycles.ratio;
    r.cycles_p_value = cycles.p_value;
    r.cycles_verdict = cycles.verdict;
    r.cycles_why = "at " + mhz(r.base_clock_hz) + " (" + r.base_clock_source + ") and " +
                   mhz(r.new_clock_hz) + " (" + r.new_clock_source + "): " + cycles.why;
    c.rows.push_back(r);
  }
  for (const auto& b : next.benchmarks) {
    if (!matched.count(b.run_name)) c.only_in_new.push_back(b.run_name);
  }
  if (c.rows.empty()) {
    throw std::runtime_error("runs " + c.base_run + " and " + c.new_run +
                             " share no benchmark (same names and parameters): nothing to compare");
  }
  return c;
}

std::string comparison_csv(const RunComparison& c) {
  std::string csv =
      "family,benchmark,params,base_run,new_run,base_median_s,new_median_s,ratio,base_cv,new_cv,"
      "p_value,verdict,base_sm_clock_hz,new_sm_clock_hz,cycles_ratio,cycles_p_value,cycles_verdict\n";
  for (const auto& r : c.rows) {
    const bool measured = r.verdict != compare_verdict::kError;
    auto number = [&](double v) { return measured ? csv_number(v) : std::string(); };
    csv += csv_field(r.family) + "," + csv_field(r.benchmark) + "," + csv_field(r.params) + "," +
           csv_field(c.base_run) + "," + csv_field(c.new_run) + "," + number(r.base_median_s) + "," +
           number(r.new_median_s) + "," + number(r.ratio) + "," + number(r.base_cv) + "," +
           number(r.new_cv) + "," + number(r.p_value) + "," + r.verdict + "," +
           number(r.base_clock_hz) + "," + number(r.new_clock_hz) + "," + number(r.cycles_ratio) + "," +
           number(r.cycles_p_value) + "," + r.cycles_verdict + "\n";
  }
  return csv;
}

std::string comparison_summary_markdown(const RunComparison& c, std::size_t largest) {
  std::string md = "# warpcost compare: " + c.base_run + " → " + c.new_run + "\n\n";
  md += "Base: " + c.base_gpu + "; new: " + c.new_gpu + ". " + std::to_string(c.rows.size()) +
        " benchmarks in both, " + std::to_string(c.only_in_base.size()) + " only in the base, " +
        std::to_string(c.only_in_new.size()) + " only in the new run. Time ratio = new / base median "
        "(below 1: faster); same within 1%, faster/slower when the measurements separate (p < 0.05), "
        "unclear when they do not.\n\n";
  const char* verdicts[] = {compare_verdict::kSame, compare_verdict::kFaster, compare_verdict::kSlower,
                            compare_verdict::kUnclear, compare_verdict::kError};
  std::map<std::string, std::map<std::string, int>> by_family;
  for (const auto& r : c.rows) ++by_family[r.family][r.verdict];
  md += "| family | same | faster | slower | unclear | error |\n|---|---|---|---|---|---|\n";
  for (const auto& [family, counts] : by_family) {
    md += "| " + family + " |";
    for (const char* v : verdicts) {
      const auto it = counts.find(v);
      md += " " + std::to_string(it == counts.end() ? 0 : it->second) + " |";
    }
    md += "\n";
  }
  std::vector<const BenchmarkComparison*> changed;
  for (const auto& r : c.rows) {
    if (r.verdict != compare_verdict::kError && r.ratio > 0) changed.push_back(&r);
  }
  std::stable_sort(changed.begin(), changed.end(), [](const auto* a, const auto* b) {
    return std::fabs(std::log(a->ratio)) > std::fabs(std::log(b->ratio));
  });
  if (changed.size() > largest) changed.resize(largest);
  if (!changed.empty()) {
    md += "\nThe " + std::to_string(changed.size()) + " largest changes in time:\n\n"
          "| family | benchmark | params | ratio | p | verdict |\n|---|---|---|---|---|---|\n";
    for (const auto* r : changed) {
      md += "| " + r->family + " | " + r->benchmark + " | " + r->params + " | " +
            format_number("%.4f", r->ratio) + " | " + format_number("%.3g", r->p_value) + " | " + r->verdict +
            " |\n";
    }
  }
  return md;
}

std::string comparison_markdown(const RunComparison& c) {
  auto tally = [&c](bool cycles) {
    std::map<std::string, int> counts;
    for (const auto& r : c.rows) ++counts[cycles ? r.cycles_verdict : r.verdict];
    std::string text;
    for (const auto& [verdict, n] : counts) text += " " + std::to_string(n) + " " + verdict + ";";
    return text;
  };
  std::string md = comparison_summary_markdown(c) + "\n## Every benchmark in both\n\n";
  md += std::to_string(c.rows.size()) + " benchmarks in both:" + tally(false);
  md += " " + std::to_string(c.only_in_base.size()) + " only in the base, " +
        std::to_string(c.only_in_new.size()) + " only in the new run.\n";
  md += "In SM cycles:" + tally(true) + "\n\n";
  md += "Ratio = new median / base median (below 1: faster), in time and in SM cycles (each "
        "repetition's time x the SM clock it ran at: the point's own reading, or the run's clock "
        "measured at start-up). **same**: within 1%; **faster** / **slower**: beyond 1% and the "
        "measurements separate (two-sided Mann-Whitney U over the repetitions, p < 0.05; where the "
        "repetitions are too few for that test ever to separate, a z-test on the points' recorded "
        "sample noise); **unclear**: beyond 1% but the measurements overlap.\n\n";
  md += "| family | benchmark | params | base | new | ratio | p | verdict | clock base / new | "
        "cycles ratio | cycles verdict | why |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : c.rows) {
    const bool measured = r.verdict != compare_verdict::kError;
    const std::string dash = "—";
    md += "| " + r.family + " | " + r.benchmark + " | " + r.params + " | " +
          (measured ? format_number("%.4g", r.base_median_s * 1e6) + " us" : dash) + " | " +
          (measured ? format_number("%.4g", r.new_median_s * 1e6) + " us" : dash) + " | " +
          (measured ? format_number("%.4f", r.ratio) : dash) + " | " +
          (measured ? format_number("%.3g", r.p_value) : dash) + " | " + r.verdict + " | " +
          (measured ? format_number("%.0f", r.base_clock_hz / 1e6) + " / " +
                          format_number("%.0f", r.new_clock_hz / 1e6) + " MHz"
                    : dash) +
          " | " + (measured ? format_number("%.4f", r.cycles_ratio) : dash) + " | " + r.cycles_verdict +
          " | " + r.why + (measured ? "; cycles " + r.cycles_why : std::string()) + " |\n";
  }
  return md;
}

}  // namespace warpcost::analysis
