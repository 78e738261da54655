#include "bench/suite/options.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "bench/suite/context.hpp"
#include "kernels/common/cuda_check.hpp"

// The profile --benchmark_list_tests plans for where no device is visible and none is named.
#ifndef WARPCOST_LIST_PROFILE
#define WARPCOST_LIST_PROFILE "h200"
#endif

namespace warpcost::suite {
namespace {

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

}  // namespace

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

std::optional<int> read_options(SuiteRun& run, int& argc, char** argv) {
  for (int i = 0; i < argc; ++i) run.command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    run.options = parse_own_flags(argc, argv);
    if (!run.options.device_profile.empty()) {
      run.profile = find_device_profile(run.options.device_profile);
      if (!list_tests_requested(argc, argv)) {
        throw std::invalid_argument("--device_profile=" + run.options.device_profile +
                                    " plans for a GPU that is not here; allowed only with --benchmark_list_tests "
                                    "(a run is planned from the device it runs on)");
      }
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return kExitUsage;
  } catch (const ProfileError& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return kExitUsage;
  }
  return std::nullopt;
}

std::optional<int> answer_without_device(SuiteRun& run, int argc, char** argv) {
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
    if (benchmark::ReportUnrecognizedArguments(early_argc, early_argv.data())) return kExitUsage;
  }
  if (list_tests_requested(argc, argv)) {
    DeviceFacts facts = run.profile;
    if (run.options.device_profile.empty()) {
      std::string why;
      if (visible_device_count(why) > run.options.device) {
        WARPCOST_CUDA(cudaSetDevice(run.options.device));
        facts = facts_of(bench_device());
      } else {
        facts = find_device_profile(WARPCOST_LIST_PROFILE);
        std::fprintf(stderr,
                     "warpcost-bench: no NVIDIA GPU or driver found here (%s); the list is the plan for profile %s "
                     "(--device_profile=NAME plans for another GPU)\n",
                     why.empty() ? ("no device " + std::to_string(run.options.device)).c_str() : why.c_str(),
                     WARPCOST_LIST_PROFILE);
      }
    }
    plan_for(facts);
    benchmark::RunSpecifiedBenchmarks();  // lists the names, runs nothing
    benchmark::Shutdown();
    return 0;
  }
  return std::nullopt;
}

}  // namespace warpcost::suite
