#include "analysis/summary_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/result_schema.hpp"
#include "core/text_format.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/headlines.hpp"
#include "analysis/report.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

constexpr std::size_t kWhyChars = 160;

std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string shortened(const std::string& text) {
  return text.size() <= kWhyChars ? text : text.substr(0, kWhyChars - 3) + "...";
}

std::string link(const fs::path& target, const fs::path& base) {
  const fs::path relative = fs::weakly_canonical(target).lexically_relative(fs::weakly_canonical(base));
  return (relative.empty() ? target : relative).generic_string();
}

struct Tally {
  // Model checks by verdict (only checks whose outcome a GPU could change); instrument checks
  // passed or failed, counted apart; targets met or missed; info rows; benchmarks that reported an
  // error.
  int holds = 0, fails = 0, warn = 0, untestable = 0, throttled = 0, passes = 0, check_fails = 0, met = 0,
      missed = 0, error = 0, info = 0;
  const Row* first_miss = nullptr;
};

void count(Tally& t, const Row& r) {
  if (r.kind == kind::kCheck && r.verdict == verdict::kPasses) {
    ++t.passes;
  } else if (r.kind == kind::kCheck && r.verdict == verdict::kFails) {
    ++t.check_fails;
  } else if (r.verdict == verdict::kHolds) {
    ++t.holds;
  } else if (r.verdict == verdict::kFails) {
    ++t.fails;
  } else if (r.verdict == verdict::kWarn) {
    ++t.warn;
  } else if (r.verdict == verdict::kUntestable) {
    ++t.untestable;
  } else if (r.verdict == verdict::kThrottled) {
    ++t.throttled;
  } else if (r.verdict == verdict::kMet) {
    ++t.met;
  } else if (r.verdict == verdict::kMissed) {
    ++t.missed;
  } else if (r.verdict == verdict::kError) {
    ++t.error;
  } else {
    ++t.info;
  }
  const bool miss = r.verdict == verdict::kFails || r.verdict == verdict::kWarn ||
                    r.verdict == verdict::kMissed || r.verdict == verdict::kError;
  if (miss && t.first_miss == nullptr) t.first_miss = &r;
}

// Later start, or at the same start the later run id (its stamp).
bool newer(const EvaluatedRun& a, const EvaluatedRun& b) {
  const auto key = [](const EvaluatedRun& er) {
    return std::make_pair(er.run.context.text(schema::key::kUtc), er.run.run_id());
  };
  return key(a) > key(b);
}

std::string gpu_key(const EvaluatedRun& er) {
  const RunContext& c = er.run.context;
  return c.text(schema::key::kGpuName) + " " + c.text(schema::key::kGpuUuid);
}

