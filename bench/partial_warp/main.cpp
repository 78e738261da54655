// warpcost-record: records one block's schedule (clock64, __activemask, warpSize, SM, lane) per
// thread and prints the lesson's per-warp table; exits 1 when a gate fails. With --grid, records a
// 1D grid of N threads in blocks of B (the warps launched, the last block's lanes) and times the
// last block alone against a full one, beside the textbook and second-order models.
//   warpcost-record X [Y [Z]] [--threads] [--json]
//   warpcost-record --grid N B [--json]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/common/device_info.hpp"
#include "bench/partial_warp/runner.hpp"
#include "core/models.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/point_reports.hpp"
#include "core/version.hpp"
#include "kernels/partial_warp/kernels.hpp"

namespace {

constexpr int kExitGateFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 77;
// No CUDA device runs a block of more threads (the device's own limits are checked once it is known).
constexpr int kMostThreadsPerBlock = 1024;

// The grid mode's largest N (core's, which warpcost check plans with).
constexpr long long kMostGridThreads = warpcost::schema::partial_warp::kMostGridThreads;

const char* const kUsage =
    "usage: warpcost-record X [Y [Z]] [--threads] [--json]\n"
    "  records one block of shape (X,Y,Z) and prints its warps; --threads also lists every thread;\n"
    "  --json prints one JSON object, every warp and thread (core/point_reports.hpp)\n"
    "       warpcost-record --grid N B [--json]\n"
    "  N threads (1..134217728) in 1D blocks of B (1..1024): records the warps launched and the last\n"
    "  block's lanes, times the last block alone against a full one; --json prints one JSON object\n";

bool parse_dim(const std::string& text, long long& value) {
  char* end = nullptr;
  value = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0';
}

int no_device(const char* why) {
  std::fprintf(stderr, "warpcost-record: no NVIDIA GPU or driver found (%s)\n", why);
  return kExitNoDevice;
}

// warpcost-record --grid N B [--json]; argv[1] is "--grid".
int run_grid(int argc, char** argv) {
  long long n = 0;
  long long b = 0;
  bool json = false;
  std::vector<std::string> rest;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") json = true;
    else rest.push_back(arg);
  }
  if (rest.size() != 2) {
    std::fprintf(stderr, "warpcost-record: --grid takes N and B (%zu value(s) given)\n%s", rest.size(), kUsage);
    return kExitUsage;
  }
  if (!parse_dim(rest[0], n) || n < 1 || n > kMostGridThreads) {
    std::fprintf(stderr, "warpcost-record: N = '%s'; allowed: a whole number from 1 to %lld\n%s", rest[0].c_str(),
                 kMostGridThreads, kUsage);
    return kExitUsage;
  }
  if (!parse_dim(rest[1], b) || b < 1 || b > kMostThreadsPerBlock) {
    std::fprintf(stderr, "warpcost-record: B = '%s'; allowed: a whole number from 1 to %d\n%s", rest[1].c_str(),
                 kMostThreadsPerBlock, kUsage);
    return kExitUsage;
  }
  std::string why;
  if (warpcost::visible_device_count(why) == 0) return no_device(why.c_str());
  const warpcost::DeviceInfo device = warpcost::query_device_info(0);
  const std::string problem = warpcost::block_shape_problem(device, b, 1, 1);
  if (!problem.empty()) {
    std::fprintf(stderr, "warpcost-record: %s\n", problem.c_str());
    return kExitUsage;
  }
  namespace m = warpcost::model;
  const int schedulers = m::arch_params(device.cc_major, device.cc_minor).schedulers_per_sm;
  warpcost::Stream stream;
  const auto total = static_cast<unsigned long long>(n);
  const auto block = static_cast<unsigned int>(b);
  const warpcost::RecordedGrid g = warpcost::record_grid(device, total, block, stream);
  const warpcost::TailTiming t = warpcost::time_grid_tail(device, total, block, schedulers, stream);

