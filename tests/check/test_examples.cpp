// `warpcost check` and `warpcost predict`: the page's file agrees everywhere, changed answers are
// found, every kind of bad input is named, each kind's answers against hand calculation, and the
// measured lookup over fixture runs (never results/). Expected values are worked by hand in the
// comments, not taken from the code under test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "check/examples.hpp"
#include "check/measure.hpp"
#include "check/measured.hpp"
#include "core/point_reports.hpp"
#include "core/run_reader.hpp"
#include "analysis/report.hpp"

namespace warpcost::examples {
namespace {

namespace fs = std::filesystem;

const std::string kPageFile = std::string(WARPCOST_SOURCE) + "/examples/worked-examples.toml";
const std::string kSampleFile = std::string(WARPCOST_SOURCE) + "/examples/course-sample.toml";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A temp folder of this process's own, removed after.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("warpcost-examples-" + std::to_string(getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string bad_message(const std::string& toml) {
  try {
    check_examples(read_examples_text(toml, "bad.toml"));
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

const char* const kHeader = "[[example]]\nid = \"X1\"\n";

// ---- the page's file ---------------------------------------------------------------------------

TEST(ExamplesFile, ThePagesFileAgreesEverywhere) {
  const auto examples = read_examples_file(kPageFile);
  // Ex 1, 2, 3, 3b, 4-8, 9 twice, 10, the note's grid tail and four self-test questions.
  EXPECT_EQ(examples.size(), 17u);
  const auto checked = check_examples(examples);
  ASSERT_FALSE(checked.empty());
  for (const auto& c : checked) EXPECT_TRUE(c.agrees) << c.example << " " << c.field;
}

TEST(ExamplesFile, ThreeChangedAnswersAreExactlyTheThreeDisagrees) {
  std::string text = slurp(kPageFile);
  text = replace_once(text, "tail_lanes = 4, wasted_lanes = 28, tail_mask", "tail_lanes = 4, wasted_lanes = 27, tail_mask");
  text = replace_once(text, "answer = { time = 60, slowdown = 2.0 }", "answer = { time = 60, slowdown = 1.5 }");
  text = replace_once(text, "last_block_partial_lanes = 8", "last_block_partial_lanes = 9");
  const auto checked = check_examples(read_examples_text(text, "changed.toml"));
  std::vector<std::string> disagrees;
  for (const auto& c : checked) {
    if (!c.agrees) disagrees.push_back(c.example + " " + c.field);
  }
  EXPECT_EQ(disagrees, (std::vector<std::string>{"Ex 2 wasted_lanes", "Ex 7 slowdown",
                                                 "Note: grid tail last_block_partial_lanes"}));
}

TEST(ExamplesFile, TheCourseSampleHasItsTwoDeliberateMistakes) {
  const auto checked = check_examples(read_examples_file(kSampleFile));
  std::vector<std::string> disagrees;
  for (const auto& c : checked) {
    if (!c.agrees) disagrees.push_back(c.example + " " + c.field);
  }
  // 72 threads: 3 warps, 24 wasted lanes (the sample says 16); a 3-way switch of bodies 40, 20, 20
  // over a uniform 40: (40+20+20)/40 = 2.0 (the sample says 3.0, counting paths, not their cost).
  EXPECT_EQ(disagrees, (std::vector<std::string>{"C1 wasted_lanes", "C2 slowdown"}));
}

// ---- the command line: exit codes and nothing written on bad input ------------------------------

int run_tool(const std::string& args, const fs::path& out) {
  const std::string cmd = std::string(WARPCOST_EXAMPLES_BIN) + " " + args + " > " + out.string() + " 2> " + out.string() + ".err";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ExamplesCli, ExitZeroOneTwo) {
  TempDir tmp;
  EXPECT_EQ(run_tool("check " + kPageFile, tmp.path / "ok.txt"), 0);
  EXPECT_NE(slurp((tmp.path / "ok.txt").string()).find("| Ex 7 | slowdown | 2 | 2 |"), std::string::npos);
  const fs::path changed = tmp.path / "changed.toml";
  std::ofstream(changed) << replace_once(slurp(kPageFile), "answer = { warps = 1 }", "answer = { warps = 2 }");
  EXPECT_EQ(run_tool("check " + changed.string(), tmp.path / "one.txt"), 1);
  EXPECT_NE(slurp((tmp.path / "one.txt").string()).find("| Ex 4 | warps | 2 | 1 |"), std::string::npos);
  const fs::path broken = tmp.path / "broken.toml";
  std::ofstream(broken) << replace_once(slurp(kPageFile), "block = [72, 1, 1]", "block = [0, 1, 1]");
  EXPECT_EQ(run_tool("check " + broken.string(), tmp.path / "two.txt"), 2);
  // One message, on stderr, naming the example and the field, and no table: nothing half-written.
  EXPECT_EQ(slurp((tmp.path / "two.txt").string()), "");
  const std::string err = slurp((tmp.path / "two.txt.err").string());
  EXPECT_NE(err.find("example 'Self-test 1', field 'block'"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(run_tool("check", tmp.path / "usage.txt"), 2);
  EXPECT_EQ(run_tool("check " + kPageFile + " --mesure", tmp.path / "usage.txt"), 2);
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure", tmp.path / "usage.txt"), 2);  // no --bench-dir
  EXPECT_EQ(run_tool("predict block_shape block=0,1,1", tmp.path / "p.txt"), 2);
}

TEST(ExamplesCli, MeasureChecksTheFileBeforeLookingForADevice) {
  TempDir tmp;
  const fs::path broken = tmp.path / "broken.toml";
  std::ofstream(broken) << replace_once(slurp(kPageFile), "paths = [{ lanes = 16, cost = 40 }, { lanes = 16, cost = 40 }]",
                                        "paths = [{ lanes = 16, cost = 40 }, { lanes = 17, cost = 40 }]");
  const fs::path results = tmp.path / "results";
  const fs::path bench_dir = tmp.path / "bench";  // a folder, empty until the runners are planted below
  fs::create_directories(bench_dir);
  EXPECT_EQ(run_tool("check " + broken.string() + " --measure --bench-dir " + bench_dir.string() + " --results " +
                         results.string(), tmp.path / "m.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "m.txt.err").string()).find("example 'Self-test 4', field 'paths'"), std::string::npos);
  EXPECT_FALSE(fs::exists(results));
  // The options before the file: a --bench-dir that is no folder, a --results that is a file.
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir /nonexistent --results " + results.string(),
                     tmp.path / "b.txt"), 2);
  EXPECT_EQ(slurp((tmp.path / "b.txt").string()), "");  // no table printed
  EXPECT_NE(slurp((tmp.path / "b.txt.err").string()).find("--bench-dir /nonexistent does not exist"), std::string::npos);
  const fs::path file_not_folder = tmp.path / "results-file";
  std::ofstream(file_not_folder) << "x";
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results " +
                         file_not_folder.string(), tmp.path / "r.txt"), 2);
  EXPECT_EQ(slurp((tmp.path / "r.txt").string()), "");
  EXPECT_NE(slurp((tmp.path / "r.txt.err").string())
                .find("cannot be a folder here (" + file_not_folder.string() + " is not a folder)"),
            std::string::npos)
      << slurp((tmp.path / "r.txt.err").string());
  EXPECT_EQ(slurp(file_not_folder.string()), "x");
  // Nor a folder under a file: it could not be made after the GPU had run the examples.
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results " +
                         (file_not_folder / "sub").string(), tmp.path / "u.txt"), 2);
  EXPECT_EQ(slurp((tmp.path / "u.txt").string()), "");
  // Nor one under a folder that takes no new file (/proc, root included), nor an empty name.
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results /proc/warpcost",
                     tmp.path / "p.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "p.txt.err").string()).find("(/proc takes no new file ("), std::string::npos)
      << slurp((tmp.path / "p.txt.err").string());
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results ''",
                     tmp.path / "e.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "e.txt.err").string()).find("--results needs a folder"), std::string::npos);
  // An option given twice names both values (the first was dropped without a word).
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results a --results b",
                     tmp.path / "t.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "t.txt.err").string()).find("--results given twice ('a' and 'b'); allowed: once"),
            std::string::npos);
  EXPECT_EQ(run_tool("predict block_shape block=64 --gpu x --gpu y", tmp.path / "g.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "g.txt.err").string()).find("--gpu given twice ('x' and 'y'); allowed: once"),
            std::string::npos);
  // A --bench-dir without the runners the page's examples call is found before the table and the
  // GPU (each example failed on the GPU, one error row at a time); the page calls these three.
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results " +
                         results.string(), tmp.path / "nr.txt"), 2);
  EXPECT_EQ(slurp((tmp.path / "nr.txt").string()), "");
  EXPECT_NE(slurp((tmp.path / "nr.txt.err").string())
                .find("--bench-dir " + bench_dir.string() +
                      " has no runnable warpcost-record, warpcost-stream, warpcost-diverge; allowed: the bench folder"),
            std::string::npos)
      << slurp((tmp.path / "nr.txt.err").string());
  for (const char* runner : {"warpcost-record", "warpcost-stream"}) {
    std::ofstream(bench_dir / runner) << "#!/bin/sh\nexit 3\n";
    fs::permissions(bench_dir / runner, fs::perms::owner_all);
  }
  std::ofstream(bench_dir / "warpcost-diverge") << "not executable";
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results " +
                         results.string(), tmp.path / "nx.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "nx.txt.err").string()).find("has no runnable warpcost-diverge;"), std::string::npos)
      << slurp((tmp.path / "nx.txt.err").string());
  fs::permissions(bench_dir / "warpcost-diverge", fs::perms::owner_all);
  EXPECT_FALSE(fs::exists(results));
  if (std::system("nvidia-smi -L > /dev/null 2>&1") == 0) GTEST_SKIP() << "a GPU is visible: the no-device exit is not testable here";
  EXPECT_EQ(run_tool("check " + kPageFile + " --measure --bench-dir " + bench_dir.string() + " --results " +
                         results.string(), tmp.path / "n.txt"), 77);
  EXPECT_FALSE(fs::exists(results));  // nothing written without a device
}

// ---- bad input: one message naming the example, the field and what is allowed -------------------

void expect_named(const std::string& message, const std::string& field, const std::string& allowed_part) {
  EXPECT_NE(message.find("example 'X1'"), std::string::npos) << message;
  EXPECT_NE(message.find("field '" + field + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("allowed: "), std::string::npos) << message;
  EXPECT_NE(message.find(allowed_part), std::string::npos) << message;
}

TEST(ExamplesBadInput, UnknownKind) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"occupancy\"\nanswer = { warps = 1 }\n"), "kind", "block_shape");
}

TEST(ExamplesBadInput, UnknownField) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [32]\nthreds = 3\nanswer = { warps = 1 }\n"),
               "threds", "block");
}

TEST(ExamplesBadInput, UnknownAnswerField) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [32]\nanswer = { wraps = 1 }\n"),
               "answer.wraps", "warps");
}

TEST(ExamplesBadInput, MissingAnswer) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [32]\n"), "answer", "warps");
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [32]\nanswer = {}\n"), "answer", "warps");
}

TEST(ExamplesBadInput, MissingInput) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"grid_tail\"\nthreads = 10\nanswer = { blocks = 1 }\n"),
               "block_threads", "1..1024");
}

TEST(ExamplesBadInput, ZeroThreads) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [0, 4, 1]\nanswer = { warps = 1 }\n"),
               "block", "x·y·z <= 1024");
  expect_named(bad_message(std::string(kHeader) + "kind = \"grid_tail\"\nthreads = 0\nblock_threads = 32\nanswer = { blocks = 1 }\n"),
               "threads", ">= 1");
}

TEST(ExamplesBadInput, BlockOverTheDeviceLimit) {
  const std::string m = bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [2000, 1, 1]\nanswer = { warps = 63 }\n");
  expect_named(m, "block", "1024");
  EXPECT_NE(m.find("over the device limit"), std::string::npos) << m;
  // 32·32·2 = 2048 threads: each side within its limit, the product over.
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [32, 32, 2]\nanswer = { warps = 64 }\n"),
               "block", "1024");
  // z is limited to 64.
  expect_named(bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [1, 1, 65]\nanswer = { warps = 3 }\n"),
               "block", "z 1..64");
}

// A thought-experiment block whose x·y·z no number holds is refused by name; before, a thread_map
// of [3037000500, 3037000500, 2] wrapped to P = 290948384 and was judged against it.
TEST(ExamplesBadInput, ABlockPast2To53ThreadsIsRefusedEvenBeyondTheDevice) {
  for (const std::string block : {"[3037000500, 3037000500, 2]", "[4294967296, 4294967296, 4294967296]"}) {
    const std::string m = bad_message(std::string(kHeader) + "kind = \"thread_map\"\nbeyond_device = true\nblock = " +
                                      block + "\nlinear = 5\nanswer = { warp = 0 }\n");
    expect_named(m, "block", "past 2^53");
  }
  const std::string m = bad_message(std::string(kHeader) + "kind = \"block_shape\"\nbeyond_device = true\n"
                                    "block = [3037000500, 3037000500, 2]\nanswer = { warps = 1 }\n");
  expect_named(m, "block", "at most 2^53 = 9007199254740992 threads");
  EXPECT_NE(m.find("x·y·z = 1.8446744074"), std::string::npos) << m;  // 3037000500² · 2 = 18446744074000500000
}

TEST(ExamplesBadInput, BeyondDeviceIsAThoughtExperimentTheModelStillAnswers) {
  const auto checked = check_examples(read_examples_text(
      std::string(kHeader) + "kind = \"block_shape\"\nbeyond_device = true\nblock = [2000, 1, 1]\n"
                             "answer = { warps = 63, wasted_lanes = 16 }\n",
      "t.toml"));
  // ceil(2000/32) = 63 warps; 63·32 − 2000 = 16 wasted lanes.
  ASSERT_EQ(checked.size(), 2u);
  EXPECT_TRUE(checked[0].agrees);
  EXPECT_TRUE(checked[1].agrees);
}

TEST(ExamplesBadInput, StrideZero) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"coalescing\"\nelem_bytes = 4\nstride = 0\nanswer = { sectors_per_request = 4 }\n"),
               "stride", ">= 1");
}

TEST(ExamplesBadInput, SplitOver32) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"divergence\"\npaths = [{ lanes = 20, cost = 1 }, { lanes = 20, cost = 1 }]\n"
                                                  "uniform_cost = 1\nanswer = { slowdown = 2 }\n"),
               "paths", "at most 32");
  expect_named(bad_message(std::string(kHeader) + "kind = \"divergence\"\npaths = [{ lanes = 33, cost = 1 }]\n"
                                                  "uniform_cost = 1\nanswer = { slowdown = 1 }\n"),
               "paths", "0..32");
  // No lane on any path: every cost drops out and the slowdown would be 0, the answer of no warp.
  expect_named(bad_message(std::string(kHeader) + "kind = \"divergence\"\npaths = [{ lanes = 0, cost = 5 }, { lanes = 0, cost = 1 }]\n"
                                                  "uniform_cost = 1\nanswer = { slowdown = 0 }\n"),
               "paths", "at least 1 lane over all paths");
}

TEST(ExamplesBadInput, ElementSizeAndDuplicateIdAndNotToml) {
  expect_named(bad_message(std::string(kHeader) + "kind = \"coalescing\"\nelem_bytes = 3\nstride = 1\nanswer = { sectors_per_request = 4 }\n"),
               "elem_bytes", "1, 2, 4, 8 or 16");
  const std::string twice = std::string(kHeader) + "kind = \"block_shape\"\nblock = [32]\nanswer = { warps = 1 }\n";
  expect_named(bad_message(twice + twice), "id", "unique");
  EXPECT_NE(bad_message("[[example]\nid = 1").find("not TOML"), std::string::npos);
}

// ---- the tolerance of ratios, declared in examples.hpp -----------------------------------------

TEST(ExamplesTolerance, RatiosWithinTheRoundingCountsExactly) {
  auto check_one = [](const std::string& answer) {
    return check_examples(read_examples_text(
        std::string(kHeader) + "kind = \"divergence\"\npaths = [{ lanes = 16, cost = 40 }, { lanes = 16, cost = 20 }]\n"
                               "uniform_cost = 45\nanswer = { " + answer + " }\n", "t.toml")).front().agrees;
  };
  // (40 + 20)/45 = 1.3333: 1.33 is within 0.005, 1.32 is not.
  EXPECT_TRUE(check_one("slowdown = 1.33"));
  EXPECT_FALSE(check_one("slowdown = 1.32"));
  // populated paths is a count: 2 exactly.
  EXPECT_TRUE(check_one("populated_paths = 2"));
  EXPECT_FALSE(check_one("populated_paths = 2.001"));
}

// ---- predict: each kind against hand calculation ------------------------------------------------

double answer_of(const std::vector<ModelAnswer>& answers, const std::string& field) {
  for (const auto& a : answers) {
    if (a.field == field) return a.value.number;
  }
  ADD_FAILURE() << "no answer " << field;
  return -1;
}

TEST(Predict, BlockShape) {
  const auto a = model_answers(example_from_arguments("block_shape", {"block=72"}));
  EXPECT_EQ(answer_of(a, "warps"), 3);         // ceil(72/32)
  EXPECT_EQ(answer_of(a, "wasted_lanes"), 24);  // 96 − 72
  EXPECT_EQ(answer_of(a, "tail_mask"), 0xff);   // 8 lanes
}

TEST(Predict, ThreadMap) {
  const auto a = model_answers(example_from_arguments("thread_map", {"block=16,16", "thread=3,5"}));
  EXPECT_EQ(answer_of(a, "linear"), 83);  // 3 + 5·16
  EXPECT_EQ(answer_of(a, "warp"), 2);     // 83/32
  EXPECT_EQ(answer_of(a, "lane"), 19);    // 83 − 64
  const auto b = model_answers(example_from_arguments("thread_map", {"block=24,24", "linear=100"}));
  bool found = false;
  for (const auto& x : b) {
    if (x.field != "thread") continue;
    found = true;
    EXPECT_EQ(x.value.coord, (std::vector<long long>{4, 4, 0}));  // 100 = 4·24 + 4
  }
  EXPECT_TRUE(found);
}

