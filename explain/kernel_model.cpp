#include "explain/kernel_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/constants.hpp"

namespace warpcost::explain {

namespace {

// Blocks that are all resident at once (one wave, a grid sized to the residency): within a part in
// a million of G <= S k.
bool one_wave(const KernelInputs& in, int sms) {
  return in.blocks <= sms * in.resident_blocks * (1 + 1e-6);
}

// Every per-block amount of work times `s` (a block doing s times the work).
void scale_block_work(KernelInputs& in, double s) {
  in.inst_per_block *= s;
  in.inst_per_warp *= s;
  in.loads_per_warp *= s;
  in.dram_bytes_per_block *= s;
  in.asked_bytes_per_block *= s;
  in.sectors_per_block *= s;
  in.written_bytes_per_block *= s;
  in.asked_store_bytes_per_block *= s;
}

double unexplained_cycles(const ModelKernel& k) {
  const double mem = k.fit_dram_bytes_per_block > 0 ? k.in.dram_bytes_per_block / k.fit_dram_bytes_per_block
                     : k.fit_sectors_per_block > 0   ? k.in.sectors_per_block / k.fit_sectors_per_block
                                                     : 1.0;
  const double issue = k.fit_inst_per_warp > 0 ? k.in.inst_per_warp / k.fit_inst_per_warp : 1.0;
  return k.unexplained_memory_cycles * mem + k.unexplained_issue_cycles * issue;
}

// The kernel's measured DRAM rate (its DRAM bytes over its measured time) as a fraction of the
// locus' ceiling: what EXPLAIN-5's line and EXPLAIN-8's queueing share read. 0 without a measured
// time, DRAM bytes or a locus.
double measured_dram_fraction(const KernelInputs& in, const ModelParameters& p) {
  if (!(in.seconds > 0) || !(in.dram_bytes_per_block > 0) || p.locus.points().empty()) return 0;
  return in.dram_bytes_per_block * in.blocks / in.seconds / p.locus.ceiling();
}

void check_inputs(const ModelKernel& k, const ModelParameters& p) {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("kernel model: " + what);
  };
  need(p.sms > 0 && p.schedulers_per_sm > 0 && p.clock_hz > 0 && p.issue_rate > 0,
       "the GPU's SM count, schedulers, clock and issue rate must be positive");
  need(p.locus.points().size() >= 2, "the loaded-latency locus needs two points");
  need(k.in.blocks > 0 && std::isfinite(k.in.blocks), "blocks " + std::to_string(k.in.blocks) + " must be positive");
  need(k.in.resident_blocks > 0 && std::isfinite(k.in.resident_blocks),
       "resident blocks " + std::to_string(k.in.resident_blocks) + " must be positive");
  need(k.loads_in_flight >= 1, "loads in flight " + std::to_string(k.loads_in_flight) + " must be at least 1");
  for (double v : {k.in.inst_per_block, k.in.loads_per_warp, k.in.dram_bytes_per_block, k.unexplained_memory_cycles,
                   k.unexplained_issue_cycles}) {
    need(v >= 0 && std::isfinite(v), "a per-block amount " + std::to_string(v) + " must be finite and >= 0");
  }
}

}  // namespace

double load_wait_cycles(const KernelInputs& in, const ModelParameters& p, double bandwidth) {
  const double read = p.locus.cycles_at(bandwidth);
  if (p.copy_locus.points().size() < 2 || !(in.written_bytes_per_block > 0)) return read;
  const double read_bytes = in.dram_bytes_per_block - in.written_bytes_per_block;
  const double share = read_bytes > 0 ? std::min(1.0, in.written_bytes_per_block / read_bytes) : 1.0;
  return read + share * (p.copy_locus.cycles_at(bandwidth) - read);
}

double dram_queue_share(const KernelInputs& in, const ModelParameters& p) {
  return std::clamp((measured_dram_fraction(in, p) - kQueueRampStart) / (1 - kQueueRampStart), 0.0, 1.0);
}

double turnover_cycles_at(const ModelParameters& p, double threads) {
  const auto& t = p.turnover_by_threads;
  if (t.empty()) return 0;
  if (threads <= t.front().first) return t.front().second;
  for (size_t i = 1; i < t.size(); ++i) {
    if (threads <= t[i].first) {
      const auto& [x0, y0] = t[i - 1];
      const auto& [x1, y1] = t[i];
      return x1 == x0 ? y1 : y0 + (y1 - y0) * (threads - x0) / (x1 - x0);
    }
  }
  return t.back().second;
}