  // The models, from the counts and the parameter points alone (core/models.hpp, as check --measure).
  const double short_fma = static_cast<double>(warpcost::kFmaIssueShortTrips) * warpcost::kernels::kFmaChains;
  const double long_fma = static_cast<double>(warpcost::kFmaIssueLongTrips) * warpcost::kernels::kFmaChains;
  const double units[2] = {short_fma, long_fma};
  const double tail_issue[2] = {t.tail_issue_short, t.tail_issue_long};
  const double full_issue[2] = {t.full_issue_short, t.full_issue_long};
  const m::TailTimeModels models =
      m::grid_tail_time_models(t.tail_warps, t.full_warps, schedulers, t.tail_seconds, t.full_seconds, t.floor_seconds,
                               units, tail_issue, full_issue, t.fma_per_thread);
  const double measured = models.measured;
  const double textbook = models.textbook;
  const double second_order = models.second_order;
  const m::LinearCost& tail_cost = models.tail;
  const m::LinearCost& full_cost = models.full;

  if (json) {
    nlohmann::ordered_json j;
    j["tool"] = "warpcost-record";
    j["mode"] = "grid";
    j["gpu"] = device.name;
    j["cc"] = std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor);
    j["schedulers_per_sm"] = schedulers;
    j["total_threads"] = n;
    j["block_threads"] = b;
    j["recorded"] = {{"blocks", g.blocks},
                     {"launched_warps", g.launched_warps},
                     {"launched_threads", g.launched_threads},
                     {"working_warps", g.working_warps},
                     {"working_threads", g.working_threads},
                     {"last_block_threads", g.last_block_threads},
                     {"last_block_full_warps", g.last_block_full_warps},
                     {"last_block_partial_lanes", g.last_block_partial_lanes},
                     {"last_mask", g.last_mask}};
    j["gates_passed"] = g.gate_failures.empty();
    j["gate_failures"] = g.gate_failures;
    j["timing"] = {{"tail_threads", t.tail_threads},
                   {"tail_warps", t.tail_warps},
                   {"full_warps", t.full_warps},
                   {"tail_seconds", t.tail_seconds},
                   {"full_seconds", t.full_seconds},
                   {"floor_seconds", t.floor_seconds},
                   {"tail_noise", t.tail_noise},
                   {"full_noise", t.full_noise},
                   {"fma_per_thread", t.fma_per_thread},
                   {"fma_issue_fma_per_thread", {short_fma, long_fma}},
                   {"fma_issue_tail_seconds", {t.tail_issue_short, t.tail_issue_long}},
                   {"fma_issue_full_seconds", {t.full_issue_short, t.full_issue_long}},
                   {"relative_time", measured},
                   {"textbook_relative_time", textbook},
                   {"second_order_relative_time", second_order}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("GPU: %s (compute capability %d.%d, %d schedulers a SM)\n", device.name.c_str(), device.cc_major,
                device.cc_minor, schedulers);
    std::printf("grid: %lld threads in blocks of %lld\n", n, b);
    std::printf("recorded: %lld blocks, %lld warps launched (%lld threads), %lld warps with a thread below N (%lld threads)\n",
                g.blocks, g.launched_warps, g.launched_threads, g.working_warps, g.working_threads);
    std::printf("last block: %lld threads, %lld full warps, %d lanes in its partial warp, last mask 0x%08x\n",
                g.last_block_threads, g.last_block_full_warps, g.last_block_partial_lanes, g.last_mask);
    std::printf("last block alone %.3f us, a full block %.3f us, launch floor %.3f us (noise %.2f %%, %.2f %%)\n",
                t.tail_seconds * 1e6, t.full_seconds * 1e6, t.floor_seconds * 1e6, 100 * t.tail_noise, 100 * t.full_noise);
    std::printf("relative time %.4f (floor taken off both)\n", measured);
    std::printf("textbook: ceil(%lld warps / %d) / ceil(%lld / %d) = %.4f\n", t.tail_warps, schedulers, t.full_warps,
                schedulers, textbook);
    std::printf("second-order: per-scheduler issue from fma_issue (F %.3f us + %.3f ps an FMA at the tail, F %.3f us + "
                "%.3f ps at a full block) = %.4f\n",
                tail_cost.fixed_seconds * 1e6, tail_cost.seconds_per_unit * 1e12, full_cost.fixed_seconds * 1e6,
                full_cost.seconds_per_unit * 1e12, second_order);
  }
  if (!g.gate_failures.empty()) {
    for (const auto& f : g.gate_failures) std::fprintf(stderr, "GATE FAILED: %s\n", f.c_str());
    return kExitGateFailed;
  }
  if (!json) std::printf("\nevery gate passed: every working thread is in its own mask, no thread past N wrote\n");
  return 0;
}

