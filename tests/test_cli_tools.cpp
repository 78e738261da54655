// The command-line tools as a newcomer meets them, run as built: help and the benchmark list need
// no GPU, and every bad argument is refused (exit 2, naming the value and what is allowed) before a
// device is looked for, so these answers are the same on a machine with or without one.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/point_reports.hpp"

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Outcome run(const std::string& command) {
  Outcome o;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return o;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) o.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

const std::string kBench = WARPCOST_BENCH_BIN;
const std::string kRecord = WARPCOST_RECORD_BIN;
const std::string kDiverge = WARPCOST_DIVERGE_BIN;
const std::string kStream = WARPCOST_STREAM_BIN;
const std::string kAnalyze = WARPCOST_ANALYZE_BIN;

void expect_usage_error(const std::string& command, const std::string& message) {
  const Outcome o = run(command);
  EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.output;
  EXPECT_NE(o.output.find(message), std::string::npos) << command << "\n" << o.output;
  EXPECT_EQ(o.output.find("no NVIDIA GPU or driver found ("), std::string::npos) << command << ": looked for a device first";
}

TEST(BenchCli, HelpNeedsNoGpu) {
  const Outcome o = run(kBench + " --help");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("--warpcost_results_root=DIR"), std::string::npos) << o.output;  // warpcost's own
  EXPECT_NE(o.output.find("benchmark_filter"), std::string::npos) << o.output;  // Google Benchmark's
  EXPECT_EQ(run(kBench + " -h").exit_code, 0);
}

TEST(BenchCli, TheBenchmarkListNeedsNoGpuAndHonoursTheFilter) {
  const Outcome all = run(kBench + " --benchmark_list_tests");
  EXPECT_EQ(all.exit_code, 0) << all.output.substr(0, 2000);
  for (const char* family : {"calibration/sm_clock/", "partial_warp/staircase/", "divergence/split_low/",
                             "latency/chase_random/", "streaming/read_independent/"}) {
    EXPECT_NE(all.output.find(std::string("\n") + family), std::string::npos) << family;
  }
  const Outcome some = run(kBench + " --benchmark_list_tests=true --benchmark_filter=^calibration/d2d");
  EXPECT_EQ(some.exit_code, 0) << some.output;
  EXPECT_NE(some.output.find("calibration/d2d_copy/mib:"), std::string::npos) << some.output;
  EXPECT_EQ(some.output.find("\ndivergence/"), std::string::npos) << some.output;  // no such line
}

// Without a GPU or a driver the bench says so in those words first (CUDA's error name after, for
// a search), and exits 77; on a machine with a GPU there is nothing to see.
TEST(BenchCli, NoGpuOrDriverIsSaidPlainly) {
  const Outcome o = run(kBench + " --warpcost_check_device");
  if (o.exit_code == 0) GTEST_SKIP() << "a GPU is visible here: " << o.output;
  EXPECT_EQ(o.exit_code, 77) << o.output;
  EXPECT_EQ(o.output.rfind("warpcost-bench: no NVIDIA GPU or driver found (", 0), 0u) << o.output;
  EXPECT_LT(o.output.find("no NVIDIA GPU or driver found"), o.output.find("cudaError")) << o.output;
}

// Issue 31, a device lost mid-run: the third point launches a kernel that traps (a real launch
// failure; the CUDA context is unusable after it, as after an Xid). The two points before it are
// filed as a partial run (not a .failed folder), the failed point keeps its error, the points after
// it are left out, and the exit code is 5. Needs a GPU; skipped, saying so, without one.
TEST(BenchCli, ADeviceLostMidRunIsFiledAsAPartialRun) {
  if (run(kBench + " --warpcost_check_device").exit_code != 0) GTEST_SKIP() << "no GPU here: the fault is planted on a device";
  char pattern[] = "/tmp/warpcost-device-lost-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::filesystem::path root = pattern;
  const Outcome o = run("WARPCOST_PLANT_DEVICE_FAULT=3 " + kBench + " --warpcost_results_root=" + root.string() +
                        " --warpcost_counters=off '--benchmark_filter=^partial_warp/staircase/block_threads:(1|2|3|4|5|6)/'");
  EXPECT_EQ(o.exit_code, 5) << o.output;
  EXPECT_NE(o.output.find("warpcost-bench: the device was lost ("), std::string::npos) << o.output;
  std::filesystem::path json;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().filename() == "bench.json") json = e.path();
    EXPECT_EQ(e.path().string().find(".failed"), std::string::npos) << e.path();
  }
  ASSERT_FALSE(json.empty()) << o.output;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"run_status\": \"partial: the device was lost during the timing phase ("), std::string::npos);
  EXPECT_NE(text.find("block_threads:2/"), std::string::npos) << "the points before it are kept";
  EXPECT_NE(text.find("cudaErrorLaunchFailure"), std::string::npos) << "the failed point names the error";
  EXPECT_EQ(text.find("block_threads:6/"), std::string::npos) << "the points after it are left out";
  const Outcome analysed = run(kAnalyze + " --quiet " + json.parent_path().string());
  EXPECT_EQ(analysed.exit_code, 0) << analysed.output;
  std::filesystem::remove_all(root);
}

