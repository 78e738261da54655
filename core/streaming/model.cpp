#include "core/streaming/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
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

// ---- The greedy-issue model (ISSUE-33-GREEDY-ISSUE) ----
namespace {

using Kind = LoopStep::Kind;

// A standard normal draw: Box-Muller over the engine's 53-bit uniforms (std::normal_distribution's
// algorithm is the library's choice, so its draws differ between standard libraries).
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : engine_(seed) {}
  double operator()() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    double u1 = 0.0;
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * 3.14159265358979323846 * u2;
    spare_ = r * std::sin(a);
    have_spare_ = true;
    return r * std::cos(a);
  }

 private:
  double uniform() { return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0); }
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool have_spare_ = false;
};

}  // namespace

std::vector<LoopStep> parse_loop_program(const std::string& text) {
  std::vector<LoopStep> out;
  std::istringstream in(text);
  std::string token;
  int loads = 0;
  int waits = 0;
  bool constant = false;
  while (in >> token) {
    const auto bad = [&](const char* allowed) {
      throw std::invalid_argument("loop program step '" + token + "'; allowed: " + allowed);
    };
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(token, &used);
    } catch (const std::exception&) {
      bad("a stall count 1..15, N r (a run of N stall-1 instructions) or a stall count with :load, "
          ":wait_load, :constant or :wait_constant");
    }
    const std::string rest = token.substr(used);
    LoopStep step;
    step.cycles = static_cast<int>(std::clamp<long long>(n, 0, 1 << 20));
    if (rest == "r") {
      if (n < 1 || n > (1 << 20)) bad("a run of 1 to 1048576 instructions");
      step.kind = Kind::kRun;
    } else {
      if (n < 1 || n > 15) bad("a stall count of 1 to 15 cycles");
      if (rest.empty()) {
        step.kind = Kind::kStall;
      } else if (rest == ":load") {
        step.kind = Kind::kLoad;
        ++loads;
      } else if (rest == ":wait_load") {
        step.kind = Kind::kWaitLoad;
        ++waits;
      } else if (rest == ":constant") {
        step.kind = Kind::kConstant;
        constant = true;
      } else if (rest == ":wait_constant") {
        if (!constant) bad("a :wait_constant after a :constant");
        step.kind = Kind::kWaitConstant;
      } else {
        bad("a suffix r, :load, :wait_load, :constant or :wait_constant");
      }
    }
    out.push_back(step);
  }
  if (loads != 1 || waits != 1) {
    throw std::invalid_argument("loop program '" + text + "' has " + std::to_string(loads) + " :load and " +
                                std::to_string(waits) + " :wait_load steps; allowed: exactly one of each");
  }
  return out;
}

std::string format_loop_program(const std::vector<LoopStep>& program) {
  std::string out;
  for (const auto& s : program) {
    if (!out.empty()) out += ' ';
    out += std::to_string(s.cycles);
    switch (s.kind) {
      case Kind::kStall: break;
      case Kind::kRun: out += 'r'; break;
      case Kind::kLoad: out += ":load"; break;
      case Kind::kWaitLoad: out += ":wait_load"; break;
      case Kind::kConstant: out += ":constant"; break;
      case Kind::kWaitConstant: out += ":wait_constant"; break;
    }
  }
  return out;
}

double loop_cycles(const std::vector<LoopStep>& program) {
  double sum = 0;
  for (const auto& s : program) sum += s.cycles;
  return sum;
}

double lone_overhead_cycles(const std::vector<LoopStep>& program) {
  // A lone warp's load (or constant) issues, the steps after it run while it is out, and the wait
  // issues when it is back: those steps' cycles are inside the latency. Found going forward from
  // the load to its wait, round the loop.
  const std::size_t n = program.size();
  std::vector<bool> hidden(n, false);
  auto hide = [&](Kind issue, Kind wait) {
    for (std::size_t i = 0; i < n; ++i) {
      if (program[i].kind != issue) continue;
      std::size_t seen = 0;
      for (std::size_t j = i; program[j].kind != wait; j = (j + 1) % n) {
        if (++seen > n) throw std::invalid_argument("loop program: a load or constant without its wait");
        hidden[j] = true;
      }
    }
  };
  hide(Kind::kLoad, Kind::kWaitLoad);
  if (waits_for_constant(program)) hide(Kind::kConstant, Kind::kWaitConstant);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!hidden[i]) sum += program[i].cycles;
  }
  return sum;
}

