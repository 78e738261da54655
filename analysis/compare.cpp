#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "statistics.hpp"
#include "text_format.hpp"
#include "tidy_csv.hpp"

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

RunComparison compare_runs(const Run& base, const Run& next) {
  RunComparison c;
  c.base_run = base.run_id();
  c.new_run = next.run_id();
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
      r.verdict = compare_verdict::kError;
      r.why = b.error ? "base: " + b.error_message
                      : n.error ? "new: " + n.error_message : "no timed repetitions";
      c.rows.push_back(r);
      continue;
    }
    r.base_median_s = b.median_seconds();
    r.new_median_s = n.median_seconds();
    r.ratio = r.new_median_s / r.base_median_s;
    r.base_cv = coefficient_of_variation(b.seconds);
    r.new_cv = coefficient_of_variation(n.seconds);
    r.p_value = mann_whitney_p(b.seconds, n.seconds);
    const bool separate = r.p_value < kSignificance;
    const std::string reps = std::to_string(b.seconds.size()) + " and " + std::to_string(n.seconds.size()) +
                             " repetitions, U-test p = " + format_number("%.3g", r.p_value);
    if (std::fabs(r.ratio - 1.0) < kSameBand) {
      r.verdict = compare_verdict::kSame;
      r.why = "medians " + pct(r.ratio) + " apart, inside the 1% band (" + reps + ")";
    } else if (separate) {
      r.verdict = r.ratio < 1.0 ? compare_verdict::kFaster : compare_verdict::kSlower;
      r.why = "new median " + pct(r.ratio) + " and the repetitions separate (" + reps + ")";
    } else {
      r.verdict = compare_verdict::kUnclear;
      r.why = "medians " + pct(r.ratio) + " apart but the repetitions overlap (" + reps +
              (smallest_p(b.seconds.size(), n.seconds.size()) >= kSignificance
                   ? "; with so few repetitions the smallest possible p is " +
                         format_number("%.3g", smallest_p(b.seconds.size(), n.seconds.size()))
                   : ", CVs " + format_number("%.2f", 100 * r.base_cv) + "% and " + format_number("%.2f", 100 * r.new_cv) + "%") +
              ")";
    }
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
      "p_value,verdict\n";
  for (const auto& r : c.rows) {
    const bool measured = r.verdict != compare_verdict::kError;
    auto number = [&](double v) { return measured ? csv_number(v) : std::string(); };
    csv += csv_field(r.family) + "," + csv_field(r.benchmark) + "," + csv_field(r.params) + "," +
           csv_field(c.base_run) + "," + csv_field(c.new_run) + "," + number(r.base_median_s) + "," +
           number(r.new_median_s) + "," + number(r.ratio) + "," + number(r.base_cv) + "," +
           number(r.new_cv) + "," + number(r.p_value) + "," + r.verdict + "\n";
  }
  return csv;
}

std::string comparison_markdown(const RunComparison& c) {
  std::map<std::string, int> counts;
  for (const auto& r : c.rows) ++counts[r.verdict];
  std::string md = "# warpcost compare: " + c.base_run + " → " + c.new_run + "\n\n";
  md += std::to_string(c.rows.size()) + " benchmarks in both:";
  for (const auto& [verdict, n] : counts) md += " " + std::to_string(n) + " " + verdict + ";";
  md += " " + std::to_string(c.only_in_base.size()) + " only in the base, " +
        std::to_string(c.only_in_new.size()) + " only in the new run.\n\n";
  md += "Ratio = new median time / base median time (below 1: faster). **same**: within 1%; "
        "**faster** / **slower**: beyond 1% and the repetitions separate (two-sided Mann-Whitney "
        "U, p < 0.05); **unclear**: beyond 1% but the repetitions overlap.\n\n";
  md += "| family | benchmark | params | base | new | ratio | p | verdict | why |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : c.rows) {
    const bool measured = r.verdict != compare_verdict::kError;
    md += "| " + r.family + " | " + r.benchmark + " | " + r.params + " | " +
          (measured ? format_number("%.4g", r.base_median_s * 1e6) + " us" : "—") + " | " +
          (measured ? format_number("%.4g", r.new_median_s * 1e6) + " us" : "—") + " | " +
          (measured ? format_number("%.4f", r.ratio) : "—") + " | " + (measured ? format_number("%.3g", r.p_value) : "—") +
          " | " + r.verdict + " | " + r.why + " |\n";
  }
  return md;
}

}  // namespace warpcost::analysis