TEST(BenchCli, AnUnknownFlagIsNamedAndExits2) {
  expect_usage_error(kBench + " --warpcost_gpu_lock=maybe", "--warpcost_gpu_lock=maybe: allowed: refuse, wait");
  expect_usage_error(kBench + " --benchmark_filtr=d2d", "--benchmark_filtr=d2d");
  expect_usage_error(kBench + " --warpcost_result_root=x", "--warpcost_result_root=x");
  expect_usage_error(kBench + " --warpcost_counters=maybe", "allowed: on, off");
}

TEST(RecordCli, BlockDimensionsAreCheckedBeforeTheDevice) {
  expect_usage_error(kRecord + " -5", "block dimension X = -5; allowed: 1 to 1024");
  expect_usage_error(kRecord + " 0", "block dimension X = 0; allowed: 1 to 1024");
  expect_usage_error(kRecord + " 32 0", "block dimension Y = 0; allowed: 1 to 1024");
  expect_usage_error(kRecord + " 32 1 2000", "block dimension Z = 2000; allowed: 1 to 1024");
  expect_usage_error(kRecord + " 1 2 3 4", "'4' is a fourth block dimension");
  expect_usage_error(kRecord + " abc", "'abc' is not a block dimension");
  expect_usage_error(kRecord, "name the block shape");
  EXPECT_EQ(run(kRecord + " --help").exit_code, 0);
  // --grid N B: both numbers checked before a device is looked for.
  expect_usage_error(kRecord + " --grid 0 192", "N = '0'; allowed: a whole number from 1 to 134217728");
  expect_usage_error(kRecord + " --grid 134217729 192", "N = '134217729'; allowed: a whole number from 1 to 134217728");
  expect_usage_error(kRecord + " --grid 5000 1025", "B = '1025'; allowed: a whole number from 1 to 1024");
  expect_usage_error(kRecord + " --grid 5000 x", "B = 'x'; allowed: a whole number from 1 to 1024");
  expect_usage_error(kRecord + " --grid 5000", "--grid takes N and B (1 value(s) given)");
  expect_usage_error(kRecord + " --grid 5000 192 7", "--grid takes N and B (3 value(s) given)");
}

