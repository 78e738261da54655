// warpcost-examples: a course author's worked examples against the models (docs/worked-examples.md).
//   warpcost-examples check FILE                 every stated answer vs the model; exit 0 all agree,
//                                                1 any disagrees, 2 malformed file or usage
//   warpcost-examples check FILE --plan          also lists, per example, the runner calls --measure
//                                                would make or why no GPU measures it (no GPU needed)
//   warpcost-examples check FILE --measure [--bench-dir DIR] [--results DIR]
//                                                also runs each example's point with its family's
//                                                runner on the GPU (exit 77 without one) and writes
//                                                DIR/<gpu>/<utc>-examples-<file>/{examples.md,examples.csv}
//   warpcost-examples predict KIND key=value ... [--results DIR] [--gpu NAME]
//                                                the model's answers, and the measured value of the
//                                                newest run of the GPU under DIR (default results);
//                                                stream_bandwidth and coalescing_bandwidth take the
//                                                GPU's parameters they are not given from that run
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/cli.hpp"
#include "core/text_format.hpp"
#include "check/examples.hpp"
#include "check/measure.hpp"
#include "check/measured.hpp"

namespace {

namespace ex = warpcost::examples;

std::string usage_text() {
  return "usage: warpcost check FILE [--plan | --measure [--bench-dir DIR] [--results DIR]]\n"
         "       warpcost predict KIND key=value ... [--results DIR] [--gpu NAME]\n"
         "  KIND: " + ex::kind_names() + "\n"
         "        (docs/worked-examples.md lists each kind's keys)\n";
}

int usage(const std::string& problem) {
  std::fprintf(stderr, "warpcost: %s\n%s", problem.c_str(), usage_text().c_str());
  return ex::kExitMalformed;
}

// A folder argument that must already be one (an input), or "" where it is.
std::string not_a_folder(const std::string& flag, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "";
  return flag + " " + path + (std::filesystem::exists(path, ec) ? " is not a folder" : " does not exist") +
         "; allowed: an existing folder";
}

// An option's value given a second time: the first would be dropped without a word.
int given_twice(const std::string& flag, const std::string& first, const std::string& second) {
  return usage(flag + " given twice ('" + first + "' and '" + second + "'); allowed: once");
}

constexpr int kExitNoDevice = 77;

std::string first_line_of(const char* command) {
  FILE* p = popen(command, "r");
  if (p == nullptr) return "";
  char buf[256] = {0};
  std::string name;
  if (std::fgets(buf, sizeof buf, p) != nullptr) name = buf;
  if (pclose(p) != 0) return "";
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' ')) name.pop_back();
  return name;
}

// The name nvidia-smi gives the first GPU, or "" where none is visible.
std::string visible_gpu() { return first_line_of("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null"); }


int measure(const std::string& file, const std::vector<ex::Example>& examples, const std::vector<ex::MeasurePlan>& plans,
            const std::string& bench_dir, const std::string& results, bool any_disagrees) {
  // Arguments, the file and the runners are checked; only now is a device looked for.
  const std::string gpu = visible_gpu();
  if (gpu.empty()) {
    std::fprintf(stderr, "warpcost: --measure needs a GPU and nvidia-smi finds none; nothing was run or written\n");
    return kExitNoDevice;
  }
  // The second-order rows' parameters: this GPU's newest suite run under --results that has them.
  warpcost::analysis::Run parameter_run;
  ex::SecondOrderSource params;
  if (ex::second_order_parameter_run(results, gpu, parameter_run, params.why_none)) params.run = &parameter_run;
  std::vector<ex::MeasuredAnswer> rows;
  bool bad = any_disagrees;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    std::vector<ex::MeasuredAnswer> mine;
    try {
      mine = ex::judge_measurement(examples[i], plans[i], ex::run_plan(plans[i], bench_dir), params);
    } catch (const ex::RunnerRefused& e) {
      ex::MeasuredAnswer r;
      r.example = examples[i].id;
      r.kind = examples[i].kind;
      r.row_kind = "info";
      r.verdict = "not measured";
      r.note = e.what();
      mine = {r};
    } catch (const std::exception& e) {
      // Whatever a report or the models refused: one error row naming it, the other examples go on.
      ex::MeasuredAnswer r;
      r.example = examples[i].id;
      r.kind = examples[i].kind;
      r.row_kind = "info";
      r.verdict = "error";
      r.note = e.what();
      mine = {r};
    }
    for (const auto& r : mine) bad = bad || r.verdict == "fails" || r.verdict == "error";
    rows.insert(rows.end(), mine.begin(), mine.end());
  }
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  char utc[32];
  std::strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  // <utc>-examples-<file stem>: the summary shows the reference page's (report.hpp, kPageExamplesSuffix).
  const std::string run = warpcost::analysis::gpu_slug(gpu) + "/" + stamp + "-examples-" + warpcost::analysis::gpu_slug(std::filesystem::path(file).stem().string());
  const char* rev_env = std::getenv("WARPCOST_GIT_REV");
  const std::string rev = rev_env != nullptr ? rev_env : first_line_of("git rev-parse --short=12 HEAD 2>/dev/null");
  const std::string md = ex::measured_markdown(
      rows, gpu + ", " + file + "; second-order parameters " +
                (params.run != nullptr ? "of run " + params.run->run_id() : "none: " + params.why_none));
  const std::string csv = ex::measured_csv(rows, run, utc, gpu, rev.empty() ? "unknown" : rev);
  // Written to a temporary folder and renamed: a run folder is whole or absent.
  namespace fs = std::filesystem;
  fs::path dir = fs::path(results) / run;
  for (int n = 2; fs::exists(dir); ++n) dir = fs::path(results) / (run + "-" + std::to_string(n));
  const fs::path tmp = fs::path(results) / (run + ".tmp." + std::to_string(now));
  fs::create_directories(tmp);
  std::ofstream(tmp / "examples.md") << md;
  std::ofstream(tmp / "examples.csv") << csv;
  fs::rename(tmp, dir);
  std::cout << "\n" << md << "\nwarpcost: written to " << dir.string() << "/examples.md and examples.csv\n";
  return bad ? ex::kExitDisagree : ex::kExitAgree;
}

