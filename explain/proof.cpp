#include "explain/proof.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text_format.hpp"
#include "explain/cost_model.hpp"

namespace warpcost::explain {

namespace {

analysis::Row base(const ProofCase& c, const std::string& metric, const std::string& view) {
  analysis::Row r;
  r.family = "explain";
  r.benchmark = "proof";
  r.params = "program=" + c.program + ";view=" + view;
  r.metric = metric;
  r.kind = analysis::kind::kModel;
  r.unit = "1";
  return r;
}

std::string number(std::optional<double> x, int digits) { return x ? analysis::fixed(*x, digits) : ""; }

// "No fix expected": a prediction at or under the noise floor (EXPLAIN-4).
bool at_floor(double predicted) { return predicted <= kNoiseFloorSpeedup; }

// A predicted speedup against a measured one (defect time / twin time), within kFixTolerance, or at
// the floor, "no fix expected", holding only when the twin measured under kNoiseFloorSpeedup
// (EXPLAIN-4); a missing time or prediction is "untestable here" with `why_untimed` or `why_unpriced`.
void judge_speedup(analysis::Row& r, std::optional<double> defect_seconds, std::optional<double> twin_seconds,
                   const char* why_untimed, const char* why_unpriced) {
  if (!defect_seconds || !twin_seconds || *twin_seconds <= 0 || *defect_seconds <= 0) {
    r.verdict = analysis::verdict::kUntestable;
    r.why = why_untimed;
    return;
  }
  r.value = *defect_seconds / *twin_seconds;
  if (!r.predicted) {
    r.verdict = analysis::verdict::kUntestable;
    r.why = why_unpriced;
    return;
  }
  r.rel_error = (*r.predicted - r.value) / r.value;
  if (at_floor(*r.predicted)) {
    r.verdict = r.value < kNoiseFloorSpeedup ? analysis::verdict::kHolds : analysis::verdict::kFails;
    r.why = std::string("no fix expected (at most ") + analysis::fixed(kNoiseFloorSpeedup, 2) +
            "): holds only if the twin measures under it";
    return;
  }
  r.verdict = std::abs(*r.rel_error) <= kFixTolerance ? analysis::verdict::kHolds : analysis::verdict::kFails;
}

// The note of a judged estimate: its price had the measured time been 1 % lower and higher.
void add_band(const ProofCase& c, const std::string& view, analysis::Row& r) {
  const auto band = c.one_percent_band.find(view);
  if (band == c.one_percent_band.end() || !r.predicted) return;
  r.why += std::string(r.why.empty() ? "" : "; ") + "time ±1 %: " + number(band->second.first, 3) + " to " +
           number(band->second.second, 3);
}

std::optional<double> prediction(const ProofCase& c, const char* view) {
  const auto it = c.predicted.find(view);
  if (it == c.predicted.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::vector<ProofCase> parse_proof_cases(const std::string& text) {
  std::vector<ProofCase> cases;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "--proof line " + std::to_string(number);
    const std::vector<std::string> f = analysis::split_fields(line, '\t');
    if (f.size() < 5 || f.size() > 8) {
      throw ProofInputError(where + ": " + std::to_string(f.size()) +
                            " tab-separated fields; allowed: 5 to 8 (program, view, explain JSON, defect seconds, "
                            "twin seconds[, full-fix seconds[, long-lived-twin seconds[, ncu speedup]]])");
    }
    // A time: a positive number; "-" none; "failed" a twin that gave none (0: untestable).
    auto seconds = [&](std::size_t i, const char* field) -> std::optional<double> {
      const std::string& v = f[i];
      if (v == "-") return std::nullopt;
      if (v == "failed") return 0.0;
      const std::optional<double> x = analysis::parse_whole_double(v);
      if (!x || !(*x > 0) || !std::isfinite(*x)) {
        throw ProofInputError(where + ": " + field + " '" + v + "'; allowed: a positive number of seconds, - or failed");
      }
      return x;
    };
    ProofCase c;
    c.program = f[0];
    if (c.program.empty() || c.program.find_first_of(";=") != std::string::npos) {
      throw ProofInputError(where + ": program '" + c.program + "'; allowed: a non-empty name without ; or =");
    }
    const std::string& view_name = f[1];
    if (view_name != "-" && view_name != view::kPartialWarps && view_name != view::kDivergence &&
        view_name != view::kCoalescing && view_name != view::kLatencyHiding && view_name != view::kBlockTurnover) {
      throw ProofInputError(where + ": view '" + view_name + "'; allowed: " + view::kPartialWarps + ", " +
                            view::kDivergence + ", " + view::kCoalescing + ", " + view::kLatencyHiding + ", " +
                            view::kBlockTurnover + " or - (the clean program)");
    }
    c.named_view = view_name == "-" ? "" : view_name;
    c.defect_seconds = seconds(3, "defect seconds");
    c.fixed_seconds = seconds(4, "twin seconds");
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i].empty()) throw ProofInputError(where + ": field " + std::to_string(i + 1) + " is empty; allowed: a value or -");
    }
    for (std::size_t i = 5; view_name == "-" && i < 7 && i < f.size(); ++i) {
      if (f[i] != "-") {
        throw ProofInputError(where + ": field " + std::to_string(i + 1) + " '" + f[i] +
                              "': the clean program (view -) has only a twin that tries a fix (field 5); allowed: -");
      }
    }
    if (f.size() >= 6) c.full_fix_seconds = seconds(5, "full-fix seconds");
    if (f.size() >= 7) c.residency_twin_seconds = seconds(6, "long-lived-twin seconds");
    if (f.size() == 8 && f[7] != "-") {
      const std::optional<double> x = analysis::parse_whole_double(f[7]);
      if (!x || !(*x >= 1) || !std::isfinite(*x)) {
        throw ProofInputError(where + ": ncu speedup '" + f[7] + "'; allowed: a number >= 1 or -");
      }
      c.ncu_speedup = x;
    }
    std::ifstream json_file(f[2]);
    if (!std::filesystem::is_regular_file(f[2]) || !json_file) {
      c.unpriced_reason = "no explain JSON at " + f[2];
    } else {
      std::stringstream body;
      body << json_file.rdbuf();
      const auto j = nlohmann::json::parse(body.str(), nullptr, false);
      if (j.is_discarded() || !j.contains("kernels") || !j["kernels"].is_array() || j["kernels"].empty()) {
        c.unpriced_reason = "the explain JSON " + f[2] + " has no kernel";
      } else {
        for (const auto& v : j["kernels"][0].value("views", nlohmann::json::array())) {
          if (!v.contains("name") || !v["name"].is_string()) continue;
          const std::string name = v["name"].get<std::string>();
          if (v.contains("speedup") && v["speedup"].is_number()) c.predicted[name] = v["speedup"].get<double>();
          const auto q = v.value("quantities", nlohmann::json::object());
          auto number_of = [&](const char* key) -> std::optional<double> {
            if (!q.is_object() || !q.contains(key) || !q[key].is_number()) return std::nullopt;
            return q[key].get<double>();
          };
          const auto lower = number_of("speedup_if_time_1pct_lower");
          const auto higher = number_of("speedup_if_time_1pct_higher");
          if (lower && higher) c.one_percent_band[name] = {*lower, *higher};
          if (name == view::kAllFixed) {
            c.model_seconds = number_of("model_fitted_seconds");
            c.measured_seconds = number_of("measured_seconds_a_launch");
          }
        }
      }
    }
    cases.push_back(c);
  }
  // A table with no case judges nothing: a verdict table of it could not fail.
  if (cases.empty()) throw ProofInputError("no case in the table; allowed: one tab-separated line a case (docs/explain.md)");
  return cases;
}

