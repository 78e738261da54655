#include "bench/warp_primitives/plan.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

namespace warpcost::warp_primitives {

namespace {

// The primitives each part of the plan visits (ids of primitives_model.hpp).
// Lanes and masks at one warp an SM: the baseline, two shuffles, a vote, a match, a reduction and
// the warp barrier.
const int kLaneSweepPrimitives[] = {0, 1, 4, 9, 12, 14, 17};
const int kContiguousLanes[] = {1, 2, 8, 16, 31};
const int kScatteredLanes[] = {2, 8, 16, 31};
const int kDivergentSplit = 16;
// Throughput swept over warps/SM (the knee); every other primitive at the cap only.
const int kWarpSweepPrimitives[] = {0, 1, 2, 3, 4, 8, 9, 12, 14, 19, 20};
// Lanes and masks at the cap.
const int kThroughputLanePrimitives[] = {4, 12};
// The counter pass profiles these 32-lane latency points (about 0.25 s each on the H200).
const int kCountedPrimitives[] = {0, 4, 8, 9, 12, 14, 19};

template <class C>
bool contains(const C& c, int v) {
  return std::find(std::begin(c), std::end(c), v) != std::end(c);
}

}  // namespace

std::string facts_problem(const DeviceFacts& f) {
  if (f.cc < 30) return "compute capability = " + std::to_string(f.cc) + ". allowed: 30 or more (10 x major + minor)";
  if (f.sm_count < 1) return "SM count = " + std::to_string(f.sm_count) + ". allowed: 1 or more";
  if (f.max_warps_per_sm < 1) return "warps/SM cap = " + std::to_string(f.max_warps_per_sm) + ". allowed: 1 or more";
  if (f.max_threads_per_block < 32) {
    return "threads/block limit = " + std::to_string(f.max_threads_per_block) + ". allowed: 32 or more";
  }
  if (f.max_blocks_per_sm < 1) return "blocks/SM limit = " + std::to_string(f.max_blocks_per_sm) + ". allowed: 1 or more";
  return {};
}

const char* bench_name(Kind kind) { return kind == Kind::kLatency ? bench::kLatency : bench::kThroughput; }

std::vector<std::string> arg_names(Kind kind) {
  if (kind == Kind::kLatency) return {param::kPrimitive, param::kActiveLanes, param::kMask};
  return {param::kPrimitive, param::kWarpsPerSm, param::kActiveLanes, param::kMask};
}

std::vector<long long> args_of(const Point& p) {
  if (p.kind == Kind::kLatency) return {p.primitive, p.active_lanes, p.mask};
  return {p.primitive, p.warps_per_sm, p.active_lanes, p.mask};
}

Point point_from_args(Kind kind, const std::vector<long long>& args) {
  if (args.size() != arg_names(kind).size()) {
    throw std::invalid_argument(std::string(bench_name(kind)) + " takes " + std::to_string(arg_names(kind).size()) +
                                " arguments, not " + std::to_string(args.size()));
  }
  Point p;
  p.kind = kind;
  p.primitive = static_cast<int>(args[0]);
  if (kind == Kind::kLatency) {
    p.active_lanes = static_cast<int>(args[1]);
    p.mask = static_cast<int>(args[2]);
  } else {
    p.warps_per_sm = static_cast<int>(args[1]);
    p.active_lanes = static_cast<int>(args[2]);
    p.mask = static_cast<int>(args[3]);
  }
  return p;
}

std::vector<int> warps_sweep(const DeviceFacts& f) {
  std::vector<int> w;
  for (int n = 1; n < f.max_warps_per_sm; n *= 2) w.push_back(n);
  w.push_back(f.max_warps_per_sm);
  return w;
}

std::vector<Point> plan(const DeviceFacts& f) {
  const std::string problem = facts_problem(f);
  if (!problem.empty()) throw std::invalid_argument(problem);
  std::vector<Point> points;
  auto on_device = [&](int p) { return available(info(static_cast<Primitive>(p)), f.cc); };
  // __activemask() is left out of the timed plan: ptxas hoists it out of the unrolled chain (the H200
  // pilot's SASS held 2 VOTE.ANY for 64 calls), so its chain would time the XOR around it, not the
  // vote. The mask fact it answers is recorded by `warpcost-primitives facts` instead.
  auto timed = [](const PrimitiveInfo& pi) { return pi.id != Primitive::kActivemask; };
  for (const PrimitiveInfo& pi : primitives()) {
    const int p = static_cast<int>(pi.id);
    if (!on_device(p) || !timed(pi)) continue;
    Point full{Kind::kLatency, p, 1, kWarpSize, 0, contains(kCountedPrimitives, p)};
    points.push_back(full);
  }
  for (const int p : kLaneSweepPrimitives) {
    if (!on_device(p)) continue;
    for (const int n : kContiguousLanes) points.push_back({Kind::kLatency, p, 1, n, 0, false});
    for (const int n : kScatteredLanes) points.push_back({Kind::kLatency, p, 1, n, 1, false});
    points.push_back({Kind::kLatency, p, 1, kDivergentSplit, 2, false});
  }
  const std::vector<int> sweep = warps_sweep(f);
  for (const PrimitiveInfo& pi : primitives()) {
    const int p = static_cast<int>(pi.id);
    if (!on_device(p) || !timed(pi)) continue;
    if (contains(kWarpSweepPrimitives, p)) {
      for (const int w : sweep) points.push_back({Kind::kThroughput, p, w, kWarpSize, 0, false});
    } else {
      points.push_back({Kind::kThroughput, p, f.max_warps_per_sm, kWarpSize, 0, false});
    }
  }
  for (const int p : kThroughputLanePrimitives) {
    if (!on_device(p)) continue;
    points.push_back({Kind::kThroughput, p, f.max_warps_per_sm, 1, 0, false});
    points.push_back({Kind::kThroughput, p, f.max_warps_per_sm, 16, 0, false});
    points.push_back({Kind::kThroughput, p, f.max_warps_per_sm, 16, 1, false});
  }
  return points;
}

bool in_plan(const Point& p, const DeviceFacts& f) {
  for (const Point& q : plan(f)) {
    if (q.kind == p.kind && args_of(q) == args_of(p)) return true;
  }
  return false;
}

std::string primitive_problem(long long primitive, int cc) {
  if (!is_primitive_id(primitive)) {
    return "primitive = " + std::to_string(primitive) + ". allowed: 0.." + std::to_string(kPrimitiveCount - 1);
  }
  const PrimitiveInfo& pi = info(static_cast<Primitive>(primitive));
  if (cc > 0 && !available(pi, cc)) {
    return std::string(pi.name) + " needs cc " + std::to_string(pi.min_cc / 10) + "." + std::to_string(pi.min_cc % 10) +
           "; not on this GPU (cc " + std::to_string(cc / 10) + "." + std::to_string(cc % 10) + ")";
  }
  return {};
}

std::string lanes_problem(long long lanes) {
  if (lanes < 1 || lanes > kWarpSize) return "active lanes = " + std::to_string(lanes) + ". allowed: 1..32";
  return {};
}

std::string mask_problem(long long mask, long long lanes) {
  if (mask < 0 || mask > 2) {
    return "mask = " + std::to_string(mask) + ". allowed: 0 (contiguous), 1 (scattered), 2 (divergent)";
  }
  if (mask == 2 && (lanes < 1 || lanes > 31)) {
    return "divergent mask with " + std::to_string(lanes) + " lanes on the first side. allowed: 1..31 (both sides need lanes)";
  }
  return {};
}

std::string warps_problem(long long warps, const DeviceFacts& f) {
  if (warps < 1 || warps > f.max_warps_per_sm) {
    return "warps/SM = " + std::to_string(warps) + ". allowed: 1.." + std::to_string(f.max_warps_per_sm) +
           " (this device's cap)";
  }
  return {};
}

std::string point_problem(const Point& p, const DeviceFacts& f) {
  std::string why = primitive_problem(p.primitive, f.cc);
  if (why.empty()) why = lanes_problem(p.active_lanes);
  if (why.empty()) why = mask_problem(p.mask, p.active_lanes);
  if (why.empty() && p.kind == Kind::kThroughput) why = warps_problem(p.warps_per_sm, f);
  if (why.empty() && !info(static_cast<Primitive>(p.primitive)).lane_sweep && (p.active_lanes != kWarpSize || p.mask != 0)) {
    why = std::string(info(static_cast<Primitive>(p.primitive)).name) +
          " sums the whole warp: allowed only with 32 contiguous lanes";
  }
  return why;
}

Shape shape_of(const Point& p, const DeviceFacts& f) {
  const std::string why = point_problem(p, f);
  if (!why.empty()) throw std::invalid_argument(why);
  Shape s;
  const MaskShape shape = static_cast<MaskShape>(p.mask);
  if (shape == MaskShape::kDivergent) {
    s.mask_a = lane_mask(p.active_lanes, MaskShape::kContiguous);
    s.mask_b = ~s.mask_a;
  } else {
    s.mask_a = lane_mask(p.active_lanes, shape);
  }
  if (p.kind == Kind::kLatency) {
    s.blocks = static_cast<unsigned>(f.sm_count);
    s.threads_per_block = kWarpSize;
    s.blocks_per_sm = 1;
    s.chains = 1;
    s.ops = kLatencyOps;
    return s;
  }
  const int max_warps_per_block = f.max_threads_per_block / kWarpSize;
  int blocks_per_sm = (p.warps_per_sm + max_warps_per_block - 1) / max_warps_per_block;
  while (p.warps_per_sm % blocks_per_sm != 0) ++blocks_per_sm;
  if (blocks_per_sm > f.max_blocks_per_sm) {
    throw std::invalid_argument("warps/SM = " + std::to_string(p.warps_per_sm) + " needs " + std::to_string(blocks_per_sm) +
                                " blocks an SM. allowed: at most " + std::to_string(f.max_blocks_per_sm));
  }
  s.blocks_per_sm = blocks_per_sm;
  s.blocks = static_cast<unsigned>(f.sm_count * blocks_per_sm);
  s.threads_per_block = static_cast<unsigned>(p.warps_per_sm / blocks_per_sm * kWarpSize);
  s.chains = 4;
  s.ops = kThroughputOps;
  return s;
}

// ---- the host reference

namespace {

struct Lane {
  unsigned long long v = 0;
  unsigned long long aux = 0;
  bool defined = true;
};

std::uint32_t start_value(int primitive, int lane, int chain) {
  const auto p = static_cast<Primitive>(primitive);
  const auto c = static_cast<std::uint32_t>(chain);
  if (p == Primitive::kMatchAny) return (static_cast<std::uint32_t>(lane) & 3u) + 97u * c;
  if (p == Primitive::kMatchAll) return kSeed + 97u * c;
  return kSeed + static_cast<std::uint32_t>(lane) + 97u * c;
}

bool is64(Primitive p) {
  return p == Primitive::kShflIdx64 || p == Primitive::kShflUp64 || p == Primitive::kShflDown64 ||
         p == Primitive::kShflXor64 || p == Primitive::kSumButterfly64;
}

float as_float(unsigned long long bits) {
  const auto u = static_cast<std::uint32_t>(bits);
  float f;
  static_assert(sizeof f == sizeof u);
  std::memcpy(&f, &u, sizeof f);
  return f;
}
unsigned long long float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof f);
  return u;
}