TEST(Predict, GridTail) {
  const auto a = model_answers(example_from_arguments("grid_tail", {"threads=1000", "block_threads=96"}));
  EXPECT_EQ(answer_of(a, "blocks"), 11);                  // ceil(1000/96)
  EXPECT_EQ(answer_of(a, "last_block_threads"), 40);      // 1000 − 960
  EXPECT_EQ(answer_of(a, "last_block_full_warps"), 1);    // 40/32
  EXPECT_EQ(answer_of(a, "last_block_partial_lanes"), 8);
  EXPECT_EQ(answer_of(a, "launched_warps"), 33);          // 11 blocks · 3 warps: the last block's third warp launches too
  EXPECT_EQ(answer_of(a, "working_warps"), 32);           // 10·3 + ceil(40/32) = 2
  EXPECT_EQ(answer_of(a, "wasted_lanes"), 56);            // 32·33 − 1000
}

TEST(Predict, DivergenceSwitchWithUnequalBodies) {
  const auto a = model_answers(example_from_arguments(
      "divergence", {"paths=10:40,12:20,10:20", "uniform_cost=40", "shape=switch"}));
  EXPECT_DOUBLE_EQ(answer_of(a, "time"), 80);     // 40 + 20 + 20
  EXPECT_DOUBLE_EQ(answer_of(a, "slowdown"), 2);  // 80/40
  EXPECT_EQ(answer_of(a, "populated_paths"), 3);
}

TEST(Predict, LatencyHidingAndSchedulerDemand) {
  const auto a = model_answers(example_from_arguments("latency_hiding", {"latency=500", "instructions=12", "warp_cap=64"}));
  EXPECT_EQ(answer_of(a, "warps_needed"), 42);  // ceil(41.67)
  EXPECT_EQ(answer_of(a, "hidden"), 1);
  const auto b = model_answers(example_from_arguments(
      "scheduler_demand", {"schedulers=4", "latency=500", "issue_interval=1", "instructions_per_warp=12", "warp_cap=64"}));
  EXPECT_NEAR(answer_of(b, "warps_needed"), 166.667, 1e-3);  // 4·500/12
  EXPECT_EQ(answer_of(b, "deficit"), 103);                   // 167 − 64
}

TEST(Predict, Coalescing) {
  const auto a = model_answers(example_from_arguments("coalescing", {"elem_bytes=4", "stride=2"}));
  EXPECT_EQ(answer_of(a, "sectors_per_request"), 8);   // 32 lanes × 8 B apart = 256 B
  EXPECT_DOUBLE_EQ(answer_of(a, "useful_fraction"), 0.5);
  // (32,8) over a 64×16 image of 4 B: each warp reads one 128 B row piece = 4 sectors.
  const auto b = model_answers(example_from_arguments("coalescing", {"elem_bytes=4", "block=32,8", "image=64,16"}));
  EXPECT_DOUBLE_EQ(answer_of(b, "sectors_per_request"), 4);
  EXPECT_DOUBLE_EQ(answer_of(b, "useful_fraction"), 1);
}

TEST(Predict, WarpPrimitive) {
  const auto a = model_answers(example_from_arguments("warp_primitive", {"primitive=shfl_sync", "active_lanes=1"}));
  EXPECT_DOUBLE_EQ(answer_of(a, "cost_vs_full_warp"), 1);
  const auto b = model_answers(example_from_arguments(
      "warp_primitive", {"primitive=butterfly_reduction", "shuffle_cycles=24", "add_cycles=4"}));
  EXPECT_EQ(answer_of(b, "reduction_steps"), 5);
  EXPECT_DOUBLE_EQ(answer_of(b, "reduction_cycles"), 140);  // 5·(24 + 4)
}

// The second-order models from stated parameters (docs/models.md), each against a hand value.
TEST(Predict, DivergenceGrid) {
  // (F + t·S)/(F + t·S_ref) = (5 + 0.5·480)/(5 + 0.5·384) = 245/197.
  const auto a = model_answers(example_from_arguments(
      "divergence_grid", {"trips=480", "reference_trips=384", "fixed_us=5", "us_per_trip=0.5"}));
  EXPECT_NEAR(answer_of(a, "slowdown"), 245.0 / 197.0, 1e-12);
}

TEST(Predict, GridTailTime) {
  // 1000 FMAs at 1000 MHz: tail 2 + 1000·1.5/1000 = 3.5 us, full 2 + 1000·3/1000 = 5 us, floor 1:
  // (3.5 − 1)/(5 − 1) = 0.625.
  const auto a = model_answers(example_from_arguments(
      "grid_tail_time", {"fixed_us_tail=2", "fixed_us_full=2", "cycles_per_fma_tail=1.5", "cycles_per_fma_full=3",
                         "fma_per_thread=1000", "clock_mhz=1000", "floor_us=1"}));
  EXPECT_NEAR(answer_of(a, "relative_time"), 0.625, 1e-12);
}

TEST(Predict, CoalescingBandwidth) {
  // 4-byte lanes one element past a line: bytes 4..131, tiles every 256 B, granules 0, 1, 2 =
  // 192 B moved for 128 useful; at R = 4300 GB/s: 4300·128/192 = 2866.67 GB/s; an in-flight bound
  // of 3000 GB/s binds first: 2000. The L2 level counts 5 sectors (160 B): 4300·0.8 = 3440.
  // A 4-byte store at stride 2 writes 8 half-full sectors and reads them back: 512 B, 4300/4 = 1075.
  const auto a = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=4", "stride=1", "offset=1", "moved_rate_gbps=4300"}));
  EXPECT_DOUBLE_EQ(answer_of(a, "moved_bytes_per_request"), 192);
  EXPECT_NEAR(answer_of(a, "useful_bandwidth_gbps"), 4300.0 * 128 / 192, 1e-9);
  const auto b = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=4", "stride=1", "offset=1", "moved_rate_gbps=4300", "in_flight_gbps=3000"}));
  EXPECT_NEAR(answer_of(b, "useful_bandwidth_gbps"), 2000, 1e-9);
  const auto c = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=4", "stride=1", "offset=1", "level=l2", "moved_rate_gbps=4300"}));
  EXPECT_NEAR(answer_of(c, "useful_bandwidth_gbps"), 3440, 1e-9);
  const auto d = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=4", "stride=2", "level=store", "moved_rate_gbps=4300"}));
  EXPECT_DOUBLE_EQ(answer_of(d, "moved_bytes_per_request"), 512);
  EXPECT_NEAR(answer_of(d, "useful_bandwidth_gbps"), 1075, 1e-9);
  EXPECT_THROW(example_from_arguments("coalescing_bandwidth", {"elem_bytes=4", "stride=1", "level=nvme", "moved_rate_gbps=1"}),
               BadInput);
  // The request-rate ceiling: 1-byte lanes, one 32-byte sector a request, 83.48 G requests/s cap
  // the L2's 8050 GB/s byte price at 83.48 x 32 = 2671.36 GB/s; a ceiling above the price binds nothing.
  const auto e = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=1", "stride=1", "level=l2", "moved_rate_gbps=8050", "request_rate_gps=83.48"}));
  EXPECT_NEAR(answer_of(e, "useful_bandwidth_gbps"), 2671.36, 1e-9);
  const auto f = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=1", "stride=1", "level=l2", "moved_rate_gbps=8050", "request_rate_gps=1000"}));
  EXPECT_NEAR(answer_of(f, "useful_bandwidth_gbps"), 8050, 1e-9);
  // A 32-byte granule: 4-byte lanes 64 B apart touch one sector of each 64-byte granule, so 32 x 32
  // bytes move a request, not 32 x 64: 128 useful of 1024 at 4300 GB/s = 537.5 GB/s.
  const auto g = model_answers(example_from_arguments(
      "coalescing_bandwidth", {"elem_bytes=4", "stride=16", "moved_rate_gbps=4300", "granule_bytes=32"}));
  EXPECT_DOUBLE_EQ(answer_of(g, "moved_bytes_per_request"), 1024);
  EXPECT_NEAR(answer_of(g, "useful_bandwidth_gbps"), 537.5, 1e-9);
  EXPECT_THROW(example_from_arguments("coalescing_bandwidth", {"elem_bytes=4", "stride=2", "moved_rate_gbps=1", "granule_bytes=48"}),
               BadInput);
}

TEST(Predict, PrimitiveThroughput) {
  // c = 4, L = 20, P = 0.5: D = 8, Z = 12. Two warps: T = 23.2 cycles, 8/23.2 warp-ops a cycle.
  // The curve: 0.2, 0.3448, 0.4328, 0.4760 ... to 0.5; 90 % of 0.5 first at W = 4.
  const auto a = model_answers(example_from_arguments(
      "primitive_throughput", {"warps_per_sm=2", "latency_cycles=20", "pipe_ops_per_cycle=0.5", "warp_cap=64"}));
  EXPECT_NEAR(answer_of(a, "ops_per_cycle_per_sm"), 8.0 / 23.2, 1e-12);
  EXPECT_EQ(answer_of(a, "knee_warps_per_sm"), 4);
  EXPECT_THROW(example_from_arguments("primitive_throughput", {"warps_per_sm=0", "latency_cycles=20", "pipe_ops_per_cycle=0.5"}),
               BadInput);
}

TEST(Predict, StreamBandwidth) {
  // A flat locus (latency = loaded_latency = 1000), one warp a SM, no issue to speak of (I tiny):
  // an iteration is T0 = 1000 cycles of 512 bytes at 1 GHz on 2 SMs: 2·512e9/1000 B/s = 1.024 GB/s.
  const auto a = model_answers(example_from_arguments(
      "stream_bandwidth", {"sms=2", "warps_per_sm=1", "load_bytes=16", "instructions=1e-9", "unloaded_cycles=1000",
                           "latency=1000", "loaded_latency=1000", "peak_gbps=1000", "issue_rate=1", "clock_mhz=1000",
                           "warp_cap=8"}));
  EXPECT_NEAR(answer_of(a, "bandwidth_gbps"), 1.024, 1e-6);
  EXPECT_EQ(answer_of(a, "warps_per_scheduler"), 1);
  // Flat latency, far below the ceiling: bandwidth rises with every warp, the last (8) is the knee.
  EXPECT_EQ(answer_of(a, "knee_warps_per_sm"), 8);
  EXPECT_THROW(example_from_arguments("stream_bandwidth", {"sms=2", "warps_per_sm=1", "load_bytes=3", "instructions=1",
                                                          "unloaded_cycles=1000", "latency=1000", "loaded_latency=1000",
                                                          "peak_gbps=1000", "issue_rate=1", "clock_mhz=1000"}),
               BadInput);
  EXPECT_THROW(example_from_arguments("stream_bandwidth", {"sms=2", "warps_per_sm=1", "load_bytes=16", "instructions=1",
                                                          "unloaded_cycles=1000", "latency=1000", "loaded_latency=900",
                                                          "peak_gbps=1000", "issue_rate=1", "clock_mhz=1000"}),
               BadInput);
  EXPECT_THROW(example_from_arguments("divergence_grid", {"trips=480", "reference_trips=384", "fixed_us=5", "us_per_trip=0"}),
               BadInput);
}

TEST(Predict, BlockStreamBandwidth) {
  // One SM, 32 threads of 16 bytes: 512 bytes a block. k = 2 slots, D = 100 cycles at the SM, a flat
  // locus Z = 300 cycles far below its ceiling. Mean-value analysis: one customer R = 100, X = 1/400,
  // Q = 0.25; two customers R = 100·1.25 = 125, a cycle of 125 + 300 = 425 cycles for 2 blocks, so
  // 212.5 cycles a block and 512 B / 212.5 cycles at 1 GHz = 2.409412 GB/s.
  const std::vector<std::string> inputs = {"sms=1", "block_threads=32", "resident_blocks=2", "turnover_cycles=100",
                                           "latency=300", "loaded_latency=300", "peak_gbps=1e6", "clock_mhz=1000"};
  const auto a = model_answers(example_from_arguments("block_stream_bandwidth", inputs));
  EXPECT_NEAR(answer_of(a, "bandwidth_gbps"), 2.409412, 1e-6);
  EXPECT_NEAR(answer_of(a, "block_cycles"), 212.5, 1e-6);
  EXPECT_NEAR(answer_of(a, "loaded_latency_cycles"), 300, 1e-9);
  EXPECT_EQ(answer_of(a, "at_ceiling"), 0);
  // load_bytes defaults to 16: stating it gives the same; 8 bytes a thread halves the bytes a block.
  std::vector<std::string> with16 = inputs;
  with16.push_back("load_bytes=16");
  EXPECT_DOUBLE_EQ(answer_of(model_answers(example_from_arguments("block_stream_bandwidth", with16)), "bandwidth_gbps"),
                   answer_of(a, "bandwidth_gbps"));
  std::vector<std::string> with8 = inputs;
  with8.push_back("load_bytes=8");
  EXPECT_NEAR(answer_of(model_answers(example_from_arguments("block_stream_bandwidth", with8)), "bandwidth_gbps"),
              2.409412 / 2, 1e-6);
  // A ceiling of 1 GB/s under the 2.41 GB/s the slots offer: the ceiling bounds it.
  std::vector<std::string> capped = inputs;
  capped[6] = "peak_gbps=1";
  const auto c = model_answers(example_from_arguments("block_stream_bandwidth", capped));
  EXPECT_NEAR(answer_of(c, "bandwidth_gbps"), 1.0, 1e-9);
  EXPECT_EQ(answer_of(c, "at_ceiling"), 1);
}

std::string bad_arguments_message(const std::string& kind, const std::vector<std::string>& key_values);
std::string bad_arguments_message_fwd(const std::string& kind, const std::vector<std::string>& key_values) {
  return bad_arguments_message(kind, key_values);
}

// ISSUE-33-GREEDY-ISSUE by hand: a flat locus (1000 cycles to 1e6 GB/s), the suite's W = 0 loop, one
// warp a scheduler: a lone warp's iteration is M0 + the loop's lone overhead = Λ(0) = 1000 cycles, so
// 1 SM x 4 warps x 512 B at 1 GHz / 1000 cycles = 2.048 GB/s; one warp an SM a quarter of it.
TEST(Predict, StreamGreedyBandwidth) {
  const std::vector<std::string> inputs = {"sms=1", "warps_per_sm=4", "alu_per_load=0", "latency=1000",
                                           "loaded_latency=1000", "peak_gbps=1e6", "clock_mhz=1000"};
  const auto a = model_answers(example_from_arguments("stream_greedy_bandwidth", inputs));
  EXPECT_NEAR(answer_of(a, "bandwidth_gbps"), 2.048, 1e-9);
  EXPECT_NEAR(answer_of(a, "iteration_cycles"), 1000, 1e-6);
  EXPECT_EQ(answer_of(a, "warps_per_scheduler"), 1);
  auto one = inputs;
  one[1] = "warps_per_sm=1";
  EXPECT_NEAR(answer_of(model_answers(example_from_arguments("stream_greedy_bandwidth", one)), "bandwidth_gbps"), 0.512,
              1e-9);
  // W = 256 with C = 20: the lone iteration is T0 = M0 + its overhead + C, M0 = 1000 - 76 (the W = 0
  // loop's 78 cycles of stall counts less its load's 2, the wait right after it) and 256's overhead
  // 319 less the constant's 2 and the load's 1 and the 1 after it (before its wait): 315. So
  // 924 + 315 + 20 = 1259 cycles, 2048 B / 1259 cycles at 1 GHz.
  auto w256 = inputs;
  w256[2] = "alu_per_load=256";
  w256.push_back("constant_cycles=20");
  EXPECT_NEAR(answer_of(model_answers(example_from_arguments("stream_greedy_bandwidth", w256)), "bandwidth_gbps"),
              2048.0 / 1259.0, 1e-6);
  EXPECT_NE(bad_arguments_message_fwd("stream_greedy_bandwidth", {"sms=1", "warps_per_sm=4", "alu_per_load=3", "latency=1000",
                                                                  "loaded_latency=1000", "peak_gbps=1e6", "clock_mhz=1000"})
                .find("alu_per_load = 3 is not a loop the suite knows"),
            std::string::npos);
}

