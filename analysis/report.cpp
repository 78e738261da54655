#include "analysis/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/text_format.hpp"
#include "analysis/family.hpp"

namespace warpcost::analysis {
namespace {

std::string scaled(double value, const char* const* prefixes, const double* factors, int n,
                   const std::string& unit) {
  for (int i = 0; i < n; ++i) {
    if (std::fabs(value) >= factors[i] || i == n - 1) {
      return format_number("%.4g", value / factors[i]) + " " + prefixes[i] + unit;
    }
  }
  return format_number("%.4g", value) + " " + unit;
}

std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}


}  // namespace

std::string human_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "—";
  if (unit == "s") {
    static const char* const p[] = {"", "m", "u", "n"};
    static const double f[] = {1.0, 1e-3, 1e-6, 1e-9};
    return scaled(value, p, f, 4, "s");
  }
  if (unit == "Hz" || unit == "B/s") {
    static const char* const p[] = {"T", "G", "M", "k", ""};
    static const double f[] = {1e12, 1e9, 1e6, 1e3, 1.0};
    return scaled(value, p, f, 5, unit == "Hz" ? "Hz" : "B/s");
  }
  if (unit == "%") return format_number("%.2f", value) + " %";
  if (unit == "ratio" || unit == "1") return format_number("%.4g", value);
  return format_number("%.6g", value) + (unit.empty() ? "" : " " + unit);
}

namespace {

// One line per run, family and metric that a model or target judged: the kind of check, its
// model, and how many rows hold, fail (and of those, how many grid rows whose per-warp model holds),
// warn, are untestable here or throttled, meet or miss a target, or errored; then the first miss
// with its reason. Then the throttled points. The place to start reading (docs/verdicts.md).
// One metric may be held against several models (the grid slowdown of an equal split, of a
// switch, of the warp-uniform control): each is named, the first six in full.
std::string join_models(const std::vector<std::string>& models) {
  constexpr std::size_t kShown = 6;
  std::string text;
  for (std::size_t i = 0; i < models.size() && i < kShown; ++i) text += (i ? "; " : "") + models[i];
  if (models.size() > kShown) text += "; and " + std::to_string(models.size() - kShown) + " more";
  return text;
}

std::string verdicts_at_a_glance(const std::vector<EvaluatedRun>& runs) {
  struct Tally {
    std::string kind;
    std::vector<std::string> models;  // the distinct models its rows are held against
    int holds = 0, passes = 0, fails = 0, fails_holding_per_warp = 0, warn = 0, untestable = 0, throttled = 0,
        met = 0, missed = 0, error = 0;
    const Row* first_miss = nullptr;
  };
  std::string md =
      "\n## Verdicts at a glance\n\nEvery judged metric of every run (docs/verdicts.md has each "
      "check's statistic and tolerance). A model check holds, fails, warns (a miss inside twice the "
      "point's own noise), is untestable here (the data cannot decide: the curve never flattens and the prediction lies past the sweep) or is "
      "throttled (its clock fell under 95% of the maximum); an instrument check (kind check) passes "
      "or fails; a target is met or missed; bounds and "
      "consistency figures are info and are not counted. \"fails, per-warp holds\" counts the grid "
      "rows among the fails whose warp_slowdown holds.\n\n"
      "| run | family | metric | kind | model | holds | passes | fails | fails, per-warp holds | warn | "
      "untestable | throttled | met | missed | error | first miss |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::string throttled_list;
  for (const auto& er : runs) {
    std::map<std::pair<std::string, std::string>, Row const*> warp_rows;
    for (const Row& r : er.rows) {
      if (r.metric == "warp_slowdown") warp_rows[{r.benchmark, r.params}] = &r;
    }
    std::map<std::pair<std::string, std::string>, Tally> tallies;
    for (const Row& r : er.rows) {
      if (r.verdict == verdict::kThrottled && r.kind == kind::kInfo) {
        throttled_list += "| " + cell(er.run.run_id()) + " | " + cell(r.family) + " | " +
                          cell(r.benchmark + " " + r.params) + " | " + cell(r.why) + " |\n";
      }
      if (r.kind == kind::kInfo && r.verdict != verdict::kError) continue;
      Tally& t = tallies[{r.family, r.metric}];
      if (!r.model.empty() && std::find(t.models.begin(), t.models.end(), r.model) == t.models.end()) {
        t.models.push_back(r.model);
      }
      if (t.kind.empty() || r.kind != kind::kInfo) t.kind = r.kind;
      if (r.verdict == verdict::kHolds) ++t.holds;
      if (r.verdict == verdict::kPasses) ++t.passes;
      if (r.verdict == verdict::kFails) {
        ++t.fails;
        const auto w = warp_rows.find({r.benchmark, r.params});
        if (r.metric == "grid_slowdown" && w != warp_rows.end() && w->second->verdict == verdict::kHolds) {
          ++t.fails_holding_per_warp;
        }
      }
      if (r.verdict == verdict::kWarn) ++t.warn;
      if (r.verdict == verdict::kUntestable) ++t.untestable;
      if (r.verdict == verdict::kThrottled) ++t.throttled;
      if (r.verdict == verdict::kMet) ++t.met;
      if (r.verdict == verdict::kMissed) ++t.missed;
      if (r.verdict == verdict::kError) ++t.error;
      const bool miss =
          r.verdict != verdict::kHolds && r.verdict != verdict::kMet && r.verdict != verdict::kPasses;
      if (miss && t.first_miss == nullptr) t.first_miss = &r;
    }
    for (const auto& [key, t] : tallies) {
      md += "| " + cell(er.run.run_id()) + " | " + cell(key.first) + " | `" + key.second + "` | " +
            t.kind + " | " + cell(join_models(t.models)) + " | " + std::to_string(t.holds) + " | " +
            std::to_string(t.passes) + " | " +
            std::to_string(t.fails) + " | " + std::to_string(t.fails_holding_per_warp) + " | " +
            std::to_string(t.warn) + " | " + std::to_string(t.untestable) + " | " +
            std::to_string(t.throttled) + " | " + std::to_string(t.met) + " | " +
            std::to_string(t.missed) + " | " + std::to_string(t.error) + " | " +
            (t.first_miss ? cell(t.first_miss->benchmark + " " + t.first_miss->params + ": " +
                                 t.first_miss->verdict + ", " + t.first_miss->why)
                          : std::string()) +
            " |\n";
    }
  }
  md += "\n### Throttled points\n\n";
  md += throttled_list.empty()
            ? "None: no timed point's SM clock fell under 95% of the maximum (runs before the "
              "bench recorded warpcost_sm_clock_mhz are not checked).\n"
            : "| run | family | point | why |\n|---|---|---|---|\n" + throttled_list;
  return md;
}

}  // namespace

