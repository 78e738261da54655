// warpcost-stream: one streaming or latency configuration, checked and timed,
// for a look at a single point without the whole sweep.
//   warpcost-stream read [--warps-per-sm N] [--alu W] [--load-bytes 4|8|16]
//   [--dependent] [--mib M] warpcost-stream one-per-thread [--block-threads T]
//   [--mib M] warpcost-stream chase --footprint-kib F [--stride] [--steps S]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/models.hpp"
#include "core/statistics.hpp"
#include "bench/common/cli_args.hpp"
#include "bench/common/cupti_host_config.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "core/point_reports.hpp"
#include "bench/common/timing.hpp"
#include "bench/streaming/runner.hpp"
#include "core/version.hpp"

namespace {

using warpcost::cli::kExitNoDevice;
using warpcost::cli::small_int;
using warpcost::cli::UsageError;
using warpcost::cli::whole_number;
constexpr int kTimedLaunches = 11;
constexpr std::uint64_t kMiB = 1024 * 1024;

const char* const kUsage =
    "usage: warpcost-stream read [--warps-per-sm N] [--alu W] [--load-bytes "
    "4|8|16] [--dependent]\n"
    "                            [--run-time-alu] [--mib M]   persistent read stream, N "
    "warps/SM held exactly\n"
    "                                        (a W without a compiled kernel, or --run-time-alu: W is a\n"
    "                                        kernel argument, its FFMAs a loop, W up to 4096)\n"
    "       warpcost-stream one-per-thread [--block-threads T] [--mib M] [--no-load]\n"
    "                                        one 16-byte load per thread, T "
    "threads a block\n"
    "                                        (--no-load: the same blocks without the load, the\n"
    "                                        block turnover: ns an SM spends a block)\n"
    "       warpcost-stream chase --footprint-kib F [--stride] [--steps S]\n"
    "                                        single-thread pointer chase over "
    "F KiB\n"
    "       defaults: N = the device's warp cap, W = 0, 16-byte loads, independent ALU work, M = "
    "512, T = 256,\n"
    "                 a random ring, S = 65536\n"
    "       read: [--counters] one more launch, profiled with CUPTI after the timed ones: warp\n"
    "                 instructions an iteration and FFMAs a load (what check --measure's second-order\n"
    "                 row and its FFMA count read)\n"
    "       every mode: [--json] (one JSON object on stdout: core/point_reports.hpp)\n";

// The counts of one profiled launch of the read stream (never a timed one): warp instructions and
// thread FFMAs, per iteration and per load (an iteration is one load of every lane: `elements` of
// them are thread loads). The suite's second-order streaming rows read I the same way.
constexpr const char* kInstExecuted = warpcost::schema::metric::kWarpInstructions;
constexpr const char* kFfma = warpcost::schema::metric::kThreadFfma;

void count_read(warpcost::StreamRunner& runner, const warpcost::Stream& stream, warpcost::reports::StreamReadReport& rep) {
  try {
    warpcost::counters::CuptiProfiler profiler;
    const warpcost::counters::Values v =
        profiler.profile({kInstExecuted, kFfma}, "stream", [&] { runner.launch(stream); });
    const double loads = static_cast<double>(runner.elements());
    rep.counters = "counted";
    rep.instructions_per_iteration = v.at(kInstExecuted) / (loads / warpcost::model::kWarpSize);
    rep.ffma_per_load = v.at(kFfma) / loads;
  } catch (const warpcost::counters::CountersUnavailable& e) {
    rep.counters = std::string("unavailable: ") + e.what();
  }
}

std::uint64_t positive(const std::string& flag, const std::string& text, std::uint64_t most) {
  const long long v = whole_number(flag, text);
  if (v < 1 || static_cast<std::uint64_t>(v) > most) {
    throw UsageError(flag + " = " + text + "; allowed: 1.." + std::to_string(most));
  }
  return static_cast<std::uint64_t>(v);
}

struct Options {
  std::string mode;
  warpcost::StreamConfig read;
  bool warps_given = false;  // --warps-per-sm named (else the device's warp cap)
  warpcost::OnePerThreadConfig one;
  warpcost::ChaseConfig chase;
};

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) throw UsageError("no mode given");
  o.mode = argv[1];
  if (o.mode == "--help" || o.mode == "-h") {
    std::printf("%s", kUsage);
    std::exit(0);
  }
  if (o.mode != "read" && o.mode != "one-per-thread" && o.mode != "chase") {
    throw UsageError("mode '" + o.mode + "'; allowed: read, one-per-thread, chase");
  }
  o.read.bytes = 512 * kMiB;
  o.one.bytes = 512 * kMiB;
  bool footprint_given = false;
  constexpr std::uint64_t kMostMiB = std::uint64_t{1} << 20;  // 1 TiB
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--dependent" && o.mode == "read") {
      o.read.kernel.use = warpcost::kernels::AluUse::kDependent;
      continue;
    }
    if (flag == "--run-time-alu" && o.mode == "read") {
      o.read.kernel.run_time_alu = true;
      continue;
    }
    if (flag == "--no-load" && o.mode == "one-per-thread") {
      o.one.load = false;  // the block-turnover grid: the same blocks without the load
      continue;
    }
    if (flag == "--stride" && o.mode == "chase") {
      o.chase.order = warpcost::kernels::RingOrder::kStride;
      continue;
    }
    if (i + 1 >= argc) throw UsageError("'" + flag + "' needs a value or is unknown for " + o.mode);
    const std::string value = argv[++i];
    if (o.mode == "read" && flag == "--warps-per-sm") {
      o.read.warps_per_sm = small_int(flag, value);
      o.warps_given = true;
    } else if (o.mode == "read" && flag == "--alu") {
      o.read.kernel.alu_per_load = small_int(flag, value);
    } else if (o.mode == "read" && flag == "--load-bytes") {
      o.read.kernel.load_bytes = small_int(flag, value);
    } else if (o.mode != "chase" && flag == "--mib") {
      o.read.bytes = o.one.bytes = positive(flag, value, kMostMiB) * kMiB;
    } else if (o.mode == "one-per-thread" && flag == "--block-threads") {
      o.one.threads_per_block = small_int(flag, value);
    } else if (o.mode == "chase" && flag == "--footprint-kib") {
      o.chase.footprint_bytes = positive(flag, value, kMostMiB * 1024) * 1024;
      footprint_given = true;
    } else if (o.mode == "chase" && flag == "--steps") {
      o.chase.steps = positive(flag, value, std::uint64_t{1} << 32);
    } else {
      throw UsageError("unknown option '" + flag + "' for " + o.mode);
    }
  }
  if (o.mode == "chase" && !footprint_given) throw UsageError("chase needs --footprint-kib");
  // What can be checked without a device is checked here, so bad input fails
  // the same everywhere.
  if (o.mode == "read") {
    // A W no kernel is compiled for runs the run-time kernel (one load in flight, any width).
    const auto& compiled = warpcost::kernels::kStreamAluCounts;
    if (std::find(std::begin(compiled), std::end(compiled), o.read.kernel.alu_per_load) == std::end(compiled) &&
        o.read.kernel.alu_per_load >= 0) {
      o.read.kernel.run_time_alu = true;
    }
    if (const std::string p = warpcost::kernels::stream_kernel_problem(o.read.kernel); !p.empty()) {
      throw UsageError(p);
    }
    if (o.warps_given && o.read.warps_per_sm < 1) {
      throw UsageError("warps per SM = " + std::to_string(o.read.warps_per_sm) +
                       "; allowed: 1 up to the device's warp cap");
    }
  } else if (o.mode == "one-per-thread") {
    if (const std::string p = warpcost::one_per_thread_problem(o.one, 1024); !p.empty()) throw UsageError(p);
  } else if (const std::string p =
                 warpcost::chase_problem(o.chase, std::numeric_limits<std::uint64_t>::max());
             !p.empty()) {
    throw UsageError(p);
  }
  return o;
}

