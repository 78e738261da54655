#include "bench/divergence/runner.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "core/statistics.hpp"

namespace warpcost {
namespace {

kernels::DivergenceKernel kernel_of(BranchKind kind) {
  switch (kind) {
    case BranchKind::kSwitch: return kernels::DivergenceKernel::kSwitch;
    case BranchKind::kNested: return kernels::DivergenceKernel::kNested;
    case BranchKind::kSwitchTable: return kernels::DivergenceKernel::kSwitchTable;
    case BranchKind::kIfElse: break;
  }
  return kernels::DivergenceKernel::kIfElse;
}

constexpr int kWarpsPerBlock = static_cast<int>(kernels::kDivergenceBlockThreads / 32);


}  // namespace

int divergence_full_residency(const DeviceFacts& facts, BranchKind kind) {
  int blocks = facts.max_blocks_per_sm;
  if (facts.profile.empty()) blocks = std::min(blocks, kernels::divergence_blocks_per_sm(kernel_of(kind)));
  const int cap = std::min(facts.max_warps_per_sm, blocks * kWarpsPerBlock);
  return cap / kWarpsPerBlock * kWarpsPerBlock;
}

std::string divergence_config_problem(const DivergenceConfig& c, int max_warps_per_sm,
                                      int resident_blocks_per_sm) {
  switch (c.kind) {
    case BranchKind::kIfElse:
      if (c.pattern != kernels::SplitPattern::kWarpUniform) {
        if (auto p = kernels::split_k_problem(c.k); !p.empty()) return p;
      }
      if (auto p = kernels::trips_problem("if_trips", c.if_trips); !p.empty()) return p;
      if (auto p = kernels::trips_problem("else_trips", c.else_trips); !p.empty()) return p;
      break;
    case BranchKind::kSwitch:
      if (auto p = kernels::paths_problem(c.paths); !p.empty()) return p;
      if (auto p = kernels::first_path_problem(c.first_path); !p.empty()) return p;
      if (auto p = kernels::trips_problem("trips", c.trips); !p.empty()) return p;
      break;
    case BranchKind::kNested:
      if (auto p = kernels::leaves_problem(c.leaves); !p.empty()) return p;
      if (auto p = kernels::trips_problem("trips", c.trips); !p.empty()) return p;
      break;
    case BranchKind::kSwitchTable:
      if (auto p = kernels::switch_cases_problem(c.cases); !p.empty()) return p;
      break;
  }
  if (c.warps_per_sm < kWarpsPerBlock || c.warps_per_sm % kWarpsPerBlock != 0) {
    return "warps per SM = " + std::to_string(c.warps_per_sm) + "; allowed: a multiple of " +
           std::to_string(kWarpsPerBlock) + " (blocks of " +
           std::to_string(kernels::kDivergenceBlockThreads) + " threads), at least " +
           std::to_string(kWarpsPerBlock);
  }
  if (max_warps_per_sm <= 0) return {};  // no device to hold the residency against
  const int cap = std::min(max_warps_per_sm, resident_blocks_per_sm * kWarpsPerBlock);
  if (c.warps_per_sm > cap) {
    return "warps per SM = " + std::to_string(c.warps_per_sm) + "; allowed: a multiple of " +
           std::to_string(kWarpsPerBlock) + " from " + std::to_string(kWarpsPerBlock) + " to " +
           std::to_string(cap) + " (the device holds " + std::to_string(max_warps_per_sm) +
           " warps/SM and this kernel " + std::to_string(resident_blocks_per_sm) + " blocks/SM)";
  }
  return {};
}

std::vector<kernels::SwitchCase> parse_switch_cases(const std::string& text) {
  std::vector<kernels::SwitchCase> cases;
  auto whole = [&](const std::string& piece, const std::string& part) {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || part[0] == '+' || part[0] == ' ' || v < 0 || v > 1000000000LL) {
      throw std::invalid_argument("--cases piece '" + piece + "'; allowed: LANES:TRIPS, two whole numbers 0..1e9, "
                                  "pieces joined by commas (e.g. 10:384,12:192,10:192)");
    }
    return static_cast<int>(v);
  };
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t colon = piece.find(':');
    if (colon == std::string::npos) whole(piece, "");
    cases.push_back({whole(piece, piece.substr(0, colon)), whole(piece, piece.substr(colon + 1))});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cases;
}