std::string markdown_report(const std::vector<EvaluatedRun>& runs) {
  namespace key = schema::key;
  std::string md = "# warpcost report\n\n";
  md += "| run | GPU | cc | SMs | max warps/SM | L2 | SM clock measured / max | driver | CUDA "
        "runtime | warpcost rev |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& er : runs) {
    const RunContext& c = er.run.context;
    md += "| " + cell(c.text(key::kRunId)) + " | " + cell(c.text(key::kGpuName)) + " | " +
          c.text(key::kCc) + " | " + c.text(key::kSmCount) + " | " + c.text(key::kMaxWarpsPerSm) +
          " | " + format_number("%.0f", c.number(key::kL2Bytes) / 1048576.0) + " MiB | " +
          human_value(c.number(key::kSmClockMeasuredKhz) * 1e3, "Hz") + " / " +
          human_value(c.number(key::kSmClockMaxKhz) * 1e3, "Hz") +
          (runs_at_application_clocks(er.run)
               ? " (judged against " + human_value(reference_sm_clock_mhz(er.run) * 1e6, "Hz") +
                     ": application clocks)"
               : std::string()) +
          " | " +
          cell(c.text(key::kDriverVersion)) + " | " + c.text(key::kCudaRuntime) + " | " +
          cell(c.text(key::kGitRev)) + " |\n";
  }
  md += "\nVerdicts: **holds** (the model describes the measurement), **fails** (it does not, the "
        "reason says why), **warn** (the miss past the tolerance is inside twice the point's own noise), "
        "**untestable here** (the data cannot decide), **passes** (an instrument check reads what the "
        "programming model fixes), **met**/**missed** (a target), **info** (no model), **error** "
        "(the benchmark's own output check or a CUDA call failed).\n";
  md += verdicts_at_a_glance(runs);

  for (const auto& er : runs) {
    std::map<std::string, std::vector<const Row*>> by_family;
    for (const Row& r : er.rows) by_family[r.family].push_back(&r);
    for (const Family* family : families()) {
      const std::string section = family->report_section(er);
      if (!section.empty()) {
        md += "\n## " + cell(er.run.run_id()) + " — " + family->descriptor().name + " summary\n" + section;
      }
    }
    // Per family: the rows that did not pass in full (fails, warn, missed, untestable, throttled,
    // error), the rest counted; every row is in the CSV beside this report. Keeps a run's report
    // under a megabyte (docs/csv.md).
    for (const auto& [family, rows] : by_family) {
      md += "\n## " + cell(er.run.run_id()) + " — " + family + "\n\n";
      std::map<std::tuple<std::string, std::string, std::string, std::string>, int> counted;
      std::vector<const Row*> shown;
      for (const Row* r : rows) {
        const bool passed = r->verdict == verdict::kHolds || r->verdict == verdict::kMet ||
                            r->verdict == "passes" || r->verdict == verdict::kInfo;
        if (passed) {
          ++counted[{r->benchmark, r->metric, r->kind, r->verdict}];
        } else {
          shown.push_back(r);
        }
      }
      md += std::to_string(rows.size()) + " rows; every one, with its parameters, model and reason, is in "
            "the run's warpcost.csv. Rows that passed or are info, counted:\n\n"
            "| benchmark | metric | kind | verdict | rows |\n|---|---|---|---|---|\n";
      for (const auto& [k, n] : counted) {
        md += "| " + cell(std::get<0>(k)) + " | `" + std::get<1>(k) + "` | " + std::get<2>(k) + " | " +
              std::get<3>(k) + " | " + std::to_string(n) + " |\n";
      }
      if (shown.empty()) {
        md += "\nNo row failed, warned, missed, was untestable, throttled or in error.\n";
        continue;
      }
      md += "\nEvery other row (" + std::to_string(shown.size()) + "):\n\n"
            "| benchmark | params | metric | measured | model | predicted | error | verdict | "
            "why |\n|---|---|---|---|---|---|---|---|---|\n";
      for (const Row* r : shown) {
        md += "| " + cell(r->benchmark) + " | " + cell(r->params) + " | `" + r->metric + "` | " +
              (r->verdict == "error" ? std::string("—") : human_value(r->value, r->unit)) + " | " +
              cell(r->model) + " | " +
              (r->predicted ? human_value(*r->predicted, r->unit) : std::string()) + " | " +
              (r->rel_error ? format_number("%+.2f", 100.0 * *r->rel_error) + " %" : std::string()) +
              " | " + r->verdict + " | " + cell(r->why) + " |\n";
      }
    }
  }
  md += "\n" + worked_examples_markdown(runs);
  return md;
}