std::string bad_arguments_message(const std::string& kind, const std::vector<std::string>& key_values) {
  try {
    example_from_arguments(kind, key_values);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

// predict divergence with no lane on any path answered slowdown 0; it is refused like the file's.
TEST(PredictBadInput, NoLaneOnAnyPath) {
  EXPECT_NE(bad_arguments_message("divergence", {"paths=0:0", "uniform_cost=1"}).find("no lane on any path"), std::string::npos);
}

TEST(Predict, BlockStreamBandwidthBadInputNamesTheValue) {
  std::vector<std::string> inputs = {"sms=1", "block_threads=32", "resident_blocks=2", "turnover_cycles=100",
                                     "latency=300", "loaded_latency=300", "peak_gbps=1e6", "clock_mhz=1000"};
  auto with = [&](std::size_t i, const std::string& kv) {
    auto v = inputs;
    v[i] = kv;
    return bad_arguments_message("block_stream_bandwidth", v);
  };
  std::string m = with(1, "block_threads=48");
  EXPECT_NE(m.find("'block_threads=48': block_threads = 48"), std::string::npos) << m;
  EXPECT_NE(m.find("allowed: a multiple of 32 from 32 to 1024"), std::string::npos) << m;
  m = with(3, "turnover_cycles=0");
  EXPECT_NE(m.find("'turnover_cycles=0': turnover_cycles = 0 is out of range"), std::string::npos) << m;
  EXPECT_NE(m.find("allowed: D > 0 cycles"), std::string::npos) << m;
  m = with(2, "resident_blocks=65");
  EXPECT_NE(m.find("'resident_blocks=65': resident_blocks = 65 is out of range (at most 64); allowed: 1..64"), std::string::npos) << m;
  m = with(5, "loaded_latency=200");
  EXPECT_NE(m.find("'loaded_latency=200'"), std::string::npos) << m;
  EXPECT_NE(with(1, "block_threads=1056"), "");
  auto plus = inputs;
  plus.push_back("load_bytes=3");
  EXPECT_NE(bad_arguments_message("block_stream_bandwidth", plus).find("load_bytes = 3"), std::string::npos);
  plus.back() = "warps_per_sm=4";
  EXPECT_NE(bad_arguments_message("block_stream_bandwidth", plus).find("unknown field for kind block_stream_bandwidth"),
            std::string::npos);
  auto missing = inputs;
  missing.erase(missing.begin() + 3);
  EXPECT_NE(bad_arguments_message("block_stream_bandwidth", missing).find("field 'turnover_cycles': missing"),
            std::string::npos);
}

TEST(ExamplesCli, BlockStreamBandwidthPredictsChecksAndRefuses) {
  TempDir tmp;
  const std::string inputs =
      "sms=1 resident_blocks=2 turnover_cycles=100 latency=300 loaded_latency=300 peak_gbps=1e6 clock_mhz=1000";
  EXPECT_EQ(run_tool("predict block_stream_bandwidth block_threads=32 " + inputs + " --gpu none", tmp.path / "p.txt"), 0);
  const std::string out = slurp((tmp.path / "p.txt").string());
  EXPECT_NE(out.find("bandwidth_gbps = 2.40941"), std::string::npos) << out;
  EXPECT_NE(out.find("block_cycles = 212.5"), std::string::npos) << out;
  EXPECT_NE(out.find("at_ceiling = false"), std::string::npos) << out;
  // Bad input: exit 2, one line on stderr naming the value and what is allowed, nothing on stdout.
  EXPECT_EQ(run_tool("predict block_stream_bandwidth block_threads=48 " + inputs, tmp.path / "bad.txt"), 2);
  EXPECT_EQ(slurp((tmp.path / "bad.txt").string()), "");
  const std::string err = slurp((tmp.path / "bad.txt.err").string());
  EXPECT_NE(err.find("block_threads = 48"), std::string::npos) << err;
  EXPECT_NE(err.find("allowed: a multiple of 32"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(run_tool("predict block_stream_bandwidth block_threads=32 " +
                         replace_once(inputs, "turnover_cycles=100", "turnover_cycles=0"),
                     tmp.path / "zero.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "zero.txt.err").string()).find("turnover_cycles = 0 is out of range"), std::string::npos);
  // A file whose stated answer is wrong reads as a failed check: exit 1, the row disagrees.
  const std::string example = std::string(kHeader) + "kind = \"block_stream_bandwidth\"\nsms = 1\nblock_threads = 32\n"
                              "resident_blocks = 2\nturnover_cycles = 100\nlatency = 300\nloaded_latency = 300\n"
                              "peak_gbps = 1e6\nclock_mhz = 1000\n";
  const fs::path right = tmp.path / "right.toml";
  std::ofstream(right) << example + "answer = { bandwidth_gbps = 2.41, block_cycles = 212.5, at_ceiling = false }\n";
  EXPECT_EQ(run_tool("check " + right.string(), tmp.path / "right.txt"), 0);
  const fs::path wrong = tmp.path / "wrong.toml";
  // Without the queue at the SM, 2 blocks a D + Z = 400 cycles: 512 B / 200 cycles = 2.56 GB/s, off by 6 %.
  std::ofstream(wrong) << example + "answer = { bandwidth_gbps = 2.56, block_cycles = 212.5, at_ceiling = true }\n";
  EXPECT_EQ(run_tool("check " + wrong.string(), tmp.path / "wrong.txt"), 1);
  const std::string md = slurp((tmp.path / "wrong.txt").string());
  EXPECT_NE(md.find("| X1 | bandwidth_gbps | 2.56 | 2.40941 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| X1 | at_ceiling | true | false |"), std::string::npos) << md;
  EXPECT_NE(md.find("1 of 3 stated answers agree with the model; disagrees: X1 at_ceiling, X1 bandwidth_gbps"),
            std::string::npos) << md;
}

TEST(Predict, BadArgumentsAreNamed) {
  EXPECT_THROW(example_from_arguments("block_shape", {"block"}), BadInput);
  EXPECT_THROW(example_from_arguments("nope", {"block=1"}), BadInput);
  EXPECT_THROW(example_from_arguments("block_shape", {"block=32", "block=64"}), BadInput);
  EXPECT_THROW(example_from_arguments("coalescing", {"elem_bytes=4", "stride=0"}), BadInput);
}

// What a user types is read as numbers, lists and text, never as TOML: a value cannot add a key
// (beyond_device, which predict refuses) or smuggle a bracket in; hex, inf and nan are not numbers.
TEST(Predict, ValuesAreReadAsNumbersNotAsTomlSyntax) {
  std::string m = bad_arguments_message("block_shape", {"block=2048,1,1]\nbeyond_device = true\n#"});
  EXPECT_NE(m.find("is not a number"), std::string::npos) << m;
  m = bad_arguments_message("block_shape", {"block=0x48"});
  EXPECT_NE(m.find("'block=0x48'"), std::string::npos) << m;
  m = bad_arguments_message("divergence", {"paths=20:nan,12:3", "uniform_cost=3"});
  EXPECT_NE(m.find("'20:nan' is not lanes:cost"), std::string::npos) << m;
  m = bad_arguments_message("latency_hiding", {"latency=inf", "instructions=2"});
  EXPECT_NE(m.find("'latency=inf'"), std::string::npos) << m;
  m = bad_arguments_message("block_shape", {"block=99999999999999999999"});
  EXPECT_NE(m.find("'block=99999999999999999999'"), std::string::npos) << m;
  m = bad_arguments_message("block_shape", {"block=48,,1"});
  EXPECT_NE(m.find("'' is not a number"), std::string::npos) << m;
  // No line number of predict's own text, which the user never saw.
  EXPECT_EQ(m.find("predict:1"), std::string::npos) << m;
  // Valid numbers in each form still read: 007 is 7, +4 is 4, a whole number written 1e3 or 4.0 is
  // whole, 2.5 is not; a list quoted with blanks ('48, 4, 1') reads as the list.
  EXPECT_EQ(answer_of(model_answers(example_from_arguments("grid_tail", {"threads=007", "block_threads=+4"})), "blocks"), 2);
  EXPECT_EQ(answer_of(model_answers(example_from_arguments("grid_tail", {"threads=1e3", "block_threads=4.0"})), "blocks"),
            250);
  EXPECT_NE(bad_arguments_message("grid_tail", {"threads=2.5", "block_threads=4"}).find("not a whole number"),
            std::string::npos);
  EXPECT_NE(bad_arguments_message("grid_tail", {"threads=1e21", "block_threads=4"}).find("out of range"),
            std::string::npos);
  EXPECT_NE(bad_arguments_message("grid_tail", {"threads=1000000000000000000000", "block_threads=4"}).find("out of range"),
            std::string::npos);
  EXPECT_EQ(answer_of(model_answers(example_from_arguments("block_shape", {"block=48, 4, 1"})), "warps"), 6);
  EXPECT_EQ(answer_of(model_answers(example_from_arguments("divergence", {"paths=20:30, 12:30", "uniform_cost=30"})),
                      "slowdown"), 2);
}

// Inputs each in range can combine past what an answer states: refused, never printed as inf, nan
// or a count wrapped through a 64-bit cast. Hand values: 1e15 / 1e-4 = 1e19 warps (> 2^53 = 9.0e15);
// 4·1e15 / (1e-10·1e-10) = 4e35; two paths of 1e308 sum to inf.
TEST(Predict, AnswersNoNumberCanStateAreRefused) {
  const auto bad_answers_message = [](const std::string& kind, const std::vector<std::string>& key_values) {
    try {
      model_answers(example_from_arguments(kind, key_values));
    } catch (const BadInput& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string m = bad_answers_message("latency_hiding", {"latency=1e15", "instructions=1e-4", "warp_cap=64"});
  EXPECT_NE(m.find("at most 2^53"), std::string::npos) << m;
  // The keys the user wrote are named with their values, not only the model's symbols (L/W).
  EXPECT_NE(m.find("(instructions = 0.0001, latency = 1e+15, warp_cap = 64)"), std::string::npos) << m;
  m = bad_answers_message("scheduler_demand", {"schedulers=4", "latency=1e15", "issue_interval=1e-10",
                                                 "instructions_per_warp=1e-10", "warp_cap=64"});
  EXPECT_NE(m.find("at most 2^53"), std::string::npos) << m;
  m = bad_answers_message("divergence", {"paths=20:1e308,12:1e308", "uniform_cost=30"});
  EXPECT_NE(m.find("a path cost of 1e+308"), std::string::npos) << m;
  m = bad_answers_message("grid_tail_time", {"fixed_us_tail=1e15", "fixed_us_full=1e-300", "cycles_per_fma_tail=1e-300",
                                               "cycles_per_fma_full=1e-300", "fma_per_thread=1e-300", "clock_mhz=1e5"});
  EXPECT_NE(m.find("relative_time = inf, which no answer can state"), std::string::npos) << m;
  EXPECT_NE(m.find("the inputs (clock_mhz = 100000, cycles_per_fma_full = 1e-300, "), std::string::npos) << m;
  // A launch floor over the times it comes off (8.2 and 11.0 us here) would price negative times.
  m = bad_answers_message("grid_tail_time", {"fixed_us_tail=3.2", "fixed_us_full=3.2", "cycles_per_fma_tail=1.63",
                                             "cycles_per_fma_full=2.6", "fma_per_thread=8192", "clock_mhz=1980",
                                             "floor_us=1e15"});
  EXPECT_NE(m.find("floor_us = 1e+15 is not under both times"), std::string::npos) << m;
  // Just inside: 9e15 / 1 = 9e15 warps is a count a double holds exactly.
  EXPECT_EQ(answer_of(model_answers(example_from_arguments("latency_hiding", {"latency=1e15", "instructions=0.125"})),
                      "warps_needed"), 8e15);
}

// A refused value is named as given (1000000000000001, not 1e+15), with the bound it broke.
TEST(Predict, RangeMessagesNameTheValueAsGivenAndTheBound) {
  std::string m = bad_arguments_message("grid_tail", {"threads=1000000000000001", "block_threads=1"});
  EXPECT_NE(m.find("threads = 1000000000000001 is out of range (at most 1000000000000000)"), std::string::npos) << m;
  m = bad_arguments_message("divergence", {"paths=99999999999:30", "uniform_cost=30"});
  EXPECT_NE(m.find("a path of 99999999999 lanes"), std::string::npos) << m;
  const std::vector<std::string> stream = {"sms=1", "warps_per_sm=4", "load_bytes=16", "instructions=10",
                                           "unloaded_cycles=100", "latency=500", "loaded_latency=600",
                                           "peak_gbps=1000", "issue_rate=1", "clock_mhz=1000"};
  for (const std::string cap : {"warp_cap=-5", "warp_cap=0", "warp_cap=1025", "warp_cap=1000000000000000"}) {
    auto v = stream;
    v.push_back(cap);
    EXPECT_NE(bad_arguments_message("stream_bandwidth", v).find("warp_cap = "), std::string::npos) << cap;
  }
}

// An examples file may set beyond_device, so its refusal says how; predict's command line cannot
// (it refuses the key), so its refusal of the same block offers no such way out.
TEST(ExamplesBadInput, OnlyAFileIsToldOfBeyondDevice) {
  const std::string file = bad_message(std::string(kHeader) + "kind = \"block_shape\"\nblock = [2000, 1, 1]\nanswer = { warps = 63 }\n");
  EXPECT_NE(file.find("beyond_device = true"), std::string::npos) << file;
  const std::string cli = bad_arguments_message("block_shape", {"block=2000,1,1"});
  EXPECT_NE(cli.find("over the device limit of 1024"), std::string::npos) << cli;
  EXPECT_NE(cli.find("(the CUDA programming model's limits)"), std::string::npos) << cli;
  EXPECT_EQ(cli.find("beyond_device"), std::string::npos) << cli;
}

// check's stated answers: a malformed answer is a malformed file (exit 2), not a disagreement.
TEST(ExamplesFile, MalformedStatedAnswersAreRefused) {
  const std::string head = std::string(kHeader) + "kind = \"block_shape\"\nblock = [48, 1, 1]\n";
  const auto refused = [&](const std::string& answer) {
    try {
      check_examples(read_examples_text(head + "answer = { " + answer + " }\n", "t.toml"));
    } catch (const BadInput& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused("warps = 1e308"), "");
  EXPECT_NE(refused("warps = nan"), "");
  EXPECT_NE(refused("warps = true"), "");
  EXPECT_NE(refused("tail_mask = \"-1\""), "");
  EXPECT_NE(refused("tail_mask = \"0xfffffffffffffffffffff\""), "");
  EXPECT_NE(refused("tail_mask = \"0x1ffffffff\""), "");
  EXPECT_EQ(refused("tail_mask = \"0x0000ffff\""), "");
  // A mask stated as a number: whole, 0..0xffffffff.
  EXPECT_NE(refused("tail_mask = -1"), "");
  EXPECT_NE(refused("tail_mask = 4294967296"), "");
  EXPECT_EQ(refused("tail_mask = 65535"), "");
  EXPECT_NE(refused("warps = 9007199254740993"), "");  // past 2^53: not a count a double holds
  const std::string map = std::string(kHeader) + "kind = \"thread_map\"\nblock = [8, 4, 3]\nlinear = 0\n";
  EXPECT_THROW(read_examples_text(map + "answer = { thread = [] }\n", "t.toml"), BadInput);
  // A stated count that is not whole shows every digit it was given.
  const auto checked = check_examples(read_examples_text(head + "answer = { warps = 2.0000001 }\n", "t.toml"));
  EXPECT_NE(check_markdown(checked).find("| warps | 2.0000001 | 2 |"), std::string::npos) << check_markdown(checked);
}

// predict reads its arguments before it looks for a GPU (a fake nvidia-smi on PATH logs each call)
// and prints nothing before the answers are known; an explicit --results must be a folder.
TEST(ExamplesCli, PredictChecksItsArgumentsBeforeLookingForAGpu) {
  TempDir tmp;
  const fs::path fake = tmp.path / "bin";
  fs::create_directories(fake);
  const fs::path log = tmp.path / "nvidia-smi.log";
  std::ofstream(fake / "nvidia-smi") << "#!/bin/sh\necho called >> " << log.string() << "\necho 'NVIDIA H200'\n";
  fs::permissions(fake / "nvidia-smi", fs::perms::owner_all);
  const std::string cmd = "PATH=" + fake.string() + ":$PATH " + std::string(WARPCOST_EXAMPLES_BIN) +
                          " predict stream_bandwidth warps_per_sm=abc > " + (tmp.path / "o.txt").string() + " 2> " +
                          (tmp.path / "o.err").string();
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2);
  EXPECT_FALSE(fs::exists(log)) << "nvidia-smi was called before the arguments were read";
  EXPECT_EQ(slurp((tmp.path / "o.txt").string()), "");
  EXPECT_NE(slurp((tmp.path / "o.err").string()).find("'warps_per_sm=abc'"), std::string::npos);
  EXPECT_EQ(run_tool("predict grid_tail threads=100 block_threads=32 --gpu nvidia-h200 --results " +
                         (tmp.path / "missing").string(), tmp.path / "r.txt"), 2);
  EXPECT_EQ(slurp((tmp.path / "r.txt").string()), "");
  EXPECT_NE(slurp((tmp.path / "r.txt.err").string()).find("does not exist"), std::string::npos);
  // A key the run would have filled names why the run did not fill it.
  EXPECT_EQ(run_tool("predict stream_bandwidth warps_per_sm=16 load_bytes=16 instructions=4 unloaded_cycles=900 "
                     "--gpu nosuchgpu --results " + tmp.path.string(), tmp.path / "g.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "g.txt.err").string()).find("GPU parameters: none from a run"), std::string::npos)
      << slurp((tmp.path / "g.txt.err").string());
  // The usage names every kind.
  EXPECT_EQ(run_tool("predict", tmp.path / "u.txt"), 2);
  const std::string usage = slurp((tmp.path / "u.txt.err").string());
  for (const auto& k : kinds()) EXPECT_NE(usage.find(k.name), std::string::npos) << k.name;
}

// check on a folder says so.
TEST(ExamplesCli, CheckOnAFolderSaysItIsAFolder) {
  TempDir tmp;
  EXPECT_EQ(run_tool("check " + tmp.path.string(), tmp.path / "d.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "d.txt.err").string()).find("is a folder"), std::string::npos);
  // A device never ends: refused at once (it read /dev/zero until memory ran out).
  EXPECT_EQ(run_tool("check /dev/zero", tmp.path / "z.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "z.txt.err").string()).find("/dev/zero: is not a regular file"), std::string::npos);
  // Nor a file past 16 MiB (sparse: no disk is used).
  const fs::path big = tmp.path / "big.toml";
  { std::ofstream(big) << "#"; }
  fs::resize_file(big, (16u << 20) + 1);
  EXPECT_EQ(run_tool("check " + big.string(), tmp.path / "s.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "s.txt.err").string()).find("allowed: a TOML examples file of at most 16 MiB"),
            std::string::npos);
}

// ---- predict's measured value, from fixture runs cut from real runs -----------------------------

struct FixtureResults {
  TempDir tmp;
  FixtureResults() {
    const std::vector<std::pair<std::string, std::string>> runs = {
        {std::string(WARPCOST_SOURCE) + "/tests/fixtures/divergence.json", "fixture-h200/20260104T000000Z-div"},
        {std::string(WARPCOST_SOURCE) + "/tests/coalescing/fixtures/coalescing-h200.json", "fixture-h200/20260103T000000Z-co"},
        {std::string(WARPCOST_SOURCE) + "/tests/fixtures/partial_warp.json", "fixture-h200/20260102T000000Z-pw"}};
    for (const auto& [from, to] : runs) {
      fs::create_directories(tmp.path / to);
      fs::copy_file(from, tmp.path / to / "bench.json");
    }
  }
};

TEST(PredictMeasured, DivergenceSplitFromTheNewestRunThatMeasuredIt) {
  FixtureResults r;
  std::string why;
  const auto m = measured_values(example_from_arguments("divergence", {"paths=20:30,12:30", "uniform_cost=30"}),
                                 r.tmp.path, "fixture-h200", why);
  ASSERT_EQ(m.size(), 1u) << why;
  EXPECT_EQ(m[0].answer, "slowdown");
  EXPECT_NEAR(m[0].value, 2.0, 0.04);  // two equal bodies: twice the uniform warp, within the family's 2 %
  EXPECT_NE(m[0].run_id.find("20260104"), std::string::npos);
}

TEST(PredictMeasured, CoalescingAndBlockShape) {
  FixtureResults r;
  std::string why;
  const auto c = measured_values(example_from_arguments("coalescing", {"elem_bytes=4", "stride=1"}), r.tmp.path,
                                 "fixture-h200", why);
  ASSERT_EQ(c.size(), 1u) << why;
  EXPECT_DOUBLE_EQ(c[0].value, 4);  // 128 B of a warp = 4 sectors, counted by the GPU
  const auto b = measured_values(example_from_arguments("block_shape", {"block=48,4,1"}), r.tmp.path, "fixture-h200", why);
  ASSERT_FALSE(b.empty()) << why;
  EXPECT_EQ(b[0].answer, "warps");
  EXPECT_DOUBLE_EQ(b[0].value, 6);  // 192 threads
}

TEST(PredictMeasured, NoRunOfTheGpuSaysSo) {
  FixtureResults r;
  std::string why;
  EXPECT_TRUE(measured_values(example_from_arguments("block_shape", {"block=48,4,1"}), r.tmp.path, "other-gpu", why).empty());
  EXPECT_NE(why.find("no run of 'other-gpu'"), std::string::npos) << why;
  EXPECT_TRUE(measured_values(example_from_arguments("warp_primitive", {"primitive=any_sync"}), r.tmp.path, "fixture-h200", why).empty());
  EXPECT_NE(why.find("warp_primitives"), std::string::npos) << why;
}

}  // namespace
}  // namespace warpcost::examples

// ---- --measure: the plan (pure), the parsers on the runners' real output, and the verdicts with
// planted faults. The GPU itself runs in the GPU round (scripts/gpu-round-examples.sh).
namespace warpcost::examples {
namespace {

std::string fixture(const std::string& name) { return slurp(std::string(WARPCOST_SOURCE) + "/tests/check/fixtures/" + name); }

Example one_example(const std::string& body) {
  return read_examples_text(std::string(kHeader) + body, "m.toml").front();
}

// A transcribed report re-dressed as the report of the planned call (its arguments; W and warps):
// the judge takes only a report of the call it planned.
std::string diverge_as(const std::string& json, const std::vector<std::string>& args) {
  reports::DivergeReport d = reports::diverge_from_json(json);
  d.args = args;
  return reports::to_json(d);
}
// `counters`: what a call planned with --counters reports where the machine gives none ("not
// asked" for the 1-warp call, which asks for none).
std::string stream_as(const std::string& json, int w, int warps_per_sm, bool run_time,
                      const std::string& counters = "unavailable: no counters in this test") {
  reports::StreamReadReport r = reports::stream_read_from_json(json);
  r.alu_per_load = w;
  r.warps_per_sm = warps_per_sm;
  r.run_time_alu = run_time;
  r.counters = counters;
  return reports::to_json(r);
}

std::string replace_all_once(std::string text, const std::string& from, const std::string& to) {
  return replace_once(std::move(text), from, to);
}

TEST(MeasurePlan, EachKindRunsItsFamilysRunnerOrSaysWhy) {
  const auto block = plan_measure(one_example("kind = \"block_shape\"\nblock = [100]\nanswer = { warps = 4 }\n"));
  ASSERT_EQ(block.calls.size(), 1u);
  EXPECT_EQ(block.calls[0].runner, "warpcost-record");
  EXPECT_EQ(block.calls[0].args, (std::vector<std::string>{"100", "1", "1", "--json"}));
  // Ex 7: 20 lanes on an if of 30, 12 on an else of 30: equal bodies of 384 trips a side.
  const auto split = plan_measure(one_example(
      "kind = \"divergence\"\npaths = [{ lanes = 20, cost = 30 }, { lanes = 12, cost = 30 }]\nuniform_cost = 30\nanswer = { slowdown = 2 }\n"));
  ASSERT_EQ(split.calls.size(), 1u);
  EXPECT_EQ(split.calls[0].args, (std::vector<std::string>{"--split", "20", "--if", "384", "--else", "384", "--json"}));
  // An else body half the if's: 192 trips.
  const auto half = plan_measure(one_example(
      "kind = \"divergence\"\npaths = [{ lanes = 8, cost = 40 }, { lanes = 24, cost = 20 }]\nuniform_cost = 40\nanswer = { slowdown = 1.5 }\n"));
  ASSERT_EQ(half.calls.size(), 1u);
  EXPECT_EQ(half.calls[0].args[5], "192");
  const auto sw = plan_measure(one_example(
      "kind = \"divergence\"\nshape = \"switch\"\npaths = [{ lanes = 10, cost = 40 }, { lanes = 12, cost = 20 }, { lanes = 10, cost = 20 }]\n"
      "uniform_cost = 40\nanswer = { slowdown = 2 }\n"));
  // C2: cases of their own lanes, trips 384·cost/40 (warpcost-diverge --cases).
  ASSERT_EQ(sw.calls.size(), 1u) << sw.why_not;
  EXPECT_EQ(sw.calls[0].args, (std::vector<std::string>{"--cases", "10:384,12:192,10:192", "--json"}));
  const auto short_warp = plan_measure(one_example(
      "kind = \"divergence\"\nshape = \"switch\"\npaths = [{ lanes = 10, cost = 40 }, { lanes = 12, cost = 20 }]\n"
      "uniform_cost = 40\nanswer = { slowdown = 1.5 }\n"));
  EXPECT_TRUE(short_warp.calls.empty());
  EXPECT_NE(short_warp.why_not.find("this example: 22"), std::string::npos) << short_warp.why_not;
  const auto thirds = plan_measure(one_example(
      "kind = \"divergence\"\nshape = \"switch\"\npaths = [{ lanes = 16, cost = 30 }, { lanes = 16, cost = 7 }]\n"
      "uniform_cost = 30\nanswer = { slowdown = 1.2333 }\n"));
  EXPECT_TRUE(thirds.calls.empty());
  EXPECT_NE(thirds.why_not.find("whole trips of 384"), std::string::npos) << thirds.why_not;
  const auto nested = plan_measure(one_example(
      "kind = \"divergence\"\nshape = \"nested\"\npaths = [{ lanes = 16, cost = 40 }, { lanes = 16, cost = 20 }]\n"
      "uniform_cost = 40\nanswer = { slowdown = 1.5 }\n"));
  EXPECT_TRUE(nested.calls.empty());
  EXPECT_NE(nested.why_not.find("equal bodies on every leaf"), std::string::npos) << nested.why_not;
  // Ex 6 and Ex 10: over the cap.
  const auto ex6 = plan_measure(one_example("kind = \"latency_hiding\"\nlatency = 400\ninstructions = 1\nwarp_cap = 64\nanswer = { warps_needed = 400 }\n"));
  EXPECT_TRUE(ex6.calls.empty());
  EXPECT_NE(ex6.why_not.find("over the cap of 64"), std::string::npos) << ex6.why_not;
  const auto big = plan_measure(one_example("kind = \"block_shape\"\nbeyond_device = true\nblock = [2000]\nanswer = { warps = 63 }\n"));
  EXPECT_TRUE(big.calls.empty());
  EXPECT_NE(big.why_not.find("no GPU runs it"), std::string::npos);
  const auto co = plan_measure(one_example("kind = \"coalescing\"\nelem_bytes = 4\nstride = 2\nanswer = { useful_fraction = 0.5 }\n"));
  ASSERT_EQ(co.calls.size(), 4u);  // the point and the 4, 8, 16 B stride-1 references
  EXPECT_EQ(co.calls[0].args, (std::vector<std::string>{"stride", "--bytes", "4", "--stride", "2", "--offset", "0", "--json"}));
  // C3: the author's block, image and element size; a partial block of 4-byte elements; not of 2.
  const auto tile = plan_measure(one_example(
      "kind = \"coalescing\"\nelem_bytes = 2\nblock = [24, 24]\nimage = [1920, 1080]\nanswer = { useful_fraction = 0.667 }\n"));
  ASSERT_EQ(tile.calls.size(), 4u) << tile.why_not;
  EXPECT_EQ(tile.calls[0].args, (std::vector<std::string>{"block", "--x", "24", "--y", "24", "--bytes", "2", "--width",
                                                          "1920", "--height", "1080", "--json"}));
  EXPECT_EQ(tile.calls[3].args, (std::vector<std::string>{"stride", "--bytes", "16", "--stride", "1", "--offset", "0", "--json"}));
  // 16384 x 16384 of 16 B: a frame of 4 GiB, 8 of them in flight, past the family's 2 GiB buffer; the
  // plan says so before any GPU is booked (the runner would refuse it the same way).
  const auto huge = plan_measure(one_example(
      "kind = \"coalescing\"\nelem_bytes = 16\nblock = [16, 16]\nimage = [16384, 16384]\nanswer = { useful_fraction = 1 }\n"));
  EXPECT_TRUE(huge.calls.empty());
  EXPECT_NE(huge.why_not.find("warpcost-coalesce block refuses this image: image 16384x16384 of 16-byte elements"),
            std::string::npos) << huge.why_not;
  const auto part = plan_measure(one_example("kind = \"coalescing\"\nelem_bytes = 4\nblock_threads = 48\nanswer = { useful_fraction = 0.75 }\n"));
  ASSERT_EQ(part.calls.size(), 4u) << part.why_not;
  EXPECT_EQ(part.calls[0].args, (std::vector<std::string>{"partial", "--block-threads", "48", "--json"}));
  const auto part2 = plan_measure(one_example("kind = \"coalescing\"\nelem_bytes = 2\nblock_threads = 48\nanswer = { useful_fraction = 0.75 }\n"));
  EXPECT_TRUE(part2.calls.empty());
  EXPECT_NE(part2.why_not.find("reads 4-byte elements"), std::string::npos) << part2.why_not;
  const auto any = plan_measure(one_example("kind = \"warp_primitive\"\nprimitive = \"any_sync\"\nactive_lanes = 5\nanswer = { cost_vs_full_warp = 1 }\n"));
  ASSERT_EQ(any.calls.size(), 2u);  // at the example's lanes and at the full warp
  EXPECT_EQ(any.calls[0].runner, "warpcost-primitives");
  EXPECT_EQ(any.calls[0].args, (std::vector<std::string>{"latency", "--primitive", "any", "--lanes", "5", "--json"}));
  EXPECT_EQ(any.calls[1].args, (std::vector<std::string>{"latency", "--primitive", "any", "--lanes", "32", "--json"}));
}

// The JSON reports (core/point_reports.hpp) of real H200 runs, transcribed from their console
// (tests/check/fixtures/make_json_fixtures.py): 209869/104969 = 1.99934, 841735/105891 = 7.94908,
// 512 MiB in 456.4 us = 1.17631 TB/s.
TEST(MeasureParse, RealRunnerReports) {
  const RecordReport r = parse_record(fixture("record-100.json"));
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.gates_passed);
  EXPECT_EQ(r.lanes, (std::vector<int>{32, 32, 32, 4}));
  EXPECT_EQ(r.masks.back(), 0xfu);
  EXPECT_NEAR(reports::diverge_from_json(fixture("diverge-split-20.json")).warp_slowdown(), 1.99934, 1e-5);
  EXPECT_NEAR(reports::diverge_from_json(fixture("diverge-paths-8.json")).warp_slowdown(), 7.94908, 1e-5);
  const reports::StreamReadReport st = reports::stream_read_from_json(fixture("stream-read-8-alu-16.json"));
  EXPECT_NEAR(st.bytes_per_s(), 1.17631e12, 1e7);
  EXPECT_EQ(st.loaded_latency_cycles, 765);
  EXPECT_EQ(st.warps_per_sm, 8);
  EXPECT_FALSE(st.run_time_alu);
  const RecordReport t = parse_record(fixture("record-48-4-1-threads.json"));
  ASSERT_EQ(t.thread_xyz.size(), 192u);
  EXPECT_EQ(t.thread_xyz[70], (std::vector<long long>{22, 1, 0}));  // 70 = 1·48 + 22
  EXPECT_EQ(t.thread_lane[70], 6);
  EXPECT_EQ(t.lanes.size(), 6u);  // the thread rows are not warp rows
}

TEST(MeasureJudge, RecordedBlockPassesAndAPlantedLaneFails) {
  const Example ex = one_example("kind = \"block_shape\"\nblock = [100]\nanswer = { warps = 4, wasted_lanes = 28 }\n");
  const auto plan = plan_measure(ex);
  auto rows = judge_measurement(ex, plan, {fixture("record-100.json")});
  for (const auto& r : rows) {
    EXPECT_EQ(r.row_kind, "check");
    EXPECT_EQ(r.verdict, "passes") << r.answer;
  }
  // Plant: the tail warp reports 5 lanes and mask 0x1f.
  rows = judge_measurement(ex, plan, {replace_all_once(fixture("record-100.json"), "\"lanes\": 4,\n      \"mask\": 15,",
                                                       "\"lanes\": 5,\n      \"mask\": 31,")});
  int fails = 0;
  for (const auto& r : rows) fails += r.verdict == "fails" ? 1 : 0;
  EXPECT_GE(fails, 3);  // tail lanes, wasted lanes, tail mask, threads, efficiency
}

TEST(MeasureJudge, DivergenceHoldsWithinTheFamilysRuleAndAPlantedSlowdownFails) {
  const Example ex = one_example(
      "kind = \"divergence\"\npaths = [{ lanes = 20, cost = 30 }, { lanes = 12, cost = 30 }]\nuniform_cost = 30\nanswer = { slowdown = 2 }\n");
  const auto plan = plan_measure(ex);
  const std::string split20 = diverge_as(fixture("diverge-split-20.json"), {"--split", "20", "--if", "384", "--else", "384"});
  auto rows = judge_measurement(ex, plan, {split20});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].verdict, "holds");  // 1.99934 against 2: 0.03 % off, within 2 %
  EXPECT_EQ(rows[0].stated, "2");
  // The second-order row: the runner's measured-path model, 2.000x, against the same 1.999x.
  EXPECT_EQ(rows[1].answer, "second_order_slowdown");
  EXPECT_EQ(rows[1].model, "2");
  EXPECT_EQ(rows[1].verdict, "holds");
  EXPECT_EQ(rows[1].note.rfind("second-order:", 0), 0u) << rows[1].note;
  // Planted: 199441 warp cycles, 1.90x (5 % off both models).
  rows = judge_measurement(ex, plan, {replace_all_once(split20, "\"warp_cycles\": 209869.0",
                                                       "\"warp_cycles\": 199441.0")});
  EXPECT_EQ(rows[0].verdict, "fails");
  EXPECT_EQ(rows[1].verdict, "fails");
  // A planted measured-path model (2.1x) fails the second-order row alone.
  rows = judge_measurement(ex, plan, {replace_all_once(split20, "\"model_slowdown\": 2.0",
                                                       "\"model_slowdown\": 2.1")});
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_EQ(rows[1].verdict, "fails");
}

// C2 through warpcost-diverge --cases: the textbook (40 + 20 + 20)/40 = 2 and the measured-path
// model, both by the k-way rule (3 %). The output is the runner's format with hand-set numbers:
// 2.050x is 2.5 % off 2 (holds), 2.080x 4 % (fails).
TEST(MeasureJudge, AnUnequalSwitchIsJudgedByBothModelsWithTheKWayRule) {
  const Example ex = one_example(
      "kind = \"divergence\"\nshape = \"switch\"\npaths = [{ lanes = 10, cost = 40 }, { lanes = 12, cost = 20 }, { lanes = 10, cost = 20 }]\n"
      "uniform_cost = 40\nanswer = { slowdown = 3 }\n");
  const auto plan = plan_measure(ex);
  // warpcost-diverge --cases's report with hand-set cycles: 215190/104971 = 2.050, model 2.010.
  const std::string out = diverge_as(replace_all_once(
      replace_all_once(replace_all_once(replace_all_once(fixture("diverge-split-20.json"), "\"shape\": \"if_else\"",
                                                         "\"shape\": \"switch_cases\""),
                                        "\"warp_cycles\": 209869.0", "\"warp_cycles\": 215190.0"),
                       "\"reference_warp_cycles\": 104969.0", "\"reference_warp_cycles\": 104971.0"),
      "\"model_slowdown\": 2.0", "\"model_slowdown\": 2.01"), {"--cases", "10:384,12:192,10:192"});
  auto rows = judge_measurement(ex, plan, {out});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].stated, "3");
  EXPECT_EQ(rows[0].model, "2");
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_NE(rows[0].note.find("within 3 %"), std::string::npos) << rows[0].note;
  EXPECT_EQ(rows[1].verdict, "holds");  // 2.050 / 2.010 = 1.0199
  // 218339/104971 = 2.080: 4 % off 2, and 2.080/2.010 = 1.0348, 3.5 % over 3 %.
  rows = judge_measurement(ex, plan, {replace_all_once(out, "\"warp_cycles\": 215190.0", "\"warp_cycles\": 218339.0")});
  EXPECT_EQ(rows[0].verdict, "fails");
  EXPECT_EQ(rows[1].verdict, "fails");
  // A planted measured-path model of 2.09: 2.050/2.09 = 0.981, holds; 2.2: 0.932, fails alone.
  rows = judge_measurement(ex, plan, {replace_all_once(out, "\"model_slowdown\": 2.01", "\"model_slowdown\": 2.09")});
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_EQ(rows[1].verdict, "holds");
  rows = judge_measurement(ex, plan, {replace_all_once(out, "\"model_slowdown\": 2.01", "\"model_slowdown\": 2.2")});
  EXPECT_EQ(rows[0].verdict, "holds");
  EXPECT_EQ(rows[1].verdict, "fails");
}

// A coalescing report as warpcost-coalesce --json writes it, with a hand-set useful rate (TB/s).
std::string coalesce_report(const std::string& bench, std::vector<std::string> names, std::vector<long long> values,
                            int elem_bytes, int width, int height, double tb_per_s) {
  reports::CoalesceReport c;
  c.gpu = {"NVIDIA H200", 132, 9, 0};
  c.benchmark = bench;
  c.arg_names = std::move(names);
  c.arg_values = std::move(values);
  c.elem_bytes = elem_bytes;
  c.image_width = width;
  c.image_height = height;
  c.useful_bytes = 420000000;
  c.median_seconds = 420000000.0 / (tb_per_s * 1e12);
  return reports::to_json(c);
}
std::string stride1(int bytes, double tb_per_s) {
  return coalesce_report("load_dram", {"elem_bytes", "stride", "offset"}, {bytes, 1, 0}, bytes, 0, 0, tb_per_s);
}

// C3: a (24,24) tile over 1920x1080 2-byte pixels, useful fraction 64/96 = 0.6667 by the sector
// model. Against the best stride-1 load (8 B at 4.2 TB/s, beside 4.0 and 4.1): 2.8 TB/s reads
// 0.6667 (holds), 2.6 reads 0.6190 (7.1 % off, holds within 10 %), 2.3 reads 0.5476 (17.9 %, fails).
TEST(MeasureJudge, CoalescingUsefulFractionHoldsAndAPlantedRateFails) {
  const Example ex = one_example(
      "kind = \"coalescing\"\nelem_bytes = 2\nblock = [24, 24]\nimage = [1920, 1080]\nanswer = { useful_fraction = 0.667 }\n");
  const auto plan = plan_measure(ex);
  auto tile = [](double tb) { return coalesce_report("block_2d", {"x", "y"}, {24, 24}, 2, 1920, 1080, tb); };
  const std::vector<std::string> refs = {stride1(4, 4.0), stride1(8, 4.2), stride1(16, 4.1)};
  auto judged = [&](double tb) {
    const auto rows = judge_measurement(ex, plan, {tile(tb), refs[0], refs[1], refs[2]});
    EXPECT_EQ(rows.size(), 2u);  // the sector model's row, then the second-order one (info: no parameter run)
    EXPECT_EQ(rows.at(1).row_kind, "info");
    return rows.at(0);
  };
  const MeasuredAnswer held = judged(2.8);
  EXPECT_NEAR(held.gpu, 2.8 / 4.2, 1e-9);  // the best of the three references
  EXPECT_EQ(held.verdict, "holds");
  EXPECT_EQ(judged(2.6).verdict, "holds");
  EXPECT_EQ(judged(2.3).verdict, "fails");
  // Reports of another point than planned are errors naming the example: a 4-byte stride-1 load in
  // the tile's place, the tile at 4-byte pixels, a reference at stride 2.
  EXPECT_THROW(judge_measurement(ex, plan, {stride1(4, 2.8), refs[0], refs[1], refs[2]}), std::runtime_error);
  EXPECT_THROW(judge_measurement(ex, plan, {coalesce_report("block_2d", {"x", "y"}, {24, 24}, 4, 1920, 1080, 2.8),
                                            refs[0], refs[1], refs[2]}),
               std::runtime_error);
  EXPECT_THROW(judge_measurement(ex, plan, {tile(2.8), refs[0],
                                            coalesce_report("load_dram", {"elem_bytes", "stride", "offset"}, {8, 2, 0},
                                                            8, 0, 0, 4.2),
                                            refs[2]}),
               std::runtime_error);
  // C8: a float4 load at stride 2 (0.5), against the same references: 2.0 TB/s reads 0.476 (holds).
  const Example c8 = one_example("kind = \"coalescing\"\nelem_bytes = 16\nstride = 2\nanswer = { useful_fraction = 0.5 }\n");
  const std::string strided = coalesce_report("load_dram", {"elem_bytes", "stride", "offset"}, {16, 2, 0}, 16, 0, 0, 2.0);
  EXPECT_EQ(judge_measurement(c8, plan_measure(c8), {strided, refs[0], refs[1], refs[2]}).at(0).verdict, "holds");
}

// C2 and the primitives and the recorder: a report of another configuration is an error.
TEST(MeasureJudge, AReportOfAnotherConfigurationThanPlannedIsAnError) {
  const Example c2 = one_example(
      "kind = \"divergence\"\nshape = \"switch\"\npaths = [{ lanes = 10, cost = 40 }, { lanes = 12, cost = 20 }, { lanes = 10, cost = 20 }]\n"
      "uniform_cost = 40\nanswer = { slowdown = 3 }\n");
  const std::string cases = replace_once(fixture("diverge-split-20.json"), "\"shape\": \"if_else\"", "\"shape\": \"switch_cases\"");
  try {
    judge_measurement(c2, plan_measure(c2), {diverge_as(cases, {"--cases", "16:384,16:384"})});
    ADD_FAILURE() << "a report of --cases 16:384,16:384 was judged as C2's";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("X1: warpcost-diverge reported `--cases 16:384,16:384`, not the planned"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(judge_measurement(c2, plan_measure(c2), {diverge_as(cases, {"--cases", "10:384,12:192,10:192"})}));
  const Example block = one_example("kind = \"block_shape\"\nblock = [48, 4]\nanswer = { warps = 6 }\n");
  EXPECT_NO_THROW(judge_measurement(block, plan_measure(block), {fixture("record-48-4-1-threads.json")}));
  const Example other = one_example("kind = \"block_shape\"\nblock = [100]\nanswer = { warps = 4 }\n");
  EXPECT_THROW(judge_measurement(other, plan_measure(other), {fixture("record-48-4-1-threads.json")}), std::runtime_error);
}

TEST(MeasureJudge, ThreadMapFromTheRecordedThreads) {
  const Example ex = one_example("kind = \"thread_map\"\nblock = [48, 4]\nlinear = 70\nanswer = { thread = [22, 1, 0], lane = 6 }\n");
  auto rows = judge_measurement(ex, plan_measure(ex), {fixture("record-48-4-1-threads.json")});
  int judged = 0;
  for (const auto& r : rows) {
    if (r.answer == "thread" || r.answer == "lane") {
      ++judged;
      EXPECT_EQ(r.verdict, "passes") << r.answer;
    }
  }
  EXPECT_EQ(judged, 2);
  rows = judge_measurement(ex, plan_measure(ex),
                           {replace_all_once(fixture("record-48-4-1-threads.json"), "\"lane\": 6,\n      \"mask\": 4294967295,\n      \"slot\": 70,",
                                             "\"lane\": 7,\n      \"mask\": 4294967295,\n      \"slot\": 70,")});
  bool lane_judged = false;
  for (const auto& r : rows) {
    if (r.answer != "lane") continue;
    lane_judged = true;
    EXPECT_EQ(r.verdict, "fails");
  }
  EXPECT_TRUE(lane_judged);
}

TEST(MeasureJudge, NotMeasuredSaysWhyAndTheCsvHasTheFixedColumns) {
  const Example ex = one_example("kind = \"block_shape\"\nbeyond_device = true\nblock = [2000]\nanswer = { warps = 63 }\n");
  const auto rows = judge_measurement(ex, plan_measure(ex), {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "not measured");
  const std::string csv = measured_csv(rows, "gpu/run", "2026-12-01T00:00:00Z", "GPU", "abc");
  EXPECT_EQ(csv.rfind("schema_version,run_id,utc,gpu,", 0), 0u);
  EXPECT_NE(csv.find(",examples,block_shape,example=X1,not_measured,"), std::string::npos) << csv;
  EXPECT_NE(measured_markdown(rows, "GPU").find("| X1 | — | — | — | — | info | not measured |"), std::string::npos);
}

}  // namespace
}  // namespace warpcost::examples

namespace warpcost::examples {
namespace {

TEST(MeasurePlan, AnElseNoLaneTakesIsHeldAgainstAnEmptyElse) {
  // Ex 8: all 32 lanes on an if of 30, none on an else of 30.
  const Example ex = one_example(
      "kind = \"divergence\"\npaths = [{ lanes = 32, cost = 30 }, { lanes = 0, cost = 30 }]\nuniform_cost = 30\nanswer = { slowdown = 1 }\n");
  const auto plan = plan_measure(ex);
  ASSERT_EQ(plan.calls.size(), 2u);
  EXPECT_EQ(plan.calls[1].args, (std::vector<std::string>{"--split", "32", "--if", "384", "--else", "0", "--json"}));
  // The real 20/12 report's own cycles stand in for both runs: 209869 against 104969 cycles.
  const std::vector<std::string> first = {"--split", "32", "--if", "384", "--else", "384"};
  const std::vector<std::string> empty_else = {"--split", "32", "--if", "384", "--else", "0"};
  const std::string both = diverge_as(fixture("diverge-split-20.json"), first);
  const std::string uniform = replace_once(both, "\"warp_cycles\": 209869.0", "\"warp_cycles\": 104969.0");
  auto rows = judge_measurement(ex, plan, {uniform, diverge_as(uniform, empty_else)});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "holds");  // equal cycles: 1x
  // The two reports in the wrong order (the empty else first) are not the planned calls.
  EXPECT_THROW(judge_measurement(ex, plan, {diverge_as(uniform, empty_else), uniform}), std::runtime_error);
  rows = judge_measurement(ex, plan, {both, diverge_as(uniform, empty_else)});
  EXPECT_EQ(rows[0].verdict, "fails");  // the unpopulated else cost its body: 2x
  EXPECT_DOUBLE_EQ(reports::diverge_from_json(both).warp_cycles, 209869);
}

TEST(SummaryTable, TheNewestMeasuredPageBesideTheRunsVerbatim) {
  TempDir tmp;
  const fs::path run_dir = tmp.path / "fixture-h200" / "20260104T000000Z-div";
  fs::create_directories(run_dir);
  fs::copy_file(std::string(WARPCOST_SOURCE) + "/tests/fixtures/divergence.json", run_dir / "bench.json");
  const analysis::EvaluatedRun er{analysis::read_run(run_dir / "bench.json"), {}};
  EXPECT_NE(analysis::worked_examples_markdown({er}).find("No measured page beside these runs yet."), std::string::npos);
  for (const char* stamp : {"20260105T000000Z", "20260106T000000Z"}) {
    const fs::path d = tmp.path / "fixture-h200" / (std::string(stamp) + analysis::kPageExamplesSuffix);
    fs::create_directories(d);
    std::ofstream(d / "examples.md") << "| Ex 7 | slowdown | 2 | 2 | 1.999 | model | holds | " << stamp << " |\n";
  }
  // The course sample's folder is not the page's.
  fs::create_directories(tmp.path / "fixture-h200" / "20260107T000000Z-examples-course-sample");
  std::ofstream(tmp.path / "fixture-h200" / "20260107T000000Z-examples-course-sample" / "examples.md") << "sample\n";
  const std::string md = analysis::worked_examples_markdown({er});
  EXPECT_NE(md.find("| Ex 7 | slowdown | 2 | 2 | 1.999 | model | holds | 20260106T000000Z |"), std::string::npos) << md;
  EXPECT_EQ(md.find("20260105T000000Z |"), std::string::npos) << md;
  EXPECT_EQ(md.find("sample"), std::string::npos) << md;
}

}  // namespace
}  // namespace warpcost::examples

// ---- warp_primitive: warpcost-primitives latency --json. The latencies below are REAL H200 output
// of the tool's console (the GPU round at 3291c0d, "warpcost-primitives examples": shfl_xor32
// 26.65 cycles an op at 32 and at 1 lane, sum_butterfly 146.29, 5 launches of 2048 ops), put in
// its report; alu_add's 5.08 is the committed run's (results/nvidia-h200/20261201T161721Z-2d0cb4e4,
// primitive=0, cycles_per_op 5.0796) as the tool rounds it: that round ran no alu_add.
namespace warpcost::examples {
namespace {

std::string latency_report(const char* primitive, int lanes, double cycles) {
  reports::PrimitiveReport r;
  r.gpu = {"NVIDIA H200", 132, 9, 0};
  r.mode = "latency";
  r.primitive = primitive;
  r.lanes = lanes;
  r.mask_a = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
  r.ops = 2048;
  r.launches = 5;
  r.warps_per_sm = 1;
  r.median = cycles;
  return reports::to_json(r);
}
const std::string kShflXor32 = latency_report("shfl_xor32", 32, 26.65);
const std::string kShflXor32OneLane = latency_report("shfl_xor32", 1, 26.65);
const std::string kSumButterfly = latency_report("sum_butterfly", 32, 146.29);
const std::string kAluAdd = latency_report("alu_add", 32, 5.08);

TEST(MeasurePrimitive, ReadsTheToolsLatencyReportAndRefusesAThroughputOne) {
  EXPECT_DOUBLE_EQ(reports::primitive_from_json(kShflXor32).median, 26.65);
  EXPECT_EQ(reports::primitive_from_json(kShflXor32OneLane).mask_a, 1u);
  // A throughput report (0.9634 warp-ops a cycle an SM at 64 warps, the same round) is no latency.
  std::string through = replace_once(kShflXor32OneLane, "\"mode\": \"latency\"", "\"mode\": \"throughput\"");
  const Example ex = one_example("kind = \"warp_primitive\"\nprimitive = \"shfl_xor_sync\"\nactive_lanes = 1\nanswer = { cost_vs_full_warp = 1 }\n");
  try {
    judge_measurement(ex, plan_measure(ex), {through, kShflXor32});
    ADD_FAILURE() << "a throughput report was read as a latency";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("reported no latency (shfl_xor32)"), std::string::npos) << e.what();
  }
  // Another tool's report is named.
  try {
    reports::primitive_from_json(fixture("diverge-split-20.json"));
    ADD_FAILURE() << "a diverge report was read as a primitive's";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not warpcost-primitives's report (tool = \"warpcost-diverge\")"), std::string::npos)
        << e.what();
  }
}

TEST(MeasurePrimitive, OneLaneCostsAsMuchAsTheWarpAndAPlanted10PercentFails) {
  const Example ex = one_example("kind = \"warp_primitive\"\nprimitive = \"shfl_xor_sync\"\nactive_lanes = 1\nanswer = { cost_vs_full_warp = 1 }\n");
  const auto plan = plan_measure(ex);
  ASSERT_EQ(plan.calls.size(), 2u);
  EXPECT_EQ(plan.calls[0].args, (std::vector<std::string>{"latency", "--primitive", "shfl_xor32", "--lanes", "1", "--json"}));
  auto rows = judge_measurement(ex, plan, {kShflXor32OneLane, kShflXor32});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].answer, "cost_vs_full_warp");
  EXPECT_EQ(rows[0].row_kind, "model");
  EXPECT_DOUBLE_EQ(rows[0].gpu, 1.0);  // 26.65 / 26.65
  EXPECT_EQ(rows[0].verdict, "holds");
  // Plant: the one-lane shuffle costs 10 % more, 29.32 cycles (26.65 x 1.1 = 29.315).
  rows = judge_measurement(ex, plan, {latency_report("shfl_xor32", 1, 29.32), kShflXor32});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "fails");
  // 1.5 % more (27.05 / 26.65 = 1.0150) is inside the family's 2 %.
  rows = judge_measurement(ex, plan, {latency_report("shfl_xor32", 1, 27.05), kShflXor32});
  EXPECT_EQ(rows[0].verdict, "holds");
}

TEST(MeasurePrimitive, ButterflyAgainstFiveShufflesAndAddsWithTheCompositionRule) {
  const Example ex = one_example(
      "kind = \"warp_primitive\"\nprimitive = \"butterfly_reduction\"\nshuffle_cycles = 24\nadd_cycles = 4\n"
      "answer = { reduction_steps = 5, reduction_cycles = 140 }\n");
  const auto plan = plan_measure(ex);
  ASSERT_EQ(plan.calls.size(), 3u);
  EXPECT_EQ(plan.calls[0].args[2], "sum_butterfly");
  EXPECT_EQ(plan.calls[1].args[2], "shfl_xor32");
  EXPECT_EQ(plan.calls[2].args[2], "alu_add");
  // 5 x (26.65 + 5.08) = 158.65; 146.29 / 158.65 = 0.9221: 7.8 % under, outside 5 % (as the
  // committed run's own composition row, 146.29 against 158.64, fails).
  auto rows = judge_measurement(ex, plan, {kSumButterfly, kShflXor32, kAluAdd});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].answer, "reduction_cycles");
  EXPECT_EQ(rows[0].stated, "140");
  EXPECT_NEAR(rows[0].model_value, 158.65, 1e-9);
  EXPECT_DOUBLE_EQ(rows[0].gpu, 146.29);
  EXPECT_EQ(rows[0].verdict, "fails");
  // 155.00 / 158.65 = 0.9770: 2.3 % under, within 5 %.
  rows = judge_measurement(ex, plan, {latency_report("sum_butterfly", 32, 155.0), kShflXor32, kAluAdd});
  EXPECT_EQ(rows[0].verdict, "holds");
  // A butterfly over 16 lanes: the tool sums whole warps only.
  const auto half = plan_measure(one_example("kind = \"warp_primitive\"\nprimitive = \"butterfly_reduction\"\nlanes = 16\nanswer = { reduction_steps = 4 }\n"));
  EXPECT_TRUE(half.calls.empty());
  EXPECT_NE(half.why_not.find("whole warp"), std::string::npos) << half.why_not;
}

TEST(MeasurePrimitive, TheReportsSwappedAreNotThePlannedCalls) {
  const Example any = one_example("kind = \"warp_primitive\"\nprimitive = \"shfl_xor_sync\"\nactive_lanes = 1\nanswer = { cost_vs_full_warp = 1 }\n");
  // 32 lanes first would invert the ratio: refused, as is another primitive's report.
  EXPECT_THROW(judge_measurement(any, plan_measure(any), {kShflXor32, kShflXor32OneLane}), std::runtime_error);
  EXPECT_THROW(judge_measurement(any, plan_measure(any), {latency_report("shfl_up32", 1, 26.0), kShflXor32}), std::runtime_error);
  EXPECT_NO_THROW(judge_measurement(any, plan_measure(any), {kShflXor32OneLane, kShflXor32}));
}

TEST(MeasurePrimitive, ActivemaskIsNotTimedAndSaysWhy) {
  const auto plan = plan_measure(one_example("kind = \"warp_primitive\"\nprimitive = \"activemask\"\nanswer = { cost_vs_full_warp = 1 }\n"));
  EXPECT_TRUE(plan.calls.empty());
  EXPECT_NE(plan.why_not.find("does not time activemask"), std::string::npos) << plan.why_not;
}

// ---- --plan and cells that stay one line ---------------------------------------------------------

// Every line of a markdown table: its cells, split at unescaped '|'.
std::vector<std::string> table_lines(const std::string& md) {
  std::vector<std::string> lines;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) == 0) lines.push_back(line);
  }
  return lines;
}
int cells_of(const std::string& line) {
  int n = 0;
  for (std::size_t i = 0; i < line.size(); ++i) n += line[i] == '|' && (i == 0 || line[i - 1] != '\\') ? 1 : 0;
  return n - 1;
}

TEST(MeasureCell, AMultiLineRefusalIsOneLineWithItsPipesEscaped) {
  EXPECT_EQ(markdown_cell("a\n  b\tc |d\n", 100), "a b c \\|d");
  // 'First sentence. ' is kept whole when the text is too long; the rest is cut with " (…)".
  const std::string usage = "warpcost-stream refuses these parameters: W = 25 ALU instructions per load. allowed (compiled): "
                            "0, 1, 2, 4, 8, 16, 32, 64, 128, 256\nusage: warpcost-stream read [--alu W]\n  --alu W   ...\n";
  EXPECT_EQ(markdown_cell(usage, 90), "warpcost-stream refuses these parameters: W = 25 ALU instructions per load (…)");
  // No sentence boundary late enough: cut at a space.
  EXPECT_EQ(markdown_cell("aaaa bbbb cccc dddd", 12), "aaaa bbbb (…)");
}

TEST(MeasureCell, AMeasuredTableWithALongMultiLineRefusalKeepsEveryRowOnOneLine) {
  MeasuredAnswer refused;
  refused.example = "C4";
  refused.kind = "latency_hiding";
  refused.row_kind = "info";
  refused.verdict = "not measured";
  refused.note = "warpcost-stream refuses these parameters: warpcost-stream: --alu 25: W = 25 ALU instructions per load; "
                 "allowed (compiled): 0, 1, 2, 4, 8, 16, 32, 64, 128, 256\nusage: warpcost-stream read [--alu W] "
                 "[--warps-per-sm N] [--bytes B]\n  --alu W  ALU | instructions between loads\n  --warps-per-sm N ...\n" +
                 std::string(600, 'x');
  MeasuredAnswer fine = refused;
  fine.example = "C5";
  fine.note = "short";
  const std::string md = measured_markdown({refused, fine}, "GPU");
  const auto lines = table_lines(md);
  ASSERT_EQ(lines.size(), 3u) << md;  // the header and one line a row
  for (const auto& l : lines) EXPECT_EQ(cells_of(l), 8) << l;
  EXPECT_NE(lines[1].find("| C4 |"), std::string::npos);
  EXPECT_NE(lines[1].find("(…) |"), std::string::npos) << lines[1];
  EXPECT_LT(lines[1].size(), 400u);
  // The CSV keeps the whole text.
  const std::string csv = measured_csv({refused}, "gpu/run", "2026-12-01T00:00:00Z", "GPU", "abc");
  EXPECT_NE(csv.find(std::string(600, 'x')), std::string::npos);
}

TEST(MeasurePlan, ThePlanOfAFileOfEveryKindNamesEachCallOrWhyNot) {
  const auto examples = read_examples_file(std::string(WARPCOST_SOURCE) + "/tests/check/fixtures/every-kind.toml");
  std::vector<MeasurePlan> plans;
  std::set<std::string> kinds;
  for (const auto& e : examples) {
    plans.push_back(plan_measure(e));
    kinds.insert(e.kind);
  }
  // Every kind the file format has (docs/worked-examples.md).
  EXPECT_EQ(kinds, (std::set<std::string>{"block_shape", "thread_map", "grid_tail", "divergence", "latency_hiding",
                                          "scheduler_demand", "coalescing", "warp_primitive", "stream_bandwidth",
                                          "stream_greedy_bandwidth", "block_stream_bandwidth", "grid_tail_time",
                                          "divergence_grid", "coalescing_bandwidth", "primitive_throughput"}));
  const std::string md = plan_markdown(examples, plans);
  const auto lines = table_lines(md);
  ASSERT_EQ(lines.size(), examples.size() + 1) << md;
  for (const auto& l : lines) EXPECT_EQ(cells_of(l), 4) << l;
  EXPECT_NE(md.find("7 of 15 examples have a runner"), std::string::npos) << md;
  // K7, a 2D tile: the author's block, image and element size, against the three stride-1 loads.
  EXPECT_NE(md.find("| K7 | coalescing | `warpcost-coalesce block --x 32 --y 8 --bytes 4 --width 64 --height 16 --json; "
                    "warpcost-coalesce stride --bytes 4 --stride 1 --offset 0 --json;"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| K3 | grid_tail | `warpcost-record --grid 1000 256 --json` | yes |"), std::string::npos) << md;
  EXPECT_NE(md.find("| K1 | block_shape | `warpcost-record 100 1 1 --json` | yes |"), std::string::npos) << md;
  EXPECT_NE(md.find("| K4 | divergence | `warpcost-diverge --leaves 4 --trips 384 --json` | yes |"), std::string::npos) << md;
  EXPECT_NE(md.find("| K8 | warp_primitive | `warpcost-primitives latency --primitive shfl_idx32 --lanes 1 --json; "
                    "warpcost-primitives latency --primitive shfl_idx32 --lanes 32 --json` | yes |"),
            std::string::npos) << md;
  // W = 25 has no unrolled kernel: warpcost-stream runs its run-time one. L = 500: ceil(500/25) = 20.
  EXPECT_NE(md.find("| K5 | latency_hiding | `warpcost-stream read --alu 25 --warps-per-sm 20 --counters --json; "
                    "warpcost-stream read --alu 25 --warps-per-sm 64 --counters --json; warpcost-stream read --alu 25 "
                    "--warps-per-sm 1 --json` | yes |"),
            std::string::npos) << md;
  const auto huge_w = plan_measure(one_example("kind = \"latency_hiding\"\nlatency = 50000\ninstructions = 5000\nwarp_cap = 64\nanswer = { warps_needed = 10 }\n"));
  EXPECT_TRUE(huge_w.calls.empty());
  EXPECT_NE(huge_w.why_not.find("W = 5000: warpcost-stream's run-time kernel takes W up to 4096"), std::string::npos) << huge_w.why_not;
  EXPECT_NE(md.find("| K6 | scheduler_demand | — | not measured: the model needs 200 warps a SM, over the cap of 64"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| K14 | block_stream_bandwidth | — | not measured: a second-order model from stated parameters"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| K15 | stream_greedy_bandwidth | — | not measured: a second-order model from stated parameters"),
            std::string::npos) << md;
  // A compiled W is planned at the model's warps and at the cap: L = 500, W = 16 -> ceil(500/16) = 32.
  const auto w16 = plan_measure(one_example("kind = \"latency_hiding\"\nlatency = 500\ninstructions = 16\nwarp_cap = 64\nanswer = { warps_needed = 32 }\n"));
  // Each counted once (I an iteration, FFMAs a load), and at 1 warp/SM for the second-order T0.
  ASSERT_EQ(w16.calls.size(), 3u);
  EXPECT_EQ(w16.calls[0].args, (std::vector<std::string>{"read", "--alu", "16", "--warps-per-sm", "32", "--counters", "--json"}));
  EXPECT_EQ(w16.calls[1].args, (std::vector<std::string>{"read", "--alu", "16", "--warps-per-sm", "64", "--counters", "--json"}));
  EXPECT_EQ(w16.calls[2].args, (std::vector<std::string>{"read", "--alu", "16", "--warps-per-sm", "1", "--json"}));
}

TEST(ExamplesCli, PlanNeedsNoGpuAndGoesWithoutMeasure) {
  TempDir tmp;
  EXPECT_EQ(run_tool("check " + std::string(WARPCOST_SOURCE) + "/tests/check/fixtures/every-kind.toml --plan",
                     tmp.path / "plan.txt"), 0);
  const std::string out = slurp((tmp.path / "plan.txt").string());
  EXPECT_NE(out.find("15 of 15 stated answers agree"), std::string::npos) << out;
  EXPECT_NE(out.find("What `--measure` would run: 7 of 15"), std::string::npos) << out;
  EXPECT_EQ(run_tool("check " + kPageFile + " --plan --measure --bench-dir x", tmp.path / "both.txt"), 2);
  EXPECT_NE(slurp((tmp.path / "both.txt.err").string()).find("give one of them"), std::string::npos);
}


// ---- the grid tail's runner (warpcost-record --grid --json) and a latency at the GPU's own cap ----

TEST(MeasureGrid, PlansTheRecorderAndRefusesAnNItCannotHold) {
  const auto p = plan_measure(one_example("kind = \"grid_tail\"\nthreads = 5000\nblock_threads = 192\nanswer = { blocks = 27 }\n"));
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].runner, "warpcost-record");
  EXPECT_EQ(p.calls[0].args, (std::vector<std::string>{"--grid", "5000", "192", "--json"}));
  const auto big = plan_measure(one_example("kind = \"grid_tail\"\nthreads = 200000000\nblock_threads = 256\nanswer = { blocks = 781250 }\n"));
  EXPECT_TRUE(big.calls.empty());
  EXPECT_NE(big.why_not.find("at most 134217728"), std::string::npos) << big.why_not;
}

// C7 (5000 threads in blocks of 192) with times chosen for a hand calculation
// (fixtures/record-grid-hand.json): floor 1 us; fma_issue F = 2 us at both blocks, c = 0.5 ns an FMA
// at 1 warp a scheduler and 1 ns at 2; 32768 FMAs a thread. Second-order: (2 + 16.384 - 1) /
// (2 + 32.768 - 1) = 0.514807; measured (18.5 - 1) / (34.768 - 1) = 0.518242 (+0.67 %, within 2 %);
// textbook ceil(1/4) / ceil(6/4) = 0.5 (+3.65 %, within 5 %).
TEST(MeasureGrid, CountsAreChecksAndTheTailTimeIsJudgedByBothModels) {
  const Example ex = one_example("kind = \"grid_tail\"\nthreads = 5000\nblock_threads = 192\n"
                                 "answer = { blocks = 27, last_block_threads = 8 }\n");
  const auto plan = plan_measure(ex);
  const std::string json = fixture("record-grid-hand.json");
  auto rows = judge_measurement(ex, plan, {json});
  std::map<std::string, MeasuredAnswer> by;
  for (const auto& r : rows) by[r.answer] = r;
  for (const char* f : {"blocks", "last_block_threads", "last_block_full_warps", "last_block_partial_lanes",
                        "launched_warps", "working_warps", "wasted_lanes"}) {
    ASSERT_EQ(by.count(f), 1u) << f;
    EXPECT_EQ(by[f].row_kind, "check") << f;
    EXPECT_EQ(by[f].verdict, "passes") << f << ": " << by[f].note;
  }
  EXPECT_DOUBLE_EQ(by["launched_warps"].gpu, 162);
  EXPECT_DOUBLE_EQ(by["wasted_lanes"].gpu, 184);  // 32·162 − 5000
  ASSERT_EQ(by.count("last_block_time"), 1u);
  EXPECT_EQ(by["last_block_time"].row_kind, "model");
  EXPECT_NEAR(by["last_block_time"].model_value, 0.5, 1e-12);
  EXPECT_NEAR(by["last_block_time"].gpu, 0.518242, 1e-6);
  EXPECT_EQ(by["last_block_time"].verdict, "holds");
  ASSERT_EQ(by.count("second_order_last_block_time"), 1u);
  EXPECT_NEAR(by["second_order_last_block_time"].model_value, 0.514807, 1e-6);
  EXPECT_EQ(by["second_order_last_block_time"].verdict, "holds");
  EXPECT_EQ(by["second_order_last_block_time"].note.rfind("second-order:", 0), 0u);
  // Plant: the tail block took 19.5 us: 0.547856, +6.4 % off the second-order, +9.6 % off the textbook.
  rows = judge_measurement(ex, plan, {replace_once(json, "\"tail_seconds\": 1.85e-05", "\"tail_seconds\": 1.95e-05")});
  for (const auto& r : rows) {
    if (r.row_kind == "model") {
      EXPECT_EQ(r.verdict, "fails") << r.answer;
    }
  }
  // Plant: the recorder saw one warp fewer launched; a failed gate fails every count.
  rows = judge_measurement(ex, plan, {replace_once(json, "\"launched_warps\": 162", "\"launched_warps\": 161")});
  for (const auto& r : rows) {
    if (r.answer == "launched_warps" || r.answer == "wasted_lanes") {
      EXPECT_EQ(r.verdict, "fails") << r.answer;
    }
    if (r.answer == "blocks") {
      EXPECT_EQ(r.verdict, "passes");
    }
  }
  rows = judge_measurement(ex, plan, {replace_once(json, "\"gates_passed\": true", "\"gates_passed\": false")});
  for (const auto& r : rows) {
    if (r.row_kind == "check") {
      EXPECT_EQ(r.verdict, "fails") << r.answer;
    }
  }
  EXPECT_THROW(judge_measurement(ex, plan, {"not json"}), std::runtime_error);
  EXPECT_THROW(judge_measurement(ex, plan, {replace_once(json, "\"timing\"", "\"timings\"")}), std::runtime_error);
}

TEST(MeasureLatency, NoWarpCapIsMeasuredAtTheGpusOwnCapAndSaysSo) {
  // L = 320, W = 16: ceil(320/16) = 20 warps; no cap stated, so the second call names none and
  // warpcost-stream holds the device's own (its default).
  const Example ex = one_example("kind = \"latency_hiding\"\nlatency = 320\ninstructions = 16\nanswer = { warps_needed = 20 }\n");
  const auto p = plan_measure(ex);
  ASSERT_EQ(p.calls.size(), 3u);
  EXPECT_EQ(p.calls[0].args, (std::vector<std::string>{"read", "--alu", "16", "--warps-per-sm", "20", "--counters", "--json"}));
  EXPECT_EQ(p.calls[1].args, (std::vector<std::string>{"read", "--alu", "16", "--counters", "--json"}));
  const std::string st = fixture("stream-read-8-alu-16.json");  // W = 16 at 8 warps/SM, made the cap's call below
  const auto rows = judge_measurement(ex, p, {stream_as(st, 16, 20, false), stream_as(st, 16, 64, false),
                                              stream_as(st, 16, 1, false, "not asked")});
  // The textbook's info row, the FFMA count and the second-order row, both info here: the machine
  // gave no counters and no parameter run is given.
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].answer, "ffma_per_load");
  EXPECT_EQ(rows[1].row_kind, "info");
  EXPECT_NE(rows[1].note.find("not counted: warpcost-stream --counters: unavailable: no counters in this test"),
            std::string::npos) << rows[1].note;
  EXPECT_EQ(rows[2].answer, "second_order_fraction_of_cap");
  EXPECT_EQ(rows[2].row_kind, "info");
  EXPECT_NE(rows[2].note.find("second-order: not judged: no suite run was given"), std::string::npos) << rows[2].note;
  EXPECT_NE(rows[0].note.find("at this GPU's own cap of 64 warps/SM: the example states none"), std::string::npos) << rows[0].note;
  // Ex 5 (L = 300, W = 15, no cap): W = 15 has no unrolled kernel, so warpcost-stream runs its
  // run-time one, and the note says so.
  const Example ex5 = one_example("kind = \"latency_hiding\"\nlatency = 300\ninstructions = 15\nanswer = { warps_needed = 20 }\n");
  const auto p5 = plan_measure(ex5);
  ASSERT_EQ(p5.calls.size(), 3u);
  EXPECT_EQ(p5.calls[0].args, (std::vector<std::string>{"read", "--alu", "15", "--warps-per-sm", "20", "--counters", "--json"}));
  EXPECT_EQ(p5.calls[1].args, (std::vector<std::string>{"read", "--alu", "15", "--counters", "--json"}));
  // The report of the run-time kernel at W = 15 (the fixture's numbers, its W and kernel changed).
  const std::string w15 = stream_as(st, 15, 64, true);
  const std::string one15 = stream_as(st, 15, 1, true, "not asked");
  const auto r5 = judge_measurement(ex5, p5, {stream_as(st, 15, 20, true), w15, one15});
  // A report of another W, or of other warps/SM, than planned is an error naming the example; so is
  // a cap call (no --warps-per-sm) that held fewer warps than the device's cap.
  EXPECT_THROW(judge_measurement(ex5, p5, {stream_as(st, 15, 20, true), stream_as(st, 15, 8, true), one15}), std::runtime_error);
  EXPECT_THROW(judge_measurement(ex5, p5, {stream_as(st, 16, 20, false), w15, one15}), std::runtime_error);
  EXPECT_THROW(judge_measurement(ex5, p5, {stream_as(st, 15, 24, true), w15, one15}), std::runtime_error);
  EXPECT_THROW(judge_measurement(ex5, p5, {stream_as(st, 15, 20, true), w15, stream_as(st, 15, 2, true, "not asked")}), std::runtime_error);
  EXPECT_NE(r5[0].note.find("W = 15 has no unrolled kernel: the run-time one, a loop of FFMAs"), std::string::npos) << r5[0].note;
  EXPECT_EQ(rows[0].note.find("no unrolled kernel"), std::string::npos) << rows[0].note;  // W = 16 is compiled
  // With a cap stated, the note does not claim the GPU's own.
  const Example capped = one_example("kind = \"latency_hiding\"\nlatency = 320\ninstructions = 16\nwarp_cap = 64\nanswer = { warps_needed = 20 }\n");
  const auto c = judge_measurement(capped, plan_measure(capped),
                                   {stream_as(st, 16, 20, false), stream_as(st, 16, 64, false), stream_as(st, 16, 1, false, "not asked")});
  EXPECT_EQ(c[0].note.find("own cap"), std::string::npos) << c[0].note;
}

TEST(MeasureGrid, ParsesTheRecordersRealJson) {
  // warpcost-record --grid 5000 192 --json on the H200 (round of b744f5f7675a).
  const GridReport g = parse_grid_json(fixture("record-grid-5000-192.json"));
  EXPECT_EQ(g.blocks, 27);
  EXPECT_EQ(g.launched_warps, 162);
  EXPECT_EQ(g.working_warps, 157);
  EXPECT_EQ(g.working_threads, 5000);
  EXPECT_EQ(g.last_block_threads, 8);
  EXPECT_EQ(g.last_block_partial_lanes, 8);
  EXPECT_TRUE(g.gates_passed);
  EXPECT_EQ(g.tail_warps, 1);
  EXPECT_EQ(g.full_warps, 6);
  EXPECT_EQ(g.schedulers, 4);
  EXPECT_GT(g.tail_seconds, g.floor_seconds);
  EXPECT_DOUBLE_EQ(g.issue_units[0], 8192);
  EXPECT_DOUBLE_EQ(g.issue_units[1], 65536);
}

TEST(MeasureGrid, TheRealC7RunFailsTheTextbookAndHoldsTheSecondOrderModel) {
  // The H200's own output (fixtures/record-grid-5000-192.json): tail 30.048 us, full 46.112 us,
  // floor 2.880 us -> (30.048 - 2.880) / (46.112 - 2.880) = 0.62842; textbook ceil(1/4)/ceil(6/4) =
  // 0.5 (+26 %, past 5 %). Second-order, by hand from its fma_issue points (8192 and 65536 FMAs):
  // tail (9.824, 56.976 us) -> c = 47.152 us / 57344 = 0.82227 ns, F = 3.088 us; full (13.760,
  // 88.896 us) -> c = 1.31027 ns, F = 3.026 us; at 32768 FMAs (3.088 + 26.944 - 2.880) /
  // (3.026 + 42.935 - 2.880) = 27.152 / 43.081 = 0.63025 (-0.29 %, within 2 %).
  const Example ex = one_example("kind = \"grid_tail\"\nthreads = 5000\nblock_threads = 192\nanswer = { blocks = 27 }\n");
  const std::string json = fixture("record-grid-5000-192.json");
  std::map<std::string, MeasuredAnswer> by;
  for (const auto& r : judge_measurement(ex, plan_measure(ex), {json})) by[r.answer] = r;
  EXPECT_NEAR(by["last_block_time"].gpu, (30.048 - 2.880) / (46.112 - 2.880), 2e-4);
  EXPECT_EQ(by["last_block_time"].verdict, "fails");
  EXPECT_EQ(by["second_order_last_block_time"].row_kind, "model");
  EXPECT_NEAR(by["second_order_last_block_time"].model_value, 0.63025, 2e-4);
  EXPECT_EQ(by["second_order_last_block_time"].verdict, "holds");
}

TEST(MeasureGrid, APlantedFmaIssuePointFailsTheSecondOrderRowAlone) {
  // The hand-made C7: the tail's longer fma_issue point 34.768 -> 40 us gives c = (40 - 6.096) /
  // 57344 = 0.5912 ns, F = 6.096 - 8192 c = 1.253 us, a tail at 1.253 + 32768 c = 20.627 us and a
  // prediction (20.627 - 1) / 33.768 = 0.5812: the measured 0.5182 is 10.8 % under it. The textbook
  // row does not read the fma_issue points and still holds (+3.65 %).
  const Example ex = one_example("kind = \"grid_tail\"\nthreads = 5000\nblock_threads = 192\nanswer = { blocks = 27 }\n");
  const std::string json = replace_once(fixture("record-grid-hand.json"), "[6.096e-06, 3.4768e-05]", "[6.096e-06, 4.0e-05]");
  std::map<std::string, MeasuredAnswer> by;
  for (const auto& r : judge_measurement(ex, plan_measure(ex), {json})) by[r.answer] = r;
  EXPECT_NEAR(by["second_order_last_block_time"].model_value, 0.5812, 2e-4);
  EXPECT_EQ(by["second_order_last_block_time"].verdict, "fails");
  EXPECT_EQ(by["last_block_time"].verdict, "holds");
}

TEST(MeasureGrid, EqualWarpsASchedulerMakeTheSecondOrderRowInfoNotAHold) {
  // The note's 1000 in 256: the last block's 8 warps and a full block's are both 2 a scheduler, so
  // the model's two fma_issue points are one launch measured twice: its 1.0 is the textbook's.
  const Example ex = one_example("kind = \"grid_tail\"\nthreads = 1000\nblock_threads = 256\nanswer = { blocks = 4 }\n");
  std::string json = fixture("record-grid-hand.json");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"total_threads\": 5000", "\"total_threads\": 1000"}, {"\"block_threads\": 192", "\"block_threads\": 256"},
           {"\"blocks\": 27", "\"blocks\": 4"}, {"\"launched_warps\": 162", "\"launched_warps\": 32"},
           {"\"working_warps\": 157", "\"working_warps\": 32"}, {"\"working_threads\": 5000", "\"working_threads\": 1000"},
           {"\"last_block_threads\": 8", "\"last_block_threads\": 232"}, {"\"last_block_full_warps\": 0", "\"last_block_full_warps\": 7"},
           {"[6.096e-06, 3.4768e-05]", "[1.0192e-05, 6.7536e-05]"}, {"\"tail_seconds\": 1.85e-05", "\"tail_seconds\": 3.4768e-05"}}) {
    json = replace_once(json, from, to);
  }
  std::map<std::string, MeasuredAnswer> by;
  for (const auto& r : judge_measurement(ex, plan_measure(ex), {json})) by[r.answer] = r;
  EXPECT_EQ(by["last_block_time"].row_kind, "model");
  EXPECT_EQ(by["last_block_time"].verdict, "holds");
  EXPECT_EQ(by["second_order_last_block_time"].row_kind, "info");
  EXPECT_EQ(by["second_order_last_block_time"].verdict, "info");
  EXPECT_NE(by["second_order_last_block_time"].note.find("not judged: both blocks run 2 warp(s) a scheduler"), std::string::npos)
      << by["second_order_last_block_time"].note;
}