TEST(DivergeCli, OptionsOfTwoKernelsAndBadValuesAreRefused) {
  expect_usage_error(kDiverge + " --split 20 --paths 4", "--split belongs to the if/else kernel and --paths");
  expect_usage_error(kDiverge + " --paths 4 --leaves 2", "--paths and --leaves choose two different kernels");
  expect_usage_error(kDiverge + " --trips -1", "--trips = -1 without --paths or --leaves");
  expect_usage_error(kDiverge + " --paths 4 --trips -1", "trips = -1");
  expect_usage_error(kDiverge + " --seed -1", "--seed = -1; allowed: 0..4294967295");
  expect_usage_error(kDiverge + " --pattern random --seed 4294967296", "allowed: 0..4294967295");
  expect_usage_error(kDiverge + " --seed 7", "allowed: --seed with --pattern random");
  expect_usage_error(kDiverge + " --split", "'--split' needs a value");
  expect_usage_error(kDiverge + " --spilt 3", "unknown option '--spilt'");
  expect_usage_error(kDiverge + " 20", "'20' is not an option");
  expect_usage_error(kDiverge + " --warps-per-sm 6", "warps per SM = 6; allowed: a multiple of 4");
  // The switch with a lane table (check --measure's runner for unequal cases).
  expect_usage_error(kDiverge + " --cases 10:384,12:192", "the cases' lanes add to 22; allowed: 32");
  expect_usage_error(kDiverge + " --cases 10-384", "--cases piece '10-384'; allowed: LANES:TRIPS");
  expect_usage_error(kDiverge + " --cases 0:0,32:384", "case 0 = 0:0; allowed: case 0 on at least one lane with trips >= 1");
  expect_usage_error(kDiverge + " --cases 32:0", "case 0 = 32:0; allowed: case 0 on at least one lane");
  expect_usage_error(kDiverge + " --cases 16:384,16:1000001", "trip count of case 1 = 1000001; allowed: 0..1000000");
  expect_usage_error(kDiverge + " --cases 16:1,16:2 --trips 5", "--trips with --cases");
  expect_usage_error(kDiverge + " --cases 32:1 --paths 2", "--cases and --paths choose two different kernels");
  expect_usage_error(kDiverge + " --split 4 --cases 32:1", "--split belongs to the if/else kernel and --cases");
  EXPECT_EQ(run(kDiverge + " --help").exit_code, 0);
}

