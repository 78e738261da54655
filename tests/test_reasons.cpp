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

}  // namespace
}  // namespace warpcost::analysis