// Plots of a family: files in `plots` whose name starts with the family's name, '_' as '-'.
std::vector<fs::path> plots_of(const std::string& family, const fs::path& plots) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (plots.empty() || !fs::is_directory(plots, ec)) return found;
  std::string prefix = family;
  std::replace(prefix.begin(), prefix.end(), '_', '-');
  for (const auto& e : fs::directory_iterator(plots, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind(prefix + "-", 0) == 0) found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Per family, the second-order model's MAE (its target row) beside the MAE of the family's textbook
// model rows (every judged model row whose model is not second-order), so a reader sees both.
std::string second_order_table(const std::vector<Row>& rows) {
  std::string md;
  for (const Row& m : rows) {
    if (m.benchmark != "second_order" || m.kind != kind::kTarget || !is_second_order(m)) continue;
    double sum = 0.0;
    int n = 0;
    int judged = 0;
    const std::string metric = m.metric.substr(0, m.metric.size() - std::string("_mae").size());
    for (const Row& r : rows) {
      if (r.family != m.family || !judged_model_row(r)) continue;
      if (is_second_order(r)) {
        judged += r.metric == metric;
      } else {
        sum += std::fabs(*r.rel_error);
        ++n;
      }
    }
    if (md.empty()) {
      md = "\nSecond-order models beside the textbook (docs/models.md): MAE of |rel_error| over the judged rows.\n\n"
           "| family | second-order rows | judged | MAE second-order | target | MAE textbook (model rows) |\n"
           "|---|---|---|---|---|---|\n";
    }
    md += "| " + cell(m.family) + " | `" + metric + "` | " + std::to_string(judged) + " | " + fixed(100 * m.value, 2) +
          " % | " + m.verdict + " | " + (n > 0 ? fixed(100 * sum / n, 2) + " % over " + std::to_string(n) : std::string("—")) +
          " |\n";
  }
  return md;
}

std::string run_section(const EvaluatedRun& er, const SummaryOptions& o) {
  namespace key = schema::key;
  const RunContext& c = er.run.context;
  std::string md = "\n## " + cell(c.text(key::kGpuName)) + " — newest run " + cell(er.run.run_id()) + "\n\n";
  md += "cc " + c.text(key::kCc) + ", " + c.text(key::kSmCount) + " SMs, driver " +
        cell(c.text(key::kDriverVersion)) + ", CUDA runtime " + cell(c.text(key::kCudaRuntime)) +
        ", warpcost " + cell(git_rev_text(c.text(key::kGitRev))) + ", " + cell(c.text(key::kUtc)) +
        ". Full tables: [report.md](" + link(er.run.source.parent_path() / "report.md", o.link_base) +
        ").\n\n";
  if (const auto it = c.values.find(key::kRunStatus); it != c.values.end() && it->second.rfind("partial", 0) == 0) {
    md += "**A partial run** (" + cell(it->second) + "): " + std::to_string(er.run.benchmarks.size()) +
          " points measured; the families and points it lacks are not judged here.\n\n";
  }
  if (const auto it = c.values.find(key::kOtherGpuProcesses);
      it != c.values.end() && it->second != "none" && it->second.rfind("unknown", 0) != 0) {
    md += "**Another process used this GPU during the run** (" + cell(it->second) +
          "): its work is in these times; the rows it may touch say so (machine_state other_process).\n\n";
  }
  if (const std::string mig = mig_instance(er.run); !mig.empty()) {
    md += "**A MIG instance** (" + cell(mig) + ", " + c.text(key::kSmCount) +
          " SMs): planned and judged as the instance it is, never against the whole GPU's profile or "
          "peak.\n\n";
  }
  if (runs_at_application_clocks(er.run)) {
    md += "**SM clock held by application clocks** (" + cell(c.text(key::kSmClockReference)) +
          "): points are judged against " + format_number("%.0f", reference_sm_clock_mhz(er.run)) +
          " MHz, not the device's maximum.\n\n";
  }
  {
    std::size_t throttled_points = 0;
    for (const Row& r : er.rows) throttled_points += r.metric == "sm_clock_low_mhz" && r.verdict == verdict::kThrottled;
    if (throttled_points > 0) {
      md += "**" + std::to_string(throttled_points) + " point(s) ran throttled** (SM clock under 95% of the " +
            (runs_at_application_clocks(er.run) ? "application clock" : "maximum") +
            "): their model rows read throttled, every other row is judged (report.md lists them).\n\n";
    }
  }
  std::vector<std::string> families;
  std::map<std::string, Tally> tallies;
  for (const Row& r : er.rows) {
    if (tallies.count(r.family) == 0) families.push_back(r.family);
    count(tallies[r.family], r);
  }
  md += "| family | model holds | model fails | warn | untestable here | throttled | checks passed | "
        "checks failed | targets met | targets missed | error | info | first miss | plots |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& family : families) {
    const Tally& t = tallies[family];
    std::string plot_links;
    for (const auto& p : plots_of(family, o.plots)) {
      plot_links += (plot_links.empty() ? "" : ", ") + std::string("[") + p.stem().string() + "](" +
                    link(p, o.link_base) + ")";
    }
    const std::string miss =
        t.first_miss ? t.first_miss->verdict + ": " + t.first_miss->benchmark + " " + t.first_miss->params +
                           " `" + t.first_miss->metric + "`: " + shortened(t.first_miss->why)
                     : std::string();
    md += "| " + cell(family) + " | " + std::to_string(t.holds) + " | " + std::to_string(t.fails) + " | " +
          std::to_string(t.warn) + " | " + std::to_string(t.untestable) + " | " +
          std::to_string(t.throttled) + " | " + std::to_string(t.passes) + " | " +
          std::to_string(t.check_fails) + " | " + std::to_string(t.met) + " | " + std::to_string(t.missed) +
          " | " + std::to_string(t.error) + " | " + std::to_string(t.info) + " | " + cell(miss) + " | " +
          plot_links + " |\n";
  }
  md += second_order_table(er.rows);
  return md;
}

}  // namespace

