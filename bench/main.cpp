// warpcost-bench: selects the device, records the device context, sets up the counter pass, runs the
// registered benchmarks and, with --warpcost_results_root, files the JSON as
// <root>/<gpu-slug>/<utc-stamp>/bench.json.
#include <benchmark/benchmark.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "counter_pass.hpp"
#include "cuda_check.hpp"
#include "cuda_raii.hpp"
#include "cupti_profiler.hpp"
#include "device_info.hpp"
#include "partial_warp.hpp"
#include "result_schema.hpp"
#include "run_reader.hpp"

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

counters::CounterPass* bench_counter_pass() {
  return g_counter_pass && g_counter_pass->active() ? g_counter_pass.get() : nullptr;
}

namespace {

// ctest treats this exit code as "skipped" (SKIP_RETURN_CODE), so the smoke test of a machine
// without a GPU reports a skip, not a pass.
constexpr int kExitNoDevice = 77;

struct Options {
  std::string results_root;
  int device = 0;
  bool check_device_only = false;
  counters::Settings counters;
};

const char* const kOwnFlagsHelp =
    "warpcost-bench: the warpcost suite (Google Benchmark with CUDA events and CUPTI counters).\n"
    "warpcost flags:\n"
    "  --warpcost_results_root=DIR   file the run as DIR/<gpu-slug>/<utc-stamp>/bench.json\n"
    "  --warpcost_device=N           the CUDA device to measure (default 0)\n"
    "  --warpcost_check_device       say how many devices are visible and exit\n"
    "  --warpcost_counters=on|off    the CUPTI counter pass beside the timing (default on)\n"
    "  --warpcost_metrics=A,B,...    the counters to collect (default: each family's own)\n"
    "--help and --benchmark_list_tests need no GPU. Exit codes: 0 done, 1 a benchmark or CUDA call\n"
    "failed, 2 usage error, 77 no CUDA device.\n"
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
  return options;
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
    DeviceBuffer<float> out(32);
    DeviceBuffer<kernels::ClockSample> clocks(2);
    const std::string warps = "smsp__warps_launched.sum";
    const counters::Values probe = profiler->profile({warps}, "warpcost/counter_check", [&] {
      kernels::launch_fma_blocks(1, 32, 1, out.data(), clocks.data(), stream.get());
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

int run(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  Options options;
  try {
    options = parse_own_flags(argc, argv);
  } catch (const std::invalid_argument& e) {
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
    benchmark::RunSpecifiedBenchmarks();  // lists the names, runs nothing
    benchmark::Shutdown();
    return 0;
  }

  std::string why;
  const int devices = visible_device_count(why);
  if (devices == 0) {
    std::fprintf(stderr, "warpcost-bench: no CUDA device is visible (%s); nothing to measure.\n",
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
  // Before anything is written: an unknown metric ends the run here.
  std::string counter_units;
  try {
    counter_units = set_up_counter_pass(options.counters);
  } catch (const counters::UnknownMetric& e) {
    std::fprintf(stderr, "warpcost-bench: --warpcost_metrics: %s\n", e.what());
    return 2;
  }

  const std::time_t now = std::time(nullptr);
  const std::string stamp = utc_format(now, "%Y%m%dT%H%M%SZ");
  const std::string run_id = gpu_slug(info.name) + "/" + stamp;

  fs::path final_dir;
  fs::path partial_dir;
  std::vector<std::string> args(argv, argv + argc);
  if (!options.results_root.empty()) {
    final_dir = fs::path(options.results_root) / gpu_slug(info.name) / stamp;
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

  Stream stream;
  const double clock_hz = measure_sm_clock_hz(stream);
  add_context(info, clock_hz, run_id, utc_format(now, "%Y-%m-%dT%H:%M:%SZ"), command_line);
  benchmark::AddCustomContext(schema::key::kCounterPass, g_counter_pass->status());
  if (!counter_units.empty()) benchmark::AddCustomContext(schema::key::kCounterUnits, counter_units);
  std::fprintf(stderr, "warpcost-bench: %s (cc %d.%d, %d SMs), SM clock %.0f MHz (max %lld MHz)\n",
               info.name.c_str(), info.cc_major, info.cc_minor, info.sm_count, clock_hz / 1e6,
               info.sm_clock_max_khz / 1000);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // A pass that stopped part-way said so when it stopped; the context still says how it began.
  if (g_counter_pass->status().rfind("unavailable", 0) == 0 && !counter_units.empty()) {
    std::fprintf(stderr, "warpcost-bench: the counter pass stopped during the run (%s); benchmarks "
                 "after that point have timing only\n", g_counter_pass->status().c_str());
  }
  g_counter_pass.reset();  // CUPTI lets go while the CUDA context is still there

  if (partial_dir.empty()) return 0;
  const fs::path json = partial_dir / "bench.json";
  if (!fs::exists(json) || fs::file_size(json) == 0) {
    std::fprintf(stderr, "warpcost-bench: no JSON was written to %s\n", json.c_str());
    fs::remove_all(partial_dir);
    return 1;
  }
  const std::vector<std::string> errors = errored_benchmarks(json);
  if (!errors.empty()) {
    const fs::path failed = final_dir.string() + ".failed";
    fs::rename(partial_dir, failed);
    std::fprintf(stderr, "warpcost-bench: %zu failure(s); run kept in %s:\n",
                 errors.size(), failed.c_str());
    for (const auto& e : errors) std::fprintf(stderr, "  %s\n", e.c_str());
    return 1;
  }
  fs::rename(partial_dir, final_dir);
  std::printf("%s\n", final_dir.c_str());
  return 0;
}

}  // namespace
}  // namespace warpcost

int main(int argc, char** argv) {
  try {
    return warpcost::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return 1;
  }
}
