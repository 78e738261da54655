#include "core/streaming/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/models.hpp"

namespace warpcost::model::streaming {
namespace {

std::string number(double x) {
  std::string s = std::to_string(x);
  return s;
}

void require(bool ok, const std::string& what, double value, const char* allowed) {
  if (!ok) throw std::invalid_argument(what + " = " + number(value) + "; allowed: " + allowed);
}

}  // namespace

Locus::Locus(std::vector<std::pair<double, double>> points) {
  if (points.size() < 2) {
    throw std::invalid_argument("the locus has " + std::to_string(points.size()) +
                                " point(s); allowed: at least 2 (throughput, cycles) pairs");
  }
  for (const auto& [bw, cycles] : points) {
    require(std::isfinite(bw) && bw > 0, "locus throughput", bw, "finite, > 0 bytes/s");
    require(std::isfinite(cycles) && cycles > 0, "locus cycles", cycles, "finite, > 0");
  }
  std::sort(points.begin(), points.end());
  double most = 0;
  for (auto& p : points) {  // non-decreasing: a load never gets faster as the DRAM gets busier
    most = std::max(most, p.second);
    p.second = most;
  }
  points_ = std::move(points);
}

double Locus::cycles_at(double bandwidth) const {
  if (points_.empty()) throw std::logic_error("an empty locus was read");
  return model::piecewise_linear(points_, bandwidth);
}

double Locus::unloaded_cycles() const {
  if (points_.empty()) throw std::logic_error("an empty locus was read");
  return points_.front().second;
}

double Locus::ceiling() const {
  if (points_.empty()) throw std::logic_error("an empty locus was read");
  return points_.back().first;
}

double mva_iteration_cycles(int warps, double demand, double delay) {
  require(warps >= 1, "warps a scheduler", warps, "at least 1");
  require(std::isfinite(demand) && demand >= 0, "issue demand", demand, "finite, >= 0 cycles");
  require(std::isfinite(delay) && delay >= 0, "delay", delay, "finite, >= 0 cycles");
  if (demand + delay <= 0) return 0.0;
  double queue = 0.0;
  double throughput = 0.0;
  for (int k = 1; k <= warps; ++k) {
    const double residence = demand * (1.0 + queue);
    throughput = k / (residence + delay);
    queue = throughput * residence;
  }
  return warps / throughput;
}

namespace {

// The bandwidth where what the warps offer, offered(bw), equals bw, at most the ceiling (then
// at_ceiling). offered() falls as bw rises (the locus never falls), so the root is unique; found by
// bisection to a relative 1e-12 (the root can sit far below the ceiling).
template <class Offered>
double fixed_point(const Offered& offered, double ceiling, bool& at_ceiling) {
  at_ceiling = offered(ceiling) >= ceiling;
  if (at_ceiling) return ceiling;
  double lo = 0.0;
  double hi = ceiling;
  for (int i = 0; i < 400 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (offered(mid) > mid ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

StreamPrediction predict_stream(const StreamPoint& p, const Locus& locus, double issue_rate) {
  require(p.sms >= 1, "SMs", p.sms, "at least 1");
  require(p.schedulers_per_sm >= 1, "schedulers an SM", p.schedulers_per_sm, "at least 1");
  require(p.warps_per_sm >= 1, "warps per SM", p.warps_per_sm, "at least 1");
  require(std::isfinite(p.bytes_per_warp_iteration) && p.bytes_per_warp_iteration > 0,
          "bytes a warp iteration", p.bytes_per_warp_iteration, "finite, > 0");
  require(std::isfinite(p.instructions_per_iteration) && p.instructions_per_iteration >= 0,
          "instructions an iteration", p.instructions_per_iteration, "finite, >= 0");
  require(std::isfinite(p.unloaded_iteration_cycles) && p.unloaded_iteration_cycles > 0,
          "unloaded iteration cycles T0", p.unloaded_iteration_cycles, "finite, > 0");
  require(std::isfinite(p.clock_hz) && p.clock_hz > 0, "SM clock", p.clock_hz, "finite, > 0 Hz");
  require(std::isfinite(issue_rate) && issue_rate > 0, "issue rate", issue_rate,
          "finite, > 0 instructions a cycle a scheduler");
  StreamPrediction out;
  out.warps_per_scheduler = (p.warps_per_sm + p.schedulers_per_sm - 1) / p.schedulers_per_sm;
  const double demand = p.instructions_per_iteration / issue_rate;
  const double lambda0 = locus.unloaded_cycles();
  auto iteration = [&](double bw) {
    const double delay = std::max(p.unloaded_iteration_cycles + locus.cycles_at(bw) - lambda0 - demand, 0.0);
    return mva_iteration_cycles(out.warps_per_scheduler, demand, delay);
  };
  const double per_cycle_bytes = p.sms * static_cast<double>(p.warps_per_sm) * p.bytes_per_warp_iteration * p.clock_hz;
  auto offered = [&](double bw) { return per_cycle_bytes / iteration(bw); };
  const double bw = fixed_point(offered, locus.ceiling(), out.at_ceiling);
  out.bandwidth = bw;
  out.iteration_cycles = iteration(bw);
  out.loaded_cycles = locus.cycles_at(bw);
  return out;
}

BlockStreamPrediction predict_block_stream(const BlockStreamPoint& p, const Locus& locus) {
  require(p.sms >= 1, "SMs", p.sms, "at least 1");
  require(p.resident_blocks >= 1, "resident blocks an SM", p.resident_blocks, "at least 1");
  require(std::isfinite(p.bytes_per_block) && p.bytes_per_block > 0, "bytes a block", p.bytes_per_block, "finite, > 0");
  require(std::isfinite(p.turnover_cycles) && p.turnover_cycles > 0, "block turnover", p.turnover_cycles,
          "finite, > 0 cycles");
  require(std::isfinite(p.clock_hz) && p.clock_hz > 0, "SM clock", p.clock_hz, "finite, > 0 Hz");
  auto block_cycles = [&](double bw) {
    return mva_iteration_cycles(p.resident_blocks, p.turnover_cycles, locus.cycles_at(bw)) / p.resident_blocks;
  };
  const double per_cycle_bytes = p.sms * p.bytes_per_block * p.clock_hz;
  auto offered = [&](double bw) { return per_cycle_bytes / block_cycles(bw); };
  BlockStreamPrediction out;
  const double bw = fixed_point(offered, locus.ceiling(), out.at_ceiling);
  out.bandwidth = bw;
  out.block_cycles = block_cycles(bw);
  out.loaded_cycles = locus.cycles_at(bw);
  return out;
}

std::vector<double> expected_max_excesses(std::vector<double> samples, const std::vector<int>& draws) {
  require(!samples.empty(), "latency samples", 0.0, "at least one");
  double mean = 0;
  for (const double x : samples) {
    require(std::isfinite(x), "a latency sample", x, "finite");
    mean += x;
  }
  mean /= static_cast<double>(samples.size());
  std::sort(samples.begin(), samples.end());  // once for every w
  const double n = static_cast<double>(samples.size());
  std::vector<double> out;
  for (const int w : draws) {
    require(w >= 1, "draws", w, "at least 1");
    double expected = 0;
    double below = 0;  // ((i - 1) / n)^w
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double at = std::pow(static_cast<double>(i + 1) / n, w);
      expected += samples[i] * (at - below);
      below = at;
    }
    // The largest of w draws is never under their mean: a negative is rounding (equal samples).
    out.push_back(std::max(0.0, expected - mean));
  }
  return out;
}

double expected_max_excess(std::vector<double> samples, int draws) {
  return expected_max_excesses(std::move(samples), {draws}).front();
}

int knee_of(const std::vector<std::pair<int, double>>& curve, double fraction) {
  double most = 0;
  for (const auto& [w, v] : curve) most = std::max(most, v);
  for (const auto& [w, v] : curve) {
    if (v >= fraction * most) return w;
  }
  return 0;
}

double knee_crossing_of(const std::vector<std::pair<int, double>>& curve, double fraction) {
  double most = 0;
  for (const auto& [w, v] : curve) most = std::max(most, v);
  const double level = fraction * most;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    if (curve[i].second < level) continue;
    if (i == 0) return curve[i].first;
    const auto& [w0, v0] = curve[i - 1];
    const auto& [w1, v1] = curve[i];
    return w0 + (w1 - w0) * (level - v0) / (v1 - v0);  // v0 < level <= v1, so v1 > v0
  }
  return 0;
}

}  // namespace warpcost::model::streaming
