#include "analysis/cli.hpp"

#include "analysis/compare.hpp"

#include <algorithm>
#include <array>
#include <csignal>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <fcntl.h>
#include <unistd.h>

#include <iterator>

#include <nlohmann/json.hpp>

#include "core/result_schema.hpp"
#include "core/run_reader.hpp"
#include "core/version.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/family.hpp"
#include "analysis/report.hpp"
#include "analysis/summary_report.hpp"
#include "analysis/tidy_csv.hpp"
#include "analysis/units.hpp"
#include "analysis/verdict_lock.hpp"

namespace fs = std::filesystem;

namespace warpcost::analysis {
namespace {

// f(0), ..., f(n - 1) on up to the machine's count of cores, the results in index order. An
// exception from f reaches the caller, the one of the lowest index, as a plain loop's would.
template <class R, class F>
std::vector<R> for_each_parallel(std::size_t n, F f) {
  std::vector<std::optional<R>> results(n);
  std::vector<std::exception_ptr> errors(n);
  const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(n, std::thread::hardware_concurrency()));
  std::vector<std::future<void>> running;
  for (std::size_t w = 0; w < workers; ++w) {
    running.push_back(std::async(std::launch::async, [w, workers, n, &f, &results, &errors] {
      for (std::size_t i = w; i < n; i += workers) {
        try {
          results[i] = f(i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    }));
  }
  for (auto& r : running) r.get();
  std::vector<R> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    out.push_back(std::move(*results[i]));
  }
  return out;
}

const char* const kUsage =
    "usage: warpcost-analyze [--csv FILE] [--report FILE] [--per-run] [--plots DIR] [--allow-no-runs]\n"
    "                        [--allow-unknown] [--samples FILE] [--quiet] PATH...\n"
    "       warpcost-analyze --compare BASE NEW [--full] [--csv FILE] [--report FILE] [--quiet]\n"
    "       warpcost-analyze --version | --help\n"
    "  PATH       a run's bench.json, a run folder, or a folder of runs (results/)\n"
    "  --csv      write the tidy CSV of all runs to FILE (docs/csv.md)\n"
    "  --report   write the summary of all runs to FILE (per GPU its newest run, per family the\n"
    "             verdict counts; the summary is also what is printed)\n"
    "  --per-run  also write warpcost.csv, report.md (every table) and verdict-lock.txt (the rows\n"
    "             per family, metric, kind and verdict; docs/verdict-changes.md) into each run's folder\n"
    "  --plots    the plots folder the summary links to (results/plots)\n"
    "  --allow-no-runs  a folder without runs is not an error: the summary says there are none\n"
    "  --allow-unknown  keep benchmarks of no warpcost family, or not in their family, as info\n"
    "             rows (without it such a benchmark is an error naming it, exit 1)\n"
    "  --samples  write every timed sample of every run to FILE, long form (docs/csv.md)\n"
    "  --quiet    do not print the summary (--compare: print only its summary)\n"
    "  --compare  BASE and NEW are one run each: per benchmark in both, new/base median time\n"
    "             and same / faster / slower / unclear (1% band, Mann-Whitney U p < 0.05);\n"
    "             prints the counts per family and the largest changes\n"
    "  --full     with --compare: print every benchmark's row too (--report always has them)\n"
    "With a single run and neither --csv nor --report, the CSV, report and lock go into its folder.\n"
    "An output may not be a folder, an input, or another output. Exit codes: 0 done, 1 bad input\n"
    "(nothing written), 2 usage error (nothing written), 3 done but unreadable runs were skipped\n"
    "(each named), 4 done but some rows are error rows: the CSV schema refused them or an evaluator\n"
    "failed (each named).\n";

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
                 const std::string& csv_path, const std::string& report_path, bool quiet, bool full,
                 std::ostream& out, std::ostream& err) {
  try {
    const Run base = read_single_run(base_path);
    const Run next = read_single_run(new_path);
    const RunComparison c = compare_runs(base, next);
    const std::string md = comparison_markdown(c);
    std::vector<std::pair<fs::path, std::string>> outputs;
    if (!csv_path.empty()) outputs.emplace_back(csv_path, comparison_csv(c));
    if (!report_path.empty()) outputs.emplace_back(report_path, md);
    // Never nothing: --quiet prints the summary alone, as does a compare without --full.
    deliver(outputs, full && !quiet ? md : comparison_summary_markdown(c), false, out, err);
    return kExitOk;
  } catch (const std::exception& e) {
    err << "warpcost-analyze: " << e.what() << "\n";
    return kExitBadInput;
  }
}

// Every benchmark of the run that no registered family declares: "name (why)", in file order.
std::vector<std::string> unknown_benchmarks(const Run& run) {
  std::vector<std::string> unknown;
  for (const auto& b : run.benchmarks) {
    const Family* family = family_named(b.family);
    if (family == nullptr) {
      std::string known;
      for (const Family* f : families()) known += (known.empty() ? "" : ", ") + std::string(f->descriptor().name);
      unknown.push_back("'" + b.run_name + "' (family '" + b.family + "' is none of warpcost's: " + known + ")");
      continue;
    }
    const auto& declared = family->descriptor().benchmarks;
    const bool found = std::any_of(declared.begin(), declared.end(),
                                   [&b](const schema::Benchmark& d) { return b.benchmark == d.name; });
    if (!found) {
      std::string known;
      for (const auto& d : declared) known += (known.empty() ? "" : ", ") + std::string(d.name);
      unknown.push_back("'" + b.run_name + "' (family " + b.family + " has no benchmark '" + b.benchmark +
                        "'; it has " + known + ")");
    }
  }
  return unknown;
}

// The long-form sample table: one row per timed launch the bench recorded
// (warpcost_sample_seconds), read straight from each bench.json.
std::string samples_csv(const std::vector<fs::path>& files) {
  std::string out = "run_id,family,benchmark,params,repetition,sample,seconds\n";
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const nlohmann::json j = nlohmann::json::parse(replace_nonfinite_tokens(text));
    const std::string run_id = j.at("context").value(schema::key::kRunId, std::string());
    std::map<std::string, int> repetitions;
    for (const auto& entry : j.at("benchmarks")) {
      if (entry.value("run_type", std::string("iteration")) != "iteration") continue;
      const auto samples = entry.find("warpcost_sample_seconds");
      if (samples == entry.end() || !samples->is_array()) continue;
      const BenchmarkResult b = parse_run_name(entry.at("name").get<std::string>());
      const int repetition = repetitions[b.run_name]++;
      const std::string prefix = csv_field(run_id) + "," + csv_field(b.family) + "," + csv_field(b.benchmark) +
                                 "," + csv_field(b.params_text()) + "," + std::to_string(repetition) + ",";
      for (std::size_t i = 0; i < samples->size(); ++i) {
        out += prefix + std::to_string(i) + "," + csv_number((*samples)[i].get<double>()) + "\n";
      }
    }
  }
  return out;
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

namespace {

// The temporaries of the write in progress, for a signal handler to remove: an interrupted
// warpcost-analyze (Ctrl-C, a killed job) leaves none behind. Plain arrays, since a handler may
// only call async-signal-safe functions (unlink, signal, raise).
constexpr std::size_t kMostPendingTemps = 2048;
constexpr std::size_t kTempPathBytes = 1024;
char g_pending_temps[kMostPendingTemps][kTempPathBytes];
volatile std::sig_atomic_t g_pending_count = 0;

extern "C" void remove_pending_temps_and_reraise(int signal_number) {
  for (std::sig_atomic_t i = 0; i < g_pending_count; ++i) ::unlink(g_pending_temps[i]);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// Installs the handler for the life of one write and forgets the temporaries after it.
class PendingTemps {
 public:
  PendingTemps() {
    for (int s : kSignals) previous_[index(s)] = std::signal(s, remove_pending_temps_and_reraise);
  }
  ~PendingTemps() {
    g_pending_count = 0;
    for (int s : kSignals) std::signal(s, previous_[index(s)]);
  }
  PendingTemps(const PendingTemps&) = delete;
  PendingTemps& operator=(const PendingTemps&) = delete;
  // Before the file exists, so a signal at any point finds it listed.
  void add(const fs::path& temp) {
    const std::string text = temp.string();
    if (g_pending_count >= static_cast<std::sig_atomic_t>(kMostPendingTemps) || text.size() >= kTempPathBytes) {
      return;  // only the signal path loses it; the normal paths below still remove it
    }
    std::memcpy(g_pending_temps[g_pending_count], text.c_str(), text.size() + 1);
    g_pending_count = g_pending_count + 1;
  }
  // Renamed into place: no longer a temporary.
  void forget_first(std::size_t n) {
    for (std::size_t i = 0; i < n && i < kMostPendingTemps; ++i) g_pending_temps[i][0] = '\0';
  }

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  static std::size_t index(int s) { return s == SIGINT ? 0 : s == SIGTERM ? 1 : 2; }
  using Handler = void (*)(int);
  Handler previous_[3] = {};
};

}  // namespace

void write_files_atomically(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<fs::path> temps;
  std::size_t renamed = 0;
  PendingTemps pending;
  // Every temporary not yet renamed into place goes, whatever ends the write.
  struct Cleanup {
    std::vector<fs::path>& temps;
    std::size_t& renamed;
    ~Cleanup() {
      std::error_code ignored;
      for (std::size_t i = renamed; i < temps.size(); ++i) fs::remove(temps[i], ignored);
    }
  } cleanup{temps, renamed};
  for (const auto& [target, content] : files) {
    std::error_code ec;
    if (fs::is_directory(target, ec)) throw std::runtime_error(target.string() + " is a folder; nothing written");
  }
  for (const auto& [target, content] : files) {
    const fs::path temp = target.string() + ".tmp." + std::to_string(::getpid());
    pending.add(temp);
    temps.push_back(temp);
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) throw std::runtime_error(target.string() + ": cannot be written");
  }
  for (; renamed < files.size(); ++renamed) {
    std::error_code ec;
    fs::rename(temps[renamed], files[renamed].first, ec);
    if (ec) throw std::runtime_error(files[renamed].first.string() + ": cannot be written (" + ec.message() + ")");
    pending.forget_first(renamed + 1);
  }
}

namespace {

// The file a path names once "." and ".." and links are resolved, for telling two names of one
// file apart; a path that cannot be resolved is compared as given.
fs::path identity(const fs::path& p) {
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? p.lexically_normal() : resolved;
}


}  // namespace

std::string output_problem(const std::vector<std::pair<fs::path, std::string>>& outputs,
                           const std::vector<fs::path>& inputs) {
  std::map<fs::path, fs::path> seen;
  for (const auto& [path, content] : outputs) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      return path.string() + " is a folder; allowed: a file name (the folder is left as it is)";
    }
    // An output replaces its file through a rename: a device (/dev/null), pipe or socket would be
    // replaced by a plain file, so it is refused.
    if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
      return path.string() + " is not a regular file (a device, pipe or socket); allowed: a new file or a " +
             "regular one (an output replaces it)";
    }
    const fs::path id = identity(path);
    for (const auto& input : inputs) {
      if (identity(input) == id) {
        return path.string() + " is also an input; allowed: a new file or a derived one (an input is never " +
               "overwritten)";
      }
    }
    const auto [it, fresh] = seen.emplace(id, path);
    if (!fresh) return path.string() + " is named for two outputs; allowed: one file each";
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec)) return path.string() + ": its folder " + parent.string() + " does not exist";
    // A folder that takes no new file (read-only, not ours, /proc) is found now, not after the work:
    // a probe beside the output is made and removed, as the temporary of the write would be.
    if (const std::string why = takes_no_file(parent); !why.empty()) {
      return path.string() + ": its folder " + parent.string() + " takes no new file (" + why +
             "); allowed: a file in a folder that can be written";
    }
  }
  return {};
}

