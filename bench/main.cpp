// warpcost-bench: selects the device, records the device context, runs the registered benchmarks
// in two phases (all timing first, with CUPTI untouched; then the counter pass over every point
// that left counter work), merges the samples, the counters and the wall times into the JSON and,
// with --warpcost_results_root, files it as <root>/<gpu-slug>/<utc-stamp>-<uuid8>/bench.json.
#include <benchmark/benchmark.h>

#include <cctype>
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <ctime>
#include <sstream>
#include <exception>
#include <filesystem>
#include <set>
#include <unistd.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/models.hpp"
#include "core/result_schema.hpp"
#include "core/run_reader.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/counter_pass.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "bench/common/device_info.hpp"
#include "bench/common/gpu_lock.hpp"
#include "bench/common/machine_state.hpp"
#include "bench/common/nvml_clock.hpp"
#include "bench/common/plan.hpp"
#include "bench/common/progress.hpp"
#include "bench/common/run_annotation.hpp"
#include "bench/common/sampling.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "core/calibration/schema.hpp"
#include "core/counters.hpp"
#include "core/streaming/schema.hpp"
#include "core/version.hpp"

// The profile --benchmark_list_tests plans for where no device is visible and none is named.
#ifndef WARPCOST_LIST_PROFILE
#define WARPCOST_LIST_PROFILE "h200"
#endif

#ifndef WARPCOST_GIT_REVISION
#define WARPCOST_GIT_REVISION "unknown"
#endif

namespace fs = std::filesystem;

namespace warpcost {

const DeviceInfo& bench_device() {
  static const DeviceInfo info = [] {
    int device = 0;
    WARPCOST_CUDA(cudaGetDevice(&device));
    return query_device_info(device);
  }();
  return info;
}

namespace {

std::unique_ptr<counters::CounterPass> g_counter_pass;

}  // namespace

namespace {

// ctest treats this exit code as "skipped" (SKIP_RETURN_CODE), so the smoke test of a machine
// without a GPU reports a skip, not a pass.
constexpr int kExitNoDevice = 77;
// Another warpcost run holds the GPU (EX_TEMPFAIL: try again later).
constexpr int kExitGpuBusy = 75;
// The device was lost mid-run (a launch failure, an Xid): the points measured before it are filed
// as a partial run.
constexpr int kExitDeviceLost = 5;

struct Options {
  std::string results_root;
  int device = 0;
  bool check_device_only = false;
  std::string device_profile;  // --device_profile: plan for this GPU instead of the device here
  GpuLock::Mode gpu_lock = GpuLock::Mode::kRefuse;
  counters::Settings counters;
  sampling::Rule sampling;
};

double positive_number(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(v > 0.0)) {
    throw std::invalid_argument("--" + flag + "=" + value + ": expected a number above 0");
  }
  return v;
}

const char* const kOwnFlagsHelp =
    "warpcost-bench: the warpcost suite (Google Benchmark with CUDA events and CUPTI counters).\n"
    "warpcost flags:\n"
    "  --warpcost_results_root=DIR   file the run as DIR/<gpu-slug>/<utc-stamp>-<uuid8>/bench.json\n"
    "  --warpcost_device=N           the CUDA device to measure (default 0)\n"
    "  --warpcost_check_device       say how many devices are visible and exit\n"
    "  --warpcost_counters=on|off    the CUPTI counter pass after all timing (default on)\n"
    "  --warpcost_metrics=A,B,...    the counters to collect (default: each family's own)\n"
    "  --warpcost_noise=F            stop sampling a point at relative std <= F (default 0.005)\n"
    "  --warpcost_min_samples=N      at least N timed launches a point (default 10)\n"
    "  --warpcost_time_cap=S         or stop after S seconds of sampling a point (default 0.05)\n"
    "  --warpcost_gpu_lock=refuse|wait  another warpcost run on the same GPU: refuse, naming it\n"
    "                                (exit 75, the default), or wait for it to end\n"
    "  --device_profile=NAME|FILE    with --benchmark_list_tests: the plan for that GPU (a row of\n"
    "                                data/device-profiles.csv, or a CSV file of that form), no GPU needed\n"
    "The suite is planned from the device (its warps/SM, L2, memory); a point it cannot run is left\n"
    "out and named on stderr as not on this GPU. --help and --benchmark_list_tests need no GPU\n"
    "(without one, the list is the plan of profile " WARPCOST_LIST_PROFILE ", said so). Exit codes: 0 done,\n"
    "1 a benchmark or CUDA call failed, 2 usage error, 75 another warpcost run holds the GPU, 77 no\n"
    "NVIDIA GPU or driver found, 128 + N interrupted by signal N, 5 the device was lost mid-run (a\n"
    "launch failure, an Xid; in both cases the points measured are filed as a partial run).\n"
    "Google Benchmark flags:\n";

// --benchmark_list_tests as Google Benchmark reads it: bare, or =true/yes/1 (and their cases).
bool list_tests_requested(int argc, char** argv) {
  bool requested = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string flag = "--benchmark_list_tests";
    if (arg == flag) requested = true;
    if (arg.rfind(flag + "=", 0) == 0) {
      std::string value = arg.substr(flag.size() + 1);
      for (auto& ch : value) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      requested = value == "true" || value == "yes" || value == "1" || value == "t" || value == "y";
    }
  }
  return requested;
}