std::vector<analysis::Row> judge_proof(const std::vector<ProofCase>& cases) {
  std::vector<analysis::Row> rows;
  const std::string tolerance = analysis::fixed(100 * kFixTolerance, 0) + " %";
  int both = 0, closer = 0;  // cases with explain's and ncu's estimate judged, and explain's the closer
  auto ncu_row = [&](const ProofCase& c, const analysis::Row& fix) {
    if (!c.ncu_speedup || !(fix.value > 0)) return;
    // Measured and estimated by ncu but not priced by explain: counted, explain not closer.
    if (fix.predicted && fix.verdict == analysis::verdict::kUntestable) return;
    analysis::Row n = base(c, "ncu_fix_speedup", c.named_view.empty() ? "any" : c.named_view);
    n.kind = analysis::kind::kInfo;
    n.verdict = analysis::verdict::kInfo;
    n.model = "Nsight Compute's estimated speedup for the same launch (its rule's p % as 1/(1 - p/100))";
    n.predicted = *c.ncu_speedup;
    n.value = fix.value;
    n.rel_error = (*c.ncu_speedup - fix.value) / fix.value;
    ++both;
    if (!fix.predicted) {
      n.why = "Nsight Compute closer: explain priced nothing (" + fix.why + ")";
    } else {
      const bool explain_closer = std::abs(*fix.predicted - fix.value) < std::abs(*c.ncu_speedup - fix.value);
      closer += explain_closer ? 1 : 0;
      n.why = std::string(explain_closer ? "explain closer" : "Nsight Compute as close or closer") + " (explain " +
              number(fix.predicted, 3) + ", ncu " + number(c.ncu_speedup, 3) + ", measured " + number(fix.value, 3) +
              ")";
    }
    rows.push_back(n);
  };
  for (const ProofCase& c : cases) {
    const std::string unpriced_text = c.unpriced_reason.empty() ? "the view was not priced" : c.unpriced_reason;
    if (c.named_view.empty()) {
      analysis::Row r = base(c, "clean_largest_speedup", "any");
      r.model = "every view's estimated speedup <= noise floor";
      r.predicted = kNoiseFloorSpeedup;
      if (c.predicted.empty()) {
        r.verdict = analysis::verdict::kUntestable;
        r.why = c.unpriced_reason.empty() ? "no view was priced (no explain record or no suite run of this GPU)"
                                          : c.unpriced_reason;
      } else {
        double largest = 0;
        for (const auto& [view, speedup] : c.predicted) largest = std::max(largest, speedup);
        r.value = largest;
        r.verdict = largest <= kNoiseFloorSpeedup ? analysis::verdict::kHolds : analysis::verdict::kFails;
      }
      rows.push_back(r);
      if (c.fixed_seconds) {
        analysis::Row twin = base(c, "clean_twin_speedup", view::kAllFixed);
        twin.model = "the all-fixed estimate against a twin that tries a fix, within " + tolerance +
                     " (at the floor: the twin under the noise floor)";
        twin.predicted = prediction(c, view::kAllFixed);
        judge_speedup(twin, c.defect_seconds, c.fixed_seconds, "no kernel time for the program or its twin",
                      unpriced_text.c_str());
        rows.push_back(twin);
        ncu_row(c, twin);
      }
      continue;
    }
    analysis::Row fix = base(c, "fix_speedup", c.named_view);
    fix.model = "the named view's estimated speedup, within " + tolerance +
                " of the measured fix (at the floor: the twin under the noise floor)";
    fix.predicted = prediction(c, c.named_view.c_str());
    judge_speedup(fix, c.defect_seconds, c.fixed_seconds, "no kernel time for the program or its fixed twin",
                  unpriced_text.c_str());
    add_band(c, c.named_view, fix);
    rows.push_back(fix);
    ncu_row(c, fix);
    if (c.model_seconds && c.measured_seconds && *c.measured_seconds > 0) {
      analysis::Row fit = base(c, "model_reaches_time", view::kAllFixed);
      fit.kind = analysis::kind::kCheck;
      fit.model = "the fitted kernel model's time within " + tolerance + " of the measured time a launch (us)";
      fit.predicted = *c.model_seconds * 1e6;
      fit.value = *c.measured_seconds * 1e6;
      fit.unit = "us";
      fit.rel_error = (*c.model_seconds - *c.measured_seconds) / *c.measured_seconds;
      fit.verdict = std::abs(*fit.rel_error) <= kFixTolerance ? analysis::verdict::kHolds : analysis::verdict::kFails;
      if (fit.verdict == analysis::verdict::kFails) {
        fit.why = "the model cannot reach the kernel's time: its speedups are ratios of model times";
      }
      rows.push_back(fit);
    }

    analysis::Row largest = base(c, "largest_view_is_named", c.named_view);
    largest.model = "the largest priced view is the one the defect names";
    largest.predicted = 1;
    std::string name;
    double best = 0;
    for (const auto& [view, speedup] : c.predicted) {
      if (view == view::kAllFixed) continue;  // every fix at once, not a view of one cost
      if (speedup > best) best = speedup, name = view;
    }
    // A largest speedup shared by another view names no view: the check cannot hold on a tie (the
    // views' order would decide it).
    std::string tied;
    for (const auto& [view, speedup] : c.predicted) {
      if (view != name && view != view::kAllFixed && speedup == best) tied += (tied.empty() ? "" : ", ") + view;
    }
    if (name.empty()) {
      largest.verdict = analysis::verdict::kUntestable;
      largest.why = c.unpriced_reason.empty() ? "no view was priced" : c.unpriced_reason;
    } else if (best <= kNoiseFloorSpeedup) {
      largest.value = 0;
      largest.verdict = analysis::verdict::kFails;
      largest.why = "no view above the noise floor (largest: " + name + " " + number(best, 6) + ")";
    } else if (!tied.empty()) {
      largest.value = 0;
      largest.verdict = analysis::verdict::kFails;
      largest.why = "no single largest view: " + name + " and " + tied + " tie at " + number(best, 6);
    } else {
      largest.value = name == c.named_view ? 1 : 0;
      largest.verdict = name == c.named_view ? analysis::verdict::kHolds : analysis::verdict::kFails;
      largest.why = "largest: " + name + " " + number(best, 3);
    }
    rows.push_back(largest);

    if (c.full_fix_seconds) {
      analysis::Row full = base(c, "full_fix_speedup", view::kAllFixed);
      full.model = "the all-fixed estimate, within " + tolerance + " of the twin that removes every defect";
      full.predicted = prediction(c, view::kAllFixed);
      judge_speedup(full, c.defect_seconds, c.full_fix_seconds, "no kernel time for the program or its full-fix twin",
                    "the explain JSON has no all-fixed estimate (a session before EXPLAIN-4)");
      add_band(c, view::kAllFixed, full);
      rows.push_back(full);
    }
    if (c.residency_twin_seconds) {
      analysis::Row twin = base(c, "residency_twin_speedup", view::kBlockTurnover);
      twin.model = "the block-turnover view's estimated speedup, within " + tolerance +
                   " of a twin whose blocks live the whole kernel";
      twin.predicted = prediction(c, view::kBlockTurnover);
      judge_speedup(twin, c.defect_seconds, c.residency_twin_seconds,
                    "no kernel time for the program or its long-lived-blocks twin",
                    c.unpriced_reason.empty() ? "the block-turnover view was not priced (a session before EXPLAIN-4, "
                                                                "or a run without the turnover sweep)"
                                              : c.unpriced_reason.c_str());
      add_band(c, view::kBlockTurnover, twin);
      rows.push_back(twin);
    }
  }
  // The bias: explain's mean signed error per view over every judged prediction of it.
  std::map<std::string, std::pair<double, int>> signed_errors;
  for (const analysis::Row& r : rows) {
    if (r.kind != analysis::kind::kModel || !r.rel_error || r.verdict == analysis::verdict::kUntestable ||
        (r.predicted && at_floor(*r.predicted)))
      continue;  // a "no fix expected" row is judged against the floor, not as an estimate
    const std::string params = r.params;
    const std::string view = params.substr(params.find(";view=") + 6);
    auto& [sum, n] = signed_errors[view];
    sum += *r.rel_error;
    ++n;
  }
  for (const auto& [view, sum_n] : signed_errors) {
    analysis::Row m;
    m.family = "explain";
    m.benchmark = "proof";
    m.params = "program=all;view=" + view;
    m.metric = "mean_signed_error";
    m.kind = analysis::kind::kInfo;
    m.verdict = analysis::verdict::kInfo;
    m.unit = "1";
    m.value = sum_n.first / sum_n.second;
    m.why = std::to_string(sum_n.second) + " judged prediction(s)";
    rows.push_back(m);
  }
  analysis::Row share;
  share.family = "explain";
  share.benchmark = "proof";
  share.params = "program=all;view=any";
  share.metric = "closer_than_ncu_share";
  share.kind = analysis::kind::kTarget;
  share.unit = "1";
  share.predicted = kCloserThanNcuShare;
  share.model = "explain's estimate closer to the measured fix than Nsight Compute's on at least " +
                analysis::fixed(100 * kCloserThanNcuShare, 0) + " % of the cases with both";
  if (both == 0) {
    share.verdict = analysis::verdict::kUntestable;
    share.why = "no case has both a judged explain estimate and Nsight Compute's";
  } else {
    share.value = double(closer) / both;
    share.verdict = share.value >= kCloserThanNcuShare ? analysis::verdict::kMet : analysis::verdict::kMissed;
    share.why = std::to_string(closer) + " of " + std::to_string(both) + " cases";
  }
  rows.push_back(share);
  return rows;
}

std::string proof_table(const std::vector<analysis::Row>& rows) {
  std::ostringstream out;
  out << "| program | check | view | predicted | measured | rel. error | verdict | note |\n"
      << "|---|---|---|---|---|---|---|---|\n";
  for (const analysis::Row& r : rows) {
    std::string program, view;
    std::stringstream params(r.params);
    std::string item;
    while (std::getline(params, item, ';')) {
      if (item.rfind("program=", 0) == 0) program = item.substr(8);
      if (item.rfind("view=", 0) == 0) view = item.substr(5);
    }
    const bool judged = r.verdict != analysis::verdict::kUntestable || r.metric == "fix_speedup" ||
                        r.metric == "full_fix_speedup" || r.metric == "residency_twin_speedup" ||
                        r.metric == "clean_twin_speedup";
    out << "| " << program << " | " << r.metric << " | " << view << " | " << number(r.predicted, 3) << " | "
        << (judged && (r.verdict != analysis::verdict::kUntestable || r.value != 0) ? number(r.value, 3) : "")
        << " | " << (r.rel_error ? number(*r.rel_error * 100, 1) + " %" : "") << " | " << r.verdict << " | "
        << r.why << " |\n";
  }
  return out.str();
}

}  // namespace warpcost::explain
