// warpcost-coalesce: one coalescing configuration, checked against the host replay and timed, for a
// look at a single point without the family's sweep.
//   warpcost-coalesce stride [--bytes S] [--stride N] [--offset O] [--store | --l2]
//   warpcost-coalesce permuted [--bytes S]
//   warpcost-coalesce block --x X --y Y [--bytes S] [--width W --height H]
//   warpcost-coalesce partial --block-threads P
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/coalescing/model.hpp"
#include "core/point_reports.hpp"
#include "core/statistics.hpp"
#include "bench/coalescing/plan.hpp"
#include "bench/coalescing/runner.hpp"
#include "bench/common/cli_args.hpp"
#include "bench/common/timing.hpp"
#include "kernels/common/cuda_check.hpp"
#include "core/version.hpp"

namespace {

using warpcost::cli::kExitNoDevice;
using warpcost::cli::small_int;
using warpcost::cli::UsageError;
namespace co = warpcost::coalescing;

constexpr int kTimedLaunches = 11;
// CUDA's block limit on every device warpcost builds for; the device's own is checked after.
constexpr long long kCudaMaxThreadsPerBlock = 1024;

const char* const kUsage =
    "usage: warpcost-coalesce stride [--bytes S] [--stride N] [--offset O] [--store | --l2]\n"
    "                                   lane l touches element O + l*N of S bytes (data >> L2, or\n"
    "                                   16 MiB in the L2 with --l2; stores with --store)\n"
    "       warpcost-coalesce permuted [--bytes S]   32 lanes shuffled over 32 elements\n"
    "       warpcost-coalesce block --x X --y Y [--bytes S] [--width W --height H]\n"
    "                                   (X,Y) blocks over a WxH row-major image of S-byte elements\n"
    "                                   (default 1920x1080, S = 4), frames line-aligned\n"
    "       warpcost-coalesce partial --block-threads P\n"
    "                                   1D blocks of P threads, P consecutive 4-byte elements\n"
    "       defaults: S = 4, N = 1, O = 0; allowed: S in 1, 2, 4, 8, 16; N in 1..1024; O in 0..31\n"
    "       every mode: [--json] (one JSON object on stdout: core/point_reports.hpp)\n";

co::Point parse(int argc, char** argv) {
  if (argc < 2) throw UsageError("no mode given");
  const std::string mode = argv[1];
  if (mode == "--help" || mode == "-h") {
    std::printf("%s", kUsage);
    std::exit(0);
  }
  co::Point p;
  if (mode == "stride") {
    p.kind = co::Kind::kLoadDram;
  } else if (mode == "permuted") {
    p.kind = co::Kind::kLoadPermuted;
  } else if (mode == "block") {
    p.kind = co::Kind::kBlock2d;
  } else if (mode == "partial") {
    p.kind = co::Kind::kPartialBlock;
  } else {
    throw UsageError("mode '" + mode + "'; allowed: stride, permuted, block, partial");
  }
  bool store = false;
  bool l2 = false;
  bool x_given = false, y_given = false, threads_given = false, width_given = false, height_given = false;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (mode == "stride" && flag == "--store") {
      store = true;
      continue;
    }
    if (mode == "stride" && flag == "--l2") {
      l2 = true;
      continue;
    }
    if (i + 1 >= argc) throw UsageError("'" + flag + "' needs a value or is unknown for " + mode);
    const std::string value = argv[++i];
    if ((mode == "stride" || mode == "permuted" || mode == "block") && flag == "--bytes") {
      p.elem_bytes = small_int(flag, value);
    } else if (mode == "stride" && flag == "--stride") {
      p.stride = small_int(flag, value);
    } else if (mode == "stride" && flag == "--offset") {
      p.offset = small_int(flag, value);
    } else if (mode == "block" && flag == "--x") {
      p.x = small_int(flag, value);
      x_given = true;
    } else if (mode == "block" && flag == "--y") {
      p.y = small_int(flag, value);
      y_given = true;
    } else if (mode == "block" && flag == "--width") {
      p.image_width = small_int(flag, value);
      width_given = true;
    } else if (mode == "block" && flag == "--height") {
      p.image_height = small_int(flag, value);
      height_given = true;
    } else if (mode == "partial" && flag == "--block-threads") {
      p.threads = small_int(flag, value);
      threads_given = true;
    } else {
      throw UsageError("unknown option '" + flag + "' for " + mode);
    }
  }
  if (store && l2) throw UsageError("--store with --l2; allowed: one of the two (stores are measured from DRAM)");
  if (store) p.kind = co::Kind::kStoreDram;
  if (l2) p.kind = co::Kind::kLoadL2;
  if (mode == "block" && (!x_given || !y_given)) throw UsageError("block needs --x and --y");
  if (width_given != height_given) throw UsageError("--width and --height go together; allowed: both or neither");
  if (mode == "partial" && !threads_given) throw UsageError("partial needs --block-threads");
  // Everything that needs no device is checked here, so bad input fails the same everywhere.
  if (const std::string problem = co::point_problem(p, kCudaMaxThreadsPerBlock); !problem.empty()) {
    throw UsageError(problem);
  }
  return p;
}