ThreadPath thread_path(const DivergenceConfig& c, const kernels::SplitMasks& masks,
                       unsigned long long gid) {
  const int lane = static_cast<int>(gid % 32u);
  switch (c.kind) {
    case BranchKind::kIfElse: {
      const bool take_if = (masks.lanes[(gid / 32u) % kernels::kMaskTableSize] >> lane) & 1u;
      return take_if ? ThreadPath{0, c.if_trips} : ThreadPath{1, c.else_trips};
    }
    case BranchKind::kSwitch:
      return {(c.first_path + lane % c.paths) % kernels::kMaxPaths, c.trips};
    case BranchKind::kNested: {
      const kernels::NestedMasks n = kernels::nested_masks(c.leaves);
      return {kernels::nested_leaf(n.outer, n.inner, lane), c.trips};
    }
    case BranchKind::kSwitchTable: {
      int first = 0;
      for (std::size_t i = 0; i < c.cases.size(); ++i) {
        if (lane < first + c.cases[i].lanes) return {static_cast<int>(i), c.cases[i].trips};
        first += c.cases[i].lanes;
      }
      break;
    }
  }
  return {};
}

std::uint32_t planned_vote(const DivergenceConfig& c, const kernels::SplitMasks& masks,
                           unsigned long long warp) {
  std::uint32_t vote = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const unsigned long long gid = warp * 32u + static_cast<unsigned long long>(lane);
    bool first = false;
    switch (c.kind) {
      case BranchKind::kIfElse: first = thread_path(c, masks, gid).path == 0; break;
      case BranchKind::kSwitch: first = lane % c.paths == 0; break;
      case BranchKind::kNested: first = (kernels::nested_masks(c.leaves).outer >> lane) & 1u; break;
      case BranchKind::kSwitchTable: first = thread_path(c, masks, gid).path == 0; break;
    }
    if (first) vote |= 1u << lane;
  }
  return vote;
}

int populated_paths(const DivergenceConfig& c, const kernels::SplitMasks& masks,
                    unsigned long long warp) {
  std::uint32_t seen = 0;
  for (int lane = 0; lane < 32; ++lane) {
    seen |= 1u << thread_path(c, masks, warp * 32u + static_cast<unsigned long long>(lane)).path;
  }
  int n = 0;
  for (; seen != 0; seen &= seen - 1) ++n;
  return n;
}

WarpCycleSummary summarize_warps(const DivergenceConfig& c, const kernels::SplitMasks& masks,
                                 const std::vector<kernels::WarpRecord>& records) {
  WarpCycleSummary s;
  if (records.empty()) return s;
  std::vector<double> all;
  std::vector<double> all_first;
  std::vector<double> no_first;
  std::map<unsigned int, int> per_sm;
  unsigned long long first_start = records.front().start_ns;
  unsigned long long last_stop = records.front().stop_ns;
  for (std::size_t w = 0; w < records.size(); ++w) {
    const auto& r = records[w];
    const double cycles = static_cast<double>(r.cycles);
    all.push_back(cycles);
    if (r.first_path_vote == 0xffffffffu) all_first.push_back(cycles);
    if (r.first_path_vote == 0u) no_first.push_back(cycles);
    if (r.first_path_vote == planned_vote(c, masks, w)) ++s.votes_as_planned;
    ++per_sm[r.smid];
    first_start = std::min(first_start, r.start_ns);
    last_stop = std::max(last_stop, r.stop_ns);
  }
  s.region_span_s = last_stop > first_start ? static_cast<double>(last_stop - first_start) * 1e-9 : 0.0;
  s.warps = static_cast<long long>(records.size());
  s.median_cycles = analysis::median(all);
  s.p10_cycles = analysis::nearest_rank_percentile(all, 0.10);
  s.p90_cycles = analysis::nearest_rank_percentile(all, 0.90);
  if (!all_first.empty()) s.all_first_path_median = analysis::median(all_first);
  if (!no_first.empty()) s.no_first_path_median = analysis::median(no_first);
  s.sms = static_cast<int>(per_sm.size());
  s.min_warps_on_one_sm = per_sm.begin()->second;
  for (const auto& [sm, n] : per_sm) {
    s.max_warps_on_one_sm = std::max(s.max_warps_on_one_sm, n);
    s.min_warps_on_one_sm = std::min(s.min_warps_on_one_sm, n);
  }
  return s;
}