// Every single-point tool's --json on the GPU: one object its reader (core/point_reports.hpp)
// takes back, with the numbers the run was asked for. Without a GPU each tool exits 77 and the
// test says so.
TEST(ToolsJson, EachToolsReportIsReadBackOnTheGpu) {
  const std::string coalesce = WARPCOST_COALESCE_BIN;
  const std::string primitives = WARPCOST_PRIMITIVES_BIN;
  const Outcome d = run(kDiverge + " --cases 10:384,12:192,10:192 --json 2>/dev/null");
  if (d.exit_code == 77) GTEST_SKIP() << "no GPU: the tools exit 77 (this test runs on the GPU machine)";
  ASSERT_EQ(d.exit_code, 0) << d.output;
  const warpcost::reports::DivergeReport dr = warpcost::reports::diverge_from_json(d.output);
  EXPECT_EQ(dr.shape, "switch_cases");
  EXPECT_EQ(dr.args, (std::vector<std::string>{"--cases", "10:384,12:192,10:192"}));
  EXPECT_TRUE(dr.paths_measured);
  EXPECT_GT(dr.warp_slowdown(), 1.5);
  const Outcome c = run(coalesce + " block --x 24 --y 24 --bytes 2 --width 1920 --height 1080 --json 2>/dev/null");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const warpcost::reports::CoalesceReport cr = warpcost::reports::coalesce_from_json(c.output);
  EXPECT_EQ(cr.benchmark, "block_2d");
  EXPECT_EQ(cr.elem_bytes, 2);
  EXPECT_EQ(cr.useful_bytes, 530841600u);  // 1920·1080·2 bytes × 128 frames
  EXPECT_DOUBLE_EQ(cr.model_sectors_per_request, 3.0);
  const Outcome s = run(kStream + " read --alu 12 --warps-per-sm 8 --json 2>/dev/null");
  ASSERT_EQ(s.exit_code, 0) << s.output;
  const warpcost::reports::StreamReadReport sr = warpcost::reports::stream_read_from_json(s.output);
  EXPECT_EQ(sr.warps_per_sm, 8);
  EXPECT_TRUE(sr.run_time_alu);  // W = 12 has no unrolled kernel
  EXPECT_GT(sr.loaded_latency_cycles, 0);
  EXPECT_EQ(sr.counters, "not asked");
  const Outcome p = run(primitives + " latency --primitive ballot --lanes 1 --json 2>/dev/null");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  const warpcost::reports::PrimitiveReport pr = warpcost::reports::primitive_from_json(p.output);
  EXPECT_EQ(pr.primitive, "ballot");
  EXPECT_EQ(pr.mask_a, 1u);
  EXPECT_GT(pr.median, 0);
  const Outcome r = run(kRecord + " 24 24 1 --json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const warpcost::reports::RecordReport rr = warpcost::reports::record_from_json(r.output);
  EXPECT_EQ(rr.warps.size(), 18u);
  ASSERT_EQ(rr.threads.size(), 576u);
  EXPECT_EQ(rr.threads[77].x, 5);  // C6: 77 = 5 + 3·24
  EXPECT_EQ(rr.threads[77].y, 3);
  EXPECT_EQ(rr.threads[77].lane, 13u);
  EXPECT_TRUE(rr.gates_passed());
  // --counters: one profiled launch. The FFMAs a load are W for the run-time kernel (W = 12) and the
  // unrolled one (W = 16); an iteration issues more warp instructions than its W FFMAs and one load.
  for (const int w : {12, 16}) {
    const Outcome counted = run(kStream + " read --alu " + std::to_string(w) + " --warps-per-sm 8 --counters --json 2>/dev/null");
    ASSERT_EQ(counted.exit_code, 0) << counted.output;
    const warpcost::reports::StreamReadReport cr2 = warpcost::reports::stream_read_from_json(counted.output);
    if (cr2.counters.rfind("unavailable", 0) == 0) GTEST_SKIP() << "no counters on this machine: " << cr2.counters;
    ASSERT_EQ(cr2.counters, "counted");
    EXPECT_NEAR(cr2.ffma_per_load, w, 0.5) << counted.output;
    // More than the W FFMAs and the load; how many more (the loop, the probe's sampling) is the
    // kernel's, counted, not stated here (the H200 counted 69.3 for the run-time W = 12, 36.3 for
    // the unrolled W = 16). But a warp count: a count of thread instructions reads 32 times more
    // (2218 for W = 12), far past 8·(W + 16).
    EXPECT_GT(cr2.instructions_per_iteration, w + 1.0) << counted.output;
    EXPECT_LT(cr2.instructions_per_iteration, 8.0 * (w + 16)) << counted.output;
  }
}

TEST(CoalesceCli, AnAuthorsImageIsCheckedBeforeTheDevice) {
  const std::string coalesce = WARPCOST_COALESCE_BIN;
  expect_usage_error(coalesce + " block --x 24 --y 24 --bytes 3", "element size = 3 bytes; allowed: 1, 2, 4, 8, 16");
  expect_usage_error(coalesce + " block --x 24 --y 24 --width 100", "--width and --height go together");
  expect_usage_error(coalesce + " block --x 24 --y 24 --width 0 --height 5", "image 0x5; allowed: sides 1..65536");
  expect_usage_error(coalesce + " block --x 8 --y 8 --bytes 16 --width 16384 --height 16384",
                     "allowed: at most 2147483648 bytes (the family's buffer)");
  expect_usage_error(coalesce + " partial --block-threads 32 --width 5", "unknown option '--width' for partial");
}

TEST(StreamCli, BadValuesAreRefusedBeforeTheDevice) {
  expect_usage_error(kStream, "no mode given");
  expect_usage_error(kStream + " fly", "mode 'fly'; allowed: read, one-per-thread, chase");
  expect_usage_error(kStream + " read --mib 0", "--mib = 0; allowed: 1..");
  expect_usage_error(kStream + " read --warps-per-sm -3", "warps per SM = -3");
  expect_usage_error(kStream + " chase", "chase needs --footprint-kib");
  expect_usage_error(kStream + " chase --footprint-kib 64 --counters", "--counters goes with read; chase counts nothing");
  expect_usage_error(std::string(WARPCOST_PRIMITIVES_BIN) + " list --json", "--json with list; allowed: --json with latency, throughput or facts");
  EXPECT_EQ(run(kStream + " --help").exit_code, 0);
}

TEST(AnalyzeCliBinary, UsageErrorsExit2) {
  expect_usage_error(kAnalyze + " --bogus results", "unknown option '--bogus'");
  expect_usage_error(kAnalyze, "name at least one run");
  EXPECT_EQ(run(kAnalyze + " --help").exit_code, 0);
}

}  // namespace

// ---- --version everywhere, and ./warpcost's own conventions (issue 23) -------------------------

