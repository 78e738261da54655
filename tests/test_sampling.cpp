// The timing phase's host-side pieces: the stopping rule (nvbench's stdrel criterion), the progress
// line's arithmetic, and the merge of samples, counters and wall times into bench.json, read back by
// the analysis' run reader.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/run_reader.hpp"
#include "bench/common/gpu_lock.hpp"
#include "bench/common/progress.hpp"
#include "bench/common/run_annotation.hpp"
#include "bench/common/sampling.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;

namespace warpcost {
namespace {

using sampling::Rule;
using sampling::SampleSet;
using sampling::Stop;

SampleSet samples_of(const std::vector<double>& v) {
  SampleSet s;
  for (const double x : v) s.add(x);
  return s;
}

TEST(Sampling, NoiseIsTheSampleStandardDeviationOverTheMean) {
  // 1, 2, 3, 4: mean 2.5, sample variance 5/3.
  const SampleSet s = samples_of({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(s.mean(), 2.5);
  EXPECT_NEAR(s.noise(), std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_EQ(samples_of({7}).noise(), 0.0);  // one sample: no spread to speak of
}

TEST(Sampling, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(samples_of({5, 1, 3}).median(), 3);
  EXPECT_EQ(samples_of({4, 1, 3, 2}).median(), 2.5);
  EXPECT_THROW(SampleSet().median(), std::logic_error);
}

TEST(Sampling, RejectsSamplesThatAreNotTimes) {
  SampleSet s;
  EXPECT_THROW(s.add(-1e-6), std::invalid_argument);
  EXPECT_THROW(s.add(std::nan("")), std::invalid_argument);
  EXPECT_EQ(s.size(), 0u);
}

TEST(Sampling, AQuietPointStopsAtTheMinimumCount) {
  Rule r;  // 10 samples, 0.5 %
  SampleSet s;
  for (int i = 0; i < 9; ++i) s.add(1e-3 * (1 + 0.001 * (i % 2)));
  EXPECT_EQ(sampling::decide(r, s, 0.001), Stop::kContinue);  // quiet, but under the minimum
  s.add(1e-3);
  EXPECT_EQ(sampling::decide(r, s, 0.001), Stop::kConverged);
}

TEST(Sampling, ANoisyPointGoesOnUntilTheTimeCap) {
  Rule r;
  const SampleSet s = samples_of({1e-3, 2e-3, 1e-3, 2e-3, 1e-3, 2e-3, 1e-3, 2e-3, 1e-3, 2e-3, 1e-3, 2e-3});
  ASSERT_GT(s.noise(), r.max_noise);
  EXPECT_EQ(sampling::decide(r, s, r.time_cap_s * 0.5), Stop::kContinue);
  EXPECT_EQ(sampling::decide(r, s, r.time_cap_s), Stop::kTimeCap);
}

TEST(Sampling, ASlowPointStillGetsItsMinimumAtTheCap) {
  Rule r;
  r.min_samples_at_cap = 3;
  // Two samples of 40 ms already pass a 50 ms cap; the third is still taken.
  EXPECT_EQ(sampling::decide(r, samples_of({0.04, 0.041}), 0.08), Stop::kContinue);
  EXPECT_EQ(sampling::decide(r, samples_of({0.04, 0.041, 0.042}), 0.12), Stop::kTimeCap);
}

TEST(Sampling, TheSampleCapEndsALaunchBoundPoint) {
  Rule r;
  r.max_samples = 20;
  std::vector<double> v;
  for (int i = 0; i < 20; ++i) v.push_back(i % 2 ? 5e-6 : 6e-6);  // ~10 % noise, far under the cap
  EXPECT_EQ(sampling::decide(r, samples_of(v), 1e-3), Stop::kSampleCap);
}

TEST(Sampling, RuleProblemsNameTheValue) {
  Rule r;
  EXPECT_EQ(sampling::rule_problem(r), "");
  r.min_samples = 1;
  EXPECT_NE(sampling::rule_problem(r).find("minimum samples = 1"), std::string::npos);
  r = Rule{};
  r.max_noise = 0;
  EXPECT_NE(sampling::rule_problem(r).find("noise target"), std::string::npos);
  r = Rule{};
  r.max_samples = 5;
  EXPECT_NE(sampling::rule_problem(r).find("maximum samples = 5"), std::string::npos);
}

TEST(Progress, EstimatesTimeLeftFromTheAverageSoFar) {
  EXPECT_DOUBLE_EQ(progress::eta_seconds(30.0, 100, 400), 90.0);  // 0.3 s an item, 300 to go
  EXPECT_DOUBLE_EQ(progress::eta_seconds(30.0, 400, 400), 0.0);
  EXPECT_LT(progress::eta_seconds(0.5, 0, 400), 0.0);  // nothing done: no estimate
}

TEST(Progress, LineNamesFamilyCountsElapsedAndTimeLeft) {
  const std::string l = progress::line("timing", "divergence", 94, 262, 387, 1213, 12.34);
  EXPECT_NE(l.find("divergence 94/262"), std::string::npos) << l;
  EXPECT_NE(l.find("suite 387/1213"), std::string::npos) << l;
  EXPECT_NE(l.find("12.3 s elapsed"), std::string::npos) << l;
  // 12.34 s for 387 items, 826 to go: 26.3 s.
  EXPECT_NE(l.find("~26 s left"), std::string::npos) << l;
}

TEST(Progress, FamiliesAndWallText) {
  EXPECT_EQ(progress::family_of("streaming/read_peak/loads_per_thread:4"), "streaming");
  EXPECT_EQ(progress::wall_text({{"calibration", 1.234}, {"streaming", 20.0}}),
            "calibration=1.23;streaming=20.00");
}

TEST(Progress, TrackerCountsPerFamilyInFirstSeenOrder) {
  progress::Tracker t("timing", {"b/x/1", "a/y/1", "b/x/2"}, 1e9);
  EXPECT_EQ(t.total(), 3);
  t.done("b");
  t.done("a");
  t.done("b");
  ASSERT_EQ(t.family_seconds().size(), 2u);
  EXPECT_EQ(t.family_seconds()[0].first, "b");
  EXPECT_EQ(t.family_seconds()[1].first, "a");
  EXPECT_GE(t.family_seconds()[0].second, 0.0);
}

// ---- the annotation of a real H200 run (the committed fixture)

const fs::path kFixture = fs::path(WARPCOST_FIXTURES) / "runs/fixture-gpu/20260101T000000Z/bench.json";

// A copy in a folder of this process's own (mkdtemp), removed when the test binary exits.
fs::path copy_of_fixture(const std::string& name) {
  static std::vector<std::unique_ptr<test_support::TempDir>> dirs;
  dirs.push_back(std::make_unique<test_support::TempDir>("annotation-" + name));
  const fs::path dir = dirs.back()->path();
  fs::copy_file(kFixture, dir / "bench.json");
  return dir / "bench.json";
}

TEST(RunAnnotation, KeyOfARunNameIsItsNameAndArgumentValues) {
  EXPECT_EQ(point_key_of_run_name("divergence/switch/paths:8/first_path:0/trips:384/warps_per_sm:4/"
                                  "iterations:1/manual_time"),
            "divergence/switch/8/0/384/4");
  EXPECT_EQ(point_key_of_run_name("calibration/d2d_copy/mib:1024/manual_time"), "calibration/d2d_copy/1024");
}

TEST(RunAnnotation, SamplesCountersAndContextReachTheReader) {
  const fs::path json = copy_of_fixture("good");
  const analysis::Run before = analysis::read_run(json);
  RunAnnotation a;
  // The fixture holds several repetitions of the clock benchmark: each gets its own samples (the
  // list has more entries than repetitions; the extra ones match nothing and are not written).
  const std::string clock = "calibration/sm_clock/20000000";
  for (int rep = 0; rep < 5; ++rep) a.samples[clock].push_back({0.010 + rep * 1e-4, 0.011, 0.012});
  a.counters["calibration/d2d_copy/1024"] = {{"smsp__warps_launched.sum", 4224.0}};
  a.context["suite_wall_seconds"] = "123.45";
  a.context["family_wall_seconds"] = "calibration=1.00;streaming=2.00";
  annotate_run(json, a);
  const analysis::Run after = analysis::read_run(json);
  EXPECT_EQ(after.context.text("suite_wall_seconds"), "123.45");
  EXPECT_EQ(after.context.text("family_wall_seconds"), "calibration=1.00;streaming=2.00");
  for (const auto& b : after.benchmarks) {
    if (b.run_name == "calibration/sm_clock/spin_cycles:20000000") {
      std::size_t repetitions = 0;
      for (const auto& o : before.benchmarks) {
        if (o.run_name == b.run_name) repetitions = o.seconds.size();
      }
      ASSERT_GE(repetitions, 2u);
      // Three samples a repetition, not one real_time a repetition.
      ASSERT_EQ(b.seconds.size(), 3 * repetitions);
      EXPECT_DOUBLE_EQ(b.seconds[0], 0.010);
      EXPECT_DOUBLE_EQ(b.seconds[3], 0.0101);
      EXPECT_DOUBLE_EQ(b.median_seconds(), 0.011);
    }
    if (b.run_name == "calibration/d2d_copy/mib:1024") {
      EXPECT_DOUBLE_EQ(b.counter_median("smsp__warps_launched.sum"), 4224.0);
      // Untouched by the annotation: still one time per repetition.
      for (const auto& o : before.benchmarks) {
        if (o.run_name == b.run_name) {
          EXPECT_EQ(b.seconds, o.seconds);
        }
      }
    }
  }
}

TEST(RunAnnotation, AKeyThatMatchesNoBenchmarkIsAnErrorAndLeavesTheFile) {
  const fs::path json = copy_of_fixture("unmatched");
  const auto size = fs::file_size(json);
  RunAnnotation a;
  a.samples["calibration/sm_clock/999"].push_back({1e-3});
  try {
    annotate_run(json, a);
    FAIL() << "an unmatched key was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("calibration/sm_clock/999"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fs::file_size(json), size);
}

// An interrupted run: the points the interrupt left unmeasured (their error is kInterruptedMessage)
// are dropped, every measured one stays, and the context says the run is partial.
TEST(RunAnnotation, AnInterruptedRunKeepsWhatWasMeasuredAndSaysItIsPartial) {
  const fs::path json = copy_of_fixture("interrupted");
  const analysis::Run before = analysis::read_run(json);
  ASSERT_GE(before.benchmarks.size(), 3u);
  // Mark the last two entries as the interrupt leaves them (text edit: the fixture as written).
  std::string text;
  {
    std::ifstream in(json);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  int marked = 0;
  for (std::size_t at = text.rfind("\"run_name\""); at != std::string::npos && marked < 2;
       at = at == 0 ? std::string::npos : text.rfind("\"run_name\"", at - 1)) {
    text.insert(at, std::string("\"error_occurred\": true, \"error_message\": \"") + kInterruptedMessage + "\", ");
    ++marked;
  }
  ASSERT_EQ(marked, 2);
  std::ofstream(json) << text;
  RunAnnotation a;
  a.drop_error_messages = {kInterruptedMessage};
  a.context["run_status"] = "partial: interrupted by SIGINT";
  auto entries = [](const fs::path& file) {
    std::ifstream in(file);
    const std::string all((std::istreambuf_iterator<char>(in)), {});
    std::size_t n = 0;
    for (auto at = all.find("\"run_name\""); at != std::string::npos; at = all.find("\"run_name\"", at + 1)) ++n;
    return n;
  };
  const std::size_t entries_before = entries(json);
  annotate_run(json, a);
  EXPECT_EQ(entries(json) + 2, entries_before);
  const analysis::Run after = analysis::read_run(json);
  EXPECT_FALSE(after.benchmarks.empty());
  for (const auto& b : after.benchmarks) EXPECT_FALSE(b.error) << b.run_name;
  EXPECT_EQ(after.context.text("run_status"), "partial: interrupted by SIGINT");
}

// One warpcost run a GPU: a second lock on the same GPU is refused naming the holder's run, and
// is taken once the first is gone.
TEST(GpuLock, ASecondRunOnTheSameGpuIsRefusedNamingTheFirst) {
  const std::string uuid = "GPU-warpcost-test-" + std::to_string(::getpid());
  {
    GpuLock first(uuid, "nvidia-test/run-a", GpuLock::Mode::kRefuse);
    ASSERT_TRUE(first.held()) << first.why();
    try {
      GpuLock second(uuid, "nvidia-test/run-b", GpuLock::Mode::kRefuse);
      ADD_FAILURE() << "a second lock on one GPU was taken";
    } catch (const GpuBusy& e) {
      EXPECT_NE(std::string(e.what()).find("in use by another warpcost run (run nvidia-test/run-a, process "),
                std::string::npos)
          << e.what();
    }
  }
  {
    GpuLock again(uuid, "nvidia-test/run-b", GpuLock::Mode::kRefuse);
    EXPECT_TRUE(again.held()) << again.why();
  }
  fs::remove(GpuLock::path_for(uuid));
}

TEST(RunReader, RejectsSampleTimesThatAreNotTimes) {
  const fs::path json = copy_of_fixture("bad-samples");
  RunAnnotation a;
  a.samples["calibration/d2d_copy/1024"] = {{-1.0}, {1.0}, {1.0}, {1.0}, {1.0}};
  annotate_run(json, a);
  try {
    analysis::read_run(json);
    FAIL() << "a negative sample time was read";
  } catch (const analysis::RunFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("warpcost_sample_seconds"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace warpcost
