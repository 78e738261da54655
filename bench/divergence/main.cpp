// warpcost-diverge: runs one divergence configuration beside its uniform reference and prints what
// a warp and the grid paid against "time = sum of the populated paths".
//   warpcost-diverge [--split K] [--pattern low|interleaved|random|warp_uniform] [--if N] [--else N]
//   warpcost-diverge --paths P [--trips N]        k-way switch
//   warpcost-diverge --leaves L [--trips N]       two-level nested if
//   warpcost-diverge --cases LANES:TRIPS,...      switch whose cases differ in lanes and cost
//   common: [--warps-per-sm W] [--seed S] [--json]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "core/models.hpp"
#include "core/point_reports.hpp"
#include "core/statistics.hpp"
#include "bench/common/cli_args.hpp"
#include "bench/common/timing.hpp"
#include "bench/divergence/runner.hpp"
#include "core/version.hpp"

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
    "       warpcost-diverge --cases LANES:TRIPS,...            switch, case i on the next LANES lanes\n"
    "                                                          running TRIPS trips (lanes add to 32)\n"
    "       common options: [--warps-per-sm W] (default 4: one warp per scheduler) [--seed S]\n"
    "                       [--json] (one JSON object on stdout: core/point_reports.hpp)\n";

// Which kernel an option belongs to: the if/else split, the k-way switch, the nested if, or all.
enum class Shape { kIfElse, kSwitch, kNested, kAny };

Shape shape_of(const std::string& flag) {
  if (flag == "--split" || flag == "--pattern" || flag == "--if" || flag == "--else" || flag == "--seed") {
    return Shape::kIfElse;
  }
  if (flag == "--paths" || flag == "--cases") return Shape::kSwitch;
  if (flag == "--leaves") return Shape::kNested;
  return Shape::kAny;
}

