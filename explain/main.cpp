// warpcost-explain: runs an application under libwarpcost_inject.so, reads the launch records it
// left, prices each kernel's warp-granularity costs with this GPU's measured figures from results/
// and prints the report (text; --json, --csv). `--proof` judges the examples' predicted against
// measured fix speedups. Arguments are checked before anything runs; no GPU is needed for them.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/explain_metrics.hpp"
#include "core/result_schema.hpp"
#include "core/version.hpp"
#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "core/streaming/schema.hpp"
#include "explain/cost_model.hpp"
#include "explain/explain_cli.hpp"
#include "explain/figures.hpp"
#include "explain/proof.hpp"
#include "explain/records.hpp"
#include "explain/report.hpp"
#include "analysis/cli.hpp"
#include "analysis/tidy_csv.hpp"

namespace fs = std::filesystem;
using namespace warpcost;
using namespace warpcost::explain;

namespace {

// Writes `text` to `path` as the analysis writes its outputs: through a temporary beside it and a
// rename, the temporary removed whatever ends the write; nothing half-written.
void write_atomically(const std::string& path, const std::string& text) {
  analysis::write_files_atomically({{fs::path(path), text}});
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path default_inject_library() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (ec ? fs::path(".") : self.parent_path()) / "libwarpcost_inject.so";
}

std::string utc_now(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// Runs the application with the injection library; its stdout and stderr stay its own.
AppOutcome run_app(const Options& o, const fs::path& library, const fs::path& records) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
    ::setenv(env::kOut, records.c_str(), 1);
    ::setenv(env::kLaunches, std::to_string(o.launches).c_str(), 1);
    ::setenv(env::kLaunchSkip, std::to_string(o.launch_skip).c_str(), 1);
    ::setenv(env::kEachShape, o.each_shape ? "1" : "0", 1);
    ::setenv(env::kDramPass, o.dram_pass ? "1" : "0", 1);
    if (o.kernel_regex.empty()) {
      ::unsetenv(env::kKernel);
    } else {
      ::setenv(env::kKernel, o.kernel_regex.c_str(), 1);
    }
    // Modules load before the first launch, not inside a profiled one (docs/explain.md).
    ::setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    std::vector<char*> argv;
    for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "warpcost explain: cannot start %s\n", argv[0]);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  AppOutcome out;
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  return out;
}

// This GPU's newest run under `results` (archives left out), evaluated into figures; nullopt with
// the reason in `note` when there is none.
std::optional<GpuFigures> load_figures(const fs::path& results, const std::string& gpu, std::string& note) {
  std::vector<std::pair<std::string, std::string>> runs;
  std::map<std::string, fs::path> paths;
  std::error_code ec;
  if (fs::is_directory(results, ec)) {
    for (const auto& gpu_dir : fs::directory_iterator(results, ec)) {
      if (!gpu_dir.is_directory() || gpu_dir.path().filename() == "archive") continue;
      for (const auto& run_dir : fs::directory_iterator(gpu_dir.path(), ec)) {
        const fs::path bench = run_dir.path() / "bench.json";
        if (!fs::is_regular_file(bench)) continue;
        try {
          const analysis::Run r = analysis::read_run(bench);
          const std::string name = r.context.text(schema::key::kGpuName);
          runs.emplace_back(run_dir.path().filename().string(), name);
          paths[run_dir.path().filename().string()] = bench;
        } catch (const std::exception& e) {
          std::cerr << "warpcost explain: skipping " << bench << ": " << e.what() << "\n";
        }
      }
    }
  }
  const auto newest = newest_run_of(gpu, runs);
  if (!newest) {
    note = "no suite run of " + gpu + " under " + results.string() +
           " (./warpcost run makes one): the coalescing and latency views are not priced; partial warps and "
           "divergence are priced from the counters alone";
    return std::nullopt;
  }
  analysis::Run run = analysis::read_run(paths.at(*newest));
  // Explain reads no streaming second-order row; without the probe's spread the analysis prices
  // those curves by the queue instead of simulating greedy issue (ISSUE-33-GREEDY-ISSUE), which
  // took about 5 s a run: the figures explain reads are the same either way.
  for (auto& b : run.benchmarks) b.counters.erase(schema::streaming::counter::kLoadedLatencyMaxExcessW2);
  note = "run " + run.run_id() + " (" + paths.at(*newest).string() + ")";
  const std::vector<analysis::Row> rows = analysis::evaluate_run(run);
  GpuFigures figures = figures_from_rows(rows, gpu, run.run_id());
  add_model_parameters(figures, run, rows);
  note += "; kernel model: " + (figures.model ? figures.model_source : "none (" + figures.model_source +
                                                                          "): each view priced on its own");
  return figures;
}