double greedy_memory_latency(double locus_unloaded_cycles) {
  const std::optional<std::string> w0 = suite_read_independent_program(0);
  if (!w0) throw std::logic_error("the suite's W = 0 loop is missing from core/suite_loops.cpp");
  return std::max(locus_unloaded_cycles - lone_overhead_cycles(parse_loop_program(*w0)), 0.0);
}

double greedy_constant_latency(double t0, double memory_latency, const std::vector<LoopStep>& program) {
  if (!waits_for_constant(program)) return 0.0;
  return std::max(t0 - memory_latency - lone_overhead_cycles(program), 0.0);
}

bool waits_for_constant(const std::vector<LoopStep>& program) {
  return std::any_of(program.begin(), program.end(), [](const LoopStep& s) { return s.kind == Kind::kWaitConstant; });
}

double greedy_scheduler_cycles(int warps, const std::vector<LoopStep>& program, double latency, double sigma,
                               double constant_latency, std::uint64_t seed, int iterations) {
  require(warps >= 1, "warps a scheduler", warps, "at least 1");
  require(!program.empty(), "loop program steps", 0, "at least one");
  require(std::isfinite(latency) && latency >= 0, "load latency", latency, "finite, >= 0 cycles");
  require(std::isfinite(sigma) && sigma >= 0, "latency spread", sigma, "finite, >= 0 cycles");
  require(std::isfinite(constant_latency) && constant_latency >= 0, "constant latency", constant_latency,
          "finite, >= 0 cycles");
  require(iterations >= 1, "iterations", iterations, "at least 1");
  Normal normal(seed);
  const std::size_t n = program.size();
  const auto k = static_cast<std::size_t>(warps);
  std::vector<std::size_t> pos(k, 0);
  std::vector<double> free_at(k, 0.0);   // the cycle its stall count ends
  std::vector<double> data_at(k, 0.0);   // its load's data back
  std::vector<double> const_at(k, 0.0);  // its constant back
  std::vector<int> done(k, 0);
  std::vector<double> finish(k, 0.0);
  // When each warp may issue its next step: its stall count over and, for a wait, its load's (its
  // constant's) data back; known when its previous step issues; infinite once it is done.
  std::vector<double> ready_at(k, 0.0);
  const double never = std::numeric_limits<double>::infinity();
  std::size_t current = 0;
  int unfinished = warps;
  double t = 0.0;
  while (unfinished > 0) {
    std::size_t w = k;
    if (ready_at[current] <= t) {
      w = current;
    } else {
      double next = never;
      for (std::size_t i = 0; i < k; ++i) {
        if (ready_at[i] <= t) {
          w = i;
          break;
        }
        next = std::min(next, ready_at[i]);
      }
      if (w == k) {
        t = next;
        continue;
      }
      current = w;
    }
    const LoopStep& s = program[pos[w]];
    if (s.kind == Kind::kLoad) data_at[w] = t + latency + sigma * normal();
    if (s.kind == Kind::kConstant) const_at[w] = t + constant_latency;
    const double issued = t;
    free_at[w] = t + s.cycles;
    t += s.kind == Kind::kRun ? s.cycles : 1.0;  // a run holds the scheduler; one issue cycle otherwise
    if (++pos[w] == n) {
      pos[w] = 0;
      if (++done[w] == iterations) {
        finish[w] = issued + s.cycles;
        --unfinished;
        ready_at[w] = never;
        continue;
      }
    }
    const LoopStep& next_step = program[pos[w]];
    double r = free_at[w];
    if (next_step.kind == Kind::kWaitLoad) r = std::max(r, data_at[w]);
    if (next_step.kind == Kind::kWaitConstant) r = std::max(r, const_at[w]);
    ready_at[w] = r;
  }
  return *std::max_element(finish.begin(), finish.end()) / iterations;
}

GreedyStream::GreedyStream(std::vector<LoopStep> program, GreedyStreamInputs inputs, Locus locus,
                           GreedySettings settings)
    : program_(std::move(program)), in_(inputs), locus_(std::move(locus)), settings_(settings) {
  require(in_.sms >= 1, "SMs", in_.sms, "at least 1");
  require(in_.schedulers_per_sm >= 1, "schedulers an SM", in_.schedulers_per_sm, "at least 1");
  require(std::isfinite(in_.bytes_per_warp_iteration) && in_.bytes_per_warp_iteration > 0, "bytes a warp iteration",
          in_.bytes_per_warp_iteration, "finite, > 0");
  require(std::isfinite(in_.clock_hz) && in_.clock_hz > 0, "SM clock", in_.clock_hz, "finite, > 0 Hz");
  require(std::isfinite(in_.memory_latency) && in_.memory_latency >= 0, "memory latency M0", in_.memory_latency,
          "finite, >= 0 cycles");
  require(settings_.seeds >= 1, "seeds", settings_.seeds, "at least 1");
  require(settings_.latency_grid_cycles > 0, "latency grid", settings_.latency_grid_cycles, "> 0 cycles");
  if (locus_.points().empty()) throw std::invalid_argument("the greedy-issue model needs a locus of at least 2 points");
}

