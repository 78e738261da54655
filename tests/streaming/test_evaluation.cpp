// The latency and streaming evaluators on a synthetic run whose numbers were chosen so every
// plateau, knee and model prediction can be worked out by hand (tests/fixtures/streaming.json,
// written by make_streaming_fixture.py next to it).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/models.hpp"
#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/tidy_csv.hpp"
#include "analysis/units.hpp"

namespace warpcost::analysis {
namespace {

const std::filesystem::path kFixture = std::filesystem::path(WARPCOST_FIXTURES) / "streaming.json";

Row find_row(const std::vector<Row>& rows, const std::string& benchmark, const std::string& params,
             const std::string& metric) {
  for (const Row& r : rows) {
    if (r.benchmark == benchmark && r.params == params && r.metric == metric) return r;
  }
  ADD_FAILURE() << "no row " << benchmark << " " << params << " " << metric;
  return Row{};
}

const std::string kW16 = "use=independent;load_bytes=16;alu_per_load=16";

TEST(MeasuredKnee, FewestWarpsReachingTheFractionOfThePlateau) {
  const model::Knee k = model::measured_knee({{64, 4.5}, {1, 0.3}, {16, 4.5}, {8, 2.4}}, 0.9);
  EXPECT_DOUBLE_EQ(k.plateau, 4.5);
  EXPECT_DOUBLE_EQ(k.warps, 16);
  EXPECT_DOUBLE_EQ(model::measured_knee({{2, 1.0}, {4, 0.95}}, 0.9).warps, 2);
  EXPECT_THROW(model::measured_knee({}, 0.9), std::invalid_argument);
  EXPECT_THROW(model::measured_knee({{1, 1.0}}, 1.5), std::invalid_argument);
}

TEST(StreamingEvaluation, ChasePlateausPerLevel) {
  const std::vector<Row> rows = evaluate_run(read_run(kFixture));
  EXPECT_DOUBLE_EQ(find_row(rows, "latency_plateau", "order=random;level=L1", "latency_cycles").value, 33);
  EXPECT_DOUBLE_EQ(find_row(rows, "latency_plateau", "order=random;level=L2", "latency_cycles").value, 250);
  const Row dram = find_row(rows, "latency_plateau", "order=random;level=DRAM", "latency_cycles");
  EXPECT_DOUBLE_EQ(dram.value, 800);
  EXPECT_NE(dram.why.find("1048576, 2097152 KiB"), std::string::npos) << dram.why;
}

// The fixture's W = 16 curve with a counted instruction mix planted, as the counter pass reports
// it: 100 warp instructions a load (smsp__inst_executed.sum over the launch's warp loads).
analysis::Run with_instructions(double per_load) {
  analysis::Run run = read_run(kFixture);
  for (auto& b : run.benchmarks) {
    if (b.benchmark != "read_independent" || b.param("alu_per_load") != 16) continue;
    b.counters["smsp__inst_executed.sum"] =
        std::vector<double>(b.seconds.size(), per_load * b.counter_median("loads") / 32);
  }
  return run;
}

TEST(MeasuredKnee, APlateauNeedsFlatPointsOverAWiderSpanOfWarps) {
  // A straight line to 64 warps: its 90 % point is 58, its last 5 % of rate spans its last 5 % of
  // warps (61..64), so it shows no plateau however densely it is swept.
  std::vector<std::pair<double, double>> line;
  for (int w = 1; w <= 64; ++w) line.emplace_back(w, 0.07 * w);
  const model::Knee l = model::measured_knee(line, 0.9);
  EXPECT_DOUBLE_EQ(l.warps, 58);  // 0.07 w >= 0.9 x 4.48 first at w = 57.6 -> 58
  // R = the second-largest rate, 0.07 x 63 = 4.41; 95 % of it, 4.19, is first reached at 60
  // (0.07 x 59.85): 64 / 60 = 1.07 < 1.10.
  EXPECT_DOUBLE_EQ(l.reference, 0.07 * 63);
  EXPECT_DOUBLE_EQ(l.flat_from, 60);
  EXPECT_FALSE(l.saturated);
  // Rising to 4.4 at 32 warps and flat (within 2 %) to 64: a plateau from 32.
  const model::Knee p = model::measured_knee({{8, 1.1}, {16, 2.2}, {24, 3.9}, {32, 4.4}, {48, 4.5}, {64, 4.45}}, 0.9);
  EXPECT_DOUBLE_EQ(p.warps, 32);
  EXPECT_TRUE(p.saturated);
  // The same plateau with one point past its start is not enough evidence; nor is a last point
  // that falls out of the band.
  EXPECT_FALSE(model::measured_knee({{8, 1.1}, {16, 2.2}, {32, 4.4}, {64, 4.5}}, 0.9).saturated);
  EXPECT_FALSE(model::measured_knee({{8, 1.1}, {32, 4.4}, {48, 4.5}, {64, 3.9}}, 0.9).saturated);
}

TEST(MeasuredKnee, OneNoisyPointCannotFlipThePlateau) {
  // Flat at 4.4..4.5 from 32 to 64 warps with one dip at 40 (4.2). R = 4.45 (the second-largest
  // rate), s = 32 (4.4 >= 0.95 x 4.45 = 4.2275); of the points from 32 on, only 4.2 lies outside
  // 4.45 +- 0.2225: one outlier, 3 points past s inside, 64/32 = 2 >= 1.10: flat. (The rule before
  // issue 21 held every point past s to 95 % of the largest rate, 4.275, and 4.2 broke it.)
  const std::vector<std::pair<double, double>> dip = {{8, 1.1},  {16, 2.2}, {24, 3.9}, {32, 4.4},
                                                      {40, 4.2}, {48, 4.5}, {56, 4.45}, {64, 4.45}};
  const model::Knee d = model::measured_knee(dip, 0.9);
  EXPECT_DOUBLE_EQ(d.reference, 4.45);
  EXPECT_DOUBLE_EQ(d.flat_from, 32);
  EXPECT_EQ(d.outliers, 1);
  EXPECT_EQ(d.flat_points, 3);
  EXPECT_TRUE(d.saturated);
  EXPECT_DOUBLE_EQ(d.warps, 32);  // 0.9 x 4.5 = 4.05: 24 reads 3.9, 32 reads 4.4
  // A second dip (56 at 4.1) is two outliers: not flat.
  std::vector<std::pair<double, double>> two = dip;
  two[6].second = 4.1;
  EXPECT_FALSE(model::measured_knee(two, 0.9).saturated);
  // One spike: flat at 4.4 from 32 to 64, 48 reading 4.9. R = 4.4 (the spike cannot be R), s = 32,
  // the spike is the one outlier: flat. Measured against the spike (the old rule), 4.4 is 10 %
  // under it and the curve showed no plateau.
  const model::Knee spike =
      model::measured_knee({{8, 1.1}, {16, 2.2}, {32, 4.4}, {40, 4.4}, {48, 4.9}, {56, 4.4}, {64, 4.4}}, 0.9);
  EXPECT_DOUBLE_EQ(spike.reference, 4.4);
  EXPECT_EQ(spike.outliers, 1);
  EXPECT_TRUE(spike.saturated);
}

TEST(StreamingEvaluation, KneeAndEachModelsPredictionInNumbers) {
  const std::vector<Row> rows = evaluate_run(with_instructions(100));
  EXPECT_DOUBLE_EQ(find_row(rows, "knee", kW16, "knee_warps_per_sm").value, 16);
  // ceil(800/100) = 8 a scheduler, 32 an SM; the knee is at 16, 16 warps off (more than 25%).
  const Row n = find_row(rows, "knee", kW16, "knee_model_ceil_l_over_w");
  EXPECT_DOUBLE_EQ(*n.predicted, 32);
  EXPECT_EQ(n.verdict, "fails");
  EXPECT_NE(n.why.find("I = 100.0 warp instructions a load"), std::string::npos) << n.why;
  EXPECT_NE(n.why.find("ceil(L/I) = 8 a scheduler, 32 an SM"), std::string::npos) << n.why;
  // 4 x 800 / 100 = 32 warps.
  const Row d = find_row(rows, "knee", kW16, "knee_model_scheduler_demand");
  EXPECT_NE(d.why.find("3200 slots / 100.0 = 32.0 warps"), std::string::npos) << d.why;
  EXPECT_EQ(d.verdict, "fails");
  // 200 instructions a load: ceil(800/200) = 4 a scheduler, 16 an SM, where the knee is.
  EXPECT_EQ(find_row(evaluate_run(with_instructions(200)), "knee", kW16, "knee_model_ceil_l_over_w").verdict,
            "holds");
  // 20 a load: 40 a scheduler, 160 an SM, past the sweep's 64. The curve is flat from its knee
  // (16) to 64, so the knee lies inside the sweep and 160 is a miss by 144 warps (the knee rule).
  const Row beyond = find_row(evaluate_run(with_instructions(20)), "knee", kW16, "knee_model_ceil_l_over_w");
  EXPECT_DOUBLE_EQ(*beyond.predicted, 160);
  EXPECT_EQ(beyond.verdict, "fails") << beyond.why;
  // The same prediction on the curve cut at 16 warps/SM (the sweep ends at its knee, 16/16 < 1.10:
  // not flat): the knee may lie beyond the sweep, where 160 lies. The data cannot decide.
  analysis::Run cut = with_instructions(20);
  cut.benchmarks.erase(std::remove_if(cut.benchmarks.begin(), cut.benchmarks.end(),
                                      [](const BenchmarkResult& b) {
                                        return b.benchmark == "read_independent" &&
                                               b.param("alu_per_load") == 16 && b.param("warps_per_sm") > 16;
                                      }),
                       cut.benchmarks.end());
  const Row open = find_row(evaluate_run(cut), "knee", kW16, "knee_model_ceil_l_over_w");
  EXPECT_DOUBLE_EQ(*open.predicted, 160);
  EXPECT_EQ(open.verdict, "untestable here") << open.why;
  // Little: 4.5 TB/s x 900 cycles at the run's clock over 512 bytes a warp, per SM: a consistency
  // figure (the loaded latency is measured at the knee), so info.
  const Row l = find_row(rows, "knee", kW16, "littles_law_consistency");
  const analysis::Run run = read_run(kFixture);
  const double clock = run.context.number("sm_clock_measured_khz") * 1e3;
  EXPECT_NEAR(*l.predicted, 4.5e12 * 900 / clock / 512 / 132, 1e-6);
  EXPECT_EQ(l.kind, "info");
  // The bandwidth rows are beside the theoretical peak, a bound: info.
  const Row bw = find_row(rows, "read_independent", "load_bytes=16;alu_per_load=16;warps_per_sm=64",
                          "dram__bytes_read.sum.per_second");
  EXPECT_NEAR(bw.value, 4.5e12, 1e3);
  EXPECT_EQ(bw.verdict, "info");
}

TEST(StreamingEvaluation, TheWZeroStreamIsMemoryBound) {
  const std::vector<Row> rows = evaluate_run(with_instructions(100));
  // Ex 6's claim: the W = 0 stream runs at the copy's rate (4.5 against 4.26 TB/s).
  const Row bound = find_row(rows, "memory_bound", "measured_by=knee/use=independent;load_bytes=16;alu_per_load=0",
                             "bandwidth_vs_copy");
  EXPECT_NEAR(bound.value, 4.5 / 4.26, 1e-9);
  EXPECT_EQ(bound.verdict, "holds");
  for (const Row& r : rows) EXPECT_NE(r.benchmark, "worked_example") << r.params;
}

TEST(StreamingEvaluation, LoadsInFlightHaveOnlyLittlesLawWithTheirBytes) {
  const std::vector<Row> rows = evaluate_run(read_run(kFixture));
  const std::string u4 = "use=batched;load_bytes=16;alu_per_load=0;loads_in_flight=4";
  EXPECT_DOUBLE_EQ(find_row(rows, "knee", u4, "knee_warps_per_sm").value, 4);
  // 4.5 TB/s x 1000 cycles over 4 loads x 512 bytes a warp, per SM.
  const analysis::Run run = read_run(kFixture);
  const double clock = run.context.number("sm_clock_measured_khz") * 1e3;
  EXPECT_NEAR(*find_row(rows, "knee", u4, "littles_law_consistency").predicted,
              4.5e12 * 1000 / clock / 2048 / 132, 1e-6);
  // ceil(L/I) and the scheduler demand count one load per I instructions: no rows for a batch.
  for (const Row& r : rows) {
    EXPECT_FALSE(r.params == u4 && (r.metric == "knee_model_ceil_l_over_w" ||
                                    r.metric == "knee_model_scheduler_demand"))
        << r.metric;
  }
}

TEST(StreamingEvaluation, OneLoadPerThreadNamesTheCapThatBinds) {
  const std::vector<Row> rows = evaluate_run(read_run(kFixture));
  const Row small = find_row(rows, "read_one_per_thread", "block_threads=32", "resident_warps_per_sm");
  EXPECT_DOUBLE_EQ(small.value, 32);
  EXPECT_NE(small.why.find("the 32-block cap binds before the 64-warp cap"), std::string::npos) << small.why;
  const Row big = find_row(rows, "read_one_per_thread", "block_threads=256", "resident_warps_per_sm");
  EXPECT_NE(big.why.find("the warp cap is reached"), std::string::npos) << big.why;
  EXPECT_NEAR(find_row(rows, "read_one_per_thread", "block_threads=256", "dram__bytes_read.sum.per_second").value,
              4.4e12, 1e3);
}

TEST(StreamingEvaluation, PeakReadAndSweepTimeAgainstTheTargets) {
  const std::vector<Row> rows = evaluate_run(read_run(kFixture));
  // The best read, 4.5 TB/s, is above the copy's 4.26 but under 96% of the run's theoretical peak.
  // The target sits on the fastest point's own bandwidth row: no second row repeats its value.
  Row peak;
  int targets = 0;
  for (const Row& r : rows) {
    if (r.kind == "target" && r.metric == "dram__bytes_read.sum.per_second") {
      peak = r;
      ++targets;
    }
  }
  ASSERT_EQ(targets, 1);
  // No second row for the same point and metric, and no separate "peak_read" row.
  for (const Row& r : rows) {
    EXPECT_NE(r.benchmark, "peak_read");
    if (r.kind != "target" && r.metric == peak.metric) {
      EXPECT_FALSE(r.benchmark == peak.benchmark && r.params == peak.params) << r.benchmark << " " << r.params;
    }
  }
  EXPECT_NEAR(peak.value, 4.5e12, 1e3);
  EXPECT_EQ(peak.kind, "target");
  EXPECT_EQ(peak.verdict, "missed");
  EXPECT_NE(peak.why.find("x the copy's 4.260 TB/s"), std::string::npos) << peak.why;
  // 14 points of the 16-byte persistent sweep at 0.01 s each.
  const Row sweep = find_row(rows, "sweep_gpu_time", "benchmark=read_independent;load_bytes=16", "gpu_seconds");
  EXPECT_NEAR(sweep.value, 0.14, 1e-9);
  EXPECT_EQ(sweep.kind, "target");
  EXPECT_EQ(sweep.verdict, "met");
}

// ---- the loaded chase (issue 33) ------------------------------------------------------------

// A loaded chase point as the bench writes it: `cycles` a load beside a background of `background`
// bytes/s, three repetitions that agree.
BenchmarkResult loaded_point(int bg_warps, double cycles, double background) {
  BenchmarkResult b = parse_run_name("latency/chase_loaded/bg_warps:" + std::to_string(bg_warps));
  b.seconds = {0.002, 0.002, 0.002};
  auto three = [](double x) { return std::vector<double>(3, x); };
  b.counters = {{"cycles_per_load", three(cycles)},
                {"ns_per_load", three(cycles / 2)},
                {"nodes", three(4194304)},
                {"warm_steps", three(512)},
                {"steps", three(4096)},
                {"footprint_bytes", three(1073741824)},
                {"background_bytes_per_second", three(background)},
                {"background_lifetime_bytes_per_second", three(background * 0.95)},
                {"background_sms", three(bg_warps > 0 ? 100 : 0)}};
  return b;
}

// The fixture with a locus worked out by hand: 100 SMs at 2 GHz; the W = 0 16-byte stream's 1, 8
// and 32 warps/SM points read 1.024 GB in 5, 0.8 and 0.25 ms: 0.2048, 1.28 and 4.096 TB/s, so a
// warp's iteration (100 x w x 512 bytes x 2e9 / BW cycles) takes 500, 640 and 800 cycles:
// Λ(0) = 500. The loaded chase: 600 cycles alone; at 2.688 TB/s (halfway from 1.28 to 4.096)
// Λ = 720, so the model predicts 600 + 720 − 500 = 820 cycles.
analysis::Run loaded_chase_run(double loaded_cycles) {
  analysis::Run run = read_run(kFixture);
  run.context.values["sm_count"] = "100";
  run.context.values["sm_clock_measured_khz"] = "2000000";
  auto& bs = run.benchmarks;
  bs.erase(std::remove_if(bs.begin(), bs.end(),
                          [](const BenchmarkResult& b) {
                            return b.benchmark == "read_independent" && b.param("alu_per_load") == 0 &&
                                   b.param("load_bytes") == 16;
                          }),
           bs.end());
  for (const auto& [warps, seconds] : {std::pair{1, 0.005}, std::pair{8, 0.0008}, std::pair{32, 0.00025}}) {
    BenchmarkResult b = parse_run_name("streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:" +
                                       std::to_string(warps));
    b.seconds = {seconds, seconds, seconds};
    b.counters = {{"bytes_read", std::vector<double>(3, 1.024e9)}, {"loads", std::vector<double>(3, 6.4e7)}};
    bs.push_back(b);
  }
  bs.push_back(loaded_point(0, 600, 0));
  bs.push_back(loaded_point(8, loaded_cycles, 2.688e12));
  bs.push_back(loaded_point(32, 900, 5e12));  // past the locus' ceiling: Λ = 800, predicted 900
  return run;
}

const std::string kBg8 = "bg_warps=8";

TEST(LoadedChase, ThePredictionIsTheUnloadedChasePlusTheLocusRise) {
  const std::vector<Row> rows = evaluate_run(loaded_chase_run(820));
  const Row m = find_row(rows, "chase_loaded", kBg8, "second_order_loaded_latency_cycles");
  ASSERT_TRUE(m.predicted.has_value()) << m.why;
  EXPECT_NEAR(*m.predicted, 820.0, 1e-9);
  EXPECT_EQ(m.kind, "model");
  EXPECT_EQ(m.verdict, "holds") << m.why;
  EXPECT_EQ(m.model.rfind("second-order:", 0), 0u) << m.model;
  EXPECT_NE(m.why.find("C(0) 600 cycles + Λ(2.688 TB/s) 720 − Λ(0) 500 = predicted 820 cycles, measured 820"),
            std::string::npos)
      << m.why;
  // Past the ceiling Λ is held at its last point, and the sentence says so.
  const Row past = find_row(rows, "chase_loaded", "bg_warps=32", "second_order_loaded_latency_cycles");
  EXPECT_NEAR(*past.predicted, 900.0, 1e-9);
  EXPECT_EQ(past.verdict, "holds");
  EXPECT_NE(past.why.find("past the locus' ceiling"), std::string::npos) << past.why;
  // The parameter rows, every point; the unloaded point is the input: no model row.
  EXPECT_DOUBLE_EQ(find_row(rows, "chase_loaded", kBg8, "loaded_latency_cycles").value, 820);
  const Row bw = find_row(rows, "chase_loaded", kBg8, "background_dram_bytes_per_second");
  EXPECT_DOUBLE_EQ(bw.value, 2.688e12);
  EXPECT_EQ(bw.verdict, "info");
  EXPECT_EQ(find_row(rows, "chase_loaded", "bg_warps=0", "loaded_latency_cycles").verdict, "info");
  for (const Row& r : rows) {
    EXPECT_FALSE(r.params == "bg_warps=0" && r.metric == "second_order_loaded_latency_cycles") << r.why;
    if (r.benchmark == "chase_loaded") {
      EXPECT_NE(r.verdict, "error") << r.params << " " << r.metric << ": " << r.why;
    }
  }
}

// The rows go into the tidy CSV as its schema allows: bg_warps is a typed parameter column.
TEST(LoadedChase, TheRowsAreWrittenToTheCsvWithTheirParameterColumn) {
  EvaluatedRun er{loaded_chase_run(820), {}};
  er.rows = evaluate_run(er.run);
  use_vocabulary_units(er.rows);
  std::string csv;
  ASSERT_NO_THROW(csv = tidy_csv({er}));
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",bg_warps"), std::string::npos) << header;
  EXPECT_NE(csv.find("second_order_loaded_latency_cycles"), std::string::npos);
}