TEST(MeasureGrid, AReportOfAnotherGridOrImpossibleTimesIsAnErrorNamingTheExample) {
  const Example ex = one_example("kind = \"grid_tail\"\nthreads = 5000\nblock_threads = 192\nanswer = { blocks = 27 }\n");
  const std::string json = fixture("record-grid-hand.json");
  try {
    judge_measurement(ex, plan_measure(ex), {replace_once(json, "\"total_threads\": 5000", "\"total_threads\": 7")});
    FAIL() << "another N was judged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("X1: warpcost-record --grid reported N = 7, B = 192 for an example of N = 5000"),
              std::string::npos) << e.what();
  }
  // A floor at the full block's time, equal fma_issue loop lengths: runtime errors naming the example.
  EXPECT_THROW(judge_measurement(ex, plan_measure(ex), {replace_once(json, "\"floor_seconds\": 1e-06", "\"floor_seconds\": 4e-05")}),
               std::runtime_error);
  try {
    judge_measurement(ex, plan_measure(ex), {replace_once(json, "[8192.0, 65536.0]", "[8192.0, 8192.0]")});
    FAIL() << "equal loop lengths were judged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("X1: the grid tail's time models from warpcost-record --grid's report: two points of 8192"), std::string::npos) << e.what();
  }
  // A field of the wrong type is named; a stderr line before the object is not part of it.
  try {
    parse_grid_json(replace_once(json, "\"tail_warps\": 1", "\"tail_warps\": \"one\""));
    FAIL() << "a string was read as a count";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("timing.tail_warps is not a whole number"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_grid_json("warpcost-record: a warning on stderr\n" + json).launched_warps, 162);
}

