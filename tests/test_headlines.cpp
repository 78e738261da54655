// The per-GPU headline table: each figure read from the right rows of the right run (the newest of
// its GPU that has it), one row per GPU, the evaluator's verdict carried, a planted bad value seen.
// Fixtures: divergence.json (a real H200 subset), partial_warp.json (a real H200 subset under a
// second, made-up GPU) and streaming.json (synthetic, numbers chosen by make_streaming_fixture.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/run_reader.hpp"
#include "core/statistics.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/headlines.hpp"
#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {
namespace {

const std::filesystem::path kFixtures = WARPCOST_FIXTURES;

EvaluatedRun evaluated(Run run) {
  EvaluatedRun er{std::move(run), {}};
  er.rows = evaluate_run(er.run);
  return er;
}
EvaluatedRun fixture(const std::string& name) { return evaluated(read_run(kFixtures / name)); }

const BenchmarkResult& benchmark(const Run& run, const std::string& run_name) {
  for (const auto& b : run.benchmarks) {
    if (b.run_name == run_name) return b;
  }
  throw std::runtime_error("fixture has no " + run_name);
}

const GpuHeadlines& only(const std::vector<GpuHeadlines>& gpus, const std::string& gpu_prefix) {
  const auto it = std::find_if(gpus.begin(), gpus.end(),
                               [&](const GpuHeadlines& h) { return h.gpu.rfind(gpu_prefix, 0) == 0; });
  if (it == gpus.end()) throw std::runtime_error("no GPU " + gpu_prefix);
  return *it;
}

TEST(Headlines, EachFigureComesFromItsRowsAndNamesItsRun) {
  const std::vector<EvaluatedRun> runs = {fixture("streaming.json"), fixture("divergence.json"),
                                          fixture("partial_warp.json")};
  const std::vector<GpuHeadlines> gpus = headline_figures(runs);
  // streaming.json and divergence.json ran on one H200, partial_warp.json on the fixture GPU.
  ASSERT_EQ(gpus.size(), 2u);
  const GpuHeadlines h200 = only(gpus, "NVIDIA H200 (GPU-3f952ab1)");
  const GpuHeadlines other = only(gpus, "Fixture GPU");

  // The generator puts 800 cycles a load at every footprint of 16 x L2 and more.
  ASSERT_TRUE(h200.dram_latency.found);
  EXPECT_DOUBLE_EQ(h200.dram_latency.value, 800);
  EXPECT_EQ(h200.dram_latency.run_id, "fixture-gpu/20260105T000000Z");

  // The best read is the fastest streaming point: bytes read over median time, from the raw run.
  double best = 0;
  for (const auto& b : runs[0].run.benchmarks) {
    if (b.family == "streaming") best = std::max(best, b.counter_median("bytes_read") / b.median_seconds());
  }
  ASSERT_TRUE(h200.best_read.found);
  EXPECT_DOUBLE_EQ(h200.best_read.value, best);
  EXPECT_NE(h200.best_read.text.find("% of the"), std::string::npos) << h200.best_read.text;

  // Ex 7: the 20/12 warp's median cycles over the uniform warp's, at 4 warps/SM.
  const analysis::Run& div = runs[1].run;
  const double ex7 =
      benchmark(div, "divergence/split_low/k:20/if_trips:384/else_trips:384/warps_per_sm:4")
          .counter_median("warp_cycles_median") /
      benchmark(div, "divergence/split_low/k:32/if_trips:384/else_trips:384/warps_per_sm:4")
          .counter_median("warp_cycles_median");
  ASSERT_TRUE(h200.divergence_20_12.found);
  EXPECT_DOUBLE_EQ(h200.divergence_20_12.value, ex7);
  EXPECT_EQ(h200.divergence_20_12.verdict, verdict::kHolds);
  EXPECT_EQ(h200.divergence_20_12.run_id, "fixture-gpu/20260104T000000Z");

  // W = 0 reaches 0.6 TB/s a warp/SM up to 4.5 TB/s: 90% of the plateau first at 8 warps/SM.
  ASSERT_TRUE(h200.knee.found);
  EXPECT_DOUBLE_EQ(h200.knee.value, 8);
  EXPECT_NE(h200.knee.text.find("Little's law"), std::string::npos);

  // Neither run of the H200 has a staircase; the fixture GPU has nothing but its staircase.
  EXPECT_FALSE(h200.staircase.found);
  EXPECT_FALSE(other.dram_latency.found || other.best_read.found || other.divergence_20_12.found ||
               other.knee.found);
  // Staircase points 33, 48, 64, 65, 96: steps of 2 warps (33, 48, 64) and 3 warps (65, 96). The
  // figure is the step with the worst verdict: the 3-warp step, whose times spread more than 1 %.
  ASSERT_TRUE(other.staircase.found);
  EXPECT_EQ(other.staircase.text.rfind("1 of 2 steps hold one time; largest spread ", 0), 0u) << other.staircase.text;
  EXPECT_EQ(other.staircase.verdict, verdict::kFails);
  // Its value: (max - min) / min of the step's median times, from the raw run.
  const analysis::Run& pw = runs[2].run;
  auto spread = [&pw](std::initializer_list<int> sizes) {
    double lo = 1e300;
    double hi = 0;
    for (const int p : sizes) {
      const double t = benchmark(pw, "partial_warp/staircase/threads:" + std::to_string(p)).median_seconds();
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
    return (hi - lo) / lo;
  };
  EXPECT_LE(spread({33, 48, 64}), 0.01);
  EXPECT_GT(spread({65, 96}), 0.01);
  EXPECT_NEAR(other.staircase.value, spread({65, 96}), 1e-12);
  ASSERT_NE(other.staircase.row, nullptr);
  EXPECT_EQ(other.staircase.row->metric, "step_time_spread");
}

TEST(Headlines, TheNewestRunOfAGpuWinsAndAnOlderOneFillsWhatItLacks) {
  EvaluatedRun old_stream = fixture("streaming.json");
  analysis::Run newer = read_run(kFixtures / "streaming.json");
  newer.context.values["run_id"] = "fixture-gpu/20991231T000000Z";
  newer.context.values["utc"] = "2099-12-31T00:00:00Z";
  // The newer run measured the chase 10% slower and nothing else.
  std::vector<BenchmarkResult> chase;
  for (auto b : newer.benchmarks) {
    if (b.family != "latency") continue;
    for (double& c : b.counters["cycles_per_load"]) c *= 1.1;
    chase.push_back(b);
  }
  newer.benchmarks = chase;
  const std::vector<GpuHeadlines> gpus = headline_figures({old_stream, evaluated(newer)});
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].newest_run, "fixture-gpu/20991231T000000Z");
  EXPECT_NEAR(gpus[0].dram_latency.value, 880, 1e-9);
  EXPECT_EQ(gpus[0].dram_latency.run_id, "fixture-gpu/20991231T000000Z");
  // The newer run has no stream: the best read and the knee come from the older one.
  EXPECT_EQ(gpus[0].best_read.run_id, "fixture-gpu/20260105T000000Z");
  EXPECT_EQ(gpus[0].knee.run_id, "fixture-gpu/20260105T000000Z");
}