// One op of the chain on the lanes of `mask` (others untouched); k is the op's index.
void step(Primitive p, std::uint32_t mask, int k, Lane* w) {
  const bool wide = is64(p);
  auto in = [&](int j) { return j >= 0 && j < kWarpSize && ((mask >> j) & 1u) != 0; };
  auto trunc = [&](unsigned long long x) { return wide ? x : (x & 0xffffffffull); };
  Lane next[kWarpSize];
  std::copy(w, w + kWarpSize, next);
  auto from = [&](int l, int src) {
    if (!in(src)) {
      next[l].defined = false;
    } else {
      next[l].v = w[src].v;
      next[l].defined = w[src].defined;
    }
  };
  bool all_defined = true;
  for (int j = 0; j < kWarpSize; ++j) all_defined = all_defined && (!in(j) || w[j].defined);
  for (int l = 0; l < kWarpSize; ++l) {
    if (!in(l)) continue;
    switch (p) {
      case Primitive::kAlu:
        if (k % 2 == 0) {
          next[l].v = trunc(w[l].v + w[l].aux);
        } else {
          next[l].aux = trunc(w[l].aux + w[l].v);
        }
        break;
      case Primitive::kShflIdx32:
      case Primitive::kShflIdx64: {
        int src = -1;
        for (int d = 1; d <= kWarpSize && src < 0; ++d) {
          if (in((l + d) % kWarpSize)) src = (l + d) % kWarpSize;
        }
        from(l, src);
        break;
      }
      case Primitive::kShflUp32:
      case Primitive::kShflUp64:
        if (l - static_cast<int>(kDelta) >= 0) from(l, l - static_cast<int>(kDelta));
        break;
      case Primitive::kShflDown32:
      case Primitive::kShflDown64:
        if (l + static_cast<int>(kDelta) < kWarpSize) from(l, l + static_cast<int>(kDelta));
        break;
      case Primitive::kShflXor32:
      case Primitive::kShflXor64:
        from(l, l ^ static_cast<int>(kDelta));
        break;
      case Primitive::kBallot: {
        std::uint32_t b = 0;
        for (int j = 0; j < kWarpSize; ++j) {
          if (in(j) && (w[j].v & (1ull << j)) == 0) b |= 1u << j;
        }
        next[l].v = b;
        next[l].defined = all_defined;
        break;
      }
      case Primitive::kAny:
      case Primitive::kAll: {
        bool any = false, all = true;
        for (int j = 0; j < kWarpSize; ++j) {
          if (!in(j)) continue;
          any = any || w[j].v == 0;
          all = all && w[j].v == 0;
        }
        next[l].v = (p == Primitive::kAny ? any : all) ? 1u : 0u;
        next[l].defined = all_defined;
        break;
      }
      case Primitive::kMatchAny: {
        std::uint32_t m = 0;
        for (int j = 0; j < kWarpSize; ++j) {
          if (in(j) && w[j].v == w[l].v) m |= 1u << j;
        }
        next[l].v = m;
        next[l].defined = all_defined;
        break;
      }
      case Primitive::kMatchAll: {
        bool same = true;
        for (int j = 0; j < kWarpSize; ++j) same = same && (!in(j) || w[j].v == w[l].v);
        next[l].v = same ? mask : 0u;
        next[l].defined = all_defined;
        break;
      }
      case Primitive::kReduceAdd:
      case Primitive::kReduceMin:
      case Primitive::kReduceMax: {
        unsigned long long r = p == Primitive::kReduceAdd ? 0 : p == Primitive::kReduceMin ? 0xffffffffull : 0;
        for (int j = 0; j < kWarpSize; ++j) {
          if (!in(j)) continue;
          if (p == Primitive::kReduceAdd) r = (r + w[j].v) & 0xffffffffull;
          if (p == Primitive::kReduceMin) r = std::min(r, w[j].v);
          if (p == Primitive::kReduceMax) r = std::max(r, w[j].v);
        }
        next[l].v = r;
        next[l].defined = all_defined;
        break;
      }
      case Primitive::kSyncwarp:
      case Primitive::kActivemask:
        break;
      case Primitive::kSumButterfly:
      case Primitive::kSumShared:
      case Primitive::kSumButterfly64:
      case Primitive::kSumButterflyF32:
        break;  // whole-warp sums: done below, all lanes at once
    }
  }
  if (p == Primitive::kSumButterfly || p == Primitive::kSumShared || p == Primitive::kSumButterfly64 ||
      p == Primitive::kSumButterflyF32) {
    for (int off = 16; off > 0; off >>= 1) {
      Lane stage[kWarpSize];
      std::copy(next, next + kWarpSize, stage);
      for (int l = 0; l < kWarpSize; ++l) {
        if (p == Primitive::kSumButterflyF32) {
          next[l].v = float_bits(as_float(stage[l].v) + as_float(stage[l ^ off].v));
        } else {
          next[l].v = trunc(stage[l].v + stage[l ^ off].v);
        }
      }
    }
  }
  std::copy(next, next + kWarpSize, w);
}

}  // namespace

