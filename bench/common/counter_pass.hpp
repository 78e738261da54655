// The counter pass: hardware counters beside every timing, collected in a separate pass after a
// benchmark's timed launches (never while anything is timed), once per benchmark, under the metric
// names Nsight Compute uses. The collection itself is a CounterBackend (CUPTI's Range Profiler in
// warpcost-bench, a stand-in in the tests); this file decides which metrics each family needs, when
// the pass runs at all, and what a user is told when the machine will not give counters.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/common/cupti_host_config.hpp"
#include "core/family_schema.hpp"

namespace warpcost::counters {

// A family, as its descriptor (analysis/<family>/schema.hpp) names it and lists its metrics.
using Family = schema::FamilyDescriptor;

// Nsight Compute metric name -> value for one benchmark.
using Values = std::map<std::string, double>;

// The metrics that test a family's model, from its descriptor (the names resolve on GH100; see
// docs/counters.md).
std::vector<std::string> default_metrics(const Family& family);
// Every registered family's metrics, each once, in family order.
std::vector<std::string> all_default_metrics();

// CountersUnavailable (the machine will not give counters) is in cupti_host_config.hpp, beside the
// one CUPTI check that throws it.

// A metric name the chip does not know.
class UnknownMetric : public std::invalid_argument {
 public:
  UnknownMetric(const std::string& metric, const std::string& chip);
  const std::string& metric() const noexcept { return metric_; }

 private:
  std::string metric_;
};

// For a CUPTI result that means "not on this machine", what to tell the user (what happened and
// what to do); empty for every other result (those are faults, reported as errors).
std::string unavailable_advice(int cupti_result);

// Collects `metrics` over one launch (however many replay passes that takes).
class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  // Throws CountersUnavailable when this machine cannot give counters.
  virtual Values profile(const std::vector<std::string>& metrics, const std::string& range_name,
                         const std::function<void()>& launch) = 0;
  // Collects `metrics` over each of `launches` (one value set per launch, in order). By default
  // one profile() each; a backend that can profile many launches in one session overrides it.
  virtual std::vector<Values> profile_batch(const std::vector<std::string>& metrics,
                                            const std::vector<std::function<void()>>& launches) {
    std::vector<Values> out;
    for (const auto& launch : launches) out.push_back(profile(metrics, "warpcost", launch));
    return out;
  }
};

// --warpcost_counters=on|off and --warpcost_metrics=NAME[,NAME...].
struct Settings {
  bool enabled = true;
  std::vector<std::string> metrics;  // empty: each family's default_metrics()
};
// Throws std::invalid_argument naming the flag, the value and what is allowed.
Settings parse_settings(const std::string& counters_flag, const std::string& metrics_flag);

class CounterPass {
 public:
  // A disabled pass (flag off, or counters unavailable at start) with the reason `status` says.
  CounterPass(Settings settings, std::string status);
  CounterPass(Settings settings, std::unique_ptr<CounterBackend> backend);

  bool active() const noexcept { return backend_ != nullptr; }
  // "on: ...", "off: ..." or "unavailable: ..."; recorded in the run's context.
  const std::string& status() const noexcept { return status_; }
  std::vector<std::string> metrics_for(const Family& family) const;

  // The counters of the benchmark `key` (a name unique to the benchmark and its arguments). The
  // first call per key profiles one launch; later calls (the benchmark's other repetitions) return
  // the same values without launching. Empty when the pass is not active. When the backend reports
  // the counters unavailable, prints the notice once, turns the pass off and returns empty.
  Values collect(const Family& family, const std::string& key, const std::function<void()>& launch);
  // The counters of several benchmarks of one family at once (keys[i] is launched by launches[i]),
  // in one profiling session; the same caching and the same turning off as collect().
  std::vector<Values> collect_batch(const Family& family, const std::vector<std::string>& keys,
                                    const std::vector<std::function<void()>>& launches);

 private:
  Settings settings_;
  std::unique_ptr<CounterBackend> backend_;
  std::string status_;
  std::map<std::string, Values> done_;
};

}  // namespace warpcost::counters