bool take_flag(const std::string& arg, const std::string& name, std::string& value) {
  const std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  value = arg.substr(prefix.size());
  return true;
}

// Removes warpcost's own flags from argv (Google Benchmark rejects flags it does not know).
Options parse_own_flags(int& argc, char** argv) {
  Options options;
  std::string counters_flag;
  std::string metrics_flag;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (take_flag(arg, "warpcost_results_root", value)) {
      options.results_root = value;
    } else if (take_flag(arg, "warpcost_device", value)) {
      char* end = nullptr;
      const long device = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || device < 0 || device > 1023) {
        throw std::invalid_argument("--warpcost_device=" + value +
                                    ": expected a device index (0, 1, ...)");
      }
      options.device = static_cast<int>(device);
    } else if (take_flag(arg, "warpcost_noise", value)) {
      options.sampling.max_noise = positive_number("warpcost_noise", value);
    } else if (take_flag(arg, "warpcost_time_cap", value)) {
      options.sampling.time_cap_s = positive_number("warpcost_time_cap", value);
    } else if (take_flag(arg, "warpcost_min_samples", value)) {
      const double n = positive_number("warpcost_min_samples", value);
      if (n != static_cast<int>(n) || n > 100000) {
        throw std::invalid_argument("--warpcost_min_samples=" + value + ": expected a whole number 2..100000");
      }
      options.sampling.min_samples = static_cast<int>(n);
      options.sampling.min_samples_at_cap = std::min(options.sampling.min_samples_at_cap, options.sampling.min_samples);
      options.sampling.max_samples = std::max(options.sampling.max_samples, options.sampling.min_samples);
    } else if (take_flag(arg, "warpcost_gpu_lock", value)) {
      if (value != "refuse" && value != "wait") {
        throw std::invalid_argument("--warpcost_gpu_lock=" + value + ": allowed: refuse, wait");
      }
      options.gpu_lock = value == "wait" ? GpuLock::Mode::kWait : GpuLock::Mode::kRefuse;
    } else if (take_flag(arg, "device_profile", value)) {
      if (value.empty()) throw std::invalid_argument("--device_profile=: name a profile of data/device-profiles.csv or a CSV file");
      options.device_profile = value;
    } else if (arg == "--warpcost_check_device") {
      options.check_device_only = true;
    } else if (take_flag(arg, "warpcost_counters", value)) {
      counters_flag = value;
      if (value.empty()) throw std::invalid_argument("--warpcost_counters=: allowed: on, off");
    } else if (take_flag(arg, "warpcost_metrics", value)) {
      metrics_flag = value;
      if (value.empty()) {
        throw std::invalid_argument("--warpcost_metrics=: no metric named; allowed: metric names "
                                    "separated by single commas");
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  options.counters = counters::parse_settings(counters_flag, metrics_flag);
  if (const std::string p = sampling::rule_problem(options.sampling); !p.empty()) {
    throw std::invalid_argument("sampling: " + p);
  }
  return options;
}

// The plan for `facts`: every family's planner registers its points; those the device cannot run
// are named on stderr ("not on this GPU") and returned for the run's context.
std::vector<plan::Omission> plan_for(const DeviceFacts& facts) {
  plan::Plan p(facts);
  plan::plan_suite(p);
  std::fprintf(stderr, "warpcost-bench: the plan for the %s: %zu points, %zu not on this GPU\n",
               facts.label().c_str(), p.points(), p.omitted().size());
  for (const auto& o : p.omitted()) {
    std::fprintf(stderr, "warpcost-bench: not on this GPU: %s: %s\n", o.point.c_str(), o.why.c_str());
  }
  return p.omitted();
}

// The counter pass for this run, proven on one warp before any benchmark relies on it: a 1-block,
// 32-thread launch must count as exactly 1 warp launched. Counters the machine will not give
// (permissions, another profiler) leave a pass that is off with the reason, and timing goes on.
// Returns the units of every metric the run may collect ("" when off).
std::string set_up_counter_pass(const counters::Settings& settings) {
  using counters::CounterPass;
  if (!settings.enabled) {
    g_counter_pass = std::make_unique<CounterPass>(settings, "off: --warpcost_counters=off");
    return {};
  }
  try {
    auto profiler = std::make_unique<counters::CuptiProfiler>();
    const std::vector<std::string> metrics =
        settings.metrics.empty() ? counters::all_default_metrics() : settings.metrics;
    const auto units = counters::metric_units(profiler->chip(), metrics);  // UnknownMetric
    Stream stream;
    const std::string warps = "smsp__warps_launched.sum";
    const counters::Values probe = profiler->profile({warps}, "warpcost/counter_check", [&] {
      kernels::launch_empty(1, model::kWarpSize, stream.get());
    });
    if (probe.at(warps) != 1.0) {
      throw std::runtime_error("counter check: one 32-thread block counted as " +
                               std::to_string(probe.at(warps)) + " warps launched, not 1");
    }
    std::string unit_list;
    for (const auto& [metric, unit] : units) unit_list += (unit_list.empty() ? "" : ";") + metric + "=" + unit;
    const std::string chip = profiler->chip();
    g_counter_pass = std::make_unique<CounterPass>(settings, std::move(profiler));
    std::fprintf(stderr, "warpcost-bench: counter pass %s, chip %s, checked on one warp\n",
                 g_counter_pass->status().c_str(), chip.c_str());
    return unit_list;
  } catch (const counters::CountersUnavailable& e) {
    std::fprintf(stderr, "warpcost-bench: no counters: %s; the results are timing only\n", e.what());
    g_counter_pass = std::make_unique<CounterPass>(settings, std::string("unavailable: ") + e.what());
    return {};
  } catch (const counters::UnknownMetric&) {
    throw;
  } catch (const std::exception& e) {
    // A CUPTI fault (not a refusal): say how to get the timing without it.
    throw std::runtime_error(std::string("counter pass: ") + e.what() +
                             " (--warpcost_counters=off runs the suite without counters)");
  }
}

std::string utc_format(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, format, &tm);
  return buffer;
}