TEST(MeasureRun, AFailedGateInTheGridsJsonIsJudgedNotAnError) {
  // warpcost-record --grid --json exits 1 when a gate failed, its JSON saying so: run_plan keeps the
  // output, and every count reads fails.
  TempDir tmp;
  const auto runner = tmp.path / "warpcost-record";
  const std::string json = replace_once(fixture("record-grid-hand.json"), "\"gates_passed\": true", "\"gates_passed\": false");
  std::ofstream(tmp.path / "report.json") << json;
  std::ofstream(runner) << "#!/bin/sh\ncat '" << (tmp.path / "report.json").string() << "'\nexit 1\n";
  std::filesystem::permissions(runner, std::filesystem::perms::owner_all);
  const Example ex = one_example("kind = \"grid_tail\"\nthreads = 5000\nblock_threads = 192\nanswer = { blocks = 27 }\n");
  const auto plan = plan_measure(ex);
  const auto outputs = run_plan(plan, tmp.path.string());
  for (const auto& r : judge_measurement(ex, plan, outputs)) {
    if (r.row_kind == "check") {
      EXPECT_EQ(r.verdict, "fails") << r.answer;
    }
  }
  // Exit 1 without a failed-gate report stays an error.
  std::ofstream(runner) << "#!/bin/sh\necho 'warpcost-record: something broke' >&2\nexit 1\n";
  EXPECT_THROW(run_plan(plan, tmp.path.string()), std::runtime_error);
}