double mva_throughput(double customers, const std::vector<double>& demands, double delay) {
  if (!(customers > 0) || !(delay >= 0)) {
    throw std::invalid_argument("mva: customers " + std::to_string(customers) + " must be > 0, delay " +
                                std::to_string(delay) + " >= 0");
  }
  auto exact = [&](int n) {
    std::vector<double> queue(demands.size(), 0.0);
    double x = 0;
    for (int c = 1; c <= n; ++c) {
      double cycle = delay;
      std::vector<double> residence(demands.size());
      for (size_t i = 0; i < demands.size(); ++i) {
        residence[i] = demands[i] * (1 + queue[i]);
        cycle += residence[i];
      }
      x = cycle > 0 ? c / cycle : 0;
      for (size_t i = 0; i < demands.size(); ++i) queue[i] = x * residence[i];
    }
    return x;
  };
  const int lo = static_cast<int>(std::floor(customers));
  const int hi = static_cast<int>(std::ceil(customers));
  const double x_lo = lo > 0 ? exact(lo) : 0.0;
  if (hi == lo) return x_lo;
  return x_lo + (exact(hi) - x_lo) * (customers - lo);
}

ModelSolution solve_kernel(const ModelKernel& k, const ModelParameters& p) {
  check_inputs(k, p);
  const double rounds = k.in.loads_per_warp > 0 ? k.in.loads_per_warp / k.loads_in_flight : 0.0;
  const double unexplained = unexplained_cycles(k);
  const std::vector<double> demands = {turnover_cycles_at(p, k.in.block_threads),
                                       k.in.inst_per_block / (p.schedulers_per_sm * p.issue_rate)};
  auto throughput_at = [&](double bw) {
    return mva_throughput(k.in.resident_blocks, demands, rounds * load_wait_cycles(k.in, p, bw) + unexplained);
  };
  ModelSolution s;
  const double sf = p.sms * p.clock_hz;
  const double bytes = k.in.dram_bytes_per_block;
  double x = 0;
  if (bytes <= 0) {
    x = throughput_at(0);
  } else if (sf * throughput_at(p.locus.ceiling()) * bytes >= p.locus.ceiling()) {
    s.bandwidth = p.locus.ceiling();
    s.at_ceiling = true;
    x = s.bandwidth / (sf * bytes);
  } else {
    double lo = 0, hi = p.locus.ceiling();  // sf X(BW) B - BW falls as BW rises
    for (int i = 0; i < 100; ++i) {
      const double mid = (lo + hi) / 2;
      (sf * throughput_at(mid) * bytes > mid ? lo : hi) = mid;
    }
    s.bandwidth = lo;
    x = throughput_at(lo);
  }
  if (!(x > 0)) throw std::invalid_argument("kernel model: no throughput (a block with no time at all)");
  s.loaded_cycles = load_wait_cycles(k.in, p, s.bandwidth);
  s.block_cycles = 1 / x;
  s.seconds = (k.in.blocks / p.sms) / (x * p.clock_hz);
  return s;
}

ModelFit fit_kernel(const KernelInputs& in, const ModelParameters& p) {
  ModelFit f;
  ModelKernel& k = f.kernel;
  k.in = in;
  k.fit_sectors_per_block = in.sectors_per_block;
  k.fit_inst_per_warp = in.inst_per_warp;
  const double measured = in.seconds;
  auto time = [&] { return solve_kernel(k, p).seconds; };
  const double most = std::max(1.0, in.loads_per_warp);
  if (most > 1) {
    k.loads_in_flight = most;
    const double fastest = time();
    k.loads_in_flight = 1;
    const double slowest = time();
    if (measured <= fastest) {
      k.loads_in_flight = most;
      f.how = "model slower than measured";
      f.at_fit = solve_kernel(k, p);
      return f;
    }
    if (measured <= slowest) {
      double lo = 1, hi = most;  // time falls as m rises
      for (int i = 0; i < 100; ++i) {
        k.loads_in_flight = (lo + hi) / 2;
        (time() > measured ? lo : hi) = k.loads_in_flight;
      }
      k.loads_in_flight = hi;
      f.how = "loads in flight";
      f.at_fit = solve_kernel(k, p);
      return f;
    }
  }
  k.loads_in_flight = 1;
  if (measured <= time()) {
    f.how = "model slower than measured";
    f.at_fit = solve_kernel(k, p);
    return f;
  }
  // U: the smallest extra delay a block that brings the model's time to the measured one.
  const bool dram_bound = measured_dram_fraction(in, p) >= kDramBoundFraction;
  if (dram_bound) k.fit_dram_bytes_per_block = in.dram_bytes_per_block;
  const double share = dram_bound ? 1.0 : std::clamp(in.memory_stall_share, 0.0, 1.0);
  auto set_u = [&](double u) {
    k.unexplained_memory_cycles = share * u;
    k.unexplained_issue_cycles = (1 - share) * u;
  };
  double hi = std::max(1.0, measured * p.clock_hz);
  set_u(hi);
  for (int i = 0; i < 60 && time() < measured; ++i) set_u(hi *= 2);
  double lo = 0;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    set_u(mid);
    (time() < measured ? lo : hi) = mid;
  }
  set_u(hi);
  f.how = "unexplained cycles";
  f.at_fit = solve_kernel(k, p);
  return f;
}

