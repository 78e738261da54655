// warpcost-record: records one block's schedule (clock64, __activemask, warpSize, SM, lane) per
// thread and prints the lesson's per-warp table; exits 1 when a gate fails.
//   warpcost-record X [Y [Z]] [--threads]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "bench/common/device_info.hpp"
#include "bench/partial_warp/runner.hpp"
#include "core/version.hpp"

namespace {

constexpr int kExitGateFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 77;
// No CUDA device runs a block of more threads (the device's own limits are checked once it is known).
constexpr int kMostThreadsPerBlock = 1024;

const char* const kUsage =
    "usage: warpcost-record X [Y [Z]] [--threads]\n"
    "  records one block of shape (X,Y,Z) and prints its warps; --threads also lists every thread\n";

bool parse_dim(const std::string& text, long long& value) {
  char* end = nullptr;
  value = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0';
}

int run(int argc, char** argv) {
  std::vector<long long> dims;
  bool every_thread = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    long long v = 0;
    if (arg == "--threads") {
      every_thread = true;
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
  if (warpcost::visible_device_count(why) == 0) {
    std::fprintf(stderr, "warpcost-record: no NVIDIA GPU or driver found (%s)\n", why.c_str());
    return kExitNoDevice;
  }
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
