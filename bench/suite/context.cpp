#include "bench/suite/context.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "bench/suite/timing.hpp"
#include "core/result_schema.hpp"
#include "core/version.hpp"
#include "kernels/common/cuda_check.hpp"


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

}  // namespace warpcost

namespace warpcost::suite {

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
  AddCustomContext(key::kGitRev, git_revision());
  AddCustomContext(key::kCommandLine, command_line);
}

void SuiteRun::look_for_other_processes() {
  if (!nvml) return;
  for (const unsigned int pid : nvml->other_compute_processes(static_cast<unsigned int>(::getpid()), processes_why)) {
    if (other_processes.insert(pid).second) {
      std::fprintf(stderr, "warpcost-bench: another process (%u) is using the GPU during this run; its times may be off\n", pid);
    }
  }
}

std::optional<int> select_device(SuiteRun& run) {
  std::string why;
  const int devices = visible_device_count(why);
  if (devices == 0) {
    std::fprintf(stderr, "warpcost-bench: no NVIDIA GPU or driver found (%s); nothing to measure.\n",
                 why.c_str());
    return kExitNoDevice;
  }
  if (run.options.device >= devices) {
    std::fprintf(stderr, "warpcost-bench: --warpcost_device=%d, but devices 0..%d are visible\n",
                 run.options.device, devices - 1);
    return kExitUsage;
  }
  if (run.options.check_device_only) {
    std::printf("%d CUDA device(s) visible\n", devices);
    return 0;
  }
  WARPCOST_CUDA(cudaSetDevice(run.options.device));
  run.info = &bench_device();
  const DeviceInfo& info = *run.info;
  run.omitted = plan_for(facts_of(info));
  // A metric list the user named is checked against the chip before anything is timed or written
  // (the one case where CUPTI is touched before the timing phase; the default run never does).
  if (!run.options.counters.metrics.empty()) {
  try {
      counters::CuptiProfiler probe;
      counters::metric_units(probe.chip(), run.options.counters.metrics);
    } catch (const counters::UnknownMetric& e) {
      std::fprintf(stderr, "warpcost-bench: --warpcost_metrics: %s\n", e.what());
      return kExitUsage;
    } catch (const counters::CountersUnavailable&) {
      // said again, with the advice, when the counter phase starts
    }
  }
  set_counters_requested(run.options.counters.enabled);
  sampling_rule() = run.options.sampling;
  return std::nullopt;
}

std::optional<int> prepare_run(SuiteRun& run, int argc, char** argv) {
  const DeviceInfo& info = *run.info;
  const std::time_t now = std::time(nullptr);
  // The UUID's first 8 hex digits keep apart the runs that several GPUs of one host start in the
  // same second (./warpcost run --devices): <utc-stamp>-<uuid8>.
  const std::string uuid_hex = info.uuid.rfind("GPU-", 0) == 0 ? info.uuid.substr(4) : info.uuid;
  run.stamp = utc_format(now, "%Y%m%dT%H%M%SZ") + "-" + uuid_hex.substr(0, 8);
  run.mig = mig_instance_of(info.name, std::getenv("CUDA_VISIBLE_DEVICES"));
  run.filed_name = run_gpu_name(info.name, run.mig);
  run.run_id = gpu_slug(run.filed_name) + "/" + run.stamp;

  // One warpcost run a GPU: a second waits or refuses, naming the run that holds it.
  try {
    run.gpu_lock = std::make_unique<GpuLock>(info.uuid, run.run_id, run.options.gpu_lock);
    if (!run.gpu_lock->held()) std::fprintf(stderr, "warpcost-bench: %s\n", run.gpu_lock->why().c_str());
  } catch (const GpuBusy& e) {
    std::fprintf(stderr, "warpcost-bench: %s\n", e.what());
    return kExitGpuBusy;
  }

  std::vector<std::string> args(argv, argv + argc);
  if (!run.options.results_root.empty()) {
    run.final_dir = fs::path(run.options.results_root) / gpu_slug(run.filed_name) / run.stamp;
    run.partial_dir = run.final_dir.parent_path() / ("." + run.stamp + ".partial");
    if (fs::exists(run.final_dir)) {
      std::fprintf(stderr, "warpcost-bench: %s exists; a run never overwrites another\n",
                   run.final_dir.c_str());
      return 1;
    }
    fs::create_directories(run.partial_dir);
    args.push_back("--benchmark_out=" + (run.partial_dir / "bench.json").string());
    args.push_back("--benchmark_out_format=json");
  }
  std::vector<char*> gb_argv;
  for (auto& a : args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  gb_argv.push_back(nullptr);
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) {
    if (!run.partial_dir.empty()) fs::remove_all(run.partial_dir);
    return kExitUsage;
  }
  run.listing_only = false;
  for (const auto& a : args) run.listing_only = run.listing_only || a == "--benchmark_list_tests" || a == "--benchmark_list_tests=true";
  run.names = run.listing_only ? std::vector<std::string>{} : list_benchmarks(argv[0]);

  Stream stream;
  const double clock_hz = measure_sm_clock_hz(stream);
  char bus_id[64] = {};
  WARPCOST_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, run.options.device));
  run.nvml = std::make_unique<NvmlClock>(bus_id);
  NvmlClock& nvml = *run.nvml;
  run.look_for_other_processes();
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
  run.clock_reference =
      sm_clock_reference(info.sm_clock_max_khz / 1000, nvml.application_sm_mhz(), nvml.default_application_sm_mhz());
  if (run.clock_reference.source != "maximum") {
    std::fprintf(stderr, "warpcost-bench: the SM clock is held by %s; points are judged against it\n",
                 run.clock_reference.source.c_str());
  }
  if (run.mig != "none") {
    std::fprintf(stderr, "warpcost-bench: a MIG instance (%s, %d SMs): planned and filed as %s\n", run.mig.c_str(),
                 info.sm_count, run.filed_name.c_str());
  }
  const double overhead = measure_launch_overhead();
  set_launch_overhead_seconds(overhead);
  add_context(info, clock_hz, run.run_id, utc_format(now, "%Y-%m-%dT%H:%M:%SZ"), run.command_line);
  benchmark::AddCustomContext(schema::key::kCounterPass,
                              run.options.counters.enabled ? "pending: the counter phase runs after all timing"
                                                       : "off: --warpcost_counters=off");
  benchmark::AddCustomContext("sm_clock_max_mhz", std::to_string(info.sm_clock_max_khz / 1000));
  benchmark::AddCustomContext(schema::key::kSmClockReferenceMhz, std::to_string(run.clock_reference.mhz));
  benchmark::AddCustomContext(schema::key::kSmClockReference, run.clock_reference.source);
  benchmark::AddCustomContext(schema::key::kMigInstance, run.mig);
  {
    std::string text;
    for (const auto& o : run.omitted) text += (text.empty() ? "" : "; ") + o.point + ": " + o.why;
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
               info.sm_clock_max_khz / 1000, overhead * 1e6, run.names.size());
  return std::nullopt;
}

}  // namespace warpcost::suite