double model_sectors_per_request(const co::Point& p) {
  switch (p.kind) {
    case co::Kind::kBlock2d:
      return co::block_2d_totals(p.x, p.y, p.image_width, p.image_height, p.elem_bytes).sectors_per_request();
    case co::Kind::kPartialBlock: return co::partial_block_totals(p.threads, 4).sectors_per_request();
    default: return co::sectors(co::tile_request(p));
  }
}

int run(int argc, char** argv) {
  const bool json = warpcost::cli::take_flag(argc, argv, "--json");
  const co::Point p = parse(argc, argv);
  std::string why;
  if (warpcost::visible_device_count(why) == 0) {
    std::fprintf(stderr, "warpcost-coalesce: no NVIDIA GPU or driver found (%s)\n", why.c_str());
    return kExitNoDevice;
  }
  const warpcost::DeviceInfo device = warpcost::query_device_info(0);
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPCOST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (const std::string problem = co::buffer_problem(free_bytes); !problem.empty()) throw UsageError(problem);
  warpcost::Stream stream;
  co::CoalescingBuffer buffer;
  std::unique_ptr<co::CoalescingRunner> runner;
  try {
    runner = std::make_unique<co::CoalescingRunner>(device, p, buffer);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  runner->check(stream);
  warpcost::EventPair events;
  std::vector<double> times;
  for (int i = 0; i < kTimedLaunches; ++i) {
    times.push_back(warpcost::time_launch(stream, events, [&] { runner->launch(stream); }));
  }
  const double t = warpcost::analysis::median(times);
  if (json) {
    warpcost::reports::CoalesceReport rep;
    rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
    rep.benchmark = co::bench_name(p.kind);
    rep.arg_names = co::arg_names(p.kind);
    rep.arg_values = co::args_of(p);
    rep.elem_bytes = p.elem_bytes;  // partial blocks read 4-byte elements, the Point's default
    if (p.kind == co::Kind::kBlock2d) {
      rep.image_width = p.image_width;
      rep.image_height = p.image_height;
    }
    rep.median_seconds = t;
    rep.model_sectors_per_request = model_sectors_per_request(p);
    rep.warp_requests = runner->warp_requests();
    rep.useful_bytes = runner->useful_bytes();
    std::printf("%s", warpcost::reports::to_json(rep).c_str());
    return 0;
  }
  std::printf("GPU: %s, %d SMs; %s", device.name.c_str(), device.sm_count, co::bench_name(p.kind));
  const std::vector<std::string> names = co::arg_names(p.kind);
  const std::vector<long long> values = co::args_of(p);
  for (std::size_t i = 0; i < names.size(); ++i) std::printf(" %s=%lld", names[i].c_str(), values[i]);
  if (p.kind == co::Kind::kBlock2d) {
    std::printf(" over a %dx%d image of %d-byte elements", p.image_width, p.image_height, p.elem_bytes);
  }
  std::printf("\noutput checked against the host replay; median of %d launches %.1f us\n", kTimedLaunches, t * 1e6);
  std::printf("model: %.3f sectors per warp request; %llu warp requests a launch\n", model_sectors_per_request(p),
              static_cast<unsigned long long>(runner->warp_requests()));
  std::printf("useful bandwidth %.3f TB/s\n", static_cast<double>(runner->useful_bytes()) / t * 1e-12);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (warpcost::print_version_if_asked(argc, argv, "warpcost-coalesce")) return 0;
  return warpcost::cli::run_main("warpcost-coalesce", kUsage, [&] { return run(argc, argv); });
}