int check(const std::vector<std::string>& args) {
  std::string file;
  bool do_measure = false;
  bool do_plan = false;
  std::string bench_dir;
  std::string results = "results";
  std::set<std::string> given;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--measure") {
      do_measure = true;
    } else if (args[i] == "--plan") {
      do_plan = true;
    } else if (args[i] == "--bench-dir" || args[i] == "--results") {
      if (i + 1 >= args.size()) return usage(args[i] + " needs a folder");
      const std::string& flag = args[i];
      if (!given.insert(flag).second) return given_twice(flag, flag == "--bench-dir" ? bench_dir : results, args[i + 1]);
      (flag == "--bench-dir" ? bench_dir : results) = args[i + 1];
      ++i;
    } else if (args[i].rfind("--", 0) == 0) {
      return usage("unknown option '" + args[i] + "'; allowed: --plan, --measure, --bench-dir DIR, --results DIR");
    } else if (!file.empty()) {
      return usage("check takes one FILE ('" + file + "' and '" + args[i] + "')");
    } else {
      file = args[i];
    }
  }
  if (file.empty()) return usage("check needs a FILE");
  if (!do_measure && (!bench_dir.empty() || results != "results")) return usage("--bench-dir and --results go with --measure");
  if (do_measure && do_plan) return usage("--plan lists what --measure would run: give one of them, not both");
  if (do_measure) {
    // Before the file's table is printed and before a GPU is looked for.
    if (bench_dir.empty()) return usage("--measure needs --bench-dir (./warpcost check passes build/<preset>/bench)");
    if (const std::string why = not_a_folder("--bench-dir", bench_dir); !why.empty()) return usage(why);
    // The folder, or the nearest of its parents that exists, must be a folder (one under a file
    // cannot be made, and the measurements would be lost after the GPU ran them).
    if (results.empty()) return usage("--results needs a folder; allowed: a folder (made if missing) the run is written under");
    if (const std::string why = warpcost::analysis::not_makeable_folder(results); !why.empty()) {
      return usage("--results " + results + " cannot be a folder here (" + why +
                   "); allowed: a folder (made if missing) the run is written under");
    }
  }
  const auto examples = ex::read_examples_file(file);
  std::vector<ex::MeasurePlan> plans;
  if (do_measure || do_plan) {
    for (const auto& e : examples) plans.push_back(ex::plan_measure(e));
  }
  if (do_measure) {
    // Every runner the plans call is in --bench-dir, found before the table is printed and a GPU
    // looked for (a folder without them failed each example, one error row at a time, on the GPU).
    std::vector<std::string> missing;
    for (const auto& plan : plans) {
      for (const auto& call : plan.calls) {
        const std::filesystem::path runner = std::filesystem::path(bench_dir) / call.runner;
        std::error_code ec;
        const bool runs = std::filesystem::is_regular_file(runner, ec) && ::access(runner.c_str(), X_OK) == 0;
        if (!runs && std::find(missing.begin(), missing.end(), call.runner) == missing.end()) missing.push_back(call.runner);
      }
    }
    if (!missing.empty()) {
      std::string names;
      for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
      return usage("--bench-dir " + bench_dir + " has no runnable " + names +
                   "; allowed: the bench folder of a build that holds the runners (build/<preset>/bench)");
    }
  }
  const auto checked = ex::check_examples(examples);
  std::cout << ex::check_markdown(checked);
  bool disagrees = false;
  for (const auto& c : checked) disagrees = disagrees || !c.agrees;
  if (do_plan) std::cout << "\n" << ex::plan_markdown(examples, plans);
  if (do_measure) return measure(file, examples, plans, bench_dir, results, disagrees);
  return disagrees ? ex::kExitDisagree : ex::kExitAgree;
}

