#include "analysis/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/core/models.hpp"
#include "analysis/core/result_schema.hpp"
#include "analysis/core/text_format.hpp"
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
      "point's own noise), is untestable here (its prediction lies outside the sweep) or is "
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
          human_value(c.number(key::kSmClockMaxKhz) * 1e3, "Hz") + " | " +
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
    for (const auto& [family, rows] : by_family) {
      md += "\n## " + cell(er.run.run_id()) + " — " + family + "\n\n";
      md += "| benchmark | params | metric | measured | model | predicted | error | verdict | "
            "why |\n|---|---|---|---|---|---|---|---|---|\n";
      for (const Row* r : rows) {
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
  using namespace model;
  // example -> family -> the texts of the last run (in the order given) that measured it there,
  // and where it ran. An example can be measured by several families (the self-test) or by several
  // rows of one run (Ex 9's two shapes).
  struct Measured {
    std::string where;
    std::vector<std::string> texts;
  };
  std::map<std::string, std::map<std::string, Measured>> found;
  for (const auto& er : runs) {
    const std::string where =
        cell(er.run.context.text(schema::key::kGpuName)) + ", " + cell(er.run.run_id());
    for (const Row& r : er.rows) {
      if (r.benchmark != "worked_example") continue;
      const auto start = r.params.find("example=");
      if (start == std::string::npos) continue;
      const auto end = r.params.find(';', start);
      const std::string example = r.params.substr(start + 8, end == std::string::npos ? std::string::npos : end - start - 8);
      std::string value = r.unit == "ratio" || r.unit == "1" ? format_number("%.3f", r.value) + "×" : format_number("%.0f", r.value);
      if (r.metric == "tail_active_threads") value += " threads";
      if (r.metric == "warps_per_block") value += r.value == 1.0 ? " warp" : " warps";
      if (r.metric == "knee_warps_per_sm") value += " warps/SM (knee)";
      if (r.metric == "threads_mapped_as_model") {
        value += " of " + format_number("%.0f", r.predicted.value_or(0)) + " threads mapped";
      }
      Measured& m = found[example][r.family];
      if (m.where != where) m = Measured{where, {}};  // a later run replaces an earlier one
      m.texts.push_back(value + " (" + r.verdict + ")");
    }
  }
  std::map<std::string, std::string> measured;
  for (const auto& [example, by_family] : found) {
    std::string text;
    for (const auto& [family, m] : by_family) {
      std::string joined;
      for (const auto& t : m.texts) joined += (joined.empty() ? "" : "; ") + t;
      text += (text.empty() ? "" : "; ") + joined + " on " + m.where;
    }
    measured[example] = text;
  }
  std::string md = "## Worked examples: what the models compute";
  md += measured.empty() ? "\n\n" : ", and what the GPU measured\n\n";
  md += "| example | case | model | result | measured |\n|---|---|---|---|---|\n";
  auto row = [&md, &measured](const std::string& ex, const std::string& c, const std::string& m,
                              const std::string& r) {
    const auto it = measured.find(ex);
    md += "| " + ex + " | " + c + " | " + m + " | " + r + " | " +
          (it == measured.end() ? std::string("—") : it->second) + " |\n";
  };
  auto n = [](long long v) { return std::to_string(v); };

  row("1", "block (256,1,1)", "ceil(256/32)", n(warps_per_block(256)) + " warps, " +
      n(wasted_lanes(256)) + " wasted lanes");
  row("2", "block (100,1,1)", "ceil(100/32); tail = 100 − 96",
      n(warps_per_block(100)) + " warps, tail " + n(tail_lanes(100)) + " lanes (" +
          hex_mask(tail_mask(100)) + "), " + n(wasted_lanes(100)) + " wasted");
  const BlockShape ex3{48, 4, 1};
  const ThreadCoord w1_first = thread_coord(ex3, 32);
  const ThreadCoord w1_last = thread_coord(ex3, 63);
  row("3", "block (48,4,1), warp 1", "linear 32..63 → (x,y)",
      "(" + n(w1_first.x) + "," + n(w1_first.y) + ")..(" + n(w1_last.x) + "," + n(w1_last.y) +
          "): row 0 x 32–47 + row 1 x 0–15; " + n(warps_per_block(threads_per_block(ex3))) +
          " warps");
  const BlockShape ex3b{8, 4, 3};
  const ThreadCoord t70 = thread_coord(ex3b, 70);
  row("3b", "block (8,4,3), linear 70", "tz = 70/32, ty = (70 mod 32)/8, tx = 70 mod 8",
      "(" + n(t70.x) + "," + n(t70.y) + "," + n(t70.z) + "), warp " + n(warp_of(70)) + " of " +
          n(warps_per_block(threads_per_block(ex3b))));
  row("4", "block (16,1,1), smaller than a warp", "ceil(16/32)",
      n(warps_per_block(16)) + " warp, mask " + hex_mask(tail_mask(16)) + ", " +
          n(wasted_lanes(16)) + " wasted lanes");
  row("5", "L = 300, W = 15", "ceil(L/W)", n(warps_to_hide_latency(300, 15)) + " warps");
  row("6", "L = 400, W = 1", "ceil(L/W) vs 64", n(warps_to_hide_latency(400, 1)) +
      " warps > 64: memory-bound");
  row("7", "20/12 split, 30 + 30 cycles", "Σ populated paths",
      format_number("%.0f", divergent_time({{20, 30}, {12, 30}})) + " cycles, " +
          format_number("%.1f", divergence_slowdown({{20, 30}, {12, 30}}, 30)) + "×");
  row("8", "32/0 split, 30 cycles", "Σ populated paths",
      format_number("%.0f", divergent_time({{32, 30}, {0, 30}})) + " cycles, " +
          format_number("%.1f", divergence_slowdown({{32, 30}, {0, 30}}, 30)) + "×");
  const GridTail tail = grid_tail(1000, 256);
  row("note", "N = 1000, B = 256", "N − B(ceil(N/B) − 1)",
      n(tail.last_block_threads) + " threads in the last block: " + n(tail.last_block_full_warps) +
          " full warps + " + n(tail.last_block_partial_lanes) + " lanes");
  row("9", "(30,30) vs (32,8)", "ceil(P/32), 32·warps − P",
      n(warps_per_block(900)) + " warps / " + n(wasted_lanes(900)) + " wasted vs " +
          n(warps_per_block(256)) + " warps / " + n(wasted_lanes(256)) + " wasted");
  const SchedulerDemand d = scheduler_demand(4, 400, 1, 20, 64);
  row("10", "N_sched 4, L 400, T_issue 1, I_warp 20, cap 64", "N_sched·L/T_issue/I_warp",
      format_number("%.0f", d.instruction_slots) + " slots, " + format_number("%.0f", d.warps_needed) +
          " warps > " + n(d.cap) + ": short " + n(d.deficit));
  row("self-test", "(72,1,1); L 300, W 15; 16/16 at 40 + 40", "as above",
      n(warps_per_block(72)) + " warps, " + n(wasted_lanes(72)) + " wasted; " +
          n(warps_to_hide_latency(300, 15)) + " warps; " +
          format_number("%.1f", divergence_slowdown({{16, 40}, {16, 40}}, 40)) + "×");
  md += "\nExample 4's and 5's bodies are missing from the reference page; 4 uses a 16-thread "
        "block and 5 the self-test's L = 300, W = 15.\n";
  return md;
}

}  // namespace warpcost::analysis