warpcost::DivergenceConfig parse(int argc, char** argv) {
  warpcost::DivergenceConfig c;
  c.warps_per_sm = 4;
  c.trips = c.if_trips;
  std::string if_else_flag;   // the first if/else option given, for the conflict message
  std::string other_flag;     // --paths or --leaves, whichever was given
  bool trips_given = false;
  bool seed_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (flag.rfind("--", 0) != 0) throw UsageError("'" + flag + "' is not an option; options start with --");
    const bool known = flag == "--split" || flag == "--pattern" || flag == "--if" || flag == "--else" ||
                       flag == "--paths" || flag == "--leaves" || flag == "--trips" || flag == "--cases" ||
                       flag == "--warps-per-sm" || flag == "--seed";
    if (!known) throw UsageError("unknown option '" + flag + "'");
    if (i + 1 >= argc) throw UsageError("'" + flag + "' needs a value");
    const std::string value = argv[++i];
    const Shape shape = shape_of(flag);
    if (shape == Shape::kIfElse && if_else_flag.empty()) if_else_flag = flag;
    if (shape == Shape::kSwitch || shape == Shape::kNested) {
      if (!other_flag.empty() && other_flag != flag) {
        throw UsageError(other_flag + " and " + flag + " choose two different kernels; allowed: one of them");
      }
      other_flag = flag;
    }
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
    } else if (flag == "--cases") {
      c.kind = warpcost::BranchKind::kSwitchTable;
      c.cases = warpcost::parse_switch_cases(value);
    } else if (flag == "--leaves") {
      c.kind = warpcost::BranchKind::kNested;
      c.leaves = small_int(flag, value);
    } else if (flag == "--trips") {
      c.trips = small_int(flag, value);
      trips_given = true;
    } else if (flag == "--warps-per-sm") {
      c.warps_per_sm = small_int(flag, value);
    } else {
      const long long seed = whole_number(flag, value);
      if (seed < 0 || seed > 0xffffffffLL) {
        throw UsageError("--seed = " + value + "; allowed: 0..4294967295");
      }
      c.seed = static_cast<std::uint32_t>(seed);
      seed_given = true;
    }
  }
  if (!if_else_flag.empty() && !other_flag.empty()) {
    throw UsageError(if_else_flag + " belongs to the if/else kernel and " + other_flag +
                     " chooses another; allowed: if/else options (--split, --pattern, --if, --else, "
                     "--seed) or one of --paths, --leaves with --trips, or --cases");
  }
  if (other_flag == "--cases" && (c.cases[0].lanes == 0 || c.cases[0].trips == 0)) {
    throw UsageError("case 0 = " + std::to_string(c.cases[0].lanes) + ":" + std::to_string(c.cases[0].trips) +
                     "; allowed: case 0 on at least one lane with trips >= 1 (it is the uniform reference)");
  }
  if (trips_given && other_flag == "--cases") {
    throw UsageError("--trips with --cases; allowed: each case's trips in --cases (LANES:TRIPS)");
  }
  if (trips_given && other_flag.empty()) {
    throw UsageError("--trips = " + std::to_string(c.trips) +
                     " without --paths or --leaves; allowed: --trips with --paths or --leaves (the "
                     "if/else kernel takes --if and --else)");
  }
  if (seed_given && c.pattern != warpcost::kernels::SplitPattern::kRandom) {
    throw UsageError("--seed draws the random pattern's lanes; allowed: --seed with --pattern random");
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

const char* shape_name(warpcost::BranchKind kind) {
  switch (kind) {
    case warpcost::BranchKind::kIfElse: return "if_else";
    case warpcost::BranchKind::kSwitch: return "switch";
    case warpcost::BranchKind::kNested: return "nested";
    case warpcost::BranchKind::kSwitchTable: return "switch_cases";
  }
  return "";
}

int run(int argc, char** argv) {
  const bool json = warpcost::cli::take_flag(argc, argv, "--json");
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
    std::fprintf(stderr, "warpcost-diverge: no NVIDIA GPU or driver found (%s)\n", why.c_str());
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
  } else if (c.kind == warpcost::BranchKind::kSwitchTable) {
    ref.cases = {{32, c.cases[0].trips}};  // every lane on case 0
  } else {
    ref.paths = 1;
    ref.leaves = 1;
  }
  const Measured m = measure(device, c);
  const Measured r = measure(device, ref);
  double model = 1.0;
  std::string model_text;
  bool paths_measured = false;  // the model from each path's own uniformly measured cycles
  if (c.kind == warpcost::BranchKind::kIfElse && c.pattern != warpcost::kernels::SplitPattern::kWarpUniform) {
    warpcost::DivergenceConfig all_else = ref;
    all_else.k = 0;
    const double t_else = c.k == 32 ? 0.0 : measure(device, all_else).cycles;
    model = warpcost::model::divergence_slowdown({{c.k, r.cycles}, {32 - c.k, t_else}}, r.cycles);
    model_text = "T_if + T_else over T_if (both measured uniformly)";
    paths_measured = true;
  } else if (c.kind == warpcost::BranchKind::kIfElse) {
    model_text = "no warp diverges";
  } else if (c.kind == warpcost::BranchKind::kSwitchTable) {
    // Each populated case run by every lane (the others given 0 lanes), its own cycles.
    std::vector<warpcost::model::BranchPath> measured;
    for (std::size_t i = 0; i < c.cases.size(); ++i) {
      if (c.cases[i].lanes == 0) continue;
      warpcost::DivergenceConfig alone = ref;
      alone.cases = c.cases;
      for (auto& other : alone.cases) other.lanes = 0;
      alone.cases[i].lanes = 32;
      measured.push_back({c.cases[i].lanes, i == 0 ? r.cycles : measure(device, alone).cycles});
    }
    model = warpcost::model::divergence_slowdown(measured, r.cycles);
    if (measured.size() == 1) {
      // Only case 0 populated: the configuration is its own uniform reference, no model to measure.
      model_text = "one populated case: no divergence";
    } else {
      model_text = "T_case summed over the populated cases over T_case0 (each measured uniformly)";
      paths_measured = true;
    }
  } else {
    const int n = c.kind == warpcost::BranchKind::kSwitch ? c.paths : c.leaves;
    model = static_cast<double>(n);
    model_text = "populated paths x T_path";
  }
  if (json) {
    warpcost::reports::DivergeReport rep;
    rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
    rep.shape = shape_name(c.kind);
    rep.args = warpcost::cli::args_of(argc, argv);
    rep.warps_per_sm = c.warps_per_sm;
    rep.clock_hz = m.clock_hz;
    rep.warp_cycles = m.cycles;
    rep.grid_seconds = m.seconds;
    rep.reference_warp_cycles = r.cycles;
    rep.reference_grid_seconds = r.seconds;
    rep.model_slowdown = model;
    rep.model_from = model_text;
    rep.paths_measured = paths_measured;
    std::printf("%s", warpcost::reports::to_json(rep).c_str());
    return 0;
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
  if (warpcost::print_version_if_asked(argc, argv, "warpcost-diverge")) return 0;
  return warpcost::cli::run_main("warpcost-diverge", kUsage, [&] { return run(argc, argv); });
}