int predict(const std::vector<std::string>& args) {
  if (args.empty()) return usage("predict needs a KIND");
  std::string results = "results";
  std::string gpu;
  std::vector<std::string> key_values;
  std::set<std::string> given;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--results" || args[i] == "--gpu") {
      if (i + 1 >= args.size()) return usage(args[i] + " needs a value");
      const std::string& flag = args[i];
      if (!given.insert(flag).second) return given_twice(flag, flag == "--results" ? results : gpu, args[i + 1]);
      (flag == "--results" ? results : gpu) = args[i + 1];
      ++i;
    } else {
      key_values.push_back(args[i]);
    }
  }
  // The arguments first: the kind, each key and each value's type, and a --results that is a folder;
  // only then is a GPU looked for or a run read, and nothing is printed before the answers are known.
  ex::check_predict_arguments(args[0], key_values);
  if (results != "results") {
    if (const std::string why = not_a_folder("--results", results); !why.empty()) return usage(why);
  }
  std::ostringstream filled_from;
  // The second-order kinds a suite run measures the GPU's side of: what the command line leaves out
  // comes from the GPU's newest run that has it (--gpu NAME, else the visible GPU's).
  if (args[0] == "stream_bandwidth" || args[0] == "stream_greedy_bandwidth" || args[0] == "coalescing_bandwidth" ||
      args[0] == "block_stream_bandwidth") {
    const std::string source_gpu = gpu.empty() ? visible_gpu() : gpu;
    warpcost::analysis::Run run;
    std::string why_none;
    if (!source_gpu.empty() && ex::second_order_parameter_run(results, source_gpu, run, why_none)) {
      std::string how;
      const auto filled = ex::gpu_parameters_from_run(args[0], key_values, run, how);
      filled_from << "GPU parameters from " << how << "\n";
      if (!filled.empty()) {
        filled_from << " ";
        for (const auto& kv : filled) filled_from << " " << kv;
        filled_from << "\n";
      }
      key_values.insert(key_values.end(), filled.begin(), filled.end());
    } else if (!source_gpu.empty()) {
      filled_from << "GPU parameters: none from a run (" << why_none << "); the command line's alone\n";
    }
  }
  ex::Example example;
  try {
    example = ex::example_from_arguments(args[0], key_values);
  } catch (const ex::BadInput& e) {
    // A key the run would have filled: say why it did not.
    std::string from = filled_from.str();
    if (from.rfind("GPU parameters: none", 0) != 0) throw;
    while (!from.empty() && from.back() == '\n') from.pop_back();
    throw ex::BadInput(std::string(e.what()) + " (" + from + ")");
  }
  const auto answers = ex::model_answers(example);
  std::cout << filled_from.str();
  std::cout << "model (" << example.kind << "):\n";
  for (const auto& a : answers) {
    std::cout << "  " << a.field << " = " << ex::render(a.value) << "    " << a.formula << "\n";
  }
  if (gpu.empty()) gpu = visible_gpu();
  if (gpu.empty()) {
    std::cout << "measured: no GPU is visible here (nvidia-smi finds none); --gpu NAME reads the runs of a "
                 "GPU under "
              << results << "/ (its folder, e.g. nvidia-h200)\n";
    return 0;
  }
  std::string why;
  const auto measured = ex::measured_values(example, results, gpu, why);
  if (measured.empty()) {
    std::cout << "measured: none (" << why << ")\n";
    return 0;
  }
  std::cout << "measured (run " << measured.front().run_id << "):\n";
  for (const auto& m : measured) {
    std::cout << "  " << m.answer << " = " << m.value << " " << m.unit << "    " << m.row << ", the family's verdict: "
              << m.verdict << (m.note.empty() ? "" : "; " + m.note) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage("name a command: check or predict");
  const std::string command = args.front();
  args.erase(args.begin());
  try {
    if (command == "check") return check(args);
    if (command == "predict") return predict(args);
    if (command == "--help" || command == "-h") {
      std::printf("%s", usage_text().c_str());
      return 0;
    }
    return usage("unknown command '" + command + "'; allowed: check, predict");
  } catch (const ex::BadInput& e) {
    std::fprintf(stderr, "warpcost: %s\n", e.what());
    return ex::kExitMalformed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpcost: %s\n", e.what());
    return ex::kExitMalformed;
  }
}
