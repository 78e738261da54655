#include "bench/suite/filing.hpp"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "bench/common/progress.hpp"
#include "bench/common/run_annotation.hpp"
#include "bench/suite/timing.hpp"
#include "core/calibration/schema.hpp"
#include "core/counters.hpp"
#include "core/result_schema.hpp"
#include "core/run_reader.hpp"
#include "core/streaming/schema.hpp"

namespace fs = std::filesystem;

namespace warpcost::suite {
namespace {

// The benchmarks that reported an error (a failed output check or CUDA call), read back with the
// analysis' own reader, so the run is also proven readable before it is filed.
std::vector<std::string> errored_benchmarks(const fs::path& json_path) {
  std::vector<std::string> errors;
  try {
    for (const auto& b : analysis::read_run(json_path).benchmarks) {
      if (b.error) errors.push_back(b.run_name + ": " + b.error_message);
    }
  } catch (const analysis::RunFormatError& e) {
    errors.push_back(e.what());
  }
  return errors;
}

// The run's headline rates, from the filed JSON: the best streaming read and the device-to-device
// copy (bytes read plus written), each over its median time.
void print_rates(const fs::path& json) {
  double best_read = 0;
  std::string best_name;
  double copy = 0;
  for (const auto& b : analysis::read_run(json).benchmarks) {
    if (b.error || b.seconds.empty()) continue;
    if (b.family == schema::streaming::kFamily && b.has_counter(schema::counter::kBytesRead)) {
      const double rate = b.counter_median(schema::counter::kBytesRead) / b.median_seconds();
      if (rate > best_read) {
        best_read = rate;
        best_name = b.run_name;
      }
    }
    if (b.family == schema::calibration::kFamily && b.benchmark == "d2d_copy" && b.has_counter(schema::counter::kBytesRead) &&
        b.has_counter(schema::calibration::counter::kBytesWritten)) {
      copy = std::max(copy, (b.counter_median(schema::counter::kBytesRead) + b.counter_median(schema::calibration::counter::kBytesWritten)) /
                                b.median_seconds());
    }
  }
  if (best_read > 0) {
    std::fprintf(stderr, "warpcost-bench: best read %.3f TB/s (%s)", best_read / 1e12, best_name.c_str());
    if (copy > 0) std::fprintf(stderr, "; device-to-device copy %.3f TB/s; ratio %.3f", copy / 1e12, best_read / copy);
    std::fprintf(stderr, "\n");
  }
}

std::string fixed2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

int file_run(SuiteRun& run) {
  const double suite_seconds = seconds_since(run.suite_start);
  std::vector<std::pair<std::string, double>> family_seconds = run.timing_family_seconds;
  for (const auto& [family, s] : run.counter_family_seconds) {
    bool found = false;
    for (auto& [f, total] : family_seconds) {
      if (f == family) {
        total += s;
        found = true;
      }
    }
    if (!found) family_seconds.emplace_back(family, s);
  }
  std::fprintf(stderr, "warpcost-bench: wall time %.1f s (timing %.1f s, counters %.1f s); by family: %s\n",
               suite_seconds, run.timing_seconds, run.counter_seconds, progress::wall_text(family_seconds).c_str());

  if (run.partial_dir.empty()) return 0;
  const fs::path json = run.partial_dir / "bench.json";
  if (!fs::exists(json) || fs::file_size(json) == 0) {
    std::fprintf(stderr, "warpcost-bench: no JSON was written to %s\n", json.c_str());
    fs::remove_all(run.partial_dir);
    return 1;
  }
  RunAnnotation& annotation = run_annotation();
  annotation.context["suite_wall_seconds"] = fixed2(suite_seconds);
  annotation.context["timing_wall_seconds"] = fixed2(run.timing_seconds);
  annotation.context["counter_wall_seconds"] = fixed2(run.counter_seconds);
  annotation.context["family_wall_seconds"] = progress::wall_text(family_seconds);
  annotation.context[schema::key::kCounterPass] = run.counter_status;
  {
    std::string text;
    for (const unsigned int pid : run.other_processes) {
      std::string name;
      std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
      std::getline(comm, name);
      text += (text.empty() ? "" : "; ") + std::string("pid ") + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
    }
    annotation.context["other_gpu_processes"] =
        !text.empty() ? text : run.processes_why.empty() ? "none" : "unknown: " + run.processes_why;
  }
  const std::string lost = device_lost_error();
  if (run.signal != 0) {
    annotation.drop_error_messages = {kInterruptedMessage, kDeviceLostMessage};
    annotation.context["run_status"] = std::string("partial: interrupted by ") + (run.signal == SIGINT ? "SIGINT" : "SIGTERM") +
                                       " during the timing phase; the points measured before it are kept";
  } else if (!lost.empty()) {
    annotation.drop_error_messages = {kDeviceLostMessage};
    annotation.context["run_status"] =
        device_lost_status(run.lost_in_timing.empty() ? "counter" : "timing", lost);
  } else {
    annotation.context["run_status"] = "complete";
  }
  if (!run.counter_units.empty()) annotation.context[schema::key::kCounterUnits] = run.counter_units;
  annotate_run(json, annotation);
  if (run.signal != 0) {
    bool measured = false;
    try {
      measured = !analysis::read_run(json).benchmarks.empty();
    } catch (const analysis::RunFormatError&) {
    }
    if (!measured) {
      fs::remove_all(run.partial_dir);
      std::fprintf(stderr, "warpcost-bench: interrupted before any point was measured; no run filed\n");
      return 128 + run.signal;
    }
  }
  const std::vector<std::string> errors = errored_benchmarks(json);
  if (!lost.empty()) {
    // The point that met the lost device errored, as did any the context took down with it: the
    // run is filed as partial (not .failed), so the analysis judges what was measured.
    fs::rename(run.partial_dir, run.final_dir);
    std::fprintf(stderr, "warpcost-bench: the device was lost; %s holds the points measured before it "
                 "(a partial run, %zu errored point(s), first: %s)\n",
                 run.final_dir.c_str(), errors.size(), errors.empty() ? "none" : errors.front().c_str());
    std::printf("%s\n", run.final_dir.c_str());
    std::fflush(stdout);
    return kExitDeviceLost;
  }
  if (!errors.empty()) {
    const fs::path failed = run.final_dir.string() + ".failed";
    fs::rename(run.partial_dir, failed);
    std::fprintf(stderr, "warpcost-bench: %zu failure(s); run kept in %s:\n",
                 errors.size(), failed.c_str());
    for (const auto& e : errors) std::fprintf(stderr, "  %s\n", e.c_str());
    // The kept folder is the last line of stdout, as a filed run's is: ./warpcost keeps the per-point
    // table there too. It ends in .failed, which the analysis does not read.
    std::printf("%s\n", failed.c_str());
    std::fflush(stdout);
    return 1;
  }
  print_rates(json);
  fs::rename(run.partial_dir, run.final_dir);
  std::printf("%s\n", run.final_dir.c_str());
  std::fflush(stdout);
  // 128 + the signal, as a shell reports a process the signal ended: the run is filed, but partial.
  return run.signal != 0 ? 128 + run.signal : 0;
}

}  // namespace warpcost::suite
