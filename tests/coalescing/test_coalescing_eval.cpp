// The coalescing verdicts on a run, and a planted fault for each judged metric (sectors per request,
// useful bandwidth, DRAM bytes) that must turn it to fails. The run is SYNTHETIC
// (fixtures/make_coalescing_fixture.py: numbers that follow the models by construction) because no
// H200 has run the family yet; the lead swaps in a subset of the first real run, and the planted
// faults stay the same.
#include <gtest/gtest.h>

#include <string>

#include "analysis/coalescing/coalescing_eval.hpp"
#include "analysis/coalescing/schema.hpp"
#include "analysis/core/run_reader.hpp"
#include "analysis/evaluation.hpp"

namespace warpcost::analysis {
namespace {

namespace co = warpcost::coalescing;

Run fixture() { return read_run(std::string(WARPCOST_FIXTURES) + "/coalescing-synthetic.json"); }

BenchmarkResult& bench(Run& run, const std::string& benchmark, const std::string& params) {
  for (auto& b : run.benchmarks) {
    if (b.family == co::kFamily && b.benchmark == benchmark && b.params_text() == params) return b;
  }
  throw std::out_of_range("no " + benchmark + " " + params + " in the fixture");
}

// A copy: callers pass the temporary result of evaluate().
Row row(const std::vector<Row>& rows, const std::string& benchmark, const std::string& params,
               const std::string& metric) {
  for (const Row& r : rows) {
    if (r.family == co::kFamily && r.benchmark == benchmark && r.params == params && r.metric == metric) return r;
  }
  throw std::out_of_range("no row " + benchmark + " " + params + " " + metric);
}

std::vector<Row> evaluate(const Run& run) { return evaluate_run(run); }

const std::string kStride2 = "elem_bytes=4;stride=2;offset=0";
const std::string kStride8 = "elem_bytes=4;stride=8;offset=0";
const std::string kStride32 = "elem_bytes=4;stride=32;offset=0";
const std::string kCoalesced = "elem_bytes=4;stride=1;offset=0";

void scale_counter(BenchmarkResult& b, const std::string& name, double factor) {
  for (double& v : b.counters.at(name)) v *= factor;
}
void scale_time(BenchmarkResult& b, double factor) {
  for (double& s : b.seconds) s *= factor;
}

TEST(CoalescingEval, TheModelsHoldWhereTheSyntheticRunFollowsThem) {
  const std::vector<Row> rows = evaluate(fixture());
  for (const std::string& params : {kStride2, kStride8, std::string("elem_bytes=4;stride=1;offset=1")}) {
    EXPECT_EQ(row(rows, "load_dram", params, co::row::kUsefulBandwidth).verdict, verdict::kHolds) << params;
    EXPECT_EQ(row(rows, "load_dram", params, co::row::kSectorsPerRequest).verdict, verdict::kHolds) << params;
    EXPECT_EQ(row(rows, "load_dram", params, co::row::kDramBytes).verdict, verdict::kHolds) << params;
  }
  // Stride 2 of words uses half of each sector: half the coalesced rate.
  const Row& bw = row(rows, "load_dram", kStride2, co::row::kUsefulBandwidth);
  const Row& ref = row(rows, "load_dram", kCoalesced, co::row::kUsefulBandwidth);
  EXPECT_NEAR(*bw.predicted, 0.5 * ref.value, 1e-6 * ref.value);
  // The reference is never judged against itself.
  EXPECT_EQ(ref.verdict, verdict::kInfo);
  EXPECT_FALSE(ref.predicted.has_value());
  EXPECT_EQ(row(rows, "store_dram", kStride8, co::row::kSectorsPerRequest).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "store_dram", kStride8, co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "load_dram_permuted", "elem_bytes=4", co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "load_l2", kStride8, co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "block_2d", "x=30;y=30", co::row::kSectorsPerRequest).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "block_2d", "x=30;y=30", co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "worked_example", "example=9", co::row::kEx9Ratio).verdict, verdict::kInfo);
}