std::string worked_examples_markdown(const std::vector<EvaluatedRun>& runs) {
  namespace fs = std::filesystem;
  // The newest measured page beside these runs: results/<gpu>/<utc>-examples-worked-examples/,
  // written by `warpcost check examples/worked-examples.toml --measure` (its table, verbatim).
  fs::path newest;
  for (const auto& er : runs) {
    const fs::path gpu_dir = er.run.source.parent_path().parent_path();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(gpu_dir, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_directory() && name.size() > kPageExamplesSuffix.size() &&
          name.compare(name.size() - kPageExamplesSuffix.size(), kPageExamplesSuffix.size(), kPageExamplesSuffix) == 0 &&
          fs::exists(e.path() / "examples.md") &&
          (newest.empty() || name > newest.filename().string())) {
        newest = e.path();
      }
    }
  }
  std::string md = "## Worked examples\n\n";
  md += "The reference page's examples are `examples/worked-examples.toml`: `./warpcost check "
        "examples/worked-examples.toml` holds every stated answer to the models, and with `--measure` on a GPU "
        "runs each one with its family's runner (docs/worked-examples.md).\n\n";
  if (newest.empty()) {
    md += "No measured page beside these runs yet.\n";
    return md;
  }
  std::ifstream in(newest / "examples.md");
  std::ostringstream text;
  text << in.rdbuf();
  md += "Measured: " + newest.parent_path().filename().string() + "/" + newest.filename().string() + ".\n\n" + text.str();
  return md;
}

}  // namespace warpcost::analysis