TEST(MeasureRun, ARefusalIsTheRunnersFirstLineNotItsUsage) {
  // A stand-in runner that refuses as warpcost-stream does: its message, its usage, then its
  // device line on stdout, exit 2.
  TempDir tmp;
  const auto runner = tmp.path / "warpcost-stream";
  std::ofstream(runner) << "#!/bin/sh\n"
                           "echo 'warpcost-stream: warps per SM = 64: the occupancy API allows 24 blocks of 64 threads' >&2\n"
                           "echo 'usage: warpcost-stream read [--warps-per-sm N] [--alu W]' >&2\n"
                           "echo '       warpcost-stream chase --footprint-kib F' >&2\n"
                           "echo 'GPU: NVIDIA H200, 132 SMs'\n"
                           "exit 2\n";
  std::filesystem::permissions(runner, std::filesystem::perms::owner_all);
  const MeasurePlan plan{{{"warpcost-stream", {"read", "--alu", "15"}}}, ""};
  try {
    run_plan(plan, tmp.path.string());
    FAIL() << "no refusal";
  } catch (const RunnerRefused& e) {
    EXPECT_EQ(std::string(e.what()),
              "warpcost-stream refuses these parameters: warps per SM = 64: the occupancy API allows 24 blocks of 64 threads");
  }
}