std::vector<std::optional<unsigned long long>> reference_warp(int primitive, const Shape& s) {
  const auto p = static_cast<Primitive>(primitive);
  std::vector<std::optional<unsigned long long>> out(static_cast<std::size_t>(kWarpSize * s.chains));
  for (int c = 0; c < s.chains; ++c) {
    Lane w[kWarpSize];
    for (int l = 0; l < kWarpSize; ++l) {
      const std::uint32_t start = start_value(primitive, l, c);
      w[l].v = p == Primitive::kSumButterflyF32 ? float_bits(static_cast<float>(start))
               : is64(p)                         ? start * 0x100000001ull
                                                 : start;
      w[l].aux = kSeed ^ 0x5bd1e995u;
    }
    for (const std::uint32_t mask : {s.mask_a, s.mask_b}) {
      if (mask == 0) continue;
      for (std::uint32_t k = 0; k < s.ops; ++k) step(p, mask, static_cast<int>(k), w);
    }
    for (int l = 0; l < kWarpSize; ++l) {
      const bool runs = (((s.mask_a | s.mask_b) >> l) & 1u) != 0;
      if (!runs || !w[l].defined || p == Primitive::kActivemask) continue;
      unsigned long long value = w[l].v;
      if (p == Primitive::kAlu) value = (w[l].v & 0xffffffffull) | ((w[l].aux & 0xffffffffull) << 32);
      out[static_cast<std::size_t>(l * s.chains + c)] = value;
    }
  }
  return out;
}