double median_time(const warpcost::Stream& stream, const std::function<void()>& launch) {
  warpcost::EventPair events;
  std::vector<double> times;
  for (int i = 0; i < kTimedLaunches; ++i) times.push_back(warpcost::time_launch(stream, events, launch));
  return warpcost::analysis::median(times);
}

double peak(const warpcost::DeviceInfo& d) {
  return warpcost::model::theoretical_dram_peak_bytes_per_s(d.memory_clock_khz, d.memory_bus_width_bits);
}

int run(int argc, char** argv) {
  const bool json = warpcost::cli::take_flag(argc, argv, "--json");
  const bool counted = warpcost::cli::take_flag(argc, argv, "--counters");
  const Options o = parse(argc, argv);
  if (counted && o.mode != "read") throw UsageError("--counters goes with read; " + o.mode + " counts nothing");
  std::string why;
  if (warpcost::visible_device_count(why) == 0) {
    std::fprintf(stderr, "warpcost-stream: no NVIDIA GPU or driver found (%s)\n", why.c_str());
    return kExitNoDevice;
  }
  const warpcost::DeviceInfo device = warpcost::query_device_info(0);
  warpcost::Stream stream;
  if (!json) {
    std::printf("GPU: %s, %d SMs, %d warps/SM at most, theoretical DRAM peak %.3f TB/s\n", device.name.c_str(),
                device.sm_count, device.max_warps_per_sm, peak(device) * 1e-12);
  }
  if (o.mode == "read") {
    std::unique_ptr<warpcost::StreamRunner> runner;
    try {
      runner = std::make_unique<warpcost::StreamRunner>(device, o.read, stream);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    runner->launch(stream);
    runner->check_sums(stream);
    const double t = median_time(stream, [&] { runner->launch(stream); });
    const warpcost::ResidencyPlan& p = runner->plan();
    if (json) {
      warpcost::reports::StreamReadReport rep;
      rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
      rep.max_warps_per_sm = device.max_warps_per_sm;
      rep.dram_peak_bytes_per_s = peak(device);
      rep.use = warpcost::kernels::alu_use_name(o.read.kernel.use);
      rep.load_bytes = o.read.kernel.load_bytes;
      rep.alu_per_load = o.read.kernel.alu_per_load;
      rep.run_time_alu = o.read.kernel.run_time_alu;
      rep.warps_per_sm = p.warps_per_sm;
      rep.blocks_per_sm = p.blocks_per_sm;
      rep.warps_per_block = p.warps_per_block;
      rep.shared_bytes = p.shared_bytes;
      rep.median_seconds = t;
      rep.bytes_read = runner->bytes_read();
      rep.loaded_latency_cycles = runner->loaded_latency_cycles(stream);
      if (counted) count_read(*runner, stream, rep);
      std::printf("%s", warpcost::reports::to_json(rep).c_str());
      return 0;
    }
    std::printf(
        "read %s, %d-byte loads, W = %d, %d warps/SM = %d block(s) of "
        "%d warps, %lld B shared each\n",
        warpcost::kernels::alu_use_name(o.read.kernel.use), o.read.kernel.load_bytes,
        o.read.kernel.alu_per_load, p.warps_per_sm, p.blocks_per_sm, p.warps_per_block, p.shared_bytes);
    const double rate = static_cast<double>(runner->bytes_read()) / t;
    if (o.read.kernel.run_time_alu) {
      std::printf("ALU work: W = %d run-time (a loop of FFMAs: its counter, compare and branch issue too)\n",
                  o.read.kernel.alu_per_load);
    }
    std::printf("sums checked against the host replay; median of %d launches %.1f us\n", kTimedLaunches,
                t * 1e6);
    std::printf(
        "bandwidth %.3f TB/s (%.1f%% of peak), loaded latency %.0f "
        "cycles (median)\n",
        rate * 1e-12, 100 * rate / peak(device), runner->loaded_latency_cycles(stream));
    if (counted) {
      warpcost::reports::StreamReadReport rep;
      count_read(*runner, stream, rep);
      if (rep.counters == "counted") {
        std::printf("one profiled launch: %.2f warp instructions an iteration, %.3f FFMAs a load\n",
                    rep.instructions_per_iteration, rep.ffma_per_load);
      } else {
        std::printf("counters %s\n", rep.counters.c_str());
      }
    }
  } else if (o.mode == "one-per-thread") {
    std::unique_ptr<warpcost::OnePerThreadRunner> runner;
    try {
      runner = std::make_unique<warpcost::OnePerThreadRunner>(device, o.one, stream);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    runner->launch(stream);
    runner->check_sums(stream);
    const double t = median_time(stream, [&] { runner->launch(stream); });
    const double rate = static_cast<double>(runner->bytes_read()) / t;
    if (json) {
      warpcost::reports::StreamOnePerThreadReport rep;
      rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
      rep.dram_peak_bytes_per_s = peak(device);
      rep.threads_per_block = o.one.threads_per_block;
      rep.blocks = runner->blocks();
      rep.resident_blocks_per_sm = runner->resident_blocks_per_sm();
      rep.resident_warps_per_sm = runner->resident_warps_per_sm();
      rep.median_seconds = t;
      rep.bytes_read = runner->bytes_read();
      rep.load = o.one.load;
      std::printf("%s", warpcost::reports::to_json(rep).c_str());
      return 0;
    }
    if (!o.one.load) {
      std::printf("the one-load-a-thread grid without its load, %d threads a block, %llu blocks; "
                  "%d blocks = %d warps/SM resident\n",
                  o.one.threads_per_block, static_cast<unsigned long long>(runner->blocks()),
                  runner->resident_blocks_per_sm(), runner->resident_warps_per_sm());
      std::printf("sums checked against the host replay; median of %d launches %.1f us\n", kTimedLaunches, t * 1e6);
      std::printf("block turnover %.1f ns an SM a block (time x %d SMs / blocks)\n",
                  1e9 * t * device.sm_count / static_cast<double>(runner->blocks()), device.sm_count);
      return 0;
    }
    std::printf(
        "one 16-byte load a thread, %d threads a block, %llu blocks; "
        "%d blocks = %d warps/SM resident\n",
        o.one.threads_per_block, static_cast<unsigned long long>(runner->blocks()),
        runner->resident_blocks_per_sm(), runner->resident_warps_per_sm());
    std::printf("sums checked against the host replay; median of %d launches %.1f us\n", kTimedLaunches,
                t * 1e6);
    std::printf("bandwidth %.3f TB/s (%.1f%% of peak)\n", rate * 1e-12, 100 * rate / peak(device));
  } else {
    std::unique_ptr<warpcost::ChaseRunner> runner;
    try {
      runner = std::make_unique<warpcost::ChaseRunner>(device, o.chase, stream);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    runner->check_ring(stream);
    runner->launch(stream);
    const warpcost::kernels::ChaseResult r = runner->result(stream);
    const double steps = static_cast<double>(o.chase.steps);
    if (json) {
      warpcost::reports::StreamChaseReport rep;
      rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
      rep.order = warpcost::kernels::ring_order_name(o.chase.order);
      rep.footprint_bytes = o.chase.footprint_bytes;
      rep.nodes = runner->nodes();
      rep.warm_steps = runner->warm_steps();
      rep.steps = o.chase.steps;
      rep.cycles = r.cycles;
      rep.ns = r.ns;
      std::printf("%s", warpcost::reports::to_json(rep).c_str());
      return 0;
    }
    std::printf(
        "chase %s ring, %llu nodes of 256 bytes, %llu warm-up steps, "
        "%llu timed\n",
        warpcost::kernels::ring_order_name(o.chase.order), static_cast<unsigned long long>(runner->nodes()),
        static_cast<unsigned long long>(runner->warm_steps()),
        static_cast<unsigned long long>(o.chase.steps));
    std::printf("ring checked; latency %.1f cycles = %.1f ns a load\n", static_cast<double>(r.cycles) / steps,
                static_cast<double>(r.ns) / steps);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (warpcost::print_version_if_asked(argc, argv, "warpcost-stream")) return 0;
  return warpcost::cli::run_main("warpcost-stream", kUsage, [&] { return run(argc, argv); });
}