// ---- the second-order column (docs/worked-examples.md) -------------------------------------------

// A parameter run made by hand: "hand GPU", one SM at 1 GHz, compute capability 9.0 (4 schedulers).
// Its W = 0 sweep reads 512 B a warp iteration in 1000 cycles at 1 and at 1000 warps/SM (a flat locus
// of 1000 cycles, ceiling 5.12e11 B/s); fma_issue at 32 warps a block counts 2000 more warp
// instructions in 1000 more cycles: r_sat = 2000 / 1000 / 4 = 0.5 a cycle a scheduler. Its coalescing
// fit: 16-byte loads at stride 1 (1e9 useful bytes in 10 ms: R(16 B) = 1e11 B/s moved) and stride 2
// (1e9 in 25 ms, each 64-byte granule half useful: R(32 B) = 8e10 B/s moved).
analysis::Run hand_parameter_run() {
  analysis::Run run;
  run.context.values = {{"run_id", "hand-params"}, {"gpu_name", "hand GPU"}, {"cc", "9.0"}, {"sm_count", "1"}, {"sm_clock_measured_khz", "1000000"},
                        {"max_blocks_per_sm", "32"}, {"max_threads_per_sm", "2048"}, {"max_warps_per_sm", "64"}};
  auto add = [&](const char* family, const char* benchmark, std::vector<std::pair<std::string, std::string>> params,
                 double seconds, std::map<std::string, std::vector<double>> counters) {
    analysis::BenchmarkResult b;
    b.family = family;
    b.benchmark = benchmark;
    b.params = std::move(params);
    b.seconds = {seconds};
    b.counters = std::move(counters);
    run.benchmarks.push_back(b);
  };
  // 1 warp: 512 B in 1000 cycles = 1 us a sweep of 1 iteration; 1000 warps: 1000 x 512 B in 1 us.
  add("streaming", "read_independent", {{"load_bytes", "16"}, {"alu_per_load", "0"}, {"warps_per_sm", "1"}}, 1e-6,
      {{"bytes_read", {512}}});
  add("streaming", "read_independent", {{"load_bytes", "16"}, {"alu_per_load", "0"}, {"warps_per_sm", "1000"}}, 1e-6,
      {{"bytes_read", {512000}}});
  add("partial_warp", "fma_issue", {{"warps_per_block", "32"}, {"trips", "1"}}, 1e-6,
      {{"smsp__inst_executed.sum", {1000}}, {"sm_clock_hz", {1e9}}});
  add("partial_warp", "fma_issue", {{"warps_per_block", "32"}, {"trips", "2"}}, 2e-6,
      {{"smsp__inst_executed.sum", {3000}}, {"sm_clock_hz", {1e9}}});
  add("coalescing", "load_dram", {{"elem_bytes", "16"}, {"stride", "1"}, {"offset", "0"}}, 1e-2, {{"useful_bytes", {1e9}}});
  add("coalescing", "load_dram", {{"elem_bytes", "16"}, {"stride", "2"}, {"offset", "0"}}, 2.5e-2, {{"useful_bytes", {1e9}}});
  return run;
}

reports::StreamReadReport hand_stream(int w, int warps_per_sm, double bytes_per_s, double instructions, double ffma) {
  reports::StreamReadReport r;
  r.gpu = {"hand GPU", 1, 9, 0};
  r.max_warps_per_sm = 64;
  r.use = "independent";
  r.load_bytes = 16;
  r.alu_per_load = w;
  r.run_time_alu = true;
  r.warps_per_sm = warps_per_sm;
  r.median_seconds = 1.0;
  r.bytes_read = static_cast<std::uint64_t>(bytes_per_s);
  r.counters = instructions > 0 ? "counted" : "not asked";
  r.instructions_per_iteration = instructions;
  r.ffma_per_load = ffma;
  return r;
}