TEST(LoadedChase, APlantedSlowLoadedChaseFails) {
  const Row m = find_row(evaluate_run(loaded_chase_run(820 * 1.3)), "chase_loaded", kBg8,
                         "second_order_loaded_latency_cycles");
  EXPECT_NEAR(*m.predicted, 820.0, 1e-9);
  EXPECT_NEAR(*m.rel_error, 0.3, 1e-9);
  EXPECT_EQ(m.verdict, "fails") << m.why;
  EXPECT_NE(m.why.find("more than 5% apart"), std::string::npos) << m.why;
  // 4 % over the prediction is inside the declared 5 %.
  EXPECT_EQ(find_row(evaluate_run(loaded_chase_run(820 * 1.04)), "chase_loaded", kBg8,
                     "second_order_loaded_latency_cycles")
                .verdict,
            "holds");
}

TEST(LoadedChase, WithoutALocusOrAnUnloadedPointTheRowIsInfoAndSaysWhich) {
  analysis::Run no_locus = loaded_chase_run(820);
  auto& bs = no_locus.benchmarks;
  bs.erase(std::remove_if(bs.begin(), bs.end(),
                          [](const BenchmarkResult& b) {
                            return b.benchmark == "read_independent" && b.param("alu_per_load") == 0 &&
                                   b.param("load_bytes") == 16;
                          }),
           bs.end());
  const Row a = find_row(evaluate_run(no_locus), "chase_loaded", kBg8, "second_order_loaded_latency_cycles");
  EXPECT_EQ(a.kind, "info");
  EXPECT_EQ(a.verdict, "info");
  EXPECT_FALSE(a.predicted.has_value());
  EXPECT_NE(a.why.find("not judged: no loaded-latency locus"), std::string::npos) << a.why;
  analysis::Run no_unloaded = loaded_chase_run(820);
  no_unloaded.benchmarks.erase(std::remove_if(no_unloaded.benchmarks.begin(), no_unloaded.benchmarks.end(),
                                              [](const BenchmarkResult& b) {
                                                return b.benchmark == "chase_loaded" && b.param("bg_warps") == 0;
                                              }),
                               no_unloaded.benchmarks.end());
  const Row u = find_row(evaluate_run(no_unloaded), "chase_loaded", kBg8, "second_order_loaded_latency_cycles");
  EXPECT_EQ(u.verdict, "info");
  EXPECT_NE(u.why.find("not judged: no unthrottled chase_loaded point at bg_warps = 0"), std::string::npos) << u.why;
}

TEST(LoadedChase, AThrottledUnloadedPointMakesTheModelRowThrottled) {
  analysis::Run run = loaded_chase_run(820);
  for (auto& b : run.benchmarks) {
    if (b.benchmark == "chase_loaded" && b.param("bg_warps") == 0) b.counters["warpcost_sm_clock_mhz"] = {1000, 1000, 1000};
  }
  const Row m = find_row(evaluate_run(run), "chase_loaded", kBg8, "second_order_loaded_latency_cycles");
  EXPECT_EQ(m.verdict, "throttled") << m.why;
  EXPECT_NE(m.why.find("bg_warps:0"), std::string::npos) << m.why;
}

}  // namespace
}  // namespace warpcost::analysis
