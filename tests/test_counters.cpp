// The counter pass without a GPU: the flags, metric names checked by CUPTI's host library against the
// GH100 chip (no device needed), the advice for each "no counters here" result, and the pass itself
// over a stand-in backend: once per benchmark, the family's metrics, and timing-only results when
// the machine refuses counters.
#include <cupti_result.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/divergence/schema.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/streaming/schema.hpp"
#include "bench/common/counter_pass.hpp"
#include "bench/common/cupti_profiler.hpp"
#include "tests/message_of.hpp"

namespace warpcost::counters {
namespace {

TEST(CounterSettings, OnByDefaultAndOffByFlag) {
  EXPECT_TRUE(parse_settings("", "").enabled);
  EXPECT_TRUE(parse_settings("on", "").enabled);
  EXPECT_FALSE(parse_settings("off", "").enabled);
  EXPECT_TRUE(parse_settings("on", "").metrics.empty());
}

TEST(CounterSettings, AnUnknownSwitchValueNamesItAndWhatIsAllowed) {
  const std::string m = message_of([] { parse_settings("maybe", ""); });
  EXPECT_NE(m.find("--warpcost_counters=maybe"), std::string::npos) << m;
  EXPECT_NE(m.find("allowed: on, off"), std::string::npos) << m;
}

TEST(CounterSettings, MetricsAreACommaListKeptInOrderWithoutRepeats) {
  const Settings s =
      parse_settings("on", "dram__bytes_read.sum,smsp__warps_launched.sum,dram__bytes_read.sum");
  EXPECT_EQ(s.metrics, (std::vector<std::string>{"dram__bytes_read.sum", "smsp__warps_launched.sum"}));
}

TEST(CounterSettings, EmptyNamesAndMetricsWithCountersOffAreRefused) {
  for (const std::string bad : {"a.sum,,b.sum", ",a.sum", "a.sum,", "a.sum, b.sum"}) {
    const std::string m = message_of([&] { parse_settings("on", bad); });
    EXPECT_NE(m.find("--warpcost_metrics=" + bad), std::string::npos) << m;
    EXPECT_NE(m.find("allowed:"), std::string::npos) << m;
  }
  const std::string m = message_of([] { parse_settings("off", "smsp__warps_launched.sum"); });
  EXPECT_NE(m.find("--warpcost_counters=off"), std::string::npos) << m;
}

TEST(CounterMetrics, EachFamilyCarriesTheMetricsItsModelNeeds) {
  const auto has = [](const Family& f, const std::string& m) {
    const auto& list = default_metrics(f);
    return std::find(list.begin(), list.end(), m) != list.end();
  };
  const std::string lanes = "smsp__average_thread_inst_executed_per_inst_executed.ratio";
  EXPECT_TRUE(has(schema::partial_warp::descriptor(), "smsp__warps_launched.sum"));
  EXPECT_TRUE(has(schema::partial_warp::descriptor(), lanes));
  EXPECT_TRUE(has(schema::partial_warp::descriptor(), "sm__warps_active.avg.per_cycle_active"));
  EXPECT_TRUE(has(schema::divergence::descriptor(), lanes));
  EXPECT_TRUE(has(schema::divergence::descriptor(), "smsp__sass_branch_targets_threads_divergent.sum"));
  EXPECT_TRUE(has(schema::divergence::descriptor(), "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio"));
  EXPECT_TRUE(has(schema::streaming::descriptor(), "dram__bytes_read.sum"));
  EXPECT_TRUE(has(schema::streaming::descriptor(), "sm__warps_active.avg.per_cycle_active"));
  EXPECT_TRUE(
      has(schema::streaming::descriptor(), "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"));
  const auto all = all_default_metrics();
  EXPECT_EQ(std::count(all.begin(), all.end(), lanes), 1);
}

// CUPTI's host library knows each chip's metrics without a device.
TEST(CounterMetrics, EveryDefaultMetricResolvesOnGh100WithItsUnit) {
  const auto units = metric_units("GH100", all_default_metrics());
  EXPECT_EQ(units.size(), all_default_metrics().size());
  EXPECT_EQ(units.at("smsp__warps_launched.sum"), "warp");
  EXPECT_EQ(units.at("dram__bytes_read.sum"), "byte");
}

TEST(CounterMetrics, AnUnknownMetricIsNamedWithTheChip) {
  try {
    metric_units("GH100", {"smsp__warps_launched.sum", "smsp__warps_lanched.sum"});
    FAIL() << "a misspelt metric was accepted";
  } catch (const UnknownMetric& e) {
    EXPECT_EQ(e.metric(), "smsp__warps_lanched.sum");
    const std::string m = e.what();
    EXPECT_NE(m.find("'smsp__warps_lanched.sum' is not known on chip GH100"), std::string::npos) << m;
    EXPECT_NE(m.find("allowed:"), std::string::npos) << m;
  }
}

TEST(CounterMetrics, ABaseNameWithoutItsRollUpIsRefused) {
  EXPECT_THROW(metric_units("GH100", {"smsp__warps_launched"}), UnknownMetric);
}

TEST(CounterAdvice, NoPermissionSaysHowToGetIt) {
  const std::string a = unavailable_advice(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  EXPECT_NE(a.find("not permitted"), std::string::npos) << a;
  EXPECT_NE(a.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << a;
}

TEST(CounterAdvice, AnotherProfilerSaysToTurnThePassOff) {
  const std::string a = unavailable_advice(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_NE(a.find("--warpcost_counters=off"), std::string::npos) << a;
  EXPECT_NE(unavailable_advice(CUPTI_ERROR_HARDWARE_BUSY).find("HARDWARE_BUSY"), std::string::npos);
}

TEST(CounterAdvice, FaultsAreNotCalledUnavailable) {
  EXPECT_TRUE(unavailable_advice(CUPTI_ERROR_INVALID_PARAMETER).empty());
  EXPECT_TRUE(unavailable_advice(CUPTI_ERROR_UNKNOWN).empty());
}

// A backend that hands out fixed values, or refuses as a machine without permission does.
class FakeBackend : public CounterBackend {
 public:
  explicit FakeBackend(int refuse_with = CUPTI_SUCCESS) : refuse_with_(refuse_with) {}
  Values profile(const std::vector<std::string>& metrics, const std::string& range_name,
                 const std::function<void()>& launch) override {
    ++calls;
    last_metrics = metrics;
    last_range = range_name;
    if (refuse_with_ != CUPTI_SUCCESS) {
      throw CountersUnavailable(refuse_with_, unavailable_advice(refuse_with_));
    }
    launch();
    Values v;
    for (std::size_t i = 0; i < metrics.size(); ++i) v[metrics[i]] = static_cast<double>(10 * calls + i);
    return v;
  }
  int calls = 0;
  std::vector<std::string> last_metrics;
  std::string last_range;

 private:
  int refuse_with_;
};

TEST(CounterPassTest, ProfilesEachBenchmarkOnceAndRepeatsItsValues) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend* fake = backend.get();
  CounterPass pass(Settings{}, std::move(backend));
  ASSERT_TRUE(pass.active());
  int launches = 0;
  const auto launch = [&] { ++launches; };
  const Values first = pass.collect(schema::streaming::descriptor(), "streaming/read/16/0/8", launch);
  const Values again = pass.collect(schema::streaming::descriptor(), "streaming/read/16/0/8", launch);
  EXPECT_EQ(first, again);
  EXPECT_EQ(fake->calls, 1);
  EXPECT_EQ(launches, 1);
  EXPECT_EQ(fake->last_range, "warpcost") << "one short range name; the key stays on the host";
  EXPECT_EQ(fake->last_metrics, default_metrics(schema::streaming::descriptor()));
  EXPECT_EQ(first.size(), default_metrics(schema::streaming::descriptor()).size());
  pass.collect(schema::divergence::descriptor(), "divergence/k:16", launch);
  EXPECT_EQ(fake->calls, 2);
  EXPECT_EQ(fake->last_metrics, default_metrics(schema::divergence::descriptor()));
}

TEST(CounterPassTest, ChosenMetricsReplaceEveryFamilysList) {
  auto backend = std::make_unique<FakeBackend>();
  FakeBackend* fake = backend.get();
  CounterPass pass(parse_settings("on", "dram__bytes_read.sum"), std::move(backend));
  pass.collect(schema::partial_warp::descriptor(), "partial_warp/staircase/48", [] {});
  EXPECT_EQ(fake->last_metrics, std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_NE(pass.status().find("1 metric(s) from --warpcost_metrics"), std::string::npos);
}

TEST(CounterPassTest, NoPermissionLeavesTimingOnlyResultsAndSaysWhy) {
  auto backend = std::make_unique<FakeBackend>(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  FakeBackend* fake = backend.get();
  CounterPass pass(Settings{}, std::move(backend));
  int launches = 0;
  EXPECT_TRUE(pass.collect(schema::divergence::descriptor(), "divergence/a", [&] { ++launches; }).empty());
  EXPECT_FALSE(pass.active());
  EXPECT_EQ(pass.status().rfind("unavailable: ", 0), 0u) << pass.status();
  EXPECT_NE(pass.status().find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos);
  // The backend is gone: later benchmarks are not profiled (`fake` must not be touched again).
  (void)fake;
  EXPECT_TRUE(pass.collect(schema::divergence::descriptor(), "divergence/b", [&] { ++launches; }).empty());
  EXPECT_EQ(launches, 0);
}

TEST(CounterPassTest, OffMeansNoLaunchAndNoValues) {
  CounterPass pass(parse_settings("off", ""), "off: --warpcost_counters=off");
  EXPECT_FALSE(pass.active());
  bool launched = false;
  EXPECT_TRUE(pass.collect(schema::streaming::descriptor(), "x", [&] { launched = true; }).empty());
  EXPECT_FALSE(launched);
  EXPECT_EQ(pass.status(), "off: --warpcost_counters=off");
}

TEST(CounterPassTest, AFaultIsAnErrorNotASilentGap) {
  class Broken : public CounterBackend {
    Values profile(const std::vector<std::string>&, const std::string&,
                   const std::function<void()>&) override {
      throw std::runtime_error("cuptiRangeProfilerDecodeData failed");
    }
  };
  CounterPass pass(Settings{}, std::make_unique<Broken>());
  EXPECT_THROW(pass.collect(schema::streaming::descriptor(), "x", [] {}), std::runtime_error);
  EXPECT_TRUE(pass.active());
}

}  // namespace
}  // namespace warpcost::counters

namespace warpcost::counters {
namespace {

// The counter phase profiles a family's points in batches: one backend call for all of them, the
// values handed back to each key in order, and a point seen before taken from the cache.
class BatchBackend : public CounterBackend {
 public:
  Values profile(const std::vector<std::string>&, const std::string&, const std::function<void()>&) override {
    throw std::logic_error("the batch path must not fall back to one profile() a launch");
  }
  std::vector<Values> profile_batch(const std::vector<std::string>& metrics,
                                    const std::vector<std::function<void()>>& launches) override {
    ++batches;
    std::vector<Values> out;
    for (std::size_t i = 0; i < launches.size(); ++i) {
      launches[i]();
      out.push_back({{metrics.front(), static_cast<double>(100 * batches + static_cast<int>(i))}});
    }
    return out;
  }
  int batches = 0;
};

TEST(CounterPassBatch, OneBackendCallAValueSetForEachKeyInOrder) {
  auto backend = std::make_unique<BatchBackend>();
  BatchBackend* fake = backend.get();
  CounterPass pass(Settings{}, std::move(backend));
  std::vector<int> launched;
  const auto values = pass.collect_batch(schema::divergence::descriptor(), {"d/a", "d/b", "d/c"},
                                         {[&] { launched.push_back(0); }, [&] { launched.push_back(1); },
                                          [&] { launched.push_back(2); }});
  EXPECT_EQ(fake->batches, 1);
  EXPECT_EQ(launched, (std::vector<int>{0, 1, 2}));
  const std::string m = default_metrics(schema::divergence::descriptor()).front();
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].at(m), 100.0);
  EXPECT_EQ(values[2].at(m), 102.0);
  // "d/b" again with a new one: only the new one is launched, "d/b" keeps its first values.
  launched.clear();
  const auto again = pass.collect_batch(schema::divergence::descriptor(), {"d/b", "d/d"},
                                        {[&] { launched.push_back(1); }, [&] { launched.push_back(3); }});
  EXPECT_EQ(launched, (std::vector<int>{3}));
  EXPECT_EQ(again[0].at(m), 101.0);
  EXPECT_EQ(again[1].at(m), 200.0);
}

TEST(CounterPassBatch, KeysAndLaunchesMustPair) {
  CounterPass pass(Settings{}, std::make_unique<BatchBackend>());
  EXPECT_THROW(pass.collect_batch(schema::streaming::descriptor(), {"a", "b"}, {[] {}}), std::invalid_argument);
}

TEST(CounterPassBatch, NoPermissionTurnsThePassOffForTheWholeBatch) {
  CounterPass pass(Settings{}, std::make_unique<FakeBackend>(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES));
  int launches = 0;
  const auto values = pass.collect_batch(schema::streaming::descriptor(), {"s/a", "s/b"}, {[&] { ++launches; }, [&] { ++launches; }});
  ASSERT_EQ(values.size(), 2u);
  EXPECT_TRUE(values[0].empty());
  EXPECT_TRUE(values[1].empty());
  EXPECT_FALSE(pass.active());
  EXPECT_EQ(launches, 0);
}

}  // namespace
}  // namespace warpcost::counters
