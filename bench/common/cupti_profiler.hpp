// The counter backend over CUPTI's Range Profiler and host API (facts in ../shared/cupti.md): one
// user range around each launch of a batch, replayed by warpcost (user replay) as many passes as the metrics
// need, evaluated to the values Nsight Compute reports. Never used while anything is timed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/counter_pass.hpp"

namespace warpcost::counters {

// Host only (no device needed): each name's unit on `chip` (e.g. "GH100"), checked one by one and
// then as one configuration. Throws UnknownMetric naming the first name the chip does not know.
std::map<std::string, std::string> metric_units(const std::string& chip,
                                                const std::vector<std::string>& metrics);

class CuptiProfiler : public CounterBackend {
 public:
  // Initialises the profiler on the current device's primary context. Throws CountersUnavailable
  // when the machine will not give counters, and CuptiError for anything else.
  CuptiProfiler();
  ~CuptiProfiler() override;
  CuptiProfiler(const CuptiProfiler&) = delete;
  CuptiProfiler& operator=(const CuptiProfiler&) = delete;

  const std::string& chip() const noexcept { return chip_; }
  // Replay passes the configuration of `metrics` takes (after it has been profiled once).
  std::size_t passes(const std::vector<std::string>& metrics) const;

  Values profile(const std::vector<std::string>& metrics, const std::string& range_name,
                 const std::function<void()>& launch) override;
  // One enable, one configuration and one set of replay passes for all `launches`, each its own range.
  std::vector<Values> profile_batch(const std::vector<std::string>& metrics,
                                    const std::vector<std::function<void()>>& launches) override;

 private:
  struct Config;
  Config& config_for(const std::vector<std::string>& metrics);

  std::string chip_;
  std::vector<unsigned char> availability_;
  std::map<std::vector<std::string>, std::unique_ptr<Config>> configs_;
};

}  // namespace warpcost::counters
