#include "core/warp_primitives/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/streaming/model.hpp"

namespace warpcost::warp_primitives {

namespace {

// body_inst_per_op: what one op of the chain is written to issue (kernels/warp_primitives):
//  alu: one IADD3 (the chain alternates x += y and y += x, each an op);
//  shuffles: the SHFL (two for 64-bit values: the halves move separately);
//  ballot: LOP3 to a predicate (v & lane bit) + VOTE.ANY to a register;
//  any/all: ISETP (v == 0) + VOTE + SEL back to an integer;
//  match: the MATCH; reduce: the REDUX; syncwarp: the WARPSYNC; activemask: VOTE.ANY + LOP3 (x ^= mask);
//  butterfly sums: 5 x (SHFL.BFLY + add), the 64-bit one 5 x (2 SHFL.BFLY + IADD3 + IADD3.X),
//  the shared one 5 x (LDS + add + WARPSYNC + STS + WARPSYNC).
// A function-local static: warpcost-bench's registration reads it during static initialisation.
const std::vector<PrimitiveInfo>& table() {
  static const std::vector<PrimitiveInfo> kTable = {
    // id, name, sass, sass/op, body inst/op, min cc, lane sweep, shfl32, shfl64, dependent
    {Primitive::kAlu, "alu_add", "IADD3|IMAD.IADD", 1, 1, 0, true, false, false, true},
    {Primitive::kShflIdx32, "shfl_idx32", "SHFL.IDX", 1, 1, 0, true, true, false, true},
    {Primitive::kShflUp32, "shfl_up32", "SHFL.UP", 1, 1, 0, true, true, false, true},
    {Primitive::kShflDown32, "shfl_down32", "SHFL.DOWN", 1, 1, 0, true, true, false, true},
    {Primitive::kShflXor32, "shfl_xor32", "SHFL.BFLY", 1, 1, 0, true, true, false, true},
    {Primitive::kShflIdx64, "shfl_idx64", "SHFL.IDX", 2, 2, 0, true, false, true, true},
    {Primitive::kShflUp64, "shfl_up64", "SHFL.UP", 2, 2, 0, true, false, true, true},
    {Primitive::kShflDown64, "shfl_down64", "SHFL.DOWN", 2, 2, 0, true, false, true, true},
    {Primitive::kShflXor64, "shfl_xor64", "SHFL.BFLY", 2, 2, 0, true, false, true, true},
    {Primitive::kBallot, "ballot", "VOTE.ANY", 1, 2, 0, true, false, false, true},
    {Primitive::kAny, "any", "VOTE.ANY", 1, 3, 0, true, false, false, true},
    {Primitive::kAll, "all", "VOTE.ALL", 1, 3, 0, true, false, false, true},
    {Primitive::kMatchAny, "match_any", "MATCH.ANY", 1, 1, 70, true, false, false, true},
    {Primitive::kMatchAll, "match_all", "MATCH.ALL", 1, 1, 70, true, false, false, true},
    {Primitive::kReduceAdd, "reduce_add", "REDUX.SUM", 1, 1, 80, true, false, false, true},
    {Primitive::kReduceMin, "reduce_min", "REDUX.MIN", 1, 1, 80, true, false, false, true},
    {Primitive::kReduceMax, "reduce_max", "REDUX.MAX", 1, 1, 80, true, false, false, true},
    {Primitive::kSyncwarp, "syncwarp", "WARPSYNC", 1, 1, 0, true, false, false, false},
    {Primitive::kActivemask, "activemask", "VOTE.ANY", 1, 2, 0, true, false, false, false},
    {Primitive::kSumButterfly, "sum_butterfly", "SHFL.BFLY", 5, 10, 0, false, false, false, true},
    {Primitive::kSumShared, "sum_shared", "WARPSYNC", 10, 25, 0, false, false, false, true},
    {Primitive::kSumButterfly64, "sum_butterfly64", "SHFL.BFLY", 10, 20, 0, false, false, false, true},
    {Primitive::kSumButterflyF32, "sum_butterfly_f32", "SHFL.BFLY", 5, 10, 0, false, false, false, true},
  };
  return kTable;
}

// The order scattered masks take their lanes in: bit-reversed lane numbers xor 0b10101, so no two
// neighbours come first and no mask of 2..31 lanes is one contiguous run.
int scattered_lane(int i) {
  int r = 0;
  for (int b = 0; b < 5; ++b) r |= ((i >> b) & 1) << (4 - b);
  return r ^ 0x15;
}

}  // namespace

const std::vector<PrimitiveInfo>& primitives() { return table(); }

bool is_primitive_id(long long id) { return id >= 0 && id < kPrimitiveCount; }

bool chains_serialise(Primitive p) { return p == Primitive::kSumShared || p == Primitive::kSyncwarp; }

const PrimitiveInfo& info(Primitive p) {
  const int id = static_cast<int>(p);
  if (!is_primitive_id(id)) throw std::out_of_range("primitive id " + std::to_string(id) + " is not in the table");
  return table()[static_cast<std::size_t>(id)];
}

const PrimitiveInfo* find_primitive(const std::string& name) {
  for (const PrimitiveInfo& p : table()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

int popcount(std::uint32_t mask) {
  int n = 0;
  for (; mask != 0; mask &= mask - 1) ++n;
  return n;
}

std::uint32_t lane_mask(int active_lanes, MaskShape shape) {
  if (active_lanes < 1 || active_lanes > kWarpSize) {
    throw std::invalid_argument("active lanes = " + std::to_string(active_lanes) + ". allowed: 1..32");
  }
  if (shape == MaskShape::kScattered) {
    std::uint32_t m = 0;
    for (int i = 0; i < active_lanes; ++i) m |= 1u << scattered_lane(i);
    return m;
  }
  return active_lanes == kWarpSize ? kFullMask : (1u << active_lanes) - 1u;
}

double butterfly_latency(double shuffle_cycles, double add_cycles) { return 5.0 * (shuffle_cycles + add_cycles); }

std::optional<double> guide_shuffle_ops_per_cycle(int cc, int sass_per_op) {
  if (cc != 90 || sass_per_op < 1) return std::nullopt;
  return kGuideShuffleResultsPerClockCc90 / kWarpSize / sass_per_op;
}

double little_knee_warps(double latency_cycles, double ops_per_cycle, int chains_per_warp) {
  return latency_cycles * ops_per_cycle / chains_per_warp;
}

std::optional<double> measured_knee(std::vector<std::pair<double, double>> points, double fraction) {
  if (points.empty()) return std::nullopt;
  std::sort(points.begin(), points.end());
  double best = 0.0;
  for (const auto& p : points) best = std::max(best, p.second);
  for (const auto& p : points) {
    if (p.second >= fraction * best) return p.first;
  }
  return std::nullopt;
}

double second_order_throughput(int warps, int chains, double latency_cycles, double pipe_ops_per_cycle) {
  if (warps < 1 || chains < 1 || !(latency_cycles > 0) || !(pipe_ops_per_cycle > 0) || !std::isfinite(latency_cycles) ||
      !std::isfinite(pipe_ops_per_cycle)) {
    throw std::invalid_argument("second_order_throughput: warps = " + std::to_string(warps) + ", chains = " +
                                std::to_string(chains) + ", latency = " + std::to_string(latency_cycles) +
                                ", pipe rate = " + std::to_string(pipe_ops_per_cycle) +
                                "; allowed: warps and chains >= 1, latency and rate finite and > 0");
  }
  const double demand = chains / pipe_ops_per_cycle;
  const double iteration = model::streaming::mva_iteration_cycles(warps, demand, std::max(latency_cycles - demand, 0.0));
  return chains * static_cast<double>(warps) / iteration;
}


}  // namespace warpcost::warp_primitives
