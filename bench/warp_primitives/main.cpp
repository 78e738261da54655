// warpcost-primitives: one warp-primitive point, checked against the host reference and measured,
// for a look without the family's sweep; and the lesson's mask facts (what __activemask() and a
// ballot return inside a branch, a full-mask shuffle in a partial warp), which the GPU round runs
// under compute-sanitizer --tool synccheck.
//   warpcost-primitives latency --primitive NAME [--lanes N] [--mask contiguous|scattered|divergent]
//   warpcost-primitives throughput --primitive NAME [--warps W] [--lanes N] [--mask ...]
//   warpcost-primitives facts [--threads T] [--split S] [--full-mask]
//   warpcost-primitives list
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/warp_primitives/model.hpp"
#include "bench/common/cli_args.hpp"
#include "core/point_reports.hpp"
#include "bench/common/cuda_raii.hpp"
#include "bench/common/device_info.hpp"
#include "bench/warp_primitives/plan.hpp"
#include "bench/warp_primitives/runner.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/warp_primitives/kernels.hpp"

namespace {

using warpcost::cli::kExitNoDevice;
using warpcost::cli::small_int;
using warpcost::cli::UsageError;
namespace wp = warpcost::warp_primitives;

constexpr int kLaunches = 5;

const char* const kUsage =
    "usage: warpcost-primitives latency --primitive NAME [--lanes N] [--mask SHAPE]\n"
    "                                   one warp an SM, one dependent chain: cycles per op\n"
    "       warpcost-primitives throughput --primitive NAME [--warps W] [--lanes N] [--mask SHAPE]\n"
    "                                   W warps an SM (default: the device's cap), 4 chains a warp:\n"
    "                                   warp-ops per cycle per SM from per-SM clock spans\n"
    "       warpcost-primitives facts [--threads T] [--split S] [--full-mask]\n"
    "                                   one block of T threads (default 48); lanes < S (default 5)\n"
    "                                   take a branch: __activemask() and the ballot there; then a\n"
    "                                   shuffle with the active mask, or the full mask (--full-mask)\n"
    "       warpcost-primitives list    the primitives and their ids\n"
    "       defaults: N = 32, SHAPE = contiguous; allowed: N in 1..32, SHAPE in contiguous,\n"
    "       scattered, divergent (N lanes on one side, 32 - N on the other: N in 1..31)\n"
    "       latency, throughput, facts [--json]: one JSON object on stdout (core/point_reports.hpp)\n";

struct Options {
  std::string mode;
  wp::Point point;
  int threads = 48;
  int split = 5;
  bool full_mask = false;
  bool warps_given = false;
};

int mask_of(const std::string& text) {
  if (text == "contiguous") return 0;
  if (text == "scattered") return 1;
  if (text == "divergent") return 2;
  throw UsageError("mask '" + text + "'. allowed: contiguous, scattered, divergent");
}

Options parse(int argc, char** argv) {
  if (argc < 2) throw UsageError("no mode given");
  Options o;
  o.mode = argv[1];
  if (o.mode == "--help" || o.mode == "-h") {
    std::printf("%s", kUsage);
    std::exit(0);
  }
  if (o.mode != "latency" && o.mode != "throughput" && o.mode != "facts" && o.mode != "list") {
    throw UsageError("mode '" + o.mode + "'. allowed: latency, throughput, facts, list");
  }
  o.point.kind = o.mode == "throughput" ? wp::Kind::kThroughput : wp::Kind::kLatency;
  bool primitive_given = false;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (o.mode == "facts" && flag == "--full-mask") {
      o.full_mask = true;
      continue;
    }
    if (o.mode == "list") throw UsageError("list takes no options ('" + flag + "')");
    if (i + 1 >= argc) throw UsageError("'" + flag + "' needs a value or is unknown for " + o.mode);
    const std::string value = argv[++i];
    const bool timed = o.mode == "latency" || o.mode == "throughput";
    if (timed && flag == "--primitive") {
      const wp::PrimitiveInfo* p = wp::find_primitive(value);
      if (p == nullptr) {
        std::string names;
        for (const wp::PrimitiveInfo& q : wp::primitives()) names += (names.empty() ? "" : ", ") + std::string(q.name);
        throw UsageError("primitive '" + value + "'. allowed: " + names);
      }
      if (p->id == wp::Primitive::kActivemask) {
        throw UsageError("primitive 'activemask' is not timed: ptxas hoists __activemask() out of a chain "
                         "(2 VOTE.ANY for 64 calls in the sm_90 build), so a chain would time the XOR around it; "
                         "`facts` shows what it returns (docs/warp-primitives.md)");
      }
      o.point.primitive = static_cast<int>(p->id);
      primitive_given = true;
    } else if (timed && flag == "--lanes") {
      o.point.active_lanes = small_int(flag, value);
    } else if (timed && flag == "--mask") {
      o.point.mask = mask_of(value);
    } else if (o.mode == "throughput" && flag == "--warps") {
      o.point.warps_per_sm = small_int(flag, value);
      o.warps_given = true;
    } else if (o.mode == "facts" && flag == "--threads") {
      o.threads = small_int(flag, value);
    } else if (o.mode == "facts" && flag == "--split") {
      o.split = small_int(flag, value);
    } else {
      throw UsageError("unknown option '" + flag + "' for " + o.mode);
    }
  }
  // Everything that needs no device is checked here, so bad input fails the same everywhere.
  if (o.mode == "latency" || o.mode == "throughput") {
    if (!primitive_given) throw UsageError(o.mode + " needs --primitive (warpcost-primitives list names them)");
    std::string problem = wp::lanes_problem(o.point.active_lanes);
    if (problem.empty()) problem = wp::mask_problem(o.point.mask, o.point.active_lanes);
    if (problem.empty() && o.warps_given && o.point.warps_per_sm < 1) {
      problem = "warps/SM = " + std::to_string(o.point.warps_per_sm) + ". allowed: 1 up to the device's cap";
    }
    if (problem.empty()) {
      const wp::PrimitiveInfo& pi = wp::info(static_cast<wp::Primitive>(o.point.primitive));
      if (!pi.lane_sweep && (o.point.active_lanes != wp::kWarpSize || o.point.mask != 0)) {
        problem = std::string(pi.name) + " sums the whole warp. allowed: --lanes 32, --mask contiguous";
      }
    }
    if (!problem.empty()) throw UsageError(problem);
  }
  if (o.mode == "facts") {
    if (o.threads < 1 || o.threads > 1024) throw UsageError("threads = " + std::to_string(o.threads) + ". allowed: 1..1024");
    if (o.split < 0 || o.split > 32) throw UsageError("split = " + std::to_string(o.split) + ". allowed: 0..32");
  }
  return o;
}

