// The suite planned for every GPU of data/device-profiles.csv, with no GPU present: the profiles
// file itself, then `warpcost-bench --device_profile=NAME --benchmark_list_tests` for each row, every
// listed point held against that device's limits by this test's own arithmetic (not the planner's),
// the footprints against its L2 and memory, and each family keeping the points its models need;
// and the H200 profile's plan against the benchmarks of the committed H200 run.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/run_reader.hpp"
#include "bench/common/device_facts.hpp"
#include "tests/committed_runs.hpp"
#include "tests/temp_dir.hpp"

namespace warpcost {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

using test_support::TempDir;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Outcome run(const std::string& args) {
  TempDir dir("plans");
  const auto out = dir.path() / "out";
  const auto err = dir.path() / "err";
  const std::string command = std::string(WARPCOST_BENCH_BIN) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

// One listed point: "family/benchmark" and its key:value arguments.
struct Point {
  std::string name;  // "divergence/split_low"
  std::string text;  // the whole line, suffixes removed
  std::map<std::string, long long> args;
};

std::vector<Point> listed_points(const std::string& out) {
  std::vector<Point> points;
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t end = out.find('\n', start);
    std::string line = out.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? out.size() : end + 1;
    for (const std::string suffix : {"/iterations:1/manual_time"}) {
      if (line.size() > suffix.size() && line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0) {
        line.erase(line.size() - suffix.size());
      }
    }
    if (line.find('/') == std::string::npos) continue;
    Point p;
    p.text = line;
    std::vector<std::string> parts;
    std::size_t s = 0;
    while (s <= line.size()) {
      const std::size_t e = line.find('/', s);
      parts.push_back(line.substr(s, e == std::string::npos ? std::string::npos : e - s));
      if (e == std::string::npos) break;
      s = e + 1;
    }
    p.name = parts.at(0) + "/" + parts.at(1);
    for (std::size_t i = 2; i < parts.size(); ++i) {
      const std::size_t colon = parts[i].find(':');
      if (colon != std::string::npos) p.args[parts[i].substr(0, colon)] = std::stoll(parts[i].substr(colon + 1));
    }
    points.push_back(p);
  }
  return points;
}

std::vector<DeviceFacts> profiles() { return read_device_profiles(default_device_profiles()); }

// ---- the profiles file ---------------------------------------------------------------------------

TEST(DeviceProfiles, CoverEveryPromisedArchitectureAndTheNamedGpusEachWithASource) {
  const std::vector<DeviceFacts> all = profiles();
  std::set<std::string> names;
  std::set<std::pair<int, int>> ccs;
  for (const auto& p : all) {
    names.insert(p.profile);
    ccs.insert({p.cc_major, p.cc_minor});
    EXPECT_NE(p.source.find("https://"), std::string::npos) << p.profile << " cites no public source";
    EXPECT_EQ(device_facts_problem(p), "") << p.profile;
  }
  for (const char* n : {"t4", "a10g", "l4", "a100-40gb", "a100-80gb", "l40s", "rtx-4090", "h100-sxm", "h100-pcie",
                        "h200", "b200", "rtx-5090"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  // The README's promise: cc 7.5 to 12.0, every architecture CMake builds for.
  for (const auto& cc : {std::pair{7, 5}, std::pair{8, 0}, std::pair{8, 6}, std::pair{8, 9}, std::pair{9, 0},
                         std::pair{10, 0}, std::pair{12, 0}}) {
    EXPECT_TRUE(ccs.count(cc)) << cc.first << "." << cc.second;
  }
}

// Per compute capability the CUDA C++ Programming Guide's table fixes warps, blocks and shared
// memory an SM; the rows of one cc must agree (a row typed wrong disagrees with its siblings).
TEST(DeviceProfiles, RowsOfOneComputeCapabilityAgreeOnItsLimits) {
  std::map<std::pair<int, int>, DeviceFacts> first;
  for (const auto& p : profiles()) {
    const auto cc = std::pair{p.cc_major, p.cc_minor};
    if (!first.count(cc)) {
      first[cc] = p;
      continue;
    }
    const DeviceFacts& f = first[cc];
    EXPECT_EQ(p.max_warps_per_sm, f.max_warps_per_sm) << p.profile << " vs " << f.profile;
    EXPECT_EQ(p.max_blocks_per_sm, f.max_blocks_per_sm) << p.profile << " vs " << f.profile;
    EXPECT_EQ(p.shared_per_sm, f.shared_per_sm) << p.profile << " vs " << f.profile;
    EXPECT_EQ(p.shared_per_block_optin, f.shared_per_block_optin) << p.profile << " vs " << f.profile;
  }
}

// The H200 row is the committed H200 run's own cudaDeviceProp (its context), read independently.
TEST(DeviceProfiles, TheH200RowIsTheCommittedH200RunsDevice) {
  std::string why;
  std::vector<std::filesystem::path> runs = test_support::committed_runs(WARPCOST_RESULTS, why);
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [](const auto& p) { return p.string().find("/nvidia-h200/") == std::string::npos; }),
             runs.end());
  if (runs.empty()) GTEST_SKIP() << "no committed H200 run: " << why;
  const DeviceFacts h200 = find_device_profile("h200");
  const analysis::Run run = analysis::read_run(runs.back());
  EXPECT_EQ(run.context.text("gpu_name"), h200.gpu);
  EXPECT_EQ(run.context.number("sm_count"), h200.sm_count);
  EXPECT_EQ(run.context.number("max_warps_per_sm"), h200.max_warps_per_sm);
  EXPECT_EQ(run.context.number("max_blocks_per_sm"), h200.max_blocks_per_sm);
  EXPECT_EQ(run.context.number("l2_bytes"), h200.l2_bytes);
  EXPECT_EQ(run.context.number("global_memory_bytes"), h200.global_memory_bytes);
  EXPECT_EQ(run.context.number("memory_bus_width_bits"), h200.memory_bus_width_bits);
  EXPECT_EQ(run.context.number("memory_clock_khz"), h200.memory_clock_khz);
  EXPECT_EQ(run.context.number("sm_clock_max_khz"), h200.sm_clock_max_khz);
}

TEST(DeviceProfiles, AFaultyFileIsRefusedNamingTheLineAndTheField) {
  TempDir dir;
  const std::string header = slurp(default_device_profiles()).substr(0);
  std::string head;
  std::vector<std::string> rows;
  {
    std::ifstream in(default_device_profiles());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      if (head.empty()) {
        head = line;
      } else {
        rows.push_back(line);
      }
    }
  }
  ASSERT_FALSE(rows.empty());
  auto expect_refused = [&](const std::string& body, const std::string& message) {
    const auto path = dir.path() / "profiles.csv";
    std::ofstream(path) << body;
    try {
      read_device_profiles(path);
      ADD_FAILURE() << "accepted: " << body;
    } catch (const ProfileError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  const std::string t4 = rows.front();
  // sm_count is the fourth field: make it a word, then zero.
  auto with_field = [](std::string row, int index, const std::string& value) {
    std::size_t s = 0;
    for (int i = 0; i < index; ++i) s = row.find(',', s) + 1;
    const std::size_t e = row.find(',', s);
    return row.replace(s, e - s, value);
  };
  expect_refused(head + "\n" + with_field(t4, 3, "forty") + "\n", "sm_count = 'forty'");
  expect_refused(head + "\n" + with_field(t4, 3, "0") + "\n", "sm_count = 0; allowed: above 0");
  expect_refused(head + "\n" + t4 + "\n" + t4 + "\n", "is named twice");
  expect_refused(head.substr(0, head.rfind(',')) + "\n", "the header has no column 'source'");
  expect_refused(head + "\n" + with_field(t4, 2, "75") + "\n", "cc = '75'");
  expect_refused(head + "\n" + t4 + ",extra\n", "fields; allowed:");
  EXPECT_THROW(find_device_profile("t5"), ProfileError);
}

// ---- the plans -----------------------------------------------------------------------------------

long long arg(const Point& p, const char* key) { return p.args.at(key); }

// This test's own reading of the limits, from the profile's numbers.
void check_point_fits(const DeviceFacts& d, const Point& p) {
  const std::string where = d.profile + ": " + p.text;
  for (const char* key : {"block_threads", "threads"}) {
    if (p.args.count(key)) {
      EXPECT_LE(arg(p, key), d.max_threads_per_block) << where;
    }
  }
  if (p.name == "partial_warp/schedule") {
    EXPECT_LE(arg(p, "x") * arg(p, "y") * arg(p, "z"), d.max_threads_per_block) << where;
  }
  if (p.name == "partial_warp/grid_tail") {
    EXPECT_LE((arg(p, "total_threads") + 255) / 256, d.sm_count) << where;
  }
  if (p.args.count("warps_per_sm")) {
    const long long w = arg(p, "warps_per_sm");
    EXPECT_LE(w, d.max_warps_per_sm) << where;
    if (p.name.rfind("divergence/", 0) == 0) {
      // Blocks of 128 threads: 4 warps a block, at most max_blocks_per_sm of them.
      EXPECT_EQ(w % 4, 0) << where;
      EXPECT_LE(w / 4, d.max_blocks_per_sm) << where;
    }
    if (p.name.rfind("streaming/read_", 0) == 0) {
      // Held exactly: some block of b <= 32 warps divides w into at most max_blocks_per_sm blocks.
      bool held = false;
      for (long long b = 1; b <= std::min<long long>(32, d.max_threads_per_block / 32); ++b) {
        held = held || (w % b == 0 && w / b <= d.max_blocks_per_sm);
      }
      EXPECT_TRUE(held) << where;
    }
  }
  const long long half_memory = d.global_memory_bytes / 2;
  if (p.name == "latency/chase_random" || p.name == "latency/chase_stride") {
    EXPECT_LE(arg(p, "footprint_kib") * 1024, half_memory) << where;
  }
  if (p.name == "latency/chase_loaded") {
    // The chaser's block beside a background block of bg_warps warps on one SM.
    EXPECT_LE(2 * arg(p, "bg_warps"), d.max_warps_per_sm) << where;
    EXPECT_LE(arg(p, "bg_warps") * 32, d.max_threads_per_block) << where;
  }
  if (p.name == "calibration/d2d_copy") {
    EXPECT_LE(2 * arg(p, "mib") * 1024 * 1024 + 2 * d.l2_bytes, half_memory) << where;
  }
}

struct Planned {
  std::vector<Point> points;
  std::string err;
};

Planned plan_of(const std::string& profile) {
  const Outcome o = run("--device_profile=" + profile + " --benchmark_list_tests");
  EXPECT_EQ(o.exit_code, 0) << profile << "\n" << o.err;
  return {listed_points(o.out), o.err};
}

std::vector<long long> values_of(const std::vector<Point>& points, const std::string& name, const char* key,
                                 const std::map<std::string, long long>& where = {}) {
  std::set<long long> v;
  for (const auto& p : points) {
    if (p.name != name || !p.args.count(key)) continue;
    bool match = true;
    for (const auto& [k, value] : where) match = match && p.args.count(k) && p.args.at(k) == value;
    if (match) v.insert(p.args.at(key));
  }
  return {v.begin(), v.end()};
}

TEST(DevicePlans, EveryProfilesPlanFitsItsDeviceAndKeepsWhatTheModelsNeed) {
  for (const DeviceFacts& d : profiles()) {
    const Planned plan = plan_of(d.profile);
    ASSERT_GT(plan.points.size(), 500u) << d.profile << "\n" << plan.err;
    EXPECT_NE(plan.err.find("the plan for the " + d.gpu + " (profile " + d.profile + ")"), std::string::npos) << plan.err;
    std::set<std::string> seen;
    for (const auto& p : plan.points) {
      EXPECT_TRUE(seen.insert(p.text).second) << d.profile << ": listed twice: " << p.text;
      check_point_fits(d, p);
    }
    // Residency sweeps end at the device's cap, and reach it.
    const auto independent = values_of(plan.points, "streaming/read_independent", "warps_per_sm", {{"alu_per_load", 0}, {"load_bytes", 16}});
    ASSERT_FALSE(independent.empty()) << d.profile;
    EXPECT_EQ(independent.back(), d.max_warps_per_sm) << d.profile;
    EXPECT_GE(independent.size(), 16u) << d.profile << ": too few residencies for the knee";
    const auto low = values_of(plan.points, "divergence/split_low", "warps_per_sm");
    ASSERT_GE(low.size(), 2u) << d.profile;
    EXPECT_EQ(low.front(), 4) << d.profile;
    EXPECT_GT(low.back(), d.max_warps_per_sm - 4) << d.profile << ": full residency not reached";
    // Every k of the split at one warp per scheduler and at full residency.
    EXPECT_EQ(values_of(plan.points, "divergence/split_low", "k", {{"warps_per_sm", 4}, {"else_trips", 384}}).size(), 33u);
    EXPECT_EQ(values_of(plan.points, "divergence/split_low", "k", {{"warps_per_sm", low.back()}, {"else_trips", 384}}).size(), 33u);
    EXPECT_EQ(values_of(plan.points, "divergence/switch", "paths", {{"warps_per_sm", 4}}).size(), 32u);
    // The staircase keeps every P to 128 and both sides of every multiple of 32.
    EXPECT_GE(values_of(plan.points, "partial_warp/staircase", "block_threads").size(), 128u + 28u * 3u - 1u) << d.profile;
    // The chase reaches well inside the L2 and several times beyond it.
    const auto footprints = values_of(plan.points, "latency/chase_random", "footprint_kib");
    long long inside = 0;
    long long beyond = 0;
    for (const long long kib : footprints) {
      inside += kib * 1024 * 4 <= d.l2_bytes;
      beyond += kib * 1024 >= 4 * d.l2_bytes;
    }
    EXPECT_GE(inside, 3) << d.profile;
    EXPECT_GE(beyond, 3) << d.profile;
    // Coalescing: every kind has its points.
    for (const char* kind : {"coalescing/load_dram", "coalescing/load_l2", "coalescing/store_dram",
                             "coalescing/load_dram_permuted", "coalescing/block_2d", "coalescing/partial_block"}) {
      EXPECT_TRUE(std::any_of(plan.points.begin(), plan.points.end(), [&](const Point& p) { return p.name == kind; }))
          << d.profile << ": " << kind;
    }
  }
}

// The T4 holds 32 warps an SM and 16 blocks: no point above either, and the points it cannot run
// are named, not errors.
TEST(DevicePlans, TheT4PlanStopsAtItsCapsAndNamesWhatItLeavesOut) {
  const Planned t4 = plan_of("t4");
  for (const auto& p : t4.points) {
    if (p.args.count("warps_per_sm")) {
      EXPECT_LE(p.args.at("warps_per_sm"), 32) << p.text;
    }
  }
  EXPECT_NE(t4.err.find("not on this GPU: streaming/read_independent/load_bytes:4/alu_per_load:0/warps_per_sm:64: "
                        "warps per SM = 64; the NVIDIA Tesla T4 (profile t4) holds at most 32"),
            std::string::npos)
      << t4.err;
  // 2 x 4 GiB of copy and 2 x 4 MiB of flush buffers are more than half of 16 GB.
  EXPECT_NE(t4.err.find("not on this GPU: calibration/d2d_copy/mib:4096: "), std::string::npos) << t4.err;
}

// The plan the H200 profile makes against the benchmarks of the committed H200 run, in order.
TEST(DevicePlans, TheH200ProfilesPlanIsTheCommittedH200RunsBenchmarkList) {
  std::string why;
  std::vector<std::filesystem::path> runs = test_support::committed_runs(WARPCOST_RESULTS, why);
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [](const auto& p) { return p.string().find("/nvidia-h200/") == std::string::npos; }),
             runs.end());
  if (runs.empty()) GTEST_SKIP() << "no committed H200 run: " << why;
  std::sort(runs.begin(), runs.end());
  const analysis::Run run = analysis::read_run(runs.back());
  std::vector<std::string> committed;
  // A benchmark added since the run (none of its points committed yet: a new family, or a new
  // benchmark of a family the run has, such as latency/chase_loaded) is left out.
  std::set<std::string> benchmarks;
  for (const auto& b : run.benchmarks) {
    committed.push_back(b.run_name);
    benchmarks.insert(b.family + "/" + b.benchmark);
  }
  // Points added to a benchmark the run has, since the run (each named with the rule that added
  // it), are left out while the run lacks them; once a run carries them they are compared as any.
  const std::set<std::string> added_since = {
      "coalescing/store_dram/elem_bytes:4/stride:1/offset:2",   // ISSUE-33-STORE-MISALIGNED
      "coalescing/store_dram/elem_bytes:4/stride:1/offset:16",  // ISSUE-33-STORE-MISALIGNED
  };
  const std::set<std::string> in_run(committed.begin(), committed.end());
  std::vector<std::string> planned;
  for (const auto& p : plan_of("h200").points) {
    if (benchmarks.count(p.name) == 0) continue;
    if (added_since.count(p.text) != 0 && in_run.count(p.text) == 0) continue;
    planned.push_back(p.text);
  }
  EXPECT_EQ(planned.size(), committed.size());
  for (std::size_t i = 0; i < std::min(planned.size(), committed.size()); ++i) {
    ASSERT_EQ(planned[i], committed[i]) << "point " << i << " of " << runs.back();
  }
}