std::string takes_no_file(const fs::path& folder) {
  const fs::path probe = folder / (".warpcost-probe." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  std::error_code ec;
  fs::remove(probe, ec);
  return {};
}

std::string not_makeable_folder(const fs::path& folder) {
  std::error_code ec;
  fs::path existing = fs::absolute(folder, ec);
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, ec)) return existing.string() + " is not a folder";
  // The nearest folder that exists must take the new one (nothing under /proc can be made).
  if (const std::string why = takes_no_file(existing); !why.empty()) {
    return existing.string() + " takes no new file (" + why + ")";
  }
  return {};
}

int analyze_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string csv_path;
  std::string report_path;
  std::string plots_path;
  bool per_run = false;
  bool quiet = false;
  bool compare = false;
  bool allow_no_runs = false;
  bool allow_unknown = false;
  bool full = false;
  std::string samples_path;
  std::vector<std::string> inputs;
  std::set<std::string> given;
  for (const auto& a : args) {
    if (a == "--version") {
      out << version_line("warpcost-analyze") << "\n";
      return kExitOk;
    }
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--csv" || a == "--report" || a == "--plots" || a == "--samples") {
      if (i + 1 >= args.size()) {
        err << "warpcost-analyze: " << a << " needs a " << (a == "--plots" ? "folder" : "file") << " name\n"
            << kUsage;
        return kExitUsage;
      }
      std::string& target = a == "--csv" ? csv_path : a == "--report" ? report_path : a == "--plots" ? plots_path : samples_path;
      // Given twice, the first name would be dropped without a word: one each.
      if (!given.insert(a).second) {
        err << "warpcost-analyze: " << a << " given twice ('" << target << "' and '" << args[i + 1]
            << "'); allowed: each output once\n" << kUsage;
        return kExitUsage;
      }
      target = args[++i];
    } else if (a == "--allow-unknown") {
      allow_unknown = true;
    } else if (a == "--full") {
      full = true;
    } else if (a == "--per-run") {
      per_run = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--compare") {
      compare = true;
    } else if (a == "--allow-no-runs") {
      allow_no_runs = true;
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
  std::vector<fs::path> named_inputs(inputs.begin(), inputs.end());
  if (!plots_path.empty()) {
    // The plots folder the summary links to (plots.py draws into it): a file there is refused.
    if (const std::string why = not_makeable_folder(plots_path); !why.empty()) {
      err << "warpcost-analyze: --plots " << plots_path << " cannot be a folder here (" << why
          << "); allowed: a folder (made if missing)\n" << kUsage;
      return kExitUsage;
    }
    for (const std::string& other : {csv_path, report_path, samples_path}) {
      if (!other.empty() && identity(other) == identity(plots_path)) {
        err << "warpcost-analyze: --plots " << plots_path << " is also named for another output (" << other
            << "); allowed: a folder of its own\n" << kUsage;
        return kExitUsage;
      }
    }
  }
  if (full && !compare) {
    err << "warpcost-analyze: --full goes with --compare\n" << kUsage;
    return kExitUsage;
  }
  if (compare) {
    if (inputs.size() != 2 || per_run || !samples_path.empty()) {
      err << "warpcost-analyze: --compare takes exactly two runs, BASE and NEW"
          << (per_run || !samples_path.empty() ? ", and no --per-run or --samples" : "") << "\n" << kUsage;
      return kExitUsage;
    }
    std::vector<std::pair<fs::path, std::string>> outputs;
    if (!csv_path.empty()) outputs.emplace_back(csv_path, "");
    if (!report_path.empty()) outputs.emplace_back(report_path, "");
    try {
      for (const auto& input : inputs) {
        for (const auto& f : find_runs(input)) named_inputs.push_back(f);
      }
    } catch (const std::exception&) {
      // compare_main names a missing input itself
    }
    if (const std::string p = output_problem(outputs, named_inputs); !p.empty()) {
      err << "warpcost-analyze: " << p << "\n";
      return kExitUsage;
    }
    return compare_main(inputs[0], inputs[1], csv_path, report_path, quiet, full, out, err);
  }
  if (inputs.empty()) {
    err << "warpcost-analyze: name at least one run or folder of runs\n" << kUsage;
    return kExitUsage;
  }

  try {
    std::vector<fs::path> files;
    std::set<fs::path> seen;
    for (const auto& input : inputs) {
      std::vector<fs::path> found;
      try {
        found = find_runs(input);
      } catch (const std::runtime_error&) {
        std::error_code ec;
        if (!allow_no_runs || !fs::is_directory(input, ec)) throw;
      }
      for (const auto& f : found) {
        if (seen.insert(identity(f)).second) files.push_back(f);
      }
    }
    for (const auto& f : files) named_inputs.push_back(f);
    // Before anything is read or written: where the outputs go must be fine for every run.
    {
      std::vector<std::pair<fs::path, std::string>> planned;
      if (!csv_path.empty()) planned.emplace_back(csv_path, "");
      if (!report_path.empty()) planned.emplace_back(report_path, "");
      if (!samples_path.empty()) planned.emplace_back(samples_path, "");
      if (per_run || (csv_path.empty() && report_path.empty())) {
        for (const auto& f : files) {
          planned.emplace_back(f.parent_path() / "warpcost.csv", "");
          planned.emplace_back(f.parent_path() / "report.md", "");
          planned.emplace_back(f.parent_path() / kVerdictLockFile, "");
        }
      }
      if (const std::string p = output_problem(planned, named_inputs); !p.empty()) {
        err << "warpcost-analyze: " << p << "\n";
        return kExitUsage;
      }
    }

    // A run that cannot be read or judged is named and skipped; the others are analysed.
    std::vector<EvaluatedRun> runs;
    std::vector<std::string> skipped;
    std::vector<std::string> incomplete;
    std::map<std::string, fs::path> run_ids;
    // Each run is read and judged on its own (no state is shared between runs), so the runs are
    // read on the machine's cores at once; everything after is done in the inputs' order, as one
    // thread would, so the outputs do not depend on the count of cores.
    struct Read {
      EvaluatedRun er;
      std::string failure;  // why the run could not be read or judged; empty when it was
    };
    std::vector<Read> read = for_each_parallel<Read>(files.size(), [&files](std::size_t i) {
      Read r;
      try {
        r.er.run = read_run(files[i]);
        r.er.rows = evaluate_run(r.er.run);
      } catch (const RunFormatError& e) {
        r.failure = e.what();  // names the file and the field
      } catch (const std::exception& e) {
        r.failure = files[i].string() + ": " + e.what();  // a value of the wrong type, found deeper
      }
      return r;
    });
    for (std::size_t i = 0; i < files.size(); ++i) {
      const fs::path& f = files[i];
      if (!read[i].failure.empty()) {
        skipped.push_back(read[i].failure);
        continue;
      }
      EvaluatedRun er = std::move(read[i].er);
      if (const auto unknown = unknown_benchmarks(er.run); !unknown.empty()) {
        if (!allow_unknown) {
          err << "warpcost-analyze: " << RunFormatError(f.string(), "benchmarks",
                                std::to_string(unknown.size()) + " benchmark(s) of no warpcost family or benchmark, first " +
                                    unknown.front() + "; nothing written (--allow-unknown keeps them as info rows)")
                     .what()
              << "\n";
          return kExitBadInput;
        }
        err << "warpcost-analyze: " << f.string() << ": " << unknown.size()
            << " unknown benchmark(s) kept as info rows (--allow-unknown), first " << unknown.front() << "\n";
      }
      use_vocabulary_units(er.rows);
      for (const Row& r : er.rows) {
        if (r.metric == "evaluation_error" && r.verdict == verdict::kError) {
          incomplete.push_back(er.run.run_id() + " " + r.family + "/" + r.benchmark + " " + r.params + ": " + r.why);
        }
      }
      for (const auto& refusal : conform_to_schema(er)) incomplete.push_back("refused by the CSV schema: " + refusal);
      const auto [it, fresh] = run_ids.emplace(er.run.run_id(), f);
      if (!fresh) {
        throw RunFormatError(f.string(), "context.run_id",
                             "'" + er.run.run_id() + "' is also the id of " + it->second.string());
      }
      runs.push_back(std::move(er));
    }
    if (runs.empty() && skipped.size() == 1) {
      err << "warpcost-analyze: " << skipped.front() << "; nothing written\n";
      return kExitBadInput;
    }
    for (const auto& s : skipped) err << "warpcost-analyze: skipped: " << s << "\n";
    if (runs.empty() && !skipped.empty()) {
      err << "warpcost-analyze: no run could be read; nothing written\n";
      return kExitBadInput;
    }

    std::vector<std::pair<fs::path, std::string>> outputs;
    if (csv_path.empty() && report_path.empty() && !per_run) {
      if (files.size() != 1) {
        err << "warpcost-analyze: " << files.size()
            << " runs: name --csv and --report for the merged output, or --per-run\n";
        return kExitUsage;
      }
      per_run = true;
    }
    if (per_run) {  // each run's three files, rendered on the cores at once, kept in the runs' order
      using Three = std::array<std::pair<fs::path, std::string>, 3>;
      const std::vector<Three> rendered = for_each_parallel<Three>(runs.size(), [&runs](std::size_t i) {
        const EvaluatedRun& er = runs[i];
        const fs::path dir = er.run.source.parent_path();
        return Three{{{dir / "warpcost.csv", tidy_csv({er})},
                      {dir / "report.md", markdown_report({er})},
                      {dir / kVerdictLockFile, verdict_lock_text(er.run.run_id(), er.rows)}}};
      });
      for (const Three& three : rendered) outputs.insert(outputs.end(), three.begin(), three.end());
    }
    SummaryOptions summary_options;
    summary_options.link_base = report_path.empty() ? fs::path(".") : identity(report_path).parent_path();
    summary_options.plots = plots_path;
    summary_options.skipped = skipped;
    summary_options.incomplete = incomplete;
    const std::string summary = summary_report(runs, summary_options);
    if (!csv_path.empty()) outputs.emplace_back(csv_path, tidy_csv(runs));
    if (!report_path.empty()) outputs.emplace_back(report_path, summary);
    if (!samples_path.empty()) outputs.emplace_back(samples_path, samples_csv(files));
    deliver(outputs, summary, quiet, out, err);
    constexpr std::size_t kNamed = 10;
    for (std::size_t i = 0; i < incomplete.size() && i < kNamed; ++i) {
      err << "warpcost-analyze: written as an error row: " << incomplete[i] << "\n";
    }
    if (incomplete.size() > kNamed) {
      err << "warpcost-analyze: and " << incomplete.size() - kNamed << " more error rows (the summary names them)\n";
    }
    if (!skipped.empty()) {
      err << "warpcost-analyze: " << skipped.size() << " run(s) skipped (named above); exit "
          << kExitSkippedRuns << "\n";
      return kExitSkippedRuns;
    }
    if (!incomplete.empty()) {
      err << "warpcost-analyze: " << incomplete.size() << " row(s) could not be written as evaluated (named "
          << "above and in the summary); every other row is; exit " << kExitIncompleteRows << "\n";
      return kExitIncompleteRows;
    }
    return kExitOk;
  } catch (const std::exception& e) {
    err << "warpcost-analyze: " << e.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace warpcost::analysis