// The synthetic stride-32 point moves 64-byte granules: the sector model fails and the why names
// the promoted fetch, for the bandwidth and for the DRAM bytes.
TEST(CoalescingEval, AMissMatchingSixtyFourByteGranulesIsNamedAsSectorPromotion) {
  const std::vector<Row> rows = evaluate(fixture());
  const Row& bw = row(rows, "load_dram", kStride32, co::row::kUsefulBandwidth);
  EXPECT_EQ(bw.verdict, verdict::kFails);
  EXPECT_NE(bw.why.find("64-byte promoted-fetch model"), std::string::npos) << bw.why;
  const Row& dram = row(rows, "load_dram", kStride32, co::row::kDramBytes);
  EXPECT_EQ(dram.verdict, verdict::kFails);
  EXPECT_NE(dram.why.find("L2 sector promotion"), std::string::npos) << dram.why;
  EXPECT_EQ(row(rows, "load_dram", kStride32, co::row::kSectorsPerRequest).verdict, verdict::kHolds);
}

TEST(CoalescingEval, WorkedExamplesAreNamedOnTheirRows) {
  const std::vector<Row> rows = evaluate(fixture());
  const Row& ex2 = row(rows, "partial_block", "block_threads=100", co::row::kSectorsPerRequest);
  EXPECT_EQ(ex2.verdict, verdict::kHolds);
  EXPECT_DOUBLE_EQ(*ex2.predicted, 13.0 / 4.0);
  EXPECT_NE(ex2.why.find("Ex 2"), std::string::npos);
  EXPECT_NE(row(rows, "partial_block", "block_threads=16", co::row::kSectorsPerRequest).why.find("Ex 4"), std::string::npos);
  EXPECT_NE(row(rows, "block_2d", "x=32;y=8", co::row::kSectorsPerRequest).why.find("Ex 9"), std::string::npos);
  // Small blocks have no bandwidth model: info, never holds.
  EXPECT_EQ(row(rows, "partial_block", "block_threads=48", co::row::kUsefulBandwidth).verdict, verdict::kInfo);
}

// Planted fault, sectors per request: the 48-thread block counted as if its second warp read a whole
// line (4 sectors, not 2).
TEST(CoalescingEval, PlantedFaultSectorsOfAHalfWarpCountedAsAFullLineFails) {
  analysis::Run run = fixture();
  BenchmarkResult& b = bench(run, "partial_block", "block_threads=48");
  scale_counter(b, co::metric::kSectorsLd, 8.0 / 6.0);
  const Row& r = row(evaluate(run), "partial_block", "block_threads=48", co::row::kSectorsPerRequest);
  EXPECT_EQ(r.verdict, verdict::kFails);
  EXPECT_DOUBLE_EQ(r.value, 4.0);
}

// Planted fault, sectors per request (Ex 2): the 4-lane tail warp counted like a full warp.
TEST(CoalescingEval, PlantedFaultEx2TailWarpCountedAsFourSectorsFails) {
  analysis::Run run = fixture();
  scale_counter(bench(run, "partial_block", "block_threads=100"), co::metric::kSectorsLd, 16.0 / 13.0);
  EXPECT_EQ(row(evaluate(run), "partial_block", "block_threads=100", co::row::kSectorsPerRequest).verdict, verdict::kFails);
}

// Planted fault, stores: a store sector count off by one sector a request.
TEST(CoalescingEval, PlantedFaultStoreSectorsFails) {
  analysis::Run run = fixture();
  scale_counter(bench(run, "store_dram", kStride8), co::metric::kSectorsSt, 31.0 / 32.0);
  EXPECT_EQ(row(evaluate(run), "store_dram", kStride8, co::row::kSectorsPerRequest).verdict, verdict::kFails);
}

// Planted fault, bandwidth: stride 8 (one sector a lane, 1/8 of each used) reading its useful bytes
// as fast as the coalesced point reads its own: 8x the prediction.
TEST(CoalescingEval, PlantedFaultStrideEightAtTheCoalescedUsefulRateFails) {
  analysis::Run run = fixture();
  BenchmarkResult& strided = bench(run, "load_dram", kStride8);
  const BenchmarkResult& coalesced = bench(run, "load_dram", kCoalesced);
  const double useful_ratio = strided.counter_median(co::work::kUsefulBytes) / coalesced.counter_median(co::work::kUsefulBytes);
  strided.seconds = coalesced.seconds;
  scale_time(strided, useful_ratio);
  const Row& r = row(evaluate(run), "load_dram", kStride8, co::row::kUsefulBandwidth);
  EXPECT_EQ(r.verdict, verdict::kFails);
  EXPECT_GT(*r.rel_error, 1.0);
}