int list() {
  for (const wp::PrimitiveInfo& p : wp::primitives()) {
    std::printf("%2d %-18s %-10s x%-2d needs cc %d.%d\n", static_cast<int>(p.id), p.name, p.sass, p.sass_per_op,
                p.min_cc / 10, p.min_cc % 10);
  }
  return 0;
}

int facts(const Options& o, bool json) {
  warpcost::Stream stream;
  warpcost::DeviceBuffer<warpcost::kernels::MaskFacts> d(static_cast<std::size_t>(o.threads));
  warpcost::kernels::launch_mask_facts(d.data(), o.threads, o.split, o.full_mask, stream.get());
  stream.synchronize();
  std::vector<warpcost::kernels::MaskFacts> f(static_cast<std::size_t>(o.threads));
  WARPCOST_CUDA(cudaMemcpy(f.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  if (json) {
    const warpcost::DeviceInfo device = warpcost::query_device_info(0);
    warpcost::reports::MaskFactsReport rep;
    rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
    rep.threads = o.threads;
    rep.split = o.split;
    rep.full_mask = o.full_mask;
    for (int w = 0; w * 32 < o.threads; ++w) {
      const auto& lane0 = f[static_cast<std::size_t>(w * 32)];
      rep.warps.push_back({w, lane0.taken_activemask, lane0.taken_ballot});
    }
    rep.last_lane = (o.threads - 1) % 32;
    rep.last_shuffle = f.back().full_shuffle;
    std::printf("%s", warpcost::reports::to_json(rep).c_str());
    return 0;
  }
  std::printf("block of %d threads (%d warps, the last with %d lanes); lanes < %d take the branch\n", o.threads,
              (o.threads + 31) / 32, o.threads % 32 == 0 ? 32 : o.threads % 32, o.split);
  for (int w = 0; w * 32 < o.threads; ++w) {
    const auto& lane0 = f[static_cast<std::size_t>(w * 32)];
    std::printf("warp %d: inside the branch __activemask() = 0x%08x, ballot of the lanes there = 0x%08x\n", w,
                lane0.taken_activemask, lane0.taken_ballot);
  }
  std::printf("%s shuffle from lane 0: lane %d of the last warp read %u\n",
              o.full_mask ? "full-mask (0xffffffff)" : "active-mask", (o.threads - 1) % 32,
              f.back().full_shuffle);
  return 0;
}

int run(int argc, char** argv) {
  const bool json = warpcost::cli::take_flag(argc, argv, "--json");
  Options o = parse(argc, argv);
  if (json && o.mode == "list") {
    throw UsageError("--json with list; allowed: --json with latency, throughput or facts");
  }
  if (o.mode == "list") return list();
  std::string why;
  if (warpcost::visible_device_count(why) == 0) {
    std::fprintf(stderr, "warpcost-primitives: no CUDA device is visible (%s)\n", why.c_str());
    return kExitNoDevice;
  }
  if (o.mode == "facts") return facts(o, json);
  const warpcost::DeviceInfo device = warpcost::query_device_info(0);
  const wp::DeviceFacts f = wp::primitive_facts(device);
  if (o.point.kind == wp::Kind::kThroughput && !o.warps_given) o.point.warps_per_sm = f.max_warps_per_sm;
  if (const std::string problem = wp::point_problem(o.point, f); !problem.empty()) throw UsageError(problem);
  warpcost::Stream stream;
  std::unique_ptr<wp::PrimitivesRunner> runner;
  try {
    runner = std::make_unique<wp::PrimitivesRunner>(device, o.point);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  runner->check(stream);
  const wp::PrimitiveInfo& pi = wp::info(static_cast<wp::Primitive>(o.point.primitive));
  std::vector<double> values;
  for (int i = 0; i < kLaunches; ++i) {
    runner->launch(stream);
    values.push_back(o.point.kind == wp::Kind::kLatency ? runner->cycles_per_op(stream)
                                                        : runner->throughput(stream).median_ops_per_cycle);
  }
  std::sort(values.begin(), values.end());
  if (json) {
    warpcost::reports::PrimitiveReport rep;
    rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
    rep.mode = o.mode;
    rep.primitive = pi.name;
    rep.lanes = o.point.active_lanes;
    rep.mask_a = runner->shape().mask_a;
    rep.mask_b = runner->shape().mask_b;
    rep.ops = runner->shape().ops;
    rep.launches = kLaunches;
    rep.warps_per_sm = o.point.kind == wp::Kind::kLatency ? 1 : o.point.warps_per_sm;
    rep.median = values[kLaunches / 2];
    std::printf("%s", warpcost::reports::to_json(rep).c_str());
    return 0;
  }
  std::printf("GPU: %s, %d SMs, cc %d.%d; %s, %d lanes, mask 0x%08x", device.name.c_str(), device.sm_count,
              device.cc_major, device.cc_minor, pi.name, o.point.active_lanes, runner->shape().mask_a);
  if (runner->shape().mask_b != 0) std::printf(" / 0x%08x (divergent sides)", runner->shape().mask_b);
  std::printf("\noutput checked against the host reference\n");
  if (o.point.kind == wp::Kind::kLatency) {
    std::printf("latency %.2f cycles per op (median of %d launches, one warp an SM, %u ops)\n", values[kLaunches / 2],
                kLaunches, runner->shape().ops);
  } else {
    std::printf("throughput %.4f warp-ops per cycle per SM at %d warps/SM (median of %d launches)\n",
                values[kLaunches / 2], o.point.warps_per_sm, kLaunches);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return warpcost::cli::run_main("warpcost-primitives", kUsage, [&] { return run(argc, argv); });
}