TEST(Headlines, TwoGpusOfOneModelAreTwoRows) {
  analysis::Run second = read_run(kFixtures / "divergence.json");
  second.context.values["gpu_uuid"] = "GPU-12345678-0000-0000-0000-000000000000";
  second.context.values["run_id"] = "fixture-gpu/20260104T000000Z-12345678";
  const std::vector<GpuHeadlines> gpus = headline_figures({fixture("divergence.json"), evaluated(second)});
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].gpu, "NVIDIA H200 (GPU-12345678)");
  EXPECT_EQ(gpus[1].gpu, "NVIDIA H200 (GPU-3f952ab1)");
  EXPECT_DOUBLE_EQ(gpus[0].divergence_20_12.value, gpus[1].divergence_20_12.value);
}

TEST(Headlines, ByModelEveryRunOfANameFillsOneRow) {
  analysis::Run second = read_run(kFixtures / "streaming.json");
  second.context.values["gpu_uuid"] = "GPU-12345678-0000-0000-0000-000000000000";
  const std::vector<EvaluatedRun> runs = {fixture("divergence.json"), evaluated(second)};
  ASSERT_EQ(headline_figures(runs).size(), 2u);
  const std::vector<GpuHeadlines> model = headline_figures(runs, HeadlineGrouping::kModel);
  ASSERT_EQ(model.size(), 1u);
  EXPECT_EQ(model[0].gpu, "NVIDIA H200");
  EXPECT_TRUE(model[0].divergence_20_12.found && model[0].knee.found);
}