// Planted fault, bandwidth (Ex 9): the (30,30) block 20 % slower than the launch-wide model.
TEST(CoalescingEval, PlantedFaultSquareBlockSlowFails) {
  analysis::Run run = fixture();
  scale_time(bench(run, "block_2d", "x=30;y=30"), 1.25);
  EXPECT_EQ(row(evaluate(run), "block_2d", "x=30;y=30", co::row::kUsefulBandwidth).verdict, verdict::kFails);
}

// Planted fault, DRAM bytes: the stride-2 launch moving 1.5x its sectors.
TEST(CoalescingEval, PlantedFaultDramBytesFails) {
  analysis::Run run = fixture();
  scale_counter(bench(run, "load_dram", kStride2), co::metric::kDramRead, 1.5);
  const Row& r = row(evaluate(run), "load_dram", kStride2, co::row::kDramBytes);
  EXPECT_EQ(r.verdict, verdict::kFails);
  EXPECT_NEAR(*r.rel_error, 0.5, 1e-9);
}

// The project's noise rule (point_uncertainty): sigma = hypot(noise / sqrt(samples) of the point,
// of the reference); a 12 % miss is 2 % past the 10 % tolerance: warn when 2 sigma covers that
// (noise 10 % over 25 samples: sigma >= 2 %), fails when the point is quiet (noise 0.1 %).
TEST(CoalescingEval, AMissWithinTwiceTheUncertaintyIsWarn) {
  analysis::Run run = fixture();
  BenchmarkResult& b = bench(run, "load_dram", kStride2);
  scale_time(b, 1.0 / 1.12);
  b.counters["warpcost_samples"] = {25, 25, 25};
  b.counters["warpcost_noise"] = {0.10, 0.10, 0.10};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kWarn);
  // The same noise read as one sample's (not divided by sqrt(25)) would be warn too; 0.1 % is not.
  b.counters["warpcost_noise"] = {0.001, 0.001, 0.001};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kFails);
  // noise 4 % over 25 samples: sigma 0.8 %, 2 sigma 1.6 % < the 2 % excess: fails (sqrt(samples) counts).
  b.counters["warpcost_noise"] = {0.04, 0.04, 0.04};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kFails);
}

// Issue 13's throttle rule, the shared one (is_throttled): a point whose lowest SM clock fell under
// 95 % of the maximum is throttled, not judged, even when it would hold; a throttled reference is
// not used.
TEST(CoalescingEval, AThrottledPointIsThrottledNotHolds) {
  analysis::Run run = fixture();
  run.context.values["sm_clock_max_mhz"] = "1980";
  BenchmarkResult& b = bench(run, "load_dram", kStride2);
  b.counters["warpcost_sm_clock_mhz"] = {1970, 1700, 1970};  // the lowest counts
  const Row r = row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth);
  EXPECT_EQ(r.verdict, verdict::kThrottled);
  EXPECT_EQ(r.kind, kind::kModel);
  EXPECT_NE(r.why.find("throttled"), std::string::npos);
  b.counters["warpcost_sm_clock_mhz"] = {1970, 1970, 1970};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  for (auto& ref : run.benchmarks) {
    if (ref.benchmark == "load_dram" && ref.params_text().find(";stride=1;offset=0") != std::string::npos) {
      ref.counters["warpcost_sm_clock_mhz"] = {1700};
    }
  }
  const Row unref = row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth);
  EXPECT_EQ(unref.verdict, verdict::kInfo);
  EXPECT_NE(unref.why.find("no unthrottled coalesced reference"), std::string::npos) << unref.why;
}

TEST(CoalescingEval, TheReportHasTheFamilySummary) {
  EvaluatedRun er{fixture(), {}};
  er.rows = evaluate_run(er.run);
  const std::string md = coalescing_summary_markdown(er);
  EXPECT_NE(md.find("**load_dram**"), std::string::npos);
  EXPECT_NE(md.find("| 32 |"), std::string::npos);
  EXPECT_NE(md.find("block_2d | x=30;y=30"), std::string::npos);
  EXPECT_NE(md.find("✗"), std::string::npos);  // the stride-32 miss is marked
}

}  // namespace
}  // namespace warpcost::analysis