double GreedyStream::period(int warps_per_scheduler, double latency) {
  const double g = settings_.latency_grid_cycles;
  const double lo = std::floor(latency / g);
  const double frac = latency / g - lo;
  double at[2] = {0.0, 0.0};
  for (int i = 0; i < (frac > 0 ? 2 : 1); ++i) {
    const auto index = static_cast<long long>(lo) + i;
    auto [it, fresh] = cache_.try_emplace({warps_per_scheduler, index}, 0.0);
    if (fresh) {
      double sum = 0;
      for (int seed = 1; seed <= settings_.seeds; ++seed) {
        sum += greedy_scheduler_cycles(warps_per_scheduler, program_, static_cast<double>(index) * g, in_.sigma,
                                       in_.constant_latency,
                                       static_cast<std::uint64_t>(seed) * 10 + static_cast<std::uint64_t>(warps_per_scheduler),
                                       settings_.iterations);
      }
      it->second = sum / settings_.seeds;
    }
    at[i] = it->second;
  }
  return frac > 0 ? at[0] + (at[1] - at[0]) * frac : at[0];
}

StreamPrediction GreedyStream::predict(int warps_per_sm) {
  require(warps_per_sm >= 1, "warps per SM", warps_per_sm, "at least 1");
  StreamPrediction out;
  const int few = warps_per_sm / in_.schedulers_per_sm;
  const int many = (warps_per_sm + in_.schedulers_per_sm - 1) / in_.schedulers_per_sm;
  out.warps_per_scheduler = many;
  const double lambda0 = locus_.unloaded_cycles();
  const double per_cycle_bytes = in_.sms * static_cast<double>(warps_per_sm) * in_.bytes_per_warp_iteration * in_.clock_hz;
  // The slowest scheduler's period at a load latency, and the latency the memory gives at a rate.
  auto cycles_at_latency = [&](double latency) {
    double cycles = period(many, latency);
    if (few >= 1 && few != many) cycles = std::max(cycles, period(few, latency));
    return cycles;
  };
  auto memory = [&](double bw) { return std::max(in_.memory_latency + locus_.cycles_at(bw) - lambda0, 0.0); };
  const double ceiling = locus_.ceiling();
  out.at_ceiling = per_cycle_bytes / cycles_at_latency(memory(ceiling)) >= ceiling;
  if (out.at_ceiling) {
    out.bandwidth = ceiling;
  } else {
    // The fixed point in the latency: q(L) = memory(rate the warps offer at L) - L falls as L rises
    // (a longer wait offers less, and the locus never falls), so its root is found by bisection,
    // first over the simulated grid (each step simulates at most two latencies), then inside the
    // cell, where the period is linear and nothing more is simulated.
    auto q = [&](double latency) { return memory(per_cycle_bytes / cycles_at_latency(latency)) - latency; };
    const double g = settings_.latency_grid_cycles;
    // q(L0) >= 0 at L0 = memory(0), the least the memory waits; at L1, the wait at the rate the
    // warps offer at L0 (the most they offer), q(L1) <= 0: the root lies between.
    const double l0 = memory(0.0);
    const double l1 = memory(per_cycle_bytes / cycles_at_latency(l0));
    double lo = std::floor(l0 / g) * g;
    double hi = (std::floor(l1 / g) + 1) * g;
    while (hi - lo > g) {
      const double mid = std::floor((lo + hi) / (2 * g)) * g;
      (q(mid) >= 0 ? lo : hi) = mid;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
      const double mid = 0.5 * (lo + hi);
      (q(mid) >= 0 ? lo : hi) = mid;
    }
    out.bandwidth = per_cycle_bytes / cycles_at_latency(0.5 * (lo + hi));
  }
  out.iteration_cycles = per_cycle_bytes / out.bandwidth;
  out.loaded_cycles = locus_.cycles_at(out.bandwidth);
  return out;
}

}  // namespace warpcost::model::streaming
