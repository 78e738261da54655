#include "bench/common/counter_pass.hpp"

#include "core/families.hpp"

#include <cupti_result.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

namespace warpcost::counters {

namespace {

// Every benchmark's one range has this name; the key stays on the host. On the H200 (CUPTI 13.0) the
// divergence benchmarks' 100-character keys as range names crashed the process inside the range
// profiler, where the 30-character streaming keys did not.
constexpr const char* kRangeName = "warpcost";

}  // namespace

std::vector<std::string> default_metrics(const Family& family) {
  return {family.metrics.begin(), family.metrics.end()};
}

std::vector<std::string> all_default_metrics() { return schema::all_default_metrics(); }

UnknownMetric::UnknownMetric(const std::string& metric, const std::string& chip)
    : std::invalid_argument("metric '" + metric + "' is not known on chip " + chip +
                            "; allowed: the chip's metric names as Nsight Compute spells them, with "
                            "their roll-up (for example smsp__warps_launched.sum); "
                            "`ncu --query-metrics --chip " +
                            chip + "` lists them"),
      metric_(metric) {}

Settings parse_settings(const std::string& counters_flag, const std::string& metrics_flag) {
  Settings s;
  if (counters_flag == "on" || counters_flag.empty()) {
    s.enabled = true;
  } else if (counters_flag == "off") {
    s.enabled = false;
  } else {
    throw std::invalid_argument("--warpcost_counters=" + counters_flag + "; allowed: on, off");
  }
  if (metrics_flag.empty()) return s;
  std::stringstream in(metrics_flag);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name.empty() || name.find_first_of(" \t") != std::string::npos) {
      throw std::invalid_argument("--warpcost_metrics=" + metrics_flag +
                                  ": an empty or spaced name; allowed: metric names separated by "
                                  "single commas");
    }
    if (std::find(s.metrics.begin(), s.metrics.end(), name) == s.metrics.end()) {
      s.metrics.push_back(name);
    }
  }
  if (metrics_flag.back() == ',') {
    throw std::invalid_argument("--warpcost_metrics=" + metrics_flag +
                                ": an empty name after the last comma; allowed: metric names "
                                "separated by single commas");
  }
  if (!s.enabled) {
    throw std::invalid_argument(
        "--warpcost_metrics with --warpcost_counters=off: no counters would "
        "be collected; allowed: one of the two");
  }
  return s;
}

CounterPass::CounterPass(Settings settings, std::string status)
    : settings_(std::move(settings)), status_(std::move(status)) {}

CounterPass::CounterPass(Settings settings, std::unique_ptr<CounterBackend> backend)
    : settings_(std::move(settings)), backend_(std::move(backend)) {
  status_ = settings_.metrics.empty()
                ? "on: each family's metrics"
                : "on: " + std::to_string(settings_.metrics.size()) + " metric(s) from --warpcost_metrics";
}

std::vector<std::string> CounterPass::metrics_for(const Family& family) const {
  return settings_.metrics.empty() ? default_metrics(family) : settings_.metrics;
}

Values CounterPass::collect(const Family& family, const std::string& key, const std::function<void()>& launch) {
  if (!active()) return {};
  if (const auto it = done_.find(key); it != done_.end()) return it->second;
  try {
    Values v = backend_->profile(metrics_for(family), kRangeName, launch);
    return done_.emplace(key, std::move(v)).first->second;
  } catch (const CountersUnavailable& e) {
    status_ = std::string("unavailable: ") + e.what();
    std::fprintf(stderr, "warpcost-bench: counter pass stopped at %s: %s; the rest is timing only\n",
                 key.c_str(), e.what());
    backend_.reset();
    return {};
  }
}

std::vector<Values> CounterPass::collect_batch(const Family& family, const std::vector<std::string>& keys,
                                              const std::vector<std::function<void()>>& launches) {
  if (keys.size() != launches.size()) {
    throw std::invalid_argument("collect_batch: " + std::to_string(keys.size()) + " keys for " +
                                std::to_string(launches.size()) + " launches");
  }
  std::vector<Values> out(keys.size());
  if (!active()) return out;
  std::vector<std::size_t> todo;
  std::vector<std::function<void()>> todo_launches;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (const auto it = done_.find(keys[i]); it != done_.end()) {
      out[i] = it->second;
    } else {
      todo.push_back(i);
      todo_launches.push_back(launches[i]);
    }
  }
  if (todo.empty()) return out;
  try {
    std::vector<Values> got = backend_->profile_batch(metrics_for(family), todo_launches);
    if (got.size() != todo.size()) {
      throw std::runtime_error("the counter backend gave " + std::to_string(got.size()) + " value sets for " +
                               std::to_string(todo.size()) + " launches");
    }
    for (std::size_t j = 0; j < todo.size(); ++j) out[todo[j]] = done_.emplace(keys[todo[j]], got[j]).first->second;
  } catch (const CountersUnavailable& e) {
    status_ = std::string("unavailable: ") + e.what();
    std::fprintf(stderr, "warpcost-bench: counter pass stopped at %s: %s; the rest is timing only\n",
                 keys[todo.front()].c_str(), e.what());
    backend_.reset();
    return std::vector<Values>(keys.size());
  }
  return out;
}

}  // namespace warpcost::counters