TEST(DevicePlans, AnUnknownProfileOrAProfileWithoutTheListIsAUsageError) {
  const Outcome unknown = run("--device_profile=t5 --benchmark_list_tests");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--device_profile=t5: no such profile; allowed: t4, a10g"), std::string::npos) << unknown.err;
  const Outcome running = run("--device_profile=t4");
  EXPECT_EQ(running.exit_code, 2);
  EXPECT_NE(running.err.find("allowed only with --benchmark_list_tests"), std::string::npos) << running.err;
  EXPECT_EQ(running.err.find("no NVIDIA GPU or driver found ("), std::string::npos) << "looked for a device first";
}

// A user's own file: one more row is a new GPU.
TEST(DevicePlans, AProfileFileOfOneRowIsPlanned) {
  TempDir dir;
  std::string head;
  std::string t4;
  {
    std::ifstream in(default_device_profiles());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      if (head.empty()) {
        head = line;
      } else if (t4.empty()) {
        t4 = line;
      }
    }
  }
  const auto path = dir.path() / "mine.csv";
  std::ofstream(path) << head << "\n" << "my-gpu" << t4.substr(t4.find(',')) << "\n";
  const Outcome o = run("--device_profile=" + path.string() + " --benchmark_list_tests");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("(profile my-gpu)"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace warpcost

namespace warpcost {
namespace {
// Issue 31: a MIG slice is planned as the instance it is (its 14 SMs, its 5 GB), and says so.
TEST(DevicePlans, AMigSliceIsPlannedAsTheInstance) {
  const DeviceFacts mig = find_device_profile("a100-40gb-mig-1g.5gb");
  EXPECT_EQ(mig.sm_count, 14);
  const Outcome o = run("--device_profile=a100-40gb-mig-1g.5gb --benchmark_list_tests");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("the plan for the NVIDIA A100-SXM4-40GB MIG 1g.5gb"), std::string::npos) << o.err;
  const std::vector<Point> points = listed_points(o.out);
  for (const auto& p : points) {
    if (p.args.count("footprint_kib") != 0) {
      EXPECT_LE(p.args.at("footprint_kib") * 1024, mig.global_memory_bytes / 2) << p.name;
    }
  }
}
}  // namespace
}  // namespace warpcost