namespace {

// warps_per_sm = 0: the device's full residency for the kind's kernel.
DivergenceConfig with_residency(const DeviceInfo& device, DivergenceConfig c) {
  if (c.warps_per_sm == 0) c.warps_per_sm = divergence_full_residency(facts_of(device), c.kind);
  return c;
}

}  // namespace

DivergenceRunner::DivergenceRunner(const DeviceInfo& device, const DivergenceConfig& requested)
    : config_(with_residency(device, requested)) {
  const DivergenceConfig& config = config_;
  const int resident = kernels::divergence_blocks_per_sm(kernel_of(config.kind));
  const std::string problem = divergence_config_problem(config, device.max_warps_per_sm, resident);
  if (!problem.empty()) throw std::invalid_argument(problem);
  if (config.kind == BranchKind::kIfElse) masks_ = kernels::split_masks(config.pattern, config.k, config.seed);
  if (config.kind == BranchKind::kNested) nested_ = kernels::nested_masks(config.leaves);
  if (config.kind == BranchKind::kSwitchTable) table_ = kernels::switch_table(config.cases);
  blocks_ = static_cast<unsigned int>(device.sm_count * (config.warps_per_sm / kWarpsPerBlock));
  out_ = DeviceBuffer<float>(threads());
  records_ = DeviceBuffer<kernels::WarpRecord>(threads() / 32u);
  clocks_ = DeviceBuffer<kernels::ClockSample>(2);
}

void DivergenceRunner::launch(const Stream& stream) {
  switch (config_.kind) {
    case BranchKind::kIfElse:
      kernels::launch_if_else(masks_, config_.if_trips, config_.else_trips, blocks_, out_.data(),
                              records_.data(), clocks_.data(), stream.get());
      break;
    case BranchKind::kSwitch:
      kernels::launch_switch(config_.paths, config_.first_path, config_.trips, blocks_, out_.data(),
                             records_.data(), clocks_.data(), stream.get());
      break;
    case BranchKind::kNested:
      kernels::launch_nested(nested_.outer, nested_.inner, config_.trips, blocks_, out_.data(),
                             records_.data(), clocks_.data(), stream.get());
      break;
    case BranchKind::kSwitchTable:
      kernels::launch_switch_table(table_, blocks_, out_.data(), records_.data(), clocks_.data(), stream.get());
      break;
  }
}

void DivergenceRunner::check_outputs(const Stream& stream) const {
  std::vector<float> got(threads());
  WARPCOST_CUDA(cudaMemcpyAsync(got.data(), out_.data(), out_.bytes(), cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();
  // Every lane of 8 warps spread over the grid (the first and the last among them): each lane
  // pattern a warp can have, at both ends and the middle of the grid. The replay is the host's
  // whole per-point cost (some 40 ms for 33 warps at 384 trips), so it is kept to 8 warps.
  const unsigned long long warps = (threads() + 31) / 32;
  const unsigned long long picked = std::min<unsigned long long>(warps, 8);
  std::vector<unsigned long long> ids;
  for (unsigned long long i = 0; i < picked; ++i) {
    const unsigned long long w = picked > 1 ? i * (warps - 1) / (picked - 1) : 0;
    for (unsigned long long g = 32 * w; g < std::min<unsigned long long>(32 * w + 32, threads()); ++g) ids.push_back(g);
  }
  for (const unsigned long long g : ids) {
    const ThreadPath p = thread_path(config_, masks_, g);
    const float want = kernels::path_reference(g, p.path, p.trips);
    if (!(got[g] == want)) {
      throw std::runtime_error("thread " + std::to_string(g) + " (path " + std::to_string(p.path) +
                               ", " + std::to_string(p.trips) + " trips) computed " +
                               std::to_string(got[g]) + ", host replay " + std::to_string(want));
    }
  }
}

WarpCycleSummary DivergenceRunner::read_warps(const Stream& stream) const {
  std::vector<kernels::WarpRecord> records(records_.size());
  WARPCOST_CUDA(cudaMemcpyAsync(records.data(), records_.data(), records_.bytes(),
                                cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return summarize_warps(config_, masks_, records);
}

double DivergenceRunner::clock_hz(const Stream& stream) const {
  kernels::ClockSample probes[2];
  WARPCOST_CUDA(cudaMemcpyAsync(probes, clocks_.data(), sizeof probes, cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();
  return 0.5 * (clock_hz_from_sample(probes[0]) + clock_hz_from_sample(probes[1]));
}

}  // namespace warpcost
