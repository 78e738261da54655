// Verdicts as data (issue 32): every row of every committed run says why through a Reason, a code
// and its values, and its `why` is that reason rendered; the renderer refuses what it does not know.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/evaluation.hpp"
#include "analysis/reason.hpp"
#include "core/run_reader.hpp"
#include "tests/committed_runs.hpp"

namespace warpcost::analysis {
namespace {

TEST(Reasons, EveryCommittedRowsWhyIsItsReasonRendered) {
  std::string why;
  const std::vector<std::filesystem::path> runs = test_support::committed_runs(WARPCOST_RESULTS, why);
  if (runs.empty()) GTEST_SKIP() << why;
  std::set<std::string> codes;
  for (const auto& path : runs) {
    std::size_t with_reason = 0;
    for (const Row& r : evaluate_run(read_run(path))) {
      if (r.why.empty()) {
        EXPECT_TRUE(r.reason.code.empty()) << path << ": " << r.family << " " << r.metric << " has a reason but no why";
        continue;
      }
      ASSERT_FALSE(r.reason.code.empty()) << path << ": " << r.family << " " << r.benchmark << " " << r.metric
                                          << " says why without a reason: " << r.why;
      EXPECT_EQ(render_reason(r.reason), r.why) << r.reason.code;
      EXPECT_EQ(r.reason.code.find('/'), r.reason.code.rfind('/')) << r.reason.code;  // "<owner>/<sentence>"
      codes.insert(r.reason.code);
      ++with_reason;
    }
    EXPECT_GT(with_reason, 1000u) << path;
  }
  // Every family's and the shared rows' sentences are among them.
  for (const char* owner : {"core/", "calibration/", "partial_warp/", "divergence/", "latency/", "streaming/", "coalescing/",
                            "warp_primitives/"}) {
    const bool seen = std::any_of(codes.begin(), codes.end(), [&](const std::string& c) { return c.rfind(owner, 0) == 0; });
    EXPECT_TRUE(seen) << "no committed row gives a reason of " << owner;
  }
}

// Hand-made reasons: the shared sentences with their values, the machine-state notes before the
// sentence in the order they are shown, a failed counter check's suffix; an unknown code or a value
// the sentence needs and the reason lacks is an error naming it.
TEST(Reasons, TheRendererWritesTheSentenceFromTheValuesAndRefusesWhatItDoesNotKnow) {
  Reason cv("core/cv");
  cv.number("cv", 0.01234).number("repetitions", 12).flag("met", false);
  EXPECT_EQ(render_reason(cv), "CV 1.234% over 12 repetitions: above 0.5%, noisy, repeat the run");
  cv.prefixes = {Reason("core/state_throttled_point"), Reason("core/state_other_process")};
  EXPECT_EQ(render_reason(cv),
            "throttled: SM clock under 95% of the reference; another process computed on the GPU while this point ran; "
            "CV 1.234% over 12 repetitions: above 0.5%, noisy, repeat the run");
  Reason check("core/repetitions");
  check.number("repetitions", 3).flag("check_holds", false).number("check_tolerance", 0.02);
  EXPECT_EQ(render_reason(check), "3 repetition(s); off by more than 2%");
  EXPECT_THROW(render_reason(Reason("core/no_such_sentence")), std::logic_error);
  EXPECT_THROW(render_reason(Reason("no_such_family/x")), std::logic_error);
  EXPECT_THROW(render_reason(Reason("calibration/no_such_sentence")), std::logic_error);
  try {
    render_reason(Reason("core/repetitions"));
    FAIL() << "a reason without its values rendered";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("reason 'core/repetitions' has no number 'repetitions'"), std::string::npos) << e.what();
  }
}

// A staircase step whose two smallest block sizes ran throttled names them, by their numbers, in
// its rows' reason: "2 throttled point(s) left out (P = 1, P = 2)" (the rows of warps_per_block=1).
TEST(Reasons, AStaircaseStepNamesTheThrottledBlockSizesItLeftOut) {
  const std::filesystem::path newest = test_support::newest_committed_run(WARPCOST_RESULTS);
  if (newest.empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  analysis::Run run = read_run(newest);
  const double max_mhz = run.context.number("sm_clock_max_mhz");
  int planted = 0;
  for (auto& b : run.benchmarks) {
    if (b.family != "partial_warp" || b.benchmark != "staircase" || !b.has_param("block_threads")) continue;
    const double p = b.param("block_threads");
    if (p != 1 && p != 2) continue;
    b.counters["warpcost_sm_clock_mhz"] = std::vector<double>(b.seconds.size(), 0.6 * max_mhz);
    ++planted;
  }
  ASSERT_EQ(planted, 2);
  int seen = 0;
  for (const Row& r : evaluate_run(run)) {
    if (r.benchmark != "staircase_step" || r.params.rfind("warps_per_block=1;", 0) != 0) continue;
    EXPECT_NE(r.why.find("2 throttled point(s) left out (P = 1, P = 2)"), std::string::npos) << r.metric << ": " << r.why;
    ++seen;
  }
  EXPECT_GT(seen, 0);
}

// A reason no renderer knows, or one missing a value, costs its row alone: the row becomes an
// evaluation_error row naming why; the rows beside it are rendered as ever.
TEST(Reasons, AReasonTheRendererRefusesIsThatRowsErrorOnly) {
  Row good;
  good.family = "calibration";
  good.metric = "launch_overhead";
  good.reason = Reason("calibration/launch_overhead").number("launches", 1);
  Row unknown = good;
  unknown.metric = "made_up";
  unknown.reason = Reason("calibration/no_such_sentence");
  Row missing = good;
  missing.metric = "short_of_a_value";
  missing.reason = Reason("core/cv").number("cv", 0.01);
  std::vector<Row> rows = {good, unknown, missing};
  render_reasons(rows);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].why, "one empty kernel between two events: the launch latency floor");
  EXPECT_EQ(rows[1].metric, "evaluation_error");
  EXPECT_EQ(rows[1].verdict, verdict::kError);
  EXPECT_NE(rows[1].why.find("the reason of row made_up could not be rendered: calibration renders no reason"),
            std::string::npos) << rows[1].why;
  EXPECT_EQ(rows[2].verdict, verdict::kError);
  EXPECT_NE(rows[2].why.find("reason 'core/cv' has no"), std::string::npos) << rows[2].why;
}

}  // namespace
}  // namespace warpcost::analysis
