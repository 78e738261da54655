// The coalescing verdicts on REAL data, a cut of the committed H200 run 20261130T145749Z-47c57c98
// (fixtures/make_coalescing_h200_fixture.py), and a planted fault for each judged metric (sectors
// per request, useful bandwidth, DRAM bytes) that must turn it to fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/coalescing/evaluation.hpp"
#include "core/coalescing/schema.hpp"
#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"

namespace warpcost::analysis {
namespace {

namespace co = warpcost::coalescing;

Run fixture() { return read_run(std::string(WARPCOST_FIXTURES) + "/coalescing-h200.json"); }

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

// Where the H200 follows the sector model (docs/coalescing.md): every row judged is kind model.
TEST(CoalescingEval, TheModelsHoldWhereTheH200FollowsThem) {
  const std::vector<Row> rows = evaluate(fixture());
  for (const std::string& params : {kStride2, kStride8, std::string("elem_bytes=4;stride=4;offset=0")}) {
    for (const char* metric : {co::row::kUsefulBandwidth, co::row::kSectorsPerRequest, co::row::kDramBytes}) {
      const Row r = row(rows, "load_dram", params, metric);
      EXPECT_EQ(r.verdict, verdict::kHolds) << params << " " << metric << ": " << r.why;
      EXPECT_EQ(r.kind, kind::kModel) << params << " " << metric;
    }
  }
  // The reference is the best of the 4, 8 and 16 B stride-1 DRAM rates; stride 2 of words uses half
  // of each sector: half of it.
  // The best of the three (8 B on the committed run) is info, the prediction's input; the other two
  // are judged against it (issue 21) and hold (4 B 0.983x, 16 B 0.984x).
  double best = 0;
  for (const int size : {4, 8, 16}) {
    best = std::max(best, row(rows, "load_dram", "elem_bytes=" + std::to_string(size) + ";stride=1;offset=0",
                              co::row::kUsefulBandwidth).value);
  }
  for (const int size : {4, 8, 16}) {
    const Row ref = row(rows, "load_dram", "elem_bytes=" + std::to_string(size) + ";stride=1;offset=0", co::row::kUsefulBandwidth);
    if (ref.value == best) {
      EXPECT_EQ(size, 8);
      EXPECT_EQ(ref.verdict, verdict::kInfo);
      EXPECT_EQ(ref.kind, kind::kInfo);
      EXPECT_FALSE(ref.predicted.has_value());
    } else {
      EXPECT_EQ(ref.kind, kind::kModel) << size;
      EXPECT_EQ(ref.verdict, verdict::kHolds) << size << ": " << ref.why;
      EXPECT_NEAR(*ref.predicted, best, 1e-9 * best);
    }
  }
  EXPECT_NEAR(*row(rows, "load_dram", kStride2, co::row::kUsefulBandwidth).predicted, 0.5 * best, 1e-9 * best);
  EXPECT_EQ(row(rows, "load_dram_permuted", "elem_bytes=4", co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "load_l2", kStride8, co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "block_2d", "x=32;y=8", co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "block_2d", "x=30;y=30", co::row::kSectorsPerRequest).verdict, verdict::kHolds);
  EXPECT_EQ(row(rows, "load_l2", kCoalesced, co::row::kDramBytes).kind, kind::kInfo);
}

// 1 and 2 B stride-1 loads are no coalesced reference: held against the 4-16 B rate they miss, and
// the why says Little's law.
TEST(CoalescingEval, OneAndTwoByteStrideOneAreModelMissesForBytesInFlight) {
  const std::vector<Row> rows = evaluate(fixture());
  for (const char* params : {"elem_bytes=1;stride=1;offset=0", "elem_bytes=2;stride=1;offset=0"}) {
    const Row r = row(rows, "load_dram", params, co::row::kUsefulBandwidth);
    EXPECT_EQ(r.kind, kind::kModel);
    EXPECT_EQ(r.verdict, verdict::kFails) << params;
    EXPECT_LT(*r.rel_error, 0.0);
    EXPECT_NE(r.why.find("Little's law"), std::string::npos) << r.why;
  }
}

// Stores: DRAM bytes are read + write; stride 2 writes half of every sector, so the L2 reads each
// back once: 2x the written sectors, and the H200 holds that.
TEST(CoalescingEval, StoresDramBytesCountThePartialSectorsReadBack) {
  const std::vector<Row> rows = evaluate(fixture());
  const Row s2 = row(rows, "store_dram", kStride2, co::row::kDramBytes);
  const Row s1 = row(rows, "store_dram", kCoalesced, co::row::kDramBytes);
  EXPECT_EQ(s2.verdict, verdict::kHolds) << s2.why;
  EXPECT_EQ(s1.verdict, verdict::kHolds) << s1.why;
  EXPECT_EQ(s2.kind, kind::kModel);
  // Full sectors: no read-back; stride 2 (8 sectors a request, all partial): twice.
  analysis::Run run = fixture();
  const double requests = bench(run, "store_dram", kStride2).counter_median(co::work::kWarpRequests);
  EXPECT_DOUBLE_EQ(*s2.predicted, requests * 8 * 2 * 32.0);
}

// The stride-32 launches move 64-byte granules: the DRAM row fails and names the promotion; the
// 2-byte point's bandwidth matches the promoted-fetch model and says so.
TEST(CoalescingEval, AMissMatchingSixtyFourByteGranulesIsNamedAsSectorPromotion) {
  const std::vector<Row> rows = evaluate(fixture());
  const Row dram = row(rows, "load_dram", kStride32, co::row::kDramBytes);
  EXPECT_EQ(dram.verdict, verdict::kFails);
  EXPECT_NE(dram.why.find("L2 sector promotion"), std::string::npos) << dram.why;
  const Row bw = row(rows, "load_dram", "elem_bytes=2;stride=32;offset=0", co::row::kUsefulBandwidth);
  EXPECT_EQ(bw.verdict, verdict::kFails);
  EXPECT_NE(bw.why.find("64-byte promoted-fetch model"), std::string::npos) << bw.why;
  EXPECT_EQ(row(rows, "load_dram", kStride32, co::row::kSectorsPerRequest).verdict, verdict::kHolds);
}

TEST(CoalescingEval, WorkedExamplesAreNamedOnTheirRows) {
  const std::vector<Row> rows = evaluate(fixture());
  const Row ex2 = row(rows, "partial_block", "block_threads=100", co::row::kSectorsPerRequest);
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
  const Row r = row(evaluate(run), "partial_block", "block_threads=48", co::row::kSectorsPerRequest);
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
  const BenchmarkResult coalesced = bench(run, "load_dram", kCoalesced);
  const double useful_ratio = strided.counter_median(co::work::kUsefulBytes) / coalesced.counter_median(co::work::kUsefulBytes);
  strided.seconds = coalesced.seconds;
  scale_time(strided, useful_ratio);
  const Row r = row(evaluate(run), "load_dram", kStride8, co::row::kUsefulBandwidth);
  EXPECT_EQ(r.verdict, verdict::kFails);
  EXPECT_GT(*r.rel_error, 1.0);
}

// Planted fault, bandwidth (Ex 9): the (32,8) block, which holds, 20 % slower.
TEST(CoalescingEval, PlantedFaultAlignedBlockSlowFails) {
  analysis::Run run = fixture();
  ASSERT_EQ(row(evaluate(run), "block_2d", "x=32;y=8", co::row::kUsefulBandwidth).verdict, verdict::kHolds);
  scale_time(bench(run, "block_2d", "x=32;y=8"), 1.25);
  EXPECT_EQ(row(evaluate(run), "block_2d", "x=32;y=8", co::row::kUsefulBandwidth).verdict, verdict::kFails);
}

// The coalesced reference candidates (stride 1, offset 0, 4/8/16 B) that are not the level's best
// are judged against it like every stride-1 point (issue 21); the best stays info (it is the
// prediction's input). On the committed run the DRAM loads' 4 B candidate reads 0.983 of the 8 B
// best: holds. Planted: the 4 B candidate 25 % slower (0.983 / 1.25 = 0.79 of the best): fails.
TEST(CoalescingEval, PlantedFaultANonBestReferenceCandidateSlowFails) {
  analysis::Run run = fixture();
  const Row best = row(evaluate(run), "load_dram", "elem_bytes=8;stride=1;offset=0", co::row::kUsefulBandwidth);
  EXPECT_EQ(best.kind, kind::kInfo) << best.why;
  const Row before = row(evaluate(run), "load_dram", kCoalesced, co::row::kUsefulBandwidth);
  EXPECT_EQ(before.kind, kind::kModel);
  ASSERT_EQ(before.verdict, verdict::kHolds) << before.why;
  scale_time(bench(run, "load_dram", kCoalesced), 1.25);
  EXPECT_EQ(row(evaluate(run), "load_dram", kCoalesced, co::row::kUsefulBandwidth).verdict, verdict::kFails);
}

// Planted fault, DRAM bytes: the stride-2 launch moving 1.5x its sectors.
TEST(CoalescingEval, PlantedFaultDramBytesFails) {
  analysis::Run run = fixture();
  scale_counter(bench(run, "load_dram", kStride2), co::metric::kDramRead, 1.5);
  const Row r = row(evaluate(run), "load_dram", kStride2, co::row::kDramBytes);
  EXPECT_EQ(r.verdict, verdict::kFails);
  EXPECT_GT(*r.rel_error, 0.4);
}

// Planted fault, store DRAM bytes: the stride-2 store with no read-back (read bytes zeroed) moves
// half the model's bytes.
TEST(CoalescingEval, PlantedFaultStoreWithoutReadBackFails) {
  analysis::Run run = fixture();
  scale_counter(bench(run, "store_dram", kStride2), co::metric::kDramRead, 0.0);
  const Row r = row(evaluate(run), "store_dram", kStride2, co::row::kDramBytes);
  EXPECT_EQ(r.verdict, verdict::kFails);
  EXPECT_LT(*r.rel_error, -0.4);
}

// The project's noise rule (point_uncertainty): sigma = hypot(noise / sqrt(samples) of the point,
// of the reference); a 12 % miss is 2 % past the 10 % tolerance: warn when 2 sigma covers that
// (noise 10 % over 25 samples: sigma >= 2 %), fails when the point is quiet (noise 0.1 %).
TEST(CoalescingEval, AMissWithinTwiceTheUncertaintyIsWarn) {
  analysis::Run run = fixture();
  BenchmarkResult& b = bench(run, "load_dram", kStride2);
  const Row before = row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth);
  scale_time(b, before.value / (1.12 * *before.predicted));  // 12 % above the prediction
  b.counters["warpcost_samples"] = {25, 25, 25};
  b.counters["warpcost_noise"] = {0.10, 0.10, 0.10};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kWarn);
  b.counters["warpcost_noise"] = {0.001, 0.001, 0.001};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kFails);
  // noise 4 % over 25 samples: sigma 0.8 % (the reference's is ~0.04 %), 2 sigma < the 2 % excess:
  // fails (sqrt(samples) counts).
  b.counters["warpcost_noise"] = {0.04, 0.04, 0.04};
  EXPECT_EQ(row(evaluate(run), "load_dram", kStride2, co::row::kUsefulBandwidth).verdict, verdict::kFails);
}

// Issue 13's throttle rule, the shared one (is_throttled): a point whose lowest SM clock fell under
// 95 % of the maximum is throttled, not judged, even when it would hold. Issue 31: a point whose
// coalesced reference ran throttled is throttled too (the row it would have is the one it affects),
// not dropped to info.
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
  EXPECT_EQ(unref.kind, kind::kModel);
  EXPECT_EQ(unref.verdict, verdict::kThrottled);
  EXPECT_NE(unref.why.find("its reference point coalescing/load_dram/elem_bytes:"), std::string::npos) << unref.why;
  EXPECT_EQ(unref.machine_state, machine_state::kThrottled);
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
