// warpcost-diverge: runs one divergence configuration beside its uniform reference and prints what
// a warp and the grid paid against "time = sum of the populated paths".
//   warpcost-diverge [--split K] [--pattern low|interleaved|random|warp_uniform] [--if N] [--else N]
//   warpcost-diverge --paths P [--trips N]        k-way switch
//   warpcost-diverge --leaves L [--trips N]       two-level nested if
//   common: [--warps-per-sm W] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "divergence_runner.hpp"
#include "models.hpp"
#include "statistics.hpp"
#include "timing.hpp"

namespace {

using warpcost::cli::kExitNoDevice;
using warpcost::cli::small_int;
using warpcost::cli::UsageError;
using warpcost::cli::whole_number;
constexpr int kTimedLaunches = 11;

const char* const kUsage =
    "usage: warpcost-diverge [--split K] [--pattern low|interleaved|random|warp_uniform]\n"
    "                        [--if TRIPS] [--else TRIPS]        if/else, K of 32 lanes on the if side\n"
    "       warpcost-diverge --paths P [--trips TRIPS]         k-way switch, P of 1..32 paths\n"
    "       warpcost-diverge --leaves L [--trips TRIPS]        nested if, L of 1..4 leaves\n"
    "       common options: [--warps-per-sm W] (default 4: one warp per scheduler) [--seed S]\n";

warpcost::DivergenceConfig parse(int argc, char** argv) {
  warpcost::DivergenceConfig c;
  c.warps_per_sm = 4;
  c.trips = c.if_trips;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (i + 1 >= argc) throw UsageError("'" + flag + "' needs a value or is unknown");
    const std::string value = argv[++i];
    if (flag == "--split") {
      c.k = small_int(flag, value);
    } else if (flag == "--pattern") {
      c.pattern = warpcost::kernels::parse_pattern(value);
    } else if (flag == "--if") {
      c.if_trips = small_int(flag, value);
    } else if (flag == "--else") {
      c.else_trips = small_int(flag, value);
    } else if (flag == "--paths") {
      c.kind = warpcost::BranchKind::kSwitch;
      c.paths = small_int(flag, value);
    } else if (flag == "--leaves") {
      c.kind = warpcost::BranchKind::kNested;
      c.leaves = small_int(flag, value);
    } else if (flag == "--trips") {
      c.trips = small_int(flag, value);
    } else if (flag == "--warps-per-sm") {
      c.warps_per_sm = small_int(flag, value);
    } else if (flag == "--seed") {
      c.seed = static_cast<std::uint32_t>(whole_number(flag, value));
    } else {
      throw UsageError("unknown option '" + flag + "'");
    }
  }
  return c;
}

struct Measured {
  double cycles = 0;
  double seconds = 0;
  double clock_hz = 0;
};

Measured measure(const warpcost::DeviceInfo& device, const warpcost::DivergenceConfig& c) {
  warpcost::DivergenceRunner runner(device, c);
  warpcost::Stream stream;
  warpcost::EventPair events;
  runner.launch(stream);
  runner.check_outputs(stream);
  std::vector<double> times;
  for (int i = 0; i < kTimedLaunches; ++i) {
    times.push_back(warpcost::time_launch(stream, events, [&] { runner.launch(stream); }));
  }
  const warpcost::WarpCycleSummary w = runner.read_warps(stream);
  if (w.votes_as_planned != w.warps) throw std::runtime_error("a warp voted a mask other than planned");
  return {w.median_cycles, warpcost::analysis::median(times), runner.clock_hz(stream)};
}

int run(int argc, char** argv) {
  warpcost::DivergenceConfig c;
  try {
    c = parse(argc, argv);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // Everything but the residency can be checked without a device.
  if (const std::string p = warpcost::divergence_config_problem(c, 0, 0); !p.empty()) {
    throw UsageError(p);
  }
  std::string why;
  if (warpcost::visible_device_count(why) == 0) {
    std::fprintf(stderr, "warpcost-diverge: no CUDA device is visible (%s)\n", why.c_str());
    return kExitNoDevice;
  }
  const warpcost::DeviceInfo device = warpcost::query_device_info(0);
  try {
    warpcost::DivergenceRunner check(device, c);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  // The uniform reference: the same kernel with every lane on path 0.
  warpcost::DivergenceConfig ref = c;
  std::vector<warpcost::model::BranchPath> paths;
  if (c.kind == warpcost::BranchKind::kIfElse) {
    ref.pattern = warpcost::kernels::SplitPattern::kLowLanes;
    ref.k = 32;
  } else {
    ref.paths = 1;
    ref.leaves = 1;
  }
  const Measured m = measure(device, c);
  const Measured r = measure(device, ref);
  double model = 1.0;
  std::string model_text;
  if (c.kind == warpcost::BranchKind::kIfElse && c.pattern != warpcost::kernels::SplitPattern::kWarpUniform) {
    warpcost::DivergenceConfig all_else = ref;
    all_else.k = 0;
    const double t_else = c.k == 32 ? 0.0 : measure(device, all_else).cycles;
    model = warpcost::model::divergence_slowdown({{c.k, r.cycles}, {32 - c.k, t_else}}, r.cycles);
    model_text = "T_if + T_else over T_if (both measured uniformly)";
  } else if (c.kind == warpcost::BranchKind::kIfElse) {
    model_text = "no warp diverges";
  } else {
    const int n = c.kind == warpcost::BranchKind::kSwitch ? c.paths : c.leaves;
    model = static_cast<double>(n);
    model_text = "populated paths x T_path";
  }
  std::printf("GPU: %s, %d SMs, %d warps/SM requested, SM clock %.3f GHz\n", device.name.c_str(),
              device.sm_count, c.warps_per_sm, m.clock_hz * 1e-9);
  std::printf("%-22s %14s %14s\n", "", "warp cycles", "grid time");
  std::printf("%-22s %14.0f %11.1f us\n", "this configuration", m.cycles, m.seconds * 1e6);
  std::printf("%-22s %14.0f %11.1f us\n", "uniform reference", r.cycles, r.seconds * 1e6);
  std::printf("%-22s %13.3fx %13.3fx\n", "slowdown", m.cycles / r.cycles, m.seconds / r.seconds);
  std::printf("%-22s %13.3fx   (%s)\n", "model", model, model_text.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return warpcost::cli::run_main("warpcost-diverge", kUsage, [&] { return run(argc, argv); });
}