analysis::Run csv_run(const Session& s) {
  analysis::Run run;
  auto& c = run.context.values;
  const std::string stamp = utc_now("%Y%m%dT%H%M%SZ");
  c[schema::kVersionKey] = std::to_string(schema::kVersion);
  c[schema::key::kRunId] = "explain/" + stamp;
  c[schema::key::kUtc] = utc_now("%Y-%m-%dT%H:%M:%SZ");
  const DeviceRecord d = s.records.devices.empty() ? DeviceRecord{} : s.records.devices.front();
  c[schema::key::kGpuName] = d.name;
  c[schema::key::kGpuUuid] = "unknown";  // the injection records carry no UUID
  // The clocks and memory figures the CSV's headline pass reads: an explain session measures none.
  for (const char* key : {schema::key::kSmClockMeasuredKhz, schema::key::kSmClockMaxKhz,
                          schema::key::kMemoryClockKhz, schema::key::kMemoryBusWidthBits}) {
    c[key] = "0";
  }
  c[schema::key::kCc] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  c[schema::key::kSmCount] = std::to_string(d.sm_count);
  c[schema::key::kDriverVersion] = "cuda " + std::to_string(d.driver_api);
  c[schema::key::kCudaRuntime] = "unknown";
  c[schema::key::kGitRev] = git_revision();
  return run;
}

// The session's figures, costs and outputs (text, --json, --csv); exit 1 when the app failed or
// the profiler could not run.
int price_and_report(Session& s, const Options& o) {
  std::optional<GpuFigures> figures;
  const bool saved = !s.command.empty() && s.command.front() == "--from-records";
  if (!s.records.started) {
    s.figures_note = saved ? "none: the file holds no start record (is it a file kept with --records?)"
                           : "none: the injection library was not loaded (the application made no CUDA driver call)";
  } else if (s.records.devices.empty()) {
    s.figures_note = "none: no launch was profiled";
  } else {
    figures = load_figures(o.results_dir, s.records.devices.front().name, s.figures_note);
    if (figures) s.figures = &*figures;
  }
  s.kernels = summarise(s.records.launches, s.records.each_shape);
  const int sm_count = s.records.devices.empty() ? 0 : s.records.devices.front().sm_count;
  for (const auto& k : s.kernels) s.costs.push_back(explain_kernel(k, s.figures, sm_count));

  std::cout << render_text(s) << std::flush;
  if (!o.json_path.empty()) write_atomically(o.json_path, to_json(s).dump(2) + "\n");
  if (!o.csv_path.empty()) {
    write_atomically(o.csv_path, analysis::tidy_csv({analysis::EvaluatedRun{csv_run(s), explain_rows(s)}}));
  }
  const bool app_failed = s.outcome.exit_code != 0 || s.outcome.signal != 0;
  return app_failed || !s.records.errors.empty() || !s.records.started ? 1 : 0;
}


int run_explain(const Options& o) {
  // Absolute: the driver opens it from the application's working directory.
  const fs::path library = fs::absolute(o.inject_path.empty() ? default_inject_library() : fs::path(o.inject_path));
  if (!fs::is_regular_file(library)) {
    std::cerr << "warpcost explain: the injection library " << library
              << " is missing; build it (cmake --build --preset <preset> --target warpcost_inject) or pass --inject\n";
    return 1;
  }
  char pattern[] = "/tmp/warpcost-explain-XXXXXX";
  const char* dir = ::mkdtemp(pattern);
  if (dir == nullptr) throw std::runtime_error("cannot make a temporary folder under /tmp");
  const fs::path records_path = fs::path(dir) / "records.jsonl";
  struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};

  Session s;
  s.command = o.command;
  s.outcome = run_app(o, library, records_path);
  const std::string raw = slurp(records_path);
  if (!o.records_path.empty()) write_atomically(o.records_path, raw);
  s.records = parse_records(raw, &s.skipped_lines);
  return price_and_report(s, o);
}

// --from-records: a saved session re-priced with the newest run under --results (no app runs).
int run_from_records(const Options& o) {
  Session s;
  s.command = {"--from-records", o.from_records};
  s.records = parse_records(slurp(o.from_records), &s.skipped_lines);
  return price_and_report(s, o);
}

// --proof: the cases table (proof.hpp, parse_proof_cases). Prints the verdict table; --out writes
// it too. A table that cannot be read is a usage error (exit 2), before anything is written.
int run_proof(const Options& o) {
  std::vector<ProofCase> cases;
  try {
    cases = parse_proof_cases(slurp(o.proof_cases));
  } catch (const ProofInputError& e) {
    std::cerr << "warpcost explain: " << e.what() << "\n";
    return 2;
  }
  const std::string table = proof_table(judge_proof(cases));
  std::cout << table;
  if (!o.proof_out.empty()) write_atomically(o.proof_out, table);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    const char* path = std::getenv("PATH");
    o = parse_options(std::vector<std::string>(argv + 1, argv + argc), path != nullptr ? path : "");
  } catch (const UsageError& e) {
    std::cerr << "warpcost explain: " << e.what() << "\n" << usage_text();
    return 2;
  }
  if (o.help) {
    std::cout << usage_text();
    return 0;
  }
  try {
    if (!o.from_records.empty()) return run_from_records(o);
    return o.proof_cases.empty() ? run_explain(o) : run_proof(o);
  } catch (const std::exception& e) {
    std::cerr << "warpcost explain: " << e.what() << "\n";
    return 1;
  }
}