void add_context(const DeviceInfo& info, double measured_clock_hz, const std::string& run_id,
                 const std::string& utc, const std::string& command_line) {
  using benchmark::AddCustomContext;
  namespace key = schema::key;
  AddCustomContext(schema::kVersionKey, std::to_string(schema::kVersion));
  AddCustomContext(key::kRunId, run_id);
  AddCustomContext(key::kUtc, utc);
  AddCustomContext(key::kGpuName, info.name);
  AddCustomContext(key::kGpuUuid, info.uuid);
  AddCustomContext(key::kCc, std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor));
  AddCustomContext(key::kSmCount, std::to_string(info.sm_count));
  AddCustomContext(key::kWarpSize, std::to_string(info.warp_size));
  AddCustomContext(key::kMaxThreadsPerSm, std::to_string(info.max_threads_per_sm));
  AddCustomContext(key::kMaxWarpsPerSm, std::to_string(info.max_warps_per_sm));
  AddCustomContext(key::kMaxBlocksPerSm, std::to_string(info.max_blocks_per_sm));
  AddCustomContext(key::kMaxThreadsPerBlock, std::to_string(info.max_threads_per_block));
  AddCustomContext(key::kL2Bytes, std::to_string(info.l2_bytes));
  AddCustomContext(key::kGlobalMemoryBytes, std::to_string(info.global_memory_bytes));
  AddCustomContext(key::kMemoryClockKhz, std::to_string(info.memory_clock_khz));
  AddCustomContext(key::kMemoryBusWidthBits, std::to_string(info.memory_bus_width_bits));
  AddCustomContext(key::kSmClockMaxKhz, std::to_string(info.sm_clock_max_khz));
  AddCustomContext(key::kSmClockMeasuredKhz,
                   std::to_string(static_cast<long long>(measured_clock_hz / 1e3 + 0.5)));
  AddCustomContext(key::kDriverVersion, info.driver_version);
  AddCustomContext(key::kCudaDriverApi, info.cuda_driver_api);
  AddCustomContext(key::kCudaRuntime, info.cuda_runtime);
  AddCustomContext(key::kGitRev, WARPCOST_GIT_REVISION);
  AddCustomContext(key::kCommandLine, command_line);
}

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