std::string summary_report(const std::vector<EvaluatedRun>& runs, const SummaryOptions& o) {
  std::size_t archived = 0;
  for (const auto& er : runs) archived += run_status_of(er.run) == run_status::kArchived;
  // Newest current run of each GPU, in the order the GPUs first appear.
  std::vector<std::string> gpus;
  std::map<std::string, const EvaluatedRun*> newest;
  for (const auto& er : runs) {
    if (run_status_of(er.run) != run_status::kCurrent) continue;
    const std::string g = gpu_key(er);
    auto [it, fresh] = newest.emplace(g, &er);
    if (fresh) {
      gpus.push_back(g);
    } else if (newer(er, *it->second)) {
      it->second = &er;
    }
  }

  std::string md = "# warpcost summary\n\n";
  md += std::to_string(runs.size()) + " run(s) analysed: " + std::to_string(runs.size() - archived) +
        " current, " + std::to_string(archived) + " archived. Below, the newest current run of each GPU, " +
        "per family the count of each verdict. Model checks (a prediction from independently measured " +
        "inputs, a declared tolerance): holds, fails, warn (the miss past the tolerance is inside twice " +
        "the point's own uncertainty), untestable here (the data cannot decide: a curve that never flattens, its prediction past the sweep), " +
        "throttled (SM clock under 95% of its maximum: kept out). Instrument checks (a fact of the " +
        "programming model or an API that no GPU measurement could change, read back to prove the " +
        "instrument): passed or failed, never counted as model checks. Targets (goal figures): met or " +
        "missed. error: the benchmark's own check failed or a rate is above the physical peak; info: " +
        "measured, no model. docs/verdicts.md lists every check. Each run's report.md has every table; " +
        "the CSV every value.\n";
  if (!o.skipped.empty()) {
    md += "\n**Skipped " + std::to_string(o.skipped.size()) + " unreadable run(s):**\n\n";
    for (std::size_t i = 0; i < o.skipped.size() && i < kSummaryMaxOtherRuns; ++i) {
      md += "- " + cell(shortened(o.skipped[i])) + "\n";
    }
    if (o.skipped.size() > kSummaryMaxOtherRuns) {
      md += "- and " + std::to_string(o.skipped.size() - kSummaryMaxOtherRuns) + " more\n";
    }
  }
  if (!o.incomplete.empty()) {
    md += "\n**" + std::to_string(o.incomplete.size()) +
          " row(s) could not be written as evaluated** (the CSV schema refused them, or an evaluator "
          "failed): each is an error row; every other row is as evaluated.\n\n";
    for (std::size_t i = 0; i < o.incomplete.size() && i < kSummaryMaxOtherRuns; ++i) {
      // Longer than a first miss: the reason is at the end of the line.
      const std::string& line = o.incomplete[i];
      md += "- " + cell(line.size() <= 3 * kWhyChars ? line : line.substr(0, 3 * kWhyChars - 3) + "...") + "\n";
    }
    if (o.incomplete.size() > kSummaryMaxOtherRuns) {
      md += "- and " + std::to_string(o.incomplete.size() - kSummaryMaxOtherRuns) + " more (error rows in the CSV)\n";
    }
  }
  if (gpus.empty()) {
    md += "\nNo current run yet: `./warpcost run` on a machine with an NVIDIA GPU makes one in "
          "results/<gpu>/<run>/. Archived runs are kept in results/archive/ (see its README).\n";
  }
  std::vector<EvaluatedRun> shown;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (i < kSummaryMaxGpus) {
      md += run_section(*newest[gpus[i]], o);
    }
    shown.push_back(*newest[gpus[i]]);
  }
  if (gpus.size() > kSummaryMaxGpus) {
    md += "\nAnd " + std::to_string(gpus.size() - kSummaryMaxGpus) +
          " more GPUs; their newest runs are in the CSV (run_status = current).\n";
  }

  std::vector<const EvaluatedRun*> others;
  std::set<const EvaluatedRun*> newest_runs;
  for (const auto& [g, er] : newest) newest_runs.insert(er);
  for (const auto& er : runs) {
    if (newest_runs.count(&er) == 0) others.push_back(&er);
  }
  if (!others.empty()) {
    md += "\n## Other runs\n\n| run | status | GPU | model holds | model fails | warn | checks passed | "
          "checks failed | error | report |\n"
          "|---|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < others.size() && i < kSummaryMaxOtherRuns; ++i) {
      const EvaluatedRun& er = *others[i];
      Tally t;
      for (const Row& r : er.rows) count(t, r);
      const auto partial = er.run.context.values.find(schema::key::kRunStatus);
      const bool is_partial = partial != er.run.context.values.end() && partial->second.rfind("partial", 0) == 0;
      md += "| " + cell(er.run.run_id()) + " | " + run_status_of(er.run) + (is_partial ? ", partial" : "") + " | " +
            cell(er.run.context.text(schema::key::kGpuName)) + " | " + std::to_string(t.holds) + " | " +
            std::to_string(t.fails) + " | " + std::to_string(t.warn) + " | " + std::to_string(t.passes) +
            " | " + std::to_string(t.check_fails) + " | " + std::to_string(t.error) +
            " | [report.md](" + link(er.run.source.parent_path() / "report.md", o.link_base) + ") |\n";
    }
    if (others.size() > kSummaryMaxOtherRuns) {
      md += "\nAnd " + std::to_string(others.size() - kSummaryMaxOtherRuns) + " more runs (see the CSV).\n";
    }
  }
  std::vector<EvaluatedRun> current;
  for (const auto& er : runs) {
    if (run_status_of(er.run) == run_status::kCurrent) current.push_back(er);
  }
  if (!current.empty()) md += "\n" + headline_table_markdown(current);
  md += "\n" + worked_examples_markdown(shown);
  return md;
}

}  // namespace warpcost::analysis