int run(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--grid") return run_grid(argc, argv);
  std::vector<long long> dims;
  bool every_thread = false;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    long long v = 0;
    if (arg == "--threads") {
      every_thread = true;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (!parse_dim(arg, v)) {
      std::fprintf(stderr, "warpcost-record: '%s' is not a block dimension; allowed: a whole number "
                   "from 1 to %d, or --threads\n%s", arg.c_str(), kMostThreadsPerBlock, kUsage);
      return kExitUsage;
    } else if (dims.size() == 3) {
      std::fprintf(stderr, "warpcost-record: '%s' is a fourth block dimension; allowed: X [Y [Z]]\n%s",
                   arg.c_str(), kUsage);
      return kExitUsage;
    } else if (v < 1 || v > kMostThreadsPerBlock) {
      // Checked here, before a device is looked for; the device's own limits are checked after.
      std::fprintf(stderr, "warpcost-record: block dimension %c = %lld; allowed: 1 to %d\n%s",
                   "XYZ"[dims.size()], v, kMostThreadsPerBlock, kUsage);
      return kExitUsage;
    } else {
      dims.push_back(v);
    }
  }
  if (dims.empty()) {
    std::fprintf(stderr, "warpcost-record: name the block shape\n%s", kUsage);
    return kExitUsage;
  }
  while (dims.size() < 3) dims.push_back(1);

  std::string why;
  if (warpcost::visible_device_count(why) == 0) return no_device(why.c_str());
  const warpcost::DeviceInfo device = warpcost::query_device_info(0);
  const std::string problem = warpcost::block_shape_problem(device, dims[0], dims[1], dims[2]);
  if (!problem.empty()) {
    std::fprintf(stderr, "warpcost-record: %s\n", problem.c_str());
    return kExitUsage;
  }
  warpcost::Stream stream;
  const warpcost::model::BlockShape shape{dims[0], dims[1], dims[2]};
  const warpcost::RecordedBlock recorded = warpcost::record_schedule(device, shape, stream);
  const warpcost::analysis::ScheduleCheck& check = recorded.check;
  if (json) {
    warpcost::reports::RecordReport rep;
    rep.gpu = {device.name, device.sm_count, device.cc_major, device.cc_minor};
    rep.block = {dims[0], dims[1], dims[2]};
    for (const auto& w : check.warps) rep.warps.push_back({w.warp, w.lanes, w.mask, w.cycles, w.smid});
    for (long long t = 0; t < check.threads; ++t) {
      const auto& r = recorded.slots[static_cast<std::size_t>(t)];
      rep.threads.push_back({t, r.written, r.tx, r.ty, r.tz, r.lane_id, r.active_mask});
    }
    rep.gate_failures = check.gate_failures;
    std::printf("%s", warpcost::reports::to_json(rep).c_str());
    for (const auto& f : check.gate_failures) std::fprintf(stderr, "GATE FAILED: %s\n", f.c_str());
    return check.gates_passed() ? 0 : kExitGateFailed;
  }

  std::printf("GPU: %s (compute capability %d.%d)\n", device.name.c_str(), device.cc_major,
              device.cc_minor);
  std::printf("warpSize: %d from the device attribute, %d compiled into warpcost\n",
              device.warp_size, warpcost::model::kWarpSize);
  std::printf("one block, so every clock64() reading below comes from one SM\n\n");
  std::printf("%s", warpcost::analysis::schedule_table(check).c_str());
  if (every_thread) {
    std::printf("\n%s", warpcost::analysis::thread_table(check, recorded.slots).c_str());
  }
  for (const auto& m : check.model_mismatches) std::printf("off the model: %s\n", m.c_str());
  if (!check.gates_passed()) {
    for (const auto& f : check.gate_failures) std::fprintf(stderr, "GATE FAILED: %s\n", f.c_str());
    return kExitGateFailed;
  }
  std::printf("\nevery gate passed: the warp size agrees three ways, every thread is in its own "
              "mask, and nothing was written outside the block\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (warpcost::print_version_if_asked(argc, argv, "warpcost-record")) return 0;
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpcost-record: %s\n", e.what());
    return 1;
  }
}
