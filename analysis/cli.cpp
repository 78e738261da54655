#include "cli.hpp"

#include "compare.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <unistd.h>

#include "evaluation.hpp"
#include "report.hpp"
#include "run_reader.hpp"
#include "tidy_csv.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

const char* const kUsage =
    "usage: warpcost-analyze [--csv FILE] [--report FILE] [--per-run] [--quiet] PATH...\n"
    "       warpcost-analyze --compare BASE NEW [--csv FILE] [--report FILE] [--quiet]\n"
    "  PATH       a run's bench.json, a run folder, or a folder of runs (results/)\n"
    "  --csv      write the tidy CSV of all runs to FILE\n"
    "  --report   write the markdown report of all runs to FILE\n"
    "  --per-run  also write warpcost.csv and report.md into each run's folder\n"
    "  --quiet    do not print the report\n"
    "  --compare  BASE and NEW are one run each: per benchmark in both, new/base median time\n"
    "             and same / faster / slower / unclear (1% band, Mann-Whitney U p < 0.05)\n"
    "With a single run and neither --csv nor --report, the CSV and report go into its folder.\n";

bool skipped_folder(const fs::path& p) {
  const std::string name = p.filename().string();
  return (!name.empty() && name[0] == '.') ||
         (name.size() > 7 && name.compare(name.size() - 7, 7, ".failed") == 0);
}

}  // namespace

namespace {

// Writes every output or none, prints the markdown unless asked not to, and names each file.
void deliver(const std::vector<std::pair<fs::path, std::string>>& outputs, const std::string& markdown,
             bool quiet, std::ostream& out, std::ostream& err) {
  write_files_atomically(outputs);
  if (!quiet) out << markdown;
  for (const auto& [path, content] : outputs) err << "wrote " << path.string() << "\n";
}

Run read_single_run(const std::string& input) {
  const std::vector<fs::path> runs = find_runs(input);
  if (runs.size() != 1) {
    throw std::runtime_error(input + ": holds " + std::to_string(runs.size()) +
                             " runs; --compare takes one run a side (a bench.json or a run folder)");
  }
  return read_run(runs.front());
}

int compare_main(const std::string& base_path, const std::string& new_path,
                 const std::string& csv_path, const std::string& report_path, bool quiet,
                 std::ostream& out, std::ostream& err) {
  try {
    const Run base = read_single_run(base_path);
    const Run next = read_single_run(new_path);
    const RunComparison c = compare_runs(base, next);
    const std::string md = comparison_markdown(c);
    std::vector<std::pair<fs::path, std::string>> outputs;
    if (!csv_path.empty()) outputs.emplace_back(csv_path, comparison_csv(c));
    if (!report_path.empty()) outputs.emplace_back(report_path, md);
    deliver(outputs, md, quiet, out, err);
    return kExitOk;
  } catch (const std::exception& e) {
    err << "warpcost-analyze: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace

std::vector<fs::path> find_runs(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::runtime_error(path.string() + ": no such file or folder");
  if (fs::is_regular_file(path)) return {path};
  if (fs::is_regular_file(path / "bench.json")) return {path / "bench.json"};
  std::vector<fs::path> runs;
  for (auto it = fs::recursive_directory_iterator(path); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && skipped_folder(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().filename() == "bench.json") runs.push_back(it->path());
  }
  if (runs.empty()) {
    throw std::runtime_error(path.string() + ": no runs in this folder (no bench.json below it)");
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

void write_files_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<fs::path> temps;
  auto discard = [&temps] {
    std::error_code ignored;
    for (const auto& t : temps) fs::remove(t, ignored);
  };
  for (const auto& [target, content] : files) {
    const fs::path temp = target.string() + ".tmp." + std::to_string(::getpid());
    temps.push_back(temp);
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) {
      discard();
      throw std::runtime_error(target.string() + ": cannot be written");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) fs::rename(temps[i], files[i].first);
}

int analyze_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string csv_path;
  std::string report_path;
  bool per_run = false;
  bool quiet = false;
  bool compare = false;
  std::vector<std::string> inputs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--csv" || a == "--report") {
      if (i + 1 >= args.size()) {
        err << "warpcost-analyze: " << a << " needs a file name\n" << kUsage;
        return kExitUsage;
      }
      (a == "--csv" ? csv_path : report_path) = args[++i];
    } else if (a == "--per-run") {
      per_run = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--compare") {
      compare = true;
    } else if (a == "--help" || a == "-h") {
      out << kUsage;
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      err << "warpcost-analyze: unknown option '" << a << "'\n" << kUsage;
      return kExitUsage;
    } else {
      inputs.push_back(a);
    }
  }
  if (compare) {
    if (inputs.size() != 2 || per_run) {
      err << "warpcost-analyze: --compare takes exactly two runs, BASE and NEW"
          << (per_run ? ", and no --per-run" : "") << "\n" << kUsage;
      return kExitUsage;
    }
    return compare_main(inputs[0], inputs[1], csv_path, report_path, quiet, out, err);
  }
  if (inputs.empty()) {
    err << "warpcost-analyze: name at least one run or folder of runs\n" << kUsage;
    return kExitUsage;
  }

  try {
    std::vector<fs::path> files;
    std::set<fs::path> seen;
    for (const auto& input : inputs) {
      for (const auto& f : find_runs(input)) {
        if (seen.insert(fs::weakly_canonical(f)).second) files.push_back(f);
      }
    }
    std::vector<EvaluatedRun> runs;
    std::map<std::string, fs::path> run_ids;
    for (const auto& f : files) {
      EvaluatedRun er{read_run(f), {}};
      const auto [it, fresh] = run_ids.emplace(er.run.run_id(), f);
      if (!fresh) {
        throw RunFormatError(f.string(), "context.run_id",
                             "'" + er.run.run_id() + "' is also the id of " + it->second.string());
      }
      er.rows = evaluate_run(er.run);
      runs.push_back(std::move(er));
    }

    std::vector<std::pair<fs::path, std::string>> outputs;
    if (csv_path.empty() && report_path.empty() && !per_run) {
      if (runs.size() != 1) {
        err << "warpcost-analyze: " << runs.size()
            << " runs: name --csv and --report for the merged output, or --per-run\n";
        return kExitUsage;
      }
      per_run = true;
    }
    if (per_run) {
      for (const auto& er : runs) {
        const fs::path dir = er.run.source.parent_path();
        outputs.emplace_back(dir / "warpcost.csv", tidy_csv({er}));
        outputs.emplace_back(dir / "report.md", markdown_report({er}));
      }
    }
    const std::string report = markdown_report(runs);
    if (!csv_path.empty()) outputs.emplace_back(csv_path, tidy_csv(runs));
    if (!report_path.empty()) outputs.emplace_back(report_path, report);
    deliver(outputs, report, quiet, out, err);
    return kExitOk;
  } catch (const std::exception& e) {
    err << "warpcost-analyze: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace warpcost::analysis