TEST(Headlines, APlantedBadValueShowsAsItsEvaluatorsMiss) {
  // The 20/12 warp made to take 1.5x the uniform warp's cycles instead of 2x: Ex 7 fails.
  analysis::Run bad = read_run(kFixtures / "divergence.json");
  for (auto& b : bad.benchmarks) {
    if (b.run_name == "divergence/split_low/k:20/if_trips:384/else_trips:384/warps_per_sm:4") {
      for (double& c : b.counters["warp_cycles_median"]) c *= 0.75;
    }
  }
  const GpuHeadlines h = headline_figures({evaluated(bad)}).at(0);
  EXPECT_EQ(h.divergence_20_12.verdict, verdict::kFails);
  EXPECT_NEAR(h.divergence_20_12.value, 1.5, 0.01);

  // A staircase point planted at 80% of its time: its step no longer runs at one time (the step
  // spread fails), its useful fraction misses by 25%, and the figure shows both.
  analysis::Run stairs = read_run(kFixtures / "partial_warp.json");
  for (auto& b : stairs.benchmarks) {
    if (b.run_name == "partial_warp/staircase/threads:48") {
      for (double& s : b.seconds) s *= 0.8;
    }
  }
  const GpuHeadlines s = headline_figures({evaluated(stairs)}).at(0);
  EXPECT_EQ(s.staircase.verdict, verdict::kFails) << s.staircase.text;
  EXPECT_GT(s.staircase.value, 0.2);
}

TEST(Headlines, MarkdownHasOneRowPerGpuAndADashForAMissingFigure) {
  const std::string md =
      headline_table_markdown({fixture("streaming.json"), fixture("partial_warp.json")});
  EXPECT_NE(md.find("## Headline figures per GPU"), std::string::npos);
  EXPECT_NE(md.find("| GPU | SM clock | DRAM latency (random chase) | best read |"), std::string::npos);
  EXPECT_NE(md.find("\n| NVIDIA H200 (GPU-3f952ab1) | "), std::string::npos) << md;
  EXPECT_NE(md.find("\n| Fixture GPU, rev \"A\" (GPU-00000000) | "), std::string::npos) << md;
  EXPECT_NE(md.find("800 cycles (info)"), std::string::npos) << md;
  EXPECT_NE(md.find("| — |"), std::string::npos);
  EXPECT_NE(md.find("fixture-gpu/20260105T000000Z: DRAM latency (random chase), best read, knee"),
            std::string::npos)
      << md;
  EXPECT_EQ(headline_table_markdown({}), "");
  // A GPU with none of the figures is named under the table, not given a row of dashes.
  const std::string bare = headline_table_markdown({fixture("streaming.json"), fixture("runs/fixture-gpu/20260101T000000Z/bench.json")});
  EXPECT_EQ(bare.find("\n| Fixture GPU"), std::string::npos) << bare;
  EXPECT_NE(bare.find("No headline figure in the runs of: Fixture GPU, rev \"A\" (GPU-00000000) "
                      "(fixture-gpu/20260101T000000Z)."),
            std::string::npos)
      << bare;
}

}  // namespace
}  // namespace warpcost::analysis