const char* fix_name(Fix f) {
  switch (f) {
    case Fix::kFullWarps: return "full warps";
    case Fix::kConverged: return "converged lanes";
    case Fix::kCoalesced: return "coalesced accesses";
    case Fix::kFullResidency: return "full residency";
    case Fix::kLongLivedBlocks: return "long-lived blocks";
    case Fix::kAll: return "every fix at once";
  }
  return "";
}

double full_residency_blocks(const ModelParameters& p, double warps_per_block) {
  if (warps_per_block <= 0) return 0;
  double k = 0;
  if (p.max_warps_per_sm > 0) k = std::floor(p.max_warps_per_sm / warps_per_block);
  if (p.max_blocks_per_sm > 0) k = k > 0 ? std::min(k, double(p.max_blocks_per_sm)) : double(p.max_blocks_per_sm);
  return k;
}

ModelKernel with_fix(const ModelKernel& k, Fix f, const ModelParameters& p) {
  ModelKernel t = k;
  KernelInputs& in = t.in;
  switch (f) {
    case Fix::kFullWarps: {
      // The same threads' work in blocks of whole warps: G P / (32 w) blocks, each moving and asking
      // 32 w / P times the bytes (its w warps now full); the instructions a warp and a block stay.
      const double full = warpcost::kWarpSize * in.warps_per_block;
      if (in.block_threads <= 0 || full <= in.block_threads) break;
      const double r = full / in.block_threads;
      in.blocks /= r;
      in.block_threads = full;
      in.dram_bytes_per_block *= r;
      in.asked_bytes_per_block *= r;
      in.sectors_per_block *= r;
      in.written_bytes_per_block *= r;
      in.asked_store_bytes_per_block *= r;
      in.resident_blocks = std::min(in.resident_blocks, in.blocks / p.sms);
      break;
    }
    case Fix::kConverged:
      in.inst_per_block *= 1 - in.serialised;
      in.inst_per_warp *= 1 - in.serialised;
      in.serialised = 0;
      break;
    case Fix::kCoalesced:
      // No global load or store counted (DRAM bytes from spills, atomics or bulk copies): nothing
      // here to coalesce, and no bytes asked to move instead.
      if (in.asked_bytes_per_block <= 0) break;
      // EXPLAIN-7 and EXPLAIN-8 (with a copy locus): a twin that moves fewer DRAM bytes leaves
      // the queueing share of U's memory part behind, all of it at the ceiling.
      if (p.copy_locus.points().size() >= 2 && in.dram_bytes_per_block > in.asked_bytes_per_block) {
        t.unexplained_memory_cycles *= 1 - dram_queue_share(in, p);
      }
      in.dram_bytes_per_block = std::min(in.dram_bytes_per_block, in.asked_bytes_per_block);
      in.sectors_per_block = std::min(in.sectors_per_block, in.asked_bytes_per_block / warpcost::kSectorBytes);
      in.written_bytes_per_block = std::min(in.written_bytes_per_block, in.asked_store_bytes_per_block);
      break;
    case Fix::kFullResidency: {
      const double full = full_residency_blocks(p, in.warps_per_block);
      if (full <= in.resident_blocks) break;
      if (one_wave(in, p.sms)) {
        // A grid sized to its residency: the same work spread over the blocks the SM could hold,
        // but never finer than one load a warp (a warp's one load cannot be split): at most
        // G x (loads a warp) blocks.
        double blocks = p.sms * full;
        if (in.loads_per_warp > 0) blocks = std::min(blocks, in.blocks * std::max(1.0, in.loads_per_warp));
        if (blocks <= in.blocks) break;
        scale_block_work(in, in.blocks / blocks);
        in.blocks = blocks;
        in.resident_blocks = std::min(full, blocks / p.sms);
      } else {
        in.resident_blocks = std::min(full, in.blocks / p.sms);
      }
      break;
    }
    case Fix::kLongLivedBlocks: {
      // A grid-stride loop over the blocks the SMs hold at once: each block launched once, doing
      // G / (S k) blocks' work; its loads in flight a round unchanged (more rounds).
      if (one_wave(in, p.sms)) break;
      const double blocks = p.sms * in.resident_blocks;
      scale_block_work(in, in.blocks / blocks);
      in.blocks = blocks;
      break;
    }
    case Fix::kAll:
      for (Fix g : {Fix::kFullWarps, Fix::kConverged, Fix::kCoalesced, Fix::kFullResidency, Fix::kLongLivedBlocks}) {
        t = with_fix(t, g, p);
      }
      break;
  }
  return t;
}

}  // namespace warpcost::explain