// The names of the benchmarks this run will execute (the filter applied), for the progress line's
// N: Google Benchmark lists them without running anything when --benchmark_list_tests is set, so
// the flag is set for one listing call and cleared again.
std::vector<std::string> list_benchmarks(const char* program) {
  std::string on = "--benchmark_list_tests=true";
  std::string off = "--benchmark_list_tests=false";
  std::vector<char*> args_on = {const_cast<char*>(program), on.data(), nullptr};
  int argc_on = 2;
  benchmark::Initialize(&argc_on, args_on.data());
  std::stringstream names;
  benchmark::ConsoleReporter lister(benchmark::ConsoleReporter::OO_None);
  lister.SetOutputStream(&names);
  lister.SetErrorStream(&names);
  benchmark::RunSpecifiedBenchmarks(&lister);
  std::vector<char*> args_off = {const_cast<char*>(program), off.data(), nullptr};
  int argc_off = 2;
  benchmark::Initialize(&argc_off, args_off.data());
  std::vector<std::string> list;
  std::string line;
  while (std::getline(names, line)) {
    if (line.find('/') != std::string::npos && line.find(' ') == std::string::npos) list.push_back(line);
  }
  return list;
}

// Google Benchmark's console output, plus the progress line and each family's wall time.
class ProgressReporter : public benchmark::ConsoleReporter {
 public:
  explicit ProgressReporter(progress::Tracker& tracker)
      : benchmark::ConsoleReporter(OO_None), tracker_(tracker) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    if (!runs.empty()) tracker_.done(progress::family_of(runs.front().benchmark_name()));
  }

 private:
  progress::Tracker& tracker_;
};

// An empty kernel's event time, sampled like any point (the stream held): the launch overhead
// every short kernel's time still carries.
double measure_launch_overhead() {
  Stream stream;
  EventPair events;
  for (int i = 0; i < 3; ++i) kernels::launch_empty(1, 1, stream.get());
  stream.synchronize();
  return sample_point(stream, events, [&] { kernels::launch_empty(1, 1, stream.get()); }).samples.median();
}

// The counter phase: every point's counter launch, built anew after all timing, profiled in
// batches of one family. Returns "" or the first failure; points that fail get no counters.
constexpr std::size_t kCounterBatch = 64;

