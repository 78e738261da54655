#include "explain/proof.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

// A predicted speedup against a measured one (defect time / twin time), within kFixTolerance; a
// missing time or prediction is "untestable here" with `why_untimed` or `why_unpriced`.
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
  r.verdict = std::abs(*r.rel_error) <= kFixTolerance ? analysis::verdict::kHolds : analysis::verdict::kFails;
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
    if (f.size() < 5 || f.size() > 7) {
      throw ProofInputError(where + ": " + std::to_string(f.size()) +
                            " tab-separated fields; allowed: 5 to 7 (program, view, explain JSON, defect seconds, "
                            "twin seconds[, full-fix seconds[, residency-twin seconds]])");
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
        view_name != view::kCoalescing && view_name != view::kLatencyHiding) {
      throw ProofInputError(where + ": view '" + view_name + "'; allowed: " + view::kPartialWarps + ", " +
                            view::kDivergence + ", " + view::kCoalescing + ", " + view::kLatencyHiding +
                            " or - (the clean program)");
    }
    c.named_view = view_name == "-" ? "" : view_name;
    c.defect_seconds = seconds(3, "defect seconds");
    c.fixed_seconds = seconds(4, "twin seconds");
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i].empty()) throw ProofInputError(where + ": field " + std::to_string(i + 1) + " is empty; allowed: a value or -");
    }
    for (std::size_t i = 4; view_name == "-" && i < f.size(); ++i) {
      if (f[i] != "-") {
        throw ProofInputError(where + ": field " + std::to_string(i + 1) + " '" + f[i] +
                              "': the clean program (view -) has no twin; allowed: -");
      }
    }
    if (f.size() >= 6) c.full_fix_seconds = seconds(5, "full-fix seconds");
    if (f.size() == 7) c.residency_twin_seconds = seconds(6, "residency-twin seconds");
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
          if (v.contains("name") && v.contains("speedup") && v["speedup"].is_number()) {
            c.predicted[v["name"].get<std::string>()] = v["speedup"].get<double>();
          }
        }
      }
    }
    cases.push_back(c);
  }
  return cases;
}

std::vector<analysis::Row> judge_proof(const std::vector<ProofCase>& cases) {
  std::vector<analysis::Row> rows;
  for (const ProofCase& c : cases) {
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
      continue;
    }
    analysis::Row fix = base(c, "fix_speedup", c.named_view);
    fix.model = "the named view's estimated speedup, within 25 % of the measured fix";
    const auto predicted = c.predicted.find(c.named_view);
    if (predicted != c.predicted.end()) fix.predicted = predicted->second;
    const std::string unpriced = c.unpriced_reason.empty() ? "the named view was not priced" : c.unpriced_reason;
    judge_speedup(fix, c.defect_seconds, c.fixed_seconds, "no kernel time for the program or its fixed twin",
                  unpriced.c_str());
    rows.push_back(fix);

    analysis::Row largest = base(c, "largest_view_is_named", c.named_view);
    largest.model = "the largest priced view is the one the defect names";
    largest.predicted = 1;
    std::string name;
    double best = 0;
    for (const auto& [view, speedup] : c.predicted) {
      if (speedup > best) best = speedup, name = view;
    }
    // A largest speedup shared by another view names no view: the check cannot hold on a tie (the
    // views' order would decide it).
    std::string tied;
    for (const auto& [view, speedup] : c.predicted) {
      if (view != name && speedup == best) tied += (tied.empty() ? "" : ", ") + view;
    }
    if (name.empty()) {
      largest.verdict = analysis::verdict::kUntestable;
      largest.why = c.unpriced_reason.empty() ? "no view was priced" : c.unpriced_reason;
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
      analysis::Row full = base(c, "full_fix_speedup", name.empty() ? "any" : name);
      full.model = "the largest view's estimated speedup, within 25 % of the twin that removes every defect";
      if (!name.empty()) full.predicted = best;
      judge_speedup(full, c.defect_seconds, c.full_fix_seconds, "no kernel time for the program or its full-fix twin",
                    "no view was priced");
      rows.push_back(full);
    }
    if (c.residency_twin_seconds) {
      analysis::Row twin = base(c, "residency_twin_speedup", view::kLatencyHiding);
      twin.model = "the latency-hiding view's estimated speedup, within 25 % of a twin that only raises residency";
      const auto latency = c.predicted.find(view::kLatencyHiding);
      if (latency != c.predicted.end()) twin.predicted = latency->second;
      judge_speedup(twin, c.defect_seconds, c.residency_twin_seconds,
                    "no kernel time for the program or its residency twin",
                    c.unpriced_reason.empty() ? "the latency-hiding view was not priced" : c.unpriced_reason.c_str());
      rows.push_back(twin);
    }
  }
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
                        r.metric == "full_fix_speedup" || r.metric == "residency_twin_speedup";
    out << "| " << program << " | " << r.metric << " | " << view << " | " << number(r.predicted, 3) << " | "
        << (judged && (r.verdict != analysis::verdict::kUntestable || r.value != 0) ? number(r.value, 3) : "")
        << " | " << (r.rel_error ? number(*r.rel_error * 100, 1) + " %" : "") << " | " << r.verdict << " | "
        << r.why << " |\n";
  }
  return out.str();
}

}  // namespace warpcost::explain