bool reference_activemask_ok(const Shape& s, int lane, int chain, unsigned long long value) {
  const std::uint32_t side = ((s.mask_a >> lane) & 1u) != 0 ? s.mask_a : s.mask_b;
  const unsigned long long changed = value ^ start_value(static_cast<int>(Primitive::kActivemask), lane, chain);
  return (changed & ~static_cast<unsigned long long>(side)) == 0;
}

SmThroughput per_sm_throughput(const std::vector<SpanRecord>& spans, double ops_per_block) {
  std::map<unsigned, std::pair<long long, long long>> range;  // smid -> first start, last end
  std::map<unsigned, int> blocks;
  for (const SpanRecord& r : spans) {
    auto it = range.find(r.smid);
    if (it == range.end()) {
      range[r.smid] = {r.start, r.end};
    } else {
      it->second.first = std::min(it->second.first, r.start);
      it->second.second = std::max(it->second.second, r.end);
    }
    ++blocks[r.smid];
  }
  std::vector<double> rates, widths;
  for (const auto& [sm, se] : range) {
    const double span = static_cast<double>(se.second - se.first);
    if (span <= 0) continue;
    rates.push_back(blocks[sm] * ops_per_block / span);
    widths.push_back(span);
  }
  SmThroughput t;
  t.sms = static_cast<int>(rates.size());
  if (rates.empty()) return t;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  t.median_ops_per_cycle = median(rates);
  t.median_span_cycles = median(widths);
  return t;
}

double median_cycles_per_op(const std::vector<SideRecord>& sides, std::uint32_t ops) {
  std::vector<double> per_warp;
  for (std::size_t w = 0; w + 1 < sides.size(); w += 2) {
    long long first = 0, last = 0;
    bool any = false;
    for (std::size_t s = w; s < w + 2; ++s) {
      if (sides[s].start == 0 && sides[s].end == 0) continue;
      first = any ? std::min(first, sides[s].start) : sides[s].start;
      last = any ? std::max(last, sides[s].end) : sides[s].end;
      any = true;
    }
    if (any) per_warp.push_back(static_cast<double>(last - first) / ops);
  }
  if (per_warp.empty()) return 0.0;
  std::sort(per_warp.begin(), per_warp.end());
  const std::size_t n = per_warp.size();
  return n % 2 == 1 ? per_warp[n / 2] : 0.5 * (per_warp[n / 2 - 1] + per_warp[n / 2]);
}

}  // namespace warpcost::warp_primitives