std::string run_counter_phase(counters::CounterPass& pass, RunAnnotation& annotation,
                              std::vector<std::pair<std::string, double>>& family_seconds,
                              long long& failed) {
  std::vector<CounterJob>& jobs = counter_jobs();
  std::vector<std::string> keys;
  for (const auto& j : jobs) keys.push_back(j.key);
  progress::Tracker tracker("counters", keys);
  std::string first_error;
  auto fail = [&](const std::string& key, const std::string& why) {
    ++failed;
    if (first_error.empty()) first_error = key + ": " + why;
    std::fprintf(stderr, "warpcost-bench: no counters for %s: %s\n", key.c_str(), why.c_str());
  };
  std::size_t i = 0;
  // A signal during the counter phase ends it between batches; the timing stays complete.
  while (i < jobs.size() && pass.active() && interrupting_signal() == 0) {
    std::size_t end = i;
    while (end < jobs.size() && end - i < kCounterBatch && jobs[end].family == jobs[i].family) ++end;
    std::vector<std::string> batch_keys;
    std::vector<std::function<void()>> launches;
    for (std::size_t j = i; j < end; ++j) {
      try {
        launches.push_back(jobs[j].factory());
        batch_keys.push_back(jobs[j].key);
      } catch (const std::exception& e) {
        fail(jobs[j].key, e.what());
      }
    }
    std::vector<counters::Values> values;
    try {
      values = pass.collect_batch(*jobs[i].family, batch_keys, launches);
    } catch (const std::exception& e) {
      // One point's fault should not cost the batch: each again on its own.
      std::fprintf(stderr, "warpcost-bench: counter batch of %zu failed (%s); profiling each alone\n",
                   launches.size(), e.what());
      values.assign(launches.size(), {});
      for (std::size_t k = 0; k < launches.size(); ++k) {
        try {
          values[k] = pass.collect_batch(*jobs[i].family, {batch_keys[k]}, {launches[k]}).at(0);
        } catch (const std::exception& e2) {
          fail(batch_keys[k], e2.what());
        }
      }
    }
    for (std::size_t k = 0; k < batch_keys.size(); ++k) {
      if (!values[k].empty()) annotation.counters[batch_keys[k]] = values[k];
    }
    for (std::size_t j = i; j < end; ++j) tracker.done(progress::family_of(jobs[j].key));
    launches.clear();
    i = end;
  }
  family_seconds = tracker.family_seconds();
  // One point of each family, so a log shows what was collected.
  std::vector<std::string> shown;
  for (const auto& [key, values] : annotation.counters) {
    const std::string family = progress::family_of(key);
    if (std::find(shown.begin(), shown.end(), family) != shown.end()) continue;
    shown.push_back(family);
    std::string text;
    for (const auto& [metric, value] : values) text += " " + metric + "=" + std::to_string(value);
    std::fprintf(stderr, "warpcost-bench: counters of %s:%s\n", key.c_str(), text.c_str());
  }
  return first_error;
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

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string fixed2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

int run(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  Options options;
  DeviceFacts profile;
  try {
    options = parse_own_flags(argc, argv);
    if (!options.device_profile.empty()) {
      profile = find_device_profile(options.device_profile);
      if (!list_tests_requested(argc, argv)) {
        throw std::invalid_argument("--device_profile=" + options.device_profile +
                                    " plans for a GPU that is not here; allowed only with --benchmark_list_tests "
                                    "(a run is planned from the device it runs on)");
      }
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return 2;
  } catch (const ProfileError& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return 2;
  }

  // Help, the benchmark list and unknown flags need no device. Google Benchmark reads its flags here
  // (--help prints its own and exits 0; an unknown flag is named, exit 2) and again below, once the
  // run's output file is known.
  // --benchmark_context is left to the second reading: Google Benchmark adds its pairs to the
  // context as it parses, and a pair added twice draws a warning.
  std::vector<std::string> early_args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--benchmark_context=", 0) == 0) continue;
    if (a == "-h" || a == "--help") {
      std::printf("%s", kOwnFlagsHelp);
      a = "--help";
    }
    early_args.push_back(a);
  }
  {
    std::vector<char*> early_argv;
    for (auto& a : early_args) early_argv.push_back(a.data());
    int early_argc = static_cast<int>(early_argv.size());
    early_argv.push_back(nullptr);
    benchmark::Initialize(&early_argc, early_argv.data());
    if (benchmark::ReportUnrecognizedArguments(early_argc, early_argv.data())) return 2;
  }
  if (list_tests_requested(argc, argv)) {
    DeviceFacts facts = profile;
    if (options.device_profile.empty()) {
      std::string why;
      if (visible_device_count(why) > options.device) {
        WARPCOST_CUDA(cudaSetDevice(options.device));
        facts = facts_of(bench_device());
      } else {
        facts = find_device_profile(WARPCOST_LIST_PROFILE);
        std::fprintf(stderr,
                     "warpcost-bench: no NVIDIA GPU or driver found here (%s); the list is the plan for profile %s "
                     "(--device_profile=NAME plans for another GPU)\n",
                     why.empty() ? ("no device " + std::to_string(options.device)).c_str() : why.c_str(),
                     WARPCOST_LIST_PROFILE);
      }
    }
    plan_for(facts);
    benchmark::RunSpecifiedBenchmarks();  // lists the names, runs nothing
    benchmark::Shutdown();
    return 0;
  }

  std::string why;
  const int devices = visible_device_count(why);
  if (devices == 0) {
    std::fprintf(stderr, "warpcost-bench: no NVIDIA GPU or driver found (%s); nothing to measure.\n",
                 why.c_str());
    return kExitNoDevice;
  }
  if (options.device >= devices) {
    std::fprintf(stderr, "warpcost-bench: --warpcost_device=%d, but devices 0..%d are visible\n",
                 options.device, devices - 1);
    return 2;
  }
  if (options.check_device_only) {
    std::printf("%d CUDA device(s) visible\n", devices);
    return 0;
  }
  WARPCOST_CUDA(cudaSetDevice(options.device));
  const DeviceInfo& info = bench_device();
  const std::vector<plan::Omission> omitted = plan_for(facts_of(info));
  // A metric list the user named is checked against the chip before anything is timed or written
  // (the one case where CUPTI is touched before the timing phase; the default run never does).
  if (!options.counters.metrics.empty()) {
    try {
      counters::CuptiProfiler probe;
      counters::metric_units(probe.chip(), options.counters.metrics);
    } catch (const counters::UnknownMetric& e) {
      std::fprintf(stderr, "warpcost-bench: --warpcost_metrics: %s\n", e.what());
      return 2;
    } catch (const counters::CountersUnavailable&) {
      // said again, with the advice, when the counter phase starts
    }
  }
  set_counters_requested(options.counters.enabled);
  sampling_rule() = options.sampling;

  const std::time_t now = std::time(nullptr);
  // The UUID's first 8 hex digits keep apart the runs that several GPUs of one host start in the
  // same second (./warpcost run --devices): <utc-stamp>-<uuid8>.
  const std::string uuid_hex = info.uuid.rfind("GPU-", 0) == 0 ? info.uuid.substr(4) : info.uuid;
  const std::string stamp = utc_format(now, "%Y%m%dT%H%M%SZ") + "-" + uuid_hex.substr(0, 8);
  const std::string mig = mig_instance_of(info.name, std::getenv("CUDA_VISIBLE_DEVICES"));
  const std::string filed_name = run_gpu_name(info.name, mig);
  const std::string run_id = gpu_slug(filed_name) + "/" + stamp;

  // One warpcost run a GPU: a second waits or refuses, naming the run that holds it.
  std::unique_ptr<GpuLock> gpu_lock;
  try {
    gpu_lock = std::make_unique<GpuLock>(info.uuid, run_id, options.gpu_lock);
    if (!gpu_lock->held()) std::fprintf(stderr, "warpcost-bench: %s\n", gpu_lock->why().c_str());
  } catch (const GpuBusy& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return kExitGpuBusy;
  }

  fs::path final_dir;
  fs::path partial_dir;
  std::vector<std::string> args(argv, argv + argc);
  if (!options.results_root.empty()) {
    final_dir = fs::path(options.results_root) / gpu_slug(filed_name) / stamp;
    partial_dir = final_dir.parent_path() / ("." + stamp + ".partial");
    if (fs::exists(final_dir)) {
      std::fprintf(stderr, "warpcost-bench: %s exists; a run never overwrites another\n",
                   final_dir.c_str());
      return 1;
    }
    fs::create_directories(partial_dir);
    args.push_back("--benchmark_out=" + (partial_dir / "bench.json").string());
    args.push_back("--benchmark_out_format=json");
  }
  std::vector<char*> gb_argv;
  for (auto& a : args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  gb_argv.push_back(nullptr);
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) {
    if (!partial_dir.empty()) fs::remove_all(partial_dir);
    return 2;
  }
  bool listing_only = false;
  for (const auto& a : args) listing_only = listing_only || a == "--benchmark_list_tests" || a == "--benchmark_list_tests=true";
  const std::vector<std::string> names = listing_only ? std::vector<std::string>{} : list_benchmarks(argv[0]);

  Stream stream;
  const double clock_hz = measure_sm_clock_hz(stream);
  char bus_id[64] = {};
  WARPCOST_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, options.device));
  NvmlClock nvml(bus_id);
  // Other processes computing on this GPU (NVML's list), looked at before, between and after the
  // phases: their work would be in this run's times.
  std::set<unsigned int> other_processes;
  std::string processes_why;
  auto look_for_other_processes = [&] {
    for (const unsigned int pid : nvml.other_compute_processes(static_cast<unsigned int>(::getpid()), processes_why)) {
      if (other_processes.insert(pid).second) {
        std::fprintf(stderr, "warpcost-bench: another process (%u) is using the GPU during this run; its times may be off\n", pid);
      }
    }
  };
  look_for_other_processes();
  if (nvml.available()) {
    set_sm_clock_source([&nvml] { return ClockReading{static_cast<double>(nvml.sm_mhz()), nvml.clock_event_reasons()}; });
    std::string list_why;
    (void)nvml.other_compute_processes(static_cast<unsigned int>(::getpid()), list_why);
    if (list_why.empty()) {
      set_other_process_source([&nvml] {
        std::string ignored;
        return static_cast<int>(nvml.other_compute_processes(static_cast<unsigned int>(::getpid()), ignored).size());
      });
    }
  } else {
    std::fprintf(stderr, "warpcost-bench: no per-point SM clock (%s)\n", nvml.why().c_str());
  }
  const ClockReference clock_reference =
      sm_clock_reference(info.sm_clock_max_khz / 1000, nvml.application_sm_mhz(), nvml.default_application_sm_mhz());
  if (clock_reference.source != "maximum") {
    std::fprintf(stderr, "warpcost-bench: the SM clock is held by %s; points are judged against it\n",
                 clock_reference.source.c_str());
  }
  if (mig != "none") {
    std::fprintf(stderr, "warpcost-bench: a MIG instance (%s, %d SMs): planned and filed as %s\n", mig.c_str(),
                 info.sm_count, filed_name.c_str());
  }
  const double overhead = measure_launch_overhead();
  set_launch_overhead_seconds(overhead);
  add_context(info, clock_hz, run_id, utc_format(now, "%Y-%m-%dT%H:%M:%SZ"), command_line);
  benchmark::AddCustomContext(schema::key::kCounterPass,
                              options.counters.enabled ? "pending: the counter phase runs after all timing"
                                                       : "off: --warpcost_counters=off");
  benchmark::AddCustomContext("sm_clock_max_mhz", std::to_string(info.sm_clock_max_khz / 1000));
  benchmark::AddCustomContext(schema::key::kSmClockReferenceMhz, std::to_string(clock_reference.mhz));
  benchmark::AddCustomContext(schema::key::kSmClockReference, clock_reference.source);
  benchmark::AddCustomContext(schema::key::kMigInstance, mig);
  {
    std::string text;
    for (const auto& o : omitted) text += (text.empty() ? "" : "; ") + o.point + ": " + o.why;
    benchmark::AddCustomContext("not_on_this_gpu", text.empty() ? "none" : text);
  }
  benchmark::AddCustomContext("launch_overhead_seconds", std::to_string(overhead));
  const sampling::Rule& rule = sampling_rule();
  benchmark::AddCustomContext(
      "sampling", "one event-timed launch a sample; stop at >= " + std::to_string(rule.min_samples) +
                      " samples with relative std <= " + std::to_string(rule.max_noise) + ", or after " +
                      std::to_string(rule.time_cap_s) + " s with >= " + std::to_string(rule.min_samples_at_cap) +
                      ", or at " + std::to_string(rule.max_samples) + "; time = median");
  std::fprintf(stderr,
               "warpcost-bench: %s (cc %d.%d, %d SMs), SM clock %.0f MHz (max %lld MHz), empty-kernel "
               "launch %.2f us, %zu benchmarks\n",
               info.name.c_str(), info.cc_major, info.cc_minor, info.sm_count, clock_hz / 1e6,
               info.sm_clock_max_khz / 1000, overhead * 1e6, names.size());

  // Phase 1: all timing. CUPTI is not initialised until it has ended.
  const auto suite_start = std::chrono::steady_clock::now();
  progress::Tracker timing("timing", names);
  ProgressReporter reporter(timing);
  install_interrupt_handlers();
  if (listing_only) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    benchmark::RunSpecifiedBenchmarks(&reporter);
  }
  benchmark::Shutdown();
  const double timing_seconds = seconds_since(suite_start);
  look_for_other_processes();
  const int signal = interrupting_signal();
  if (signal != 0) {
    // What was measured stays, as a run marked partial; no counter pass (it would run after all
    // timing, which did not end).
    std::fprintf(stderr, "warpcost-bench: interrupted (%s); filing the points measured so far as a partial run\n",
                 signal == SIGINT ? "SIGINT" : "SIGTERM");
    options.counters.enabled = false;
    counter_jobs().clear();
  }
  // A lost device ends the timing phase the same way: what was measured before it stays.
  const std::string lost_in_timing = device_lost_error();
  if (!lost_in_timing.empty()) {
    std::fprintf(stderr, "warpcost-bench: the device was lost (%s); filing the points measured before it as a "
                 "partial run\n", lost_in_timing.c_str());
    options.counters.enabled = false;
    counter_jobs().clear();
  }

  // Phase 2: the counter pass over every point that left counter work.
  std::string counter_units;
  std::string counter_status = signal != 0                  ? "off: the run was interrupted before the counter phase"
                               : !lost_in_timing.empty()    ? "off: the device was lost before the counter phase"
                               : options.counters.enabled ? ""
                                                          : "off: --warpcost_counters=off";
  std::vector<std::pair<std::string, double>> counter_family_seconds;
  const auto counters_start = std::chrono::steady_clock::now();
  if (options.counters.enabled && !counter_jobs().empty()) {
    try {
      counter_units = set_up_counter_pass(options.counters);
    } catch (const counters::UnknownMetric& e) {
      std::fprintf(stderr, "warpcost-bench: --warpcost_metrics: %s\n", e.what());
      if (!partial_dir.empty()) fs::remove_all(partial_dir);
      return 2;
    }
    long long failed = 0;
    if (g_counter_pass->active()) {
      const std::string first =
          run_counter_phase(*g_counter_pass, run_annotation(), counter_family_seconds, failed);
      counter_status = g_counter_pass->status();
      if (failed > 0) counter_status += "; no counters for " + std::to_string(failed) + " point(s), first: " + first;
      if (interrupting_signal() != 0) counter_status += "; interrupted: later points have no counters";
    } else {
      counter_status = g_counter_pass->status();
    }
    g_counter_pass.reset();  // CUPTI lets go while the CUDA context is still there
    if (lost_in_timing.empty() && note_failure("after the counter phase")) {
      counter_status += "; the device was lost during the counter phase: later points have no counters";
    }
  } else if (options.counters.enabled) {
    counter_status = "on: no benchmark of this run has counters";
  }
  const double counter_seconds = seconds_since(counters_start);
  look_for_other_processes();
  const double suite_seconds = seconds_since(suite_start);
  counter_jobs().clear();
  release_shared_buffers();

  std::vector<std::pair<std::string, double>> family_seconds = timing.family_seconds();
  for (const auto& [family, s] : counter_family_seconds) {
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
               suite_seconds, timing_seconds, counter_seconds, progress::wall_text(family_seconds).c_str());

  if (partial_dir.empty()) return 0;
  const fs::path json = partial_dir / "bench.json";
  if (!fs::exists(json) || fs::file_size(json) == 0) {
    std::fprintf(stderr, "warpcost-bench: no JSON was written to %s\n", json.c_str());
    fs::remove_all(partial_dir);
    return 1;
  }
  RunAnnotation& annotation = run_annotation();
  annotation.context["suite_wall_seconds"] = fixed2(suite_seconds);
  annotation.context["timing_wall_seconds"] = fixed2(timing_seconds);
  annotation.context["counter_wall_seconds"] = fixed2(counter_seconds);
  annotation.context["family_wall_seconds"] = progress::wall_text(family_seconds);
  annotation.context[schema::key::kCounterPass] = counter_status;
  {
    std::string text;
    for (const unsigned int pid : other_processes) {
      std::string name;
      std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
      std::getline(comm, name);
      text += (text.empty() ? "" : "; ") + std::string("pid ") + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
    }
    annotation.context["other_gpu_processes"] =
        !text.empty() ? text : processes_why.empty() ? "none" : "unknown: " + processes_why;
  }
  const std::string lost = device_lost_error();
  if (signal != 0) {
    annotation.drop_error_messages = {kInterruptedMessage, kDeviceLostMessage};
    annotation.context["run_status"] = std::string("partial: interrupted by ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                                       " during the timing phase; the points measured before it are kept";
  } else if (!lost.empty()) {
    annotation.drop_error_messages = {kDeviceLostMessage};
    annotation.context["run_status"] =
        device_lost_status(lost_in_timing.empty() ? "counter" : "timing", lost);
  } else {
    annotation.context["run_status"] = "complete";
  }
  if (!counter_units.empty()) annotation.context[schema::key::kCounterUnits] = counter_units;
  annotate_run(json, annotation);
  if (signal != 0) {
    bool measured = false;
    try {
      measured = !analysis::read_run(json).benchmarks.empty();
    } catch (const analysis::RunFormatError&) {
    }
    if (!measured) {
      fs::remove_all(partial_dir);
      std::fprintf(stderr, "warpcost-bench: interrupted before any point was measured; no run filed\n");
      return 128 + signal;
    }
  }
  const std::vector<std::string> errors = errored_benchmarks(json);
  if (!lost.empty()) {
    // The point that met the lost device errored, as did any the context took down with it: the
    // run is filed as partial (not .failed), so the analysis judges what was measured.
    fs::rename(partial_dir, final_dir);
    std::fprintf(stderr, "warpcost-bench: the device was lost; %s holds the points measured before it "
                 "(a partial run, %zu errored point(s), first: %s)\n",
                 final_dir.c_str(), errors.size(), errors.empty() ? "none" : errors.front().c_str());
    std::printf("%s\n", final_dir.c_str());
    std::fflush(stdout);
    return kExitDeviceLost;
  }
  if (!errors.empty()) {
    const fs::path failed = final_dir.string() + ".failed";
    fs::rename(partial_dir, failed);
    std::fprintf(stderr, "warpcost-bench: %zu failure(s); run kept in %s:\n",
                 errors.size(), failed.c_str());
    for (const auto& e : errors) std::fprintf(stderr, "  %s\n", e.c_str());
    return 1;
  }
  print_rates(json);
  fs::rename(partial_dir, final_dir);
  std::printf("%s\n", final_dir.c_str());
  std::fflush(stdout);
  // 128 + the signal, as a shell reports a process the signal ended: the run is filed, but partial.
  return signal != 0 ? 128 + signal : 0;
}

}  // namespace
}  // namespace warpcost

int main(int argc, char** argv) {
  if (warpcost::print_version_if_asked(argc, argv, "warpcost-bench")) return 0;
  try {
    return warpcost::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return 1;
  }
}