// L = 400, W = 100: ceil(400/100) = 4 warps, the cap 8. At 1 warp/SM the stream reads 4.096e8 B/s:
// T0 = 1 SM x 512 B x 1e9 / 4.096e8 = 1250 cycles (not the locus' 1000). At r_sat 0.5, I = 50 at N
// and 60 at the cap: D = 100 and 120. 4 warps, one a scheduler: Z = 1250 - 100 = 1150, T = 1250.
// 8 warps, two a scheduler (MVA): Z = 1250 - 120 = 1130; k = 1: R = 120, T = 1250, q = 120/1250 =
// 0.096; k = 2: R = 120 x 1.096 = 131.52, T = 1130 + 131.52 = 1261.52. Bandwidth 4·512e9/1250 against
// 8·512e9/1261.52: the share at 4 warps is 0.5 x 1261.52/1250 = 0.504608. (T0 taken from the locus
// would give 0.5072, N's I at both ends 0.5032, r_sat 1 0.5019: each reads differently.)
TEST(MeasureSecondOrder, TheLatencyExamplesShareOfTheCapByHandAndAPlantedRateFails) {
  const analysis::Run params = hand_parameter_run();
  const Example ex = one_example("kind = \"latency_hiding\"\nlatency = 400\ninstructions = 100\nwarp_cap = 8\nanswer = { warps_needed = 4 }\n");
  const auto plan = plan_measure(ex);
  ASSERT_EQ(plan.calls.size(), 3u);
  auto outputs = [](double at_n, double ffma) {
    return std::vector<std::string>{reports::to_json(hand_stream(100, 4, at_n, 50, ffma)),
                                    reports::to_json(hand_stream(100, 8, 4e9, 60, 100)),
                                    reports::to_json(hand_stream(100, 1, 4.096e8, 0, 0))};
  };
  std::string how;
  EXPECT_NEAR(second_order_fraction_of_cap(hand_stream(100, 4, 2e9, 50, 100), hand_stream(100, 8, 4e9, 60, 100),
                                           hand_stream(100, 1, 4.096e8, 0, 0), params, how),
              0.504608, 1e-6)
      << how;
  // Measured 2.02e9 / 4e9 = 0.505: 0.08 % over the model, within 5 %.
  auto rows = judge_measurement(ex, plan, outputs(2.02e9, 100), SecondOrderSource{&params, ""});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].answer, "ffma_per_load");
  EXPECT_EQ(rows[1].row_kind, "check");
  EXPECT_EQ(rows[1].verdict, "passes");
  EXPECT_EQ(rows[2].answer, "second_order_fraction_of_cap");
  EXPECT_EQ(rows[2].row_kind, "model");
  EXPECT_NEAR(rows[2].model_value, 0.504608, 1e-6);
  EXPECT_NEAR(rows[2].gpu, 0.505, 1e-9);
  EXPECT_EQ(rows[2].verdict, "holds") << rows[2].note;
  EXPECT_NE(rows[2].note.find("parameters of run hand-params"), std::string::npos) << rows[2].note;
  // The page shows the counted FFMAs as the GPU's number and the note as the how (only the
  // recorder's checks read "recorded ..." and name warpcost-record).
  const std::string md = measured_markdown(rows, "GPU");
  EXPECT_NE(md.find("| ffma_per_load | — | 100 | 100 | check | passes | one profiled launch at 4 warps/SM: 100 FFMAs a load"),
            std::string::npos) << md;
  // Planted: the stream at 4 warps reads 10 % slow (0.4545 against 0.5046), and one FFMA more a load.
  rows = judge_measurement(ex, plan, outputs(1.818e9, 101), SecondOrderSource{&params, ""});
  EXPECT_EQ(rows[1].verdict, "fails");
  EXPECT_EQ(rows[2].verdict, "fails") << rows[2].note;
  // Half an FFMA off still passes; the count is W a load, give or take the per-thread set-up.
  rows = judge_measurement(ex, plan, outputs(2.02e9, 100.4), SecondOrderSource{&params, ""});
  EXPECT_EQ(rows[1].verdict, "passes");
  // No parameter run: info, saying why.
  rows = judge_measurement(ex, plan, outputs(2.02e9, 100), SecondOrderSource{nullptr, "no run of 'hand GPU' under x"});
  EXPECT_EQ(rows[2].row_kind, "info");
  EXPECT_NE(rows[2].note.find("not judged: no run of 'hand GPU' under x"), std::string::npos) << rows[2].note;
  // A parameter run of another GPU (name or SM count) prices nothing: info, naming both.
  analysis::Run other = params;
  other.context.values["sm_count"] = "2";
  rows = judge_measurement(ex, plan, outputs(2.02e9, 100), SecondOrderSource{&other, ""});
  EXPECT_EQ(rows[2].row_kind, "info");
  EXPECT_NE(rows[2].note.find("is of hand GPU (2 SMs), the runner ran on hand GPU (1 SMs)"), std::string::npos) << rows[2].note;
  // A report the model cannot price (no SM) is an error row of its own; the example's others stay.
  auto broken = outputs(2.02e9, 100);
  reports::StreamReadReport zero = hand_stream(100, 4, 2.02e9, 50, 100);
  zero.gpu.sm_count = 0;
  broken[0] = reports::to_json(zero);
  other.context.values["sm_count"] = "0";
  rows = judge_measurement(ex, plan, broken, SecondOrderSource{&other, ""});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].verdict, "passes");
  EXPECT_EQ(rows[2].verdict, "error") << rows[2].note;
  // A call planned with --counters whose report says it was not asked is another call's report.
  auto uncounted = outputs(2.02e9, 100);
  uncounted[1] = reports::to_json(hand_stream(100, 8, 4e9, 0, 0));
  EXPECT_THROW(judge_measurement(ex, plan, uncounted, SecondOrderSource{&params, ""}), std::runtime_error);
}

reports::CoalesceReport hand_coalesce(int bytes, int stride, int offset, double useful_bytes_per_s) {
  reports::CoalesceReport c;
  c.gpu = {"hand GPU", 1, 9, 0};
  c.benchmark = "load_dram";
  c.arg_names = {"elem_bytes", "stride", "offset"};
  c.arg_values = {bytes, stride, offset};
  c.elem_bytes = bytes;
  c.median_seconds = 1.0;
  c.useful_bytes = static_cast<std::uint64_t>(useful_bytes_per_s);
  return c;
}

// A 4-byte load offset by one element (the issue's example): a warp's 128 B span bytes 4..131, three
// 64-byte granules (192 B). R(4 B) is R(16 B) = 1e11 B/s (below the fitted spacings, the first).
// In flight (8 blocks of 256 threads = 64 warps, 4 loads of the granules each, over the locus' 1000
// cycles at 1 GHz): 64 x 4 x 192 B / 1 us = 4.9152e10 B/s, under R: useful 4.9152e10 x 128/192 =
// 3.2768e10 B/s. The references: 4 B moves 128 B, in flight 3.2768e10; 8 B 256 B, 6.5536e10; 16 B
// 512 B, 1.31072e11 over R: 1e11. The best predicted reference is the 16-byte one, 1e11: the share
// is 3.2768e10 / 1e11 = 0.32768.
TEST(MeasureSecondOrder, TheCoalescingExamplesShareByGranulesAndBytesInFlightAndAPlantedRateFails) {
  const analysis::Run params = hand_parameter_run();
  const Example ex = one_example("kind = \"coalescing\"\nelem_bytes = 4\nstride = 1\noffset = 1\nanswer = { useful_fraction = 0.8 }\n");
  const auto plan = plan_measure(ex);
  ASSERT_EQ(plan.calls.size(), 4u);
  auto outputs = [](double mine) {
    return std::vector<std::string>{reports::to_json(hand_coalesce(4, 1, 1, mine)), reports::to_json(hand_coalesce(4, 1, 0, 3e12)),
                                    reports::to_json(hand_coalesce(8, 1, 0, 3.9e12)), reports::to_json(hand_coalesce(16, 1, 0, 4e12))};
  };
  // 1.3 / 4.0 = 0.325: 0.8 % under 0.32768.
  auto rows = judge_measurement(ex, plan, outputs(1.3e12), SecondOrderSource{&params, ""});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].verdict, "fails");  // the sector model's 0.8 (the family's 10 %)
  EXPECT_EQ(rows[1].answer, "second_order_useful_fraction");
  EXPECT_EQ(rows[1].row_kind, "model");
  EXPECT_NEAR(rows[1].model_value, 0.32768, 1e-9);
  EXPECT_EQ(rows[1].verdict, "holds") << rows[1].note;
  // Planted: 1.2 / 4.0 = 0.3, 8.4 % under: fails.
  rows = judge_measurement(ex, plan, outputs(1.2e12), SecondOrderSource{&params, ""});
  EXPECT_EQ(rows[1].verdict, "fails") << rows[1].note;
  // C8, a float4 load at stride 2, is a point R(D) is fitted on: the parameter run measured this very
  // kernel, so its row is info, saying so, however close.
  const Example c8 = one_example("kind = \"coalescing\"\nelem_bytes = 16\nstride = 2\nanswer = { useful_fraction = 0.5 }\n");
  reports::CoalesceReport strided = hand_coalesce(16, 2, 0, 2e12);
  const auto c8_rows = judge_measurement(c8, plan_measure(c8),
                                         {reports::to_json(strided), reports::to_json(hand_coalesce(4, 1, 0, 3e12)),
                                          reports::to_json(hand_coalesce(8, 1, 0, 3.9e12)), reports::to_json(hand_coalesce(16, 1, 0, 4e12))},
                                         SecondOrderSource{&params, ""});
  ASSERT_EQ(c8_rows.size(), 2u);
  EXPECT_EQ(c8_rows[1].row_kind, "info");
  EXPECT_NE(c8_rows[1].note.find("a point R(D) is fitted on"), std::string::npos) << c8_rows[1].note;
}

// `predict --gpu`: the GPU's side of the second-order models from a run. The hand-made run above:
// one SM at 1000 MHz, 4 schedulers, a flat locus of 1000 cycles up to 512 GB/s, R(4 B) = 100 GB/s.
// A stream of 4 warps (one a scheduler), 512 B an iteration, T0 = 1000, I = 110 at the stated r_sat
// of 1: an iteration is 1000 cycles, so 4 x 512 B x 1e9 / 1000 = 2.048 GB/s. The offset request
// (4 B, offset 1) moves three 64-byte granules for 128 useful bytes; in flight 64 warps x 4 loads x
// 192 B in 1000 cycles at 1 GHz = 49.152 GB/s, under R: 49.152 x 128/192 = 32.768 GB/s useful.
TEST(PredictFromRun, TheGpusParametersOfTheTwoKindsARunMeasuresByHand) {
  const analysis::Run run = hand_parameter_run();
  std::string how;
  const std::vector<std::string> stream_user = {"warps_per_sm=4", "load_bytes=16", "instructions=110", "unloaded_cycles=1000",
                                                "issue_rate=1"};
  const auto stream = gpu_parameters_from_run("stream_bandwidth", stream_user, run, how);
  EXPECT_EQ(stream, (std::vector<std::string>{"sms=1", "schedulers=4", "clock_mhz=1000", "latency=1000", "loaded_latency=1000",
                                              "peak_gbps=512"}))
      << how;  // issue_rate is the user's own
  EXPECT_NE(how.find("run hand-params"), std::string::npos) << how;
  std::vector<std::string> all = stream_user;
  all.insert(all.end(), stream.begin(), stream.end());
  const auto answers = model_answers(example_from_arguments("stream_bandwidth", all));
  ASSERT_FALSE(answers.empty());
  EXPECT_EQ(answers[0].field, "bandwidth_gbps");
  EXPECT_NEAR(answers[0].value.number, 2.048, 1e-6);
  const std::vector<std::string> co_user = {"elem_bytes=4", "stride=1", "offset=1"};
  const auto co = gpu_parameters_from_run("coalescing_bandwidth", co_user, run, how);
  EXPECT_EQ(co, (std::vector<std::string>{"moved_rate_gbps=100", "in_flight_gbps=49.152"})) << how;
  std::vector<std::string> co_all = co_user;
  co_all.insert(co_all.end(), co.begin(), co.end());
  double useful = 0;
  for (const auto& a : model_answers(example_from_arguments("coalescing_bandwidth", co_all))) {
    if (a.field == "useful_bandwidth_gbps") useful = a.value.number;
  }
  EXPECT_NEAR(useful, 49.152 * 128.0 / 192.0, 1e-9);
  // The L2 has no 16-byte points in that run, and a primitive's pipe is not read from a run: nothing
  // is filled, and `how` says to state them.
  EXPECT_TRUE(gpu_parameters_from_run("coalescing_bandwidth", {"elem_bytes=4", "stride=2", "level=l2"}, run, how).empty());
  EXPECT_NE(how.find("state moved_rate_gbps by hand"), std::string::npos) << how;
  EXPECT_TRUE(gpu_parameters_from_run("primitive_throughput", {"warps_per_sm=8"}, run, how).empty());
  EXPECT_NE(how.find("state them by hand"), std::string::npos) << how;
  EXPECT_THROW(gpu_parameters_from_run("coalescing_bandwidth", {"stride=two"}, run, how), BadInput);
}

// `predict coalescing_bandwidth level=store --gpu` of a dense store off its line takes its class's
// request ceiling from the run (ISSUE-33-STORE-MISALIGNED). The hand run above plus a 16-byte stride-1
// store (R(16 B) = 1e9 B in 10 ms = 100 GB/s moved) and the 4-byte store offset by 16 elements: 1e6
// requests in 20 ms, 50 M requests/s. A 4-byte store offset by 8 (32 B: four whole sectors, 128
// useful bytes) is priced at R(4 B) = 100 GB/s moved for 128 B = 100 GB/s useful, capped at 50e6 x
// 128 B = 6.4 GB/s; offset 1 (partly written sectors, priced from a 16-byte stride-2 store added
// here) has no offset-2 point and no R_st point here: no ceiling is filled, and `how` says which
// point is missing.
TEST(PredictFromRun, AMisalignedStoreTakesItsClasssRequestCeilingFromTheRun) {
  analysis::Run run = hand_parameter_run();
  analysis::BenchmarkResult full;
  full.family = "coalescing";
  full.benchmark = "store_dram";
  full.params = {{"elem_bytes", "16"}, {"stride", "1"}, {"offset", "0"}};
  full.seconds = {1e-2};
  full.counters = {{"useful_bytes", {1e9}}, {"warp_requests", {1e9 / 512}}};
  run.benchmarks.push_back(full);
  analysis::BenchmarkResult off16 = full;
  off16.params = {{"elem_bytes", "4"}, {"stride", "1"}, {"offset", "16"}};
  off16.seconds = {2e-2};
  off16.counters = {{"useful_bytes", {1.28e8}}, {"warp_requests", {1e6}}};
  run.benchmarks.push_back(off16);
  analysis::BenchmarkResult partial = full;
  partial.params = {{"elem_bytes", "16"}, {"stride", "2"}, {"offset", "0"}};
  partial.seconds = {2e-2};
  run.benchmarks.push_back(partial);
  std::string how;
  const std::vector<std::string> user = {"elem_bytes=4", "stride=1", "offset=8", "level=store"};
  const auto filled = gpu_parameters_from_run("coalescing_bandwidth", user, run, how);
  EXPECT_EQ(filled, (std::vector<std::string>{"moved_rate_gbps=100", "request_rate_gps=0.05"})) << how;
  EXPECT_NE(how.find("misaligned-store request ceiling bounds it"), std::string::npos) << how;
  std::vector<std::string> all = user;
  all.insert(all.end(), filled.begin(), filled.end());
  double useful = 0;
  for (const auto& a : model_answers(example_from_arguments("coalescing_bandwidth", all))) {
    if (a.field == "useful_bandwidth_gbps") useful = a.value.number;
  }
  EXPECT_NEAR(useful, 6.4, 1e-9);
  const auto one = gpu_parameters_from_run("coalescing_bandwidth", {"elem_bytes=4", "stride=1", "offset=1", "level=store"}, run, how);
  EXPECT_NE(how.find("4-byte offset-2 store_dram point is missing"), std::string::npos) << how;
  for (const std::string& f : one) EXPECT_EQ(f.rfind("request_rate_gps", 0), std::string::npos) << f;
}

// `predict block_stream_bandwidth --gpu`: the locus' ends, and D and k at the stated block size from
// the run's block_turnover and read_one_per_thread points. The hand run above plus a 64-thread
// turnover point, 10 blocks in 1 us on one SM at 1 GHz: D = 1 x 1e-6 x 1e9 / 10 = 100 cycles, and a
// read point holding 4 blocks an SM. k = 4, D = 100, Λ = 1000, 64 x 16 = 1024 B a block; MVA: n=1
// R=100 X=1/1100; n=2 R=109.0909 X=2/1109.0909; n=3 R=119.6721 X=3/1119.6721; n=4 R=132.0644
// X=4/1132.0644 = 0.00353337: BW = 1e9 x 0.00353337 x 1024 = 3.618169 GB/s, far under 512.
TEST(PredictFromRun, TheOneLoadAThreadStreamReadsTheTurnoverAndResidencyAtItsBlockSize) {
  analysis::Run run = hand_parameter_run();
  analysis::BenchmarkResult turnover;
  turnover.family = "streaming";
  turnover.benchmark = "block_turnover";
  turnover.params = {{"block_threads", "64"}};
  turnover.seconds = {1e-6};
  turnover.counters = {{"blocks", {10}}};
  run.benchmarks.push_back(turnover);
  analysis::BenchmarkResult read = turnover;
  read.benchmark = "read_one_per_thread";
  read.counters = {{"blocks", {10}}, {"resident_blocks_per_sm", {4}}, {"bytes_read", {10240}}};
  run.benchmarks.push_back(read);
  std::string how;
  const std::vector<std::string> user = {"block_threads=64"};
  const auto filled = gpu_parameters_from_run("block_stream_bandwidth", user, run, how);
  EXPECT_EQ(filled, (std::vector<std::string>{"sms=1", "clock_mhz=1000", "latency=1000", "loaded_latency=1000", "peak_gbps=512",
                                              "turnover_cycles=100", "resident_blocks=4"}))
      << how;
  std::vector<std::string> all = user;
  all.insert(all.end(), filled.begin(), filled.end());
  const auto answers = model_answers(example_from_arguments("block_stream_bandwidth", all));
  ASSERT_FALSE(answers.empty());
  EXPECT_EQ(answers[0].field, "bandwidth_gbps");
  EXPECT_NEAR(answers[0].value.number, 3.618169, 1e-5);
  // At a block size the run did not sweep: the locus is filled, D and k are the user's to state.
  const auto other = gpu_parameters_from_run("block_stream_bandwidth", {"block_threads=128"}, run, how);
  EXPECT_EQ(other.size(), 5u);
  EXPECT_NE(how.find("state turnover_cycles by hand"), std::string::npos) << how;
  EXPECT_NE(how.find("state resident_blocks by hand"), std::string::npos) << how;
  // The user's own D stands.
  const auto own = gpu_parameters_from_run("block_stream_bandwidth", {"block_threads=64", "turnover_cycles=150"}, run, how);
  EXPECT_EQ(std::count(own.begin(), own.end(), std::string("turnover_cycles=100")), 0);
  // A planted slow turnover point (D = 1000) moves the filled D and the price.
  run.benchmarks[run.benchmarks.size() - 2].seconds = {1e-5};
  const auto slow = gpu_parameters_from_run("block_stream_bandwidth", user, run, how);
  EXPECT_NE(std::find(slow.begin(), slow.end(), std::string("turnover_cycles=1000")), slow.end());
}

}  // namespace
}  // namespace warpcost::examples

