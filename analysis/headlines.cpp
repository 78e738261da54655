#include "analysis/headlines.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>

#include "analysis/compare.hpp"
#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/text_format.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/report.hpp"
#include "core/divergence/schema.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/streaming/schema.hpp"

namespace warpcost::analysis {
namespace {

namespace src = headline_source;

std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// How bad a verdict is, for a figure that sums several rows: the worst one speaks for them all.
int severity(const std::string& v) {
  if (v == verdict::kError) return 6;
  if (v == verdict::kFails || v == verdict::kMissed) return 5;
  if (v == verdict::kThrottled) return 4;
  if (v == verdict::kWarn) return 3;
  if (v == verdict::kUntestable) return 2;
  if (v == verdict::kHolds || v == verdict::kMet || v == verdict::kPasses) return 1;
  if (v == verdict::kInfo) return 0;
  return 3;  // a verdict this table does not know: shown, and not taken for a pass
}

const Row* find_row(const EvaluatedRun& er, const std::string& family, const std::string& benchmark,
                    const std::string& params, const std::string& metric) {
  for (const Row& r : er.rows) {
    if (r.family == family && r.benchmark == benchmark && r.params == params && r.metric == metric) {
      return &r;
    }
  }
  return nullptr;
}

HeadlineFigure figure_from(const EvaluatedRun& er, const Row& r, std::string text) {
  HeadlineFigure f;
  f.found = true;
  f.value = r.value;
  f.text = std::move(text);
  f.verdict = r.verdict;
  f.run_id = er.run.run_id();
  f.row = &r;
  return f;
}

HeadlineFigure dram_latency(const EvaluatedRun& er) {
  const Row* r = find_row(er, schema::latency::kFamily, src::kDramLatencyBenchmark, src::kDramLatencyParams,
                          "latency_cycles");
  if (r == nullptr) return {};
  return figure_from(er, *r, fixed(r->value, 0) + " cycles");
}

HeadlineFigure best_read(const EvaluatedRun& er) {
  for (const Row& r : er.rows) {
    // A MIG instance's best read is info (no peak of its own to hold it to): shown without a share.
    const bool mig = !mig_instance(er.run).empty();
    const bool mig_best_read = mig && r.kind == kind::kInfo && r.model.rfind("at least 96%", 0) == 0;
    if (r.family != schema::streaming::kFamily || (r.kind != kind::kTarget && !mig_best_read) ||
        r.metric != src::kBestReadMetric) {
      continue;
    }
    if (mig_best_read) {
      return figure_from(er, r, human_value(r.value, "B/s") + ", a MIG instance: no peak target (" + r.benchmark +
                                    "/" + r.params + ")");
    }
    const RunContext& c = er.run.context;
    const double peak = model::theoretical_dram_peak_bytes_per_s(
        static_cast<long long>(c.number(schema::key::kMemoryClockKhz)),
        static_cast<int>(c.number(schema::key::kMemoryBusWidthBits)));
    return figure_from(er, r,
                       human_value(r.value, "B/s") + ", " + fixed(100 * r.value / peak, 1) +
                           "% of the " + human_value(peak, "B/s") + " peak (" + r.benchmark + "/" +
                           r.params + ")");
  }
  return {};
}

// Ex 7 at both levels (each warp's own cycles, the grid's time) and both residencies the sweep
// runs (4 and 64 warps/SM): the per-warp slowdown at 4 warps/SM is the figure's row, and each of
// the other three is shown with its own verdict, so a miss at the grid level or at full residency
// shows as plainly as the hold (issue 36).
HeadlineFigure divergence_20_12(const EvaluatedRun& er) {
  const auto param = [](const std::string& p, const std::string& key) {  // "k=v;..." -> v of key
    std::stringstream in(p);
    std::string kv;
    while (std::getline(in, kv, ';')) {
      if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
    }
    return std::string();
  };
  const Row* cells[2][2] = {{nullptr, nullptr}, {nullptr, nullptr}};  // [warp, grid][4, 64 warps/SM]
  for (const Row& r : er.rows) {
    const std::string& p = r.params;
    if (r.family != schema::divergence::kFamily || r.benchmark != src::kDivergenceBenchmark ||
        p.rfind(src::kDivergenceSplit, 0) != 0 || param(p, "if_trips") != param(p, "else_trips")) {
      continue;
    }
    const int level = r.metric == "warp_slowdown" ? 0 : r.metric == "grid_slowdown" ? 1 : -1;
    const std::string warps = param(p, "warps_per_sm");
    const int residency = warps == "4" ? 0 : warps == "64" ? 1 : -1;
    if (level >= 0 && residency >= 0 && cells[level][residency] == nullptr) cells[level][residency] = &r;
  }
  const Row* main = cells[0][0];
  if (main == nullptr) return {};
  const auto cell = [](const Row* r, const char* where) {
    return r == nullptr ? std::string() : std::string(where) + " " + fixed(r->value, 3) + "× (" + r->verdict + ")";
  };
  // The figure's own verdict (its row's, which the renderer appends) closes the text, so each of
  // the other three carries its verdict beside its number.
  std::string text = main->predicted ? "model " + fixed(*main->predicted, 2) + "×; " : std::string();
  if (cells[1][0] || cells[1][1]) {
    text += "grid " + cell(cells[1][0], "at 4") + (cells[1][0] && cells[1][1] ? ", " : "") + cell(cells[1][1], "at 64") + "; ";
  }
  text += "per warp " + (cells[0][1] ? cell(cells[0][1], "at 64") + ", " : std::string()) + "at 4 warps/SM " +
          fixed(main->value, 3) + "×";
  return figure_from(er, *main, text);
}

HeadlineFigure staircase(const EvaluatedRun& er) {
  int steps = 0;
  int steps_hold = 0;
  const Row* shown = nullptr;
  for (const Row& r : er.rows) {
    if (r.family != schema::partial_warp::kFamily || r.benchmark != src::kStaircaseStepBenchmark ||
        r.metric != src::kStaircaseStep) {
      continue;
    }
    ++steps;
    steps_hold += r.verdict == verdict::kHolds ? 1 : 0;
    // The step with the worst verdict speaks for the figure; among equals the largest spread.
    if (shown == nullptr || severity(r.verdict) > severity(shown->verdict) ||
        (severity(r.verdict) == severity(shown->verdict) && r.value > shown->value)) {
      shown = &r;
    }
  }
  if (shown == nullptr) return {};
  return figure_from(er, *shown,
                     std::to_string(steps_hold) + " of " + std::to_string(steps) +
                         " steps hold one time; largest spread " + fixed(100 * shown->value, 2) + "% (" +
                         shown->params + ")");
}

HeadlineFigure knee(const EvaluatedRun& er) {
  const Row* k = find_row(er, schema::streaming::kFamily, "knee", src::kKneeParams, "knee_warps_per_sm");
  if (k == nullptr) return {};
  const Row* little = find_row(er, schema::streaming::kFamily, "knee", src::kKneeParams, src::kKneeLittlesLaw);
  HeadlineFigure f = figure_from(er, *k, fixed(k->value, 0) + " warps/SM (16-byte loads, W = 0)");
  // Little's law's figure is shown beside it, not judged into it: the verdict is the knee row's.
  if (little != nullptr && little->predicted) f.text += "; Little's law " + fixed(*little->predicted, 1);
  // The W = 16 curve (Ex 5's) beside it: its measured knee and both predictions, each with its
  // verdict, so the textbook's miss and the second-order model's hold are read together (issue 33).
  const Row* w16 = find_row(er, schema::streaming::kFamily, "knee", src::kKneeW16Params, "knee_warps_per_sm");
  const Row* textbook = find_row(er, schema::streaming::kFamily, "knee", src::kKneeW16Params, "knee_model_ceil_l_over_w");
  const Row* second = find_row(er, schema::streaming::kFamily, "knee", src::kKneeW16Params, "second_order_knee_warps_per_sm");
  if (w16 != nullptr && textbook != nullptr && second != nullptr && textbook->predicted && second->predicted) {
    f.text += "; W = 16: " + fixed(w16->value, 0) + " (the first swept point), textbook ceil(L/W) " +
              fixed(*textbook->predicted, 0) + " (" + textbook->verdict + "); its 90% crossing " + fixed(second->value, 1) +
              ", second-order " + fixed(*second->predicted, 1) + " (" + second->verdict + ")";
  }
  return f;
}

using Extractor = HeadlineFigure (*)(const EvaluatedRun&);

struct Column {
  const char* title;
  HeadlineFigure GpuHeadlines::*figure;
  Extractor extract;
};

const Column kColumns[] = {
    {"DRAM latency (random chase)", &GpuHeadlines::dram_latency, dram_latency},
    {"best read", &GpuHeadlines::best_read, best_read},
    {"divergence 20/12 (Ex 7)", &GpuHeadlines::divergence_20_12, divergence_20_12},
    {"staircase", &GpuHeadlines::staircase, staircase},
    {"knee", &GpuHeadlines::knee, knee},
};

}  // namespace

std::vector<GpuHeadlines> headline_figures(const std::vector<EvaluatedRun>& runs,
                                           HeadlineGrouping grouping) {
  // Newest first, so the first run of a GPU that has a figure is the newest that has it.
  std::vector<const EvaluatedRun*> order;
  for (const auto& er : runs) order.push_back(&er);
  std::stable_sort(order.begin(), order.end(), [](const EvaluatedRun* a, const EvaluatedRun* b) {
    const auto key = [](const EvaluatedRun* r) {
      return std::make_pair(r->run.context.text(schema::key::kUtc), r->run.run_id());
    };
    return key(a) > key(b);
  });
  std::map<std::string, GpuHeadlines> by_gpu;
  for (const EvaluatedRun* er : order) {
    const std::string gpu = grouping == HeadlineGrouping::kDevice
                                ? gpu_label(er->run)
                                : er->run.context.text(schema::key::kGpuName);
    auto [it, fresh] = by_gpu.try_emplace(gpu);
    GpuHeadlines& h = it->second;
    if (fresh) {
      h.gpu = gpu;
      h.newest_run = er->run.run_id();
      h.sm_clock_hz = er->run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
    }
    for (const Column& c : kColumns) {
      HeadlineFigure& f = h.*(c.figure);
      if (!f.found) f = c.extract(*er);
    }
  }
  std::vector<GpuHeadlines> out;
  for (auto& [gpu, h] : by_gpu) out.push_back(std::move(h));
  return out;
}

std::string headline_table_markdown(const std::vector<EvaluatedRun>& runs, HeadlineGrouping grouping) {
  if (runs.empty()) return "";
  const std::vector<GpuHeadlines> gpus = headline_figures(runs, grouping);
  std::string md = std::string("## Headline figures per GPU\n\nOne row per GPU ") +
      (grouping == HeadlineGrouping::kDevice ? "(name and UUID)" : "model (every run of that name)") +
      "; each figure from the newest "
      "run of that GPU that measured it (the last column says which), with the evaluator's verdict "
      "in brackets. Sources: the random chase's DRAM plateau; the run's best streaming read (its target); Ex 7's "
      "slowdown per warp at 4 warps/SM, with the grid's and 64 warps/SM's beside it, each with its verdict; the "
      "staircase's steps (the step with the worst verdict); the knee of the W = 0 stream, Little's law's figure "
      "beside it, and the W = 16 knee with the textbook's and the second-order prediction and verdicts. Each figure "
      "is one row of the CSV: "
      "`headline` names it.\n\n| GPU | SM clock |";
  for (const Column& c : kColumns) md += std::string(" ") + c.title + " |";
  md += " runs |\n|---|---|";
  for (std::size_t i = 0; i < std::size(kColumns); ++i) md += "---|";
  md += "---|\n";
  std::string without;
  for (const GpuHeadlines& h : gpus) {
    bool any = false;
    for (const Column& c : kColumns) any = any || (h.*(c.figure)).found;
    if (!any) {
      without += (without.empty() ? "" : "; ") + h.gpu + " (" + h.newest_run + ")";
      continue;
    }
    md += "| " + cell(h.gpu) + " | " + human_value(h.sm_clock_hz, "Hz") + " |";
    // run id -> the figures read from it, in column order
    std::vector<std::pair<std::string, std::string>> sources;
    for (const Column& c : kColumns) {
      const HeadlineFigure& f = h.*(c.figure);
      md += " " + (f.found ? cell(f.text) + " (" + f.verdict + ")" : std::string("—")) + " |";
      if (!f.found) continue;
      auto it = std::find_if(sources.begin(), sources.end(),
                             [&f](const auto& s) { return s.first == f.run_id; });
      if (it == sources.end()) {
        sources.emplace_back(f.run_id, c.title);
      } else {
        it->second += std::string(", ") + c.title;
      }
    }
    std::string used;
    for (const auto& [run, titles] : sources) used += (used.empty() ? "" : "; ") + run + ": " + titles;
    md += " " + cell(used) + " |\n";
  }
  if (!without.empty()) md += "\nNo headline figure in the runs of: " + without + ".\n";
  return md;
}

}  // namespace warpcost::analysis
