// The explain injection library's counters resolve on GH100 (CUPTI's host library, no device
// needed), each alone and all together in one configuration, the one the library builds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/explain_metrics.hpp"
#include "bench/common/cupti_host_config.hpp"
#include "bench/common/cupti_profiler.hpp"

namespace warpcost::explain {
namespace {

TEST(ExplainMetrics, ResolveOnGh100) {
  const std::vector<std::string> metrics(metric::kAll.begin(), metric::kAll.end());
  const auto units = counters::metric_units("GH100", metrics);
  EXPECT_EQ(units.size(), metrics.size());
  EXPECT_NE(units.at(metric::kLoadSectors).find("sector"), std::string::npos);
  EXPECT_EQ(units.at(metric::kDramRead), "byte");
  const counters::HostConfig config("GH100", nullptr, metrics);
  EXPECT_GE(config.passes(), 1u);
  EXPECT_FALSE(config.image().empty());
}

TEST(ExplainMetrics, EachNameOnce) {
  for (std::size_t i = 0; i < metric::kAll.size(); ++i) {
    for (std::size_t j = i + 1; j < metric::kAll.size(); ++j) {
      EXPECT_NE(std::string(metric::kAll[i]), metric::kAll[j]);
    }
  }
}

}  // namespace
}  // namespace warpcost::explain