namespace tools_version {

const std::string kCoalesce = WARPCOST_COALESCE_BIN;
const std::string kScript = WARPCOST_SCRIPT;

// "(warpcost X.Y.Z, git " of a version line, so every tool's can be compared with the others'.
std::string version_part(const std::string& line) {
  const auto at = line.find("(warpcost ");
  return at == std::string::npos ? std::string() : line.substr(at, line.find(", git ", at) + 6 - at);
}

TEST(ToolsCli, EveryToolPrintsOneVersionLine) {
  const Outcome script = run(kScript + " --version");
  ASSERT_EQ(script.exit_code, 0) << script.output;
  ASSERT_FALSE(version_part(script.output).empty()) << script.output;
  for (const auto& [tool, path] : {std::pair<std::string, std::string>{"warpcost-bench", kBench},
                                   {"warpcost-analyze", kAnalyze}, {"warpcost-record", kRecord},
                                   {"warpcost-diverge", kDiverge}, {"warpcost-stream", kStream},
                                   {"warpcost-coalesce", kCoalesce}}) {
    const Outcome o = run(path + " --version");
    EXPECT_EQ(o.exit_code, 0) << tool << "\n" << o.output;
    EXPECT_EQ(o.output.rfind(tool + " (warpcost ", 0), 0u) << o.output;
    EXPECT_EQ(version_part(o.output), version_part(script.output)) << tool << ": " << o.output;
  }
}

TEST(WarpcostScript, HelpIsUsageOnStdoutAndExitsZero) {
  for (const char* args : {" --help", " help", " -h", " run --help"}) {
    const Outcome o = run(kScript + args + " 2>/dev/null");
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.output;
    EXPECT_NE(o.output.find("./warpcost run"), std::string::npos) << args << "\n" << o.output;
  }
}

TEST(WarpcostScript, UsageErrorsExitTwoAndNameWhatIsAllowed) {
  Outcome o = run(kScript + " frobnicate");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("unknown command 'frobnicate'; allowed: run, test, compare, check, predict, explain, help"), std::string::npos);
  o = run(kScript + " run --preset nosuch");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("unknown preset 'nosuch'; allowed: user ci h200"), std::string::npos) << o.output;
  // explain's preset too, before CMake is called (it configured, then ran a tool that was not there).
  o = run(kScript + " explain --preset nosuch -- /bin/true");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("unknown preset 'nosuch'; allowed: user ci h200"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("CMake Error"), std::string::npos) << o.output;
  o = run(kScript + " run --bogus");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  o = run(kScript + " compare only-one");
  EXPECT_EQ(o.exit_code, 2) << o.output;
}

// A folder holding a stand-in nvidia-smi, first on PATH, removed afterwards.
class FakeSmi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("warpcost-fake-smi-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write_smi(const std::string& body) {
    const auto smi = dir_ / "nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(smi, std::filesystem::perms::owner_all);
  }
  Outcome warpcost(const std::string& args) {
    return run("env -u CUDA_VISIBLE_DEVICES PATH=" + dir_.string() + ":$PATH " + kScript + args);
  }
  std::filesystem::path dir_;
};

TEST_F(FakeSmi, DevicesAreCheckedAgainstTheVisibleGpusBeforeAnythingIsBuilt) {
  write_smi("echo 'GPU 0: NVIDIA H200 (UUID: GPU-1)'; echo 'GPU 1: NVIDIA H200 (UUID: GPU-2)'");
  Outcome o = warpcost(" run --preset nosuch-preset-is-checked-first --devices 5");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  o = warpcost(" run --devices 5");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("device 5 is not visible; allowed: all, or 0..1 (2 GPU(s) visible)"), std::string::npos)
      << o.output;
  EXPECT_EQ(o.output.find("-- Configuring"), std::string::npos) << "CMake ran before the check";
  write_smi("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver'; exit 9");
  o = warpcost(" run --devices 0");
  EXPECT_EQ(o.exit_code, 1) << o.output;
  EXPECT_NE(o.output.find("no NVIDIA GPU or driver found"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("-- Configuring"), std::string::npos);
}

TEST(WarpcostScript, CompareIsAShortcutForTheAnalysisCompare) {
  const std::string runs = std::string(WARPCOST_FIXTURES) + "/runs/fixture-gpu/";
  const Outcome o = run("WARPCOST_ANALYZE=" + kAnalyze + " " + kScript + " compare " + runs + "20260101T000000Z " +
                        runs + "20260102T000000Z");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("| family | same | faster | slower | unclear | error |"), std::string::npos) << o.output;
}

}  // namespace tools_version
