// The models' answers to an example (each from the pure model functions, with its formula and the
// example's inputs written into it) and the stated answers held against them.
#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "core/coalescing/model.hpp"
#include "check/examples.hpp"
#include "core/streaming/model.hpp"
#include "core/text_format.hpp"
#include "core/warp_primitives/model.hpp"

namespace warpcost::examples {
namespace {

namespace m = warpcost::model;
namespace co = warpcost::coalescing;

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Value count(long long v) { return Value{ValueType::kCount, static_cast<double>(v), {}, {}, {}}; }
Value ratio(double v) { return Value{ValueType::kRatio, v, {}, {}, {}}; }
Value boolean(bool v) { return Value{ValueType::kBool, v ? 1.0 : 0.0, {}, {}, {}}; }
Value mask(std::uint32_t v) { return Value{ValueType::kMask, static_cast<double>(v), {}, {}, {}}; }
Value coord(const m::ThreadCoord& c) { return Value{ValueType::kCoord, 0, {c.x, c.y, c.z}, {}, {}}; }

const Input& in(const Example& ex, const std::string& name) { return ex.inputs.at(name); }
bool has(const Example& ex, const std::string& name) { return ex.inputs.count(name) != 0; }
double number(const Example& ex, const std::string& name) { return in(ex, name).value.number; }

m::BlockShape block_of(const Example& ex) {
  std::vector<long long> c = in(ex, "block").value.coord;
  while (c.size() < 3) c.push_back(1);
  return m::BlockShape{c[0], c[1], c[2]};
}

std::string shape_text(const m::BlockShape& b) {
  return "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
}

void block_answers(const m::BlockShape& b, std::vector<ModelAnswer>& out) {
  const long long p = m::threads_per_block(b);
  const std::string ps = "P = " + std::to_string(p);
  out.push_back({"threads", count(p), "P = Dx·Dy·Dz = " + std::to_string(b.x) + "·" + std::to_string(b.y) + "·" + std::to_string(b.z)});
  out.push_back({"warps", count(m::warps_per_block(p)), "ceil(P/32), " + ps});
  out.push_back({"full_warps", count(m::grid_tail(p, p).last_block_full_warps), "floor(P/32), " + ps});
  out.push_back({"last_warp_id", count(m::last_warp_id(p)), "floor((P−1)/32), " + ps});
  out.push_back({"tail_lanes", count(m::tail_lanes(p)), "P − 32·(ceil(P/32) − 1), " + ps});
  out.push_back({"wasted_lanes", count(m::wasted_lanes(p)), "32·ceil(P/32) − P, " + ps});
  out.push_back({"tail_mask", mask(m::tail_mask(p)), "(1 << tail lanes) − 1, " + ps});
  out.push_back({"lane_efficiency", ratio(m::lane_efficiency(p)), "P / (32·ceil(P/32)), " + ps});
}

void thread_map_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const m::BlockShape b = block_of(ex);
  block_answers(b, out);
  const std::string bs = "block " + shape_text(b);
  long long linear = -1;
  if (has(ex, "thread")) {
    std::vector<long long> c = in(ex, "thread").value.coord;
    while (c.size() < 3) c.push_back(0);
    linear = m::linear_index(b, {c[0], c[1], c[2]});
    out.push_back({"linear", count(linear), "tx + ty·Dx + tz·Dx·Dy, t = (" + std::to_string(c[0]) + "," +
                   std::to_string(c[1]) + "," + std::to_string(c[2]) + "), " + bs});
  } else if (has(ex, "linear")) {
    linear = static_cast<long long>(number(ex, "linear"));
    out.push_back({"thread", coord(m::thread_coord(b, linear)),
                   "tz = i/(Dx·Dy), ty = (i mod Dx·Dy)/Dx, tx = i mod Dx, i = " + std::to_string(linear) + ", " + bs});
  }
  if (linear >= 0) {
    out.push_back({"warp", count(m::warp_of(linear)), "floor(i/32), i = " + std::to_string(linear)});
    out.push_back({"lane", count(m::lane_of(linear)), "i mod 32, i = " + std::to_string(linear)});
    return;
  }
  const long long w = static_cast<long long>(number(ex, "warp"));
  const long long p = m::threads_per_block(b);
  const std::uint32_t wm = m::warp_mask(p, w);
  const long long lanes = static_cast<long long>(std::bitset<32>(wm).count());
  const std::string ws = "warp " + std::to_string(w) + ", " + bs;
  out.push_back({"warp_mask", mask(wm), "full below the last warp, else the tail mask, " + ws});
  out.push_back({"active_lanes", count(lanes), "bits of the warp's mask, " + ws});
  out.push_back({"first_thread", coord(m::thread_coord(b, m::kWarpSize * w)),
                 "thread of linear 32·w = " + std::to_string(m::kWarpSize * w) + ", " + bs});
  out.push_back({"last_thread", coord(m::thread_coord(b, m::kWarpSize * w + lanes - 1)),
                 "thread of linear 32·w + lanes − 1 = " + std::to_string(m::kWarpSize * w + lanes - 1) + ", " + bs});
}

void grid_tail_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const long long n = static_cast<long long>(number(ex, "threads"));
  const long long b = static_cast<long long>(number(ex, "block_threads"));
  const m::GridTail g = m::grid_tail(n, b);
  const std::string nb = "N = " + std::to_string(n) + ", B = " + std::to_string(b);
  out.push_back({"blocks", count(g.blocks), "ceil(N/B), " + nb});
  out.push_back({"last_block_threads", count(g.last_block_threads), "N − B·(ceil(N/B) − 1), " + nb});
  out.push_back({"last_block_full_warps", count(g.last_block_full_warps), "floor(last/32), " + nb});
  out.push_back({"last_block_partial_lanes", count(g.last_block_partial_lanes), "last mod 32, " + nb});
  out.push_back({"launched_warps", count(g.launched_warps), "blocks·ceil(B/32) (the last block's warps past N launch too), " + nb});
  out.push_back({"working_warps", count(g.working_warps), "(blocks − 1)·ceil(B/32) + ceil(last/32), " + nb});
  out.push_back({"wasted_lanes", count(g.wasted_lanes), "32·launched_warps − N, " + nb});
}

void divergence_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const auto& paths = in(ex, "paths").value.paths;
  const double uniform = number(ex, "uniform_cost");
  std::string list;
  std::string sum;
  for (const auto& p : paths) {
    list += (list.empty() ? "" : ", ") + std::to_string(p.lanes) + " lanes × " + num(p.cost);
    if (p.lanes > 0) sum += (sum.empty() ? "" : " + ") + num(p.cost);
  }
  list = "paths " + list;
  if (sum.empty()) sum = "0";
  const double t = m::divergent_time(paths);
  out.push_back({"populated_paths", count(m::populated_paths(paths)), "paths with >= 1 lane, " + list});
  out.push_back({"time", ratio(t), "Σ cost of populated paths = " + sum});
  out.push_back({"slowdown", ratio(m::divergence_slowdown(paths, uniform)), "(" + sum + ") / " + num(uniform)});
  if (t > 0) {
    out.push_back({"lane_efficiency", ratio(m::predicted_lane_efficiency(paths)), "Σ lanes·cost / (32·Σ cost), " + list});
  }
}

void latency_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const double l = number(ex, "latency");
  const double w = number(ex, "instructions");
  const long long n = m::warps_to_hide_latency(l, w);
  out.push_back({"warps_needed", count(n), "ceil(L/W), L = " + num(l) + ", W = " + num(w)});
  if (has(ex, "warp_cap")) {
    const long long cap = static_cast<long long>(number(ex, "warp_cap"));
    out.push_back({"hidden", boolean(n <= cap), "ceil(L/W) = " + std::to_string(n) + " <= cap " + std::to_string(cap) + "?"});
    out.push_back({"deficit", count(std::max(0LL, n - cap)), "max(0, ceil(L/W) − cap), cap " + std::to_string(cap)});
  }
}

void scheduler_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const int s = static_cast<int>(number(ex, "schedulers"));
  const double l = number(ex, "latency");
  const double t = number(ex, "issue_interval");
  const double i = number(ex, "instructions_per_warp");
  const long long cap = static_cast<long long>(number(ex, "warp_cap"));
  const m::SchedulerDemand d = m::scheduler_demand(s, l, t, i, cap);
  const std::string args = "N_sched = " + std::to_string(s) + ", L = " + num(l) + ", T_issue = " + num(t);
  out.push_back({"instruction_slots", ratio(d.instruction_slots), "N_sched·L/T_issue, " + args});
  out.push_back({"warps_needed", ratio(d.warps_needed), "N_sched·L/(T_issue·I_warp), " + args + ", I_warp = " + num(i)});
  out.push_back({"fits", boolean(d.fits), "ceil(warps needed) = " + std::to_string(d.warps_needed_whole) + " <= cap " + std::to_string(cap) + "?"});
  out.push_back({"deficit", count(d.deficit), "max(0, ceil(warps needed) − cap), cap " + std::to_string(cap)});
}

void coalescing_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const int size = static_cast<int>(number(ex, "elem_bytes"));
  if (has(ex, "stride")) {
    const int stride = static_cast<int>(number(ex, "stride"));
    const int offset = has(ex, "offset") ? static_cast<int>(number(ex, "offset")) : 0;
    const co::WarpRequest r = co::strided_request(size, stride, offset);
    const int sectors = co::sectors(r);
    const std::string args = "lane l at element " + std::to_string(offset) + " + l·" + std::to_string(stride) +
                             " of " + std::to_string(size) + " B";
    out.push_back({"sectors_per_request", count(sectors), "distinct 32 B sectors, " + args});
    out.push_back({"lines_per_request", count(co::lines(r)), "distinct 128 B lines, " + args});
    out.push_back({"useful_fraction", ratio(co::useful_per_moved(m::kWarpSize, size, sectors)),
                   "32·" + std::to_string(size) + " / (32·" + std::to_string(sectors) + " sectors)"});
    return;
  }
  co::RequestTotals totals;
  std::string args;
  if (has(ex, "block")) {
    const auto& b = in(ex, "block").value.coord;
    const auto& im = in(ex, "image").value.coord;
    totals = co::block_2d_totals(static_cast<int>(b[0]), static_cast<int>(b[1]), static_cast<int>(im[0]),
                                 static_cast<int>(im[1]), size);
    args = "block (" + std::to_string(b[0]) + "," + std::to_string(b[1]) + ") over a " + std::to_string(im[0]) +
           "×" + std::to_string(im[1]) + " image of " + std::to_string(size) + " B";
  } else {
    const int p = static_cast<int>(number(ex, "block_threads"));
    totals = co::partial_block_totals(p, size);
    args = "one block of " + std::to_string(p) + " threads, " + std::to_string(size) + " B each";
  }
  out.push_back({"sectors_per_request", ratio(totals.sectors_per_request()),
                 "sectors / warp requests = " + std::to_string(totals.sectors) + "/" + std::to_string(totals.requests) + ", " + args});
  out.push_back({"lines_per_request", ratio(totals.lines_per_request()),
                 "lines / warp requests = " + std::to_string(totals.lines) + "/" + std::to_string(totals.requests) + ", " + args});
  out.push_back({"useful_fraction", ratio(totals.useful_per_moved()), "useful bytes / (32·sectors), " + args});
}

void primitive_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const std::string p = in(ex, "primitive").value.text;
  const int active = has(ex, "active_lanes") ? static_cast<int>(number(ex, "active_lanes")) : m::kWarpSize;
  out.push_back({"cost_vs_full_warp", ratio(m::primitive_cost_vs_full_warp(active)),
                 "issued once a warp: cost(" + std::to_string(active) + " lanes)/cost(32 lanes) = 1"});
  if (p != "butterfly_reduction") return;
  const int lanes = has(ex, "lanes") ? static_cast<int>(number(ex, "lanes")) : m::kWarpSize;
  const int steps = m::butterfly_reduction_steps(lanes);
  out.push_back({"reduction_steps", count(steps), "log2(" + std::to_string(lanes) + ")"});
  if (has(ex, "shuffle_cycles") && has(ex, "add_cycles")) {
    const double s = number(ex, "shuffle_cycles");
    const double a = number(ex, "add_cycles");
    out.push_back({"reduction_cycles", ratio(m::butterfly_reduction_cycles(s, a, lanes)),
                   std::to_string(steps) + "·(shuffle + add) = " + std::to_string(steps) + "·(" + num(s) + " + " + num(a) + ")"});
  }
}

// The second-order models (docs/models.md) from parameters stated by hand.

// The loaded-latency locus of `latency`, `loaded_latency` and `peak_gbps`: two points, the unloaded
// latency at a thousandth of the ceiling, the loaded one at it.
model::streaming::Locus stated_locus(const Example& ex) {
  const double peak = number(ex, "peak_gbps") * 1e9;
  return model::streaming::Locus({{peak / 1000.0, number(ex, "latency")}, {peak, number(ex, "loaded_latency")}});
}

// With a warp_cap: the knee of the curve `bandwidth_at` predicts over 1..cap warps/SM.
template <class BandwidthAt>
void knee_answer(const Example& ex, const BandwidthAt& bandwidth_at, std::vector<ModelAnswer>& out) {
  if (!has(ex, "warp_cap")) return;
  std::vector<std::pair<int, double>> curve;
  const int cap = static_cast<int>(number(ex, "warp_cap"));
  for (int n = 1; n <= cap; ++n) curve.emplace_back(n, bandwidth_at(n));
  out.push_back({"knee_warps_per_sm", count(model::streaming::knee_of(curve, 0.9)),
                 "first N of 1.." + std::to_string(cap) + " whose predicted bandwidth reaches 90% of the curve's largest"});
}

void stream_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  namespace st = model::streaming;
  const st::Locus locus = stated_locus(ex);
  auto point = [&](int warps) {
    st::StreamPoint p;
    p.sms = static_cast<int>(number(ex, "sms"));
    p.schedulers_per_sm = has(ex, "schedulers") ? static_cast<int>(number(ex, "schedulers")) : 4;
    p.warps_per_sm = warps;
    p.bytes_per_warp_iteration = m::kWarpSize * number(ex, "load_bytes") *
                                 (has(ex, "loads_in_flight") ? number(ex, "loads_in_flight") : 1.0);
    p.instructions_per_iteration = number(ex, "instructions");
    p.unloaded_iteration_cycles = number(ex, "unloaded_cycles");
    p.clock_hz = number(ex, "clock_mhz") * 1e6;
    return p;
  };
  const int warps = static_cast<int>(number(ex, "warps_per_sm"));
  const double rate = number(ex, "issue_rate");
  const st::StreamPrediction r = st::predict_stream(point(warps), locus, rate);
  const std::string args = std::to_string(warps) + " warps/SM, I = " + num(number(ex, "instructions")) +
                           ", T0 = " + num(number(ex, "unloaded_cycles")) + ", r_sat = " + num(rate);
  out.push_back({"bandwidth_gbps", ratio(r.bandwidth / 1e9),
                 "BW = min(S·N·32·B·U·f / T_iter(BW), ceiling), the fixed point; " + args});
  out.push_back({"warps_per_scheduler", count(r.warps_per_scheduler), "ceil(N / schedulers)"});
  out.push_back({"iteration_cycles", ratio(r.iteration_cycles), "MVA of the busiest scheduler at the fixed point"});
  out.push_back({"loaded_latency_cycles", ratio(r.loaded_cycles), "Λ(BW) at the fixed point"});
  knee_answer(ex, [&](int n) { return st::predict_stream(point(n), locus, rate).bandwidth; }, out);
}

// ISSUE-33-GREEDY-ISSUE from stated parameters: the suite's loop W, M0 = Λ(0) less the W = 0
// loop's stall counts, the locus a line between Λ(0) and Λ(peak).
void stream_greedy_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  namespace st = model::streaming;
  const int w = static_cast<int>(number(ex, "alu_per_load"));
  const auto program = st::parse_loop_program(*st::suite_read_independent_program(w));
  st::GreedyStreamInputs in;
  in.sms = static_cast<int>(number(ex, "sms"));
  in.schedulers_per_sm = has(ex, "schedulers") ? static_cast<int>(number(ex, "schedulers")) : 4;
  in.bytes_per_warp_iteration = m::kWarpSize * 16.0;
  in.clock_hz = number(ex, "clock_mhz") * 1e6;
  in.memory_latency = st::greedy_memory_latency(number(ex, "latency"));
  in.sigma = has(ex, "sigma") ? number(ex, "sigma") : 0.0;
  in.constant_latency = has(ex, "constant_cycles") && st::waits_for_constant(program) ? number(ex, "constant_cycles") : 0.0;
  st::GreedyStream stream(program, in, stated_locus(ex));
  const int warps = static_cast<int>(number(ex, "warps_per_sm"));
  const st::StreamPrediction r = stream.predict(warps);
  out.push_back({"bandwidth_gbps", ratio(r.bandwidth / 1e9),
                 "BW = min(S·N·512·f / T(N, BW), ceiling), T the busiest scheduler's simulated period over the W = " +
                     std::to_string(w) + " loop (" + num(st::loop_cycles(program)) + " cycles of stall counts), M0 = " +
                     num(in.memory_latency) + ", sigma = " + num(in.sigma) + ", C = " + num(in.constant_latency)});
  out.push_back({"warps_per_scheduler", count(r.warps_per_scheduler), "ceil(N / schedulers)"});
  out.push_back({"iteration_cycles", ratio(r.iteration_cycles), "greedy-then-oldest issue of the busiest scheduler at the fixed point"});
  out.push_back({"loaded_latency_cycles", ratio(r.loaded_cycles), "Λ(BW) at the fixed point"});
  knee_answer(ex, [&](int n) { return stream.predict(n).bandwidth; }, out);
}

void block_stream_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  namespace st = model::streaming;
  const int threads = static_cast<int>(number(ex, "block_threads"));
  const double load_bytes = has(ex, "load_bytes") ? number(ex, "load_bytes") : 16.0;
  st::BlockStreamPoint p;
  p.sms = static_cast<int>(number(ex, "sms"));
  p.resident_blocks = static_cast<int>(number(ex, "resident_blocks"));
  p.bytes_per_block = threads * load_bytes;
  p.turnover_cycles = number(ex, "turnover_cycles");
  p.clock_hz = number(ex, "clock_mhz") * 1e6;
  const st::BlockStreamPrediction r = st::predict_block_stream(p, stated_locus(ex));
  const std::string args = "k = " + std::to_string(p.resident_blocks) + ", D = " + num(p.turnover_cycles) +
                           ", " + std::to_string(threads) + "·" + num(load_bytes) + " B a block";
  out.push_back({"bandwidth_gbps", ratio(r.bandwidth / 1e9),
                 "BW = min(S·f·bytes / c(BW), ceiling), the fixed point; " + args});
  out.push_back({"block_cycles", ratio(r.block_cycles), "c(BW) = T(k, D, Λ(BW)) / k, MVA of k block slots at the fixed point"});
  out.push_back({"loaded_latency_cycles", ratio(r.loaded_cycles), "Λ(BW) at the fixed point"});
  out.push_back({"at_ceiling", boolean(r.at_ceiling), "S·f·bytes / c(ceiling) >= ceiling?"});
}

void tail_time_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const double f = number(ex, "clock_mhz") * 1e6;
  const double fma = number(ex, "fma_per_thread");
  const double floor = has(ex, "floor_us") ? number(ex, "floor_us") * 1e-6 : 0.0;
  const m::LinearCost tail{number(ex, "fixed_us_tail") * 1e-6, number(ex, "cycles_per_fma_tail") / f};
  const m::LinearCost full{number(ex, "fixed_us_full") * 1e-6, number(ex, "cycles_per_fma_full") / f};
  // The floor comes off both times: it must be under each, or the ratio is of negative times.
  if (!(floor < full.at(fma)) || !(floor <= tail.at(fma))) {
    throw std::invalid_argument("floor_us = " + num(floor * 1e6) + " is not under both times (tail " +
                                num(tail.at(fma) * 1e6) + " us, full " + num(full.at(fma) * 1e6) +
                                " us); allowed: a floor below the full block's time and at most the tail's");
  }
  out.push_back({"relative_time", ratio(m::grid_tail_relative_time(tail, full, fma, floor)),
                 "(F_tail + FMA·c_tail/f − floor) / (F_full + FMA·c_full/f − floor) = (" + num(tail.at(fma) * 1e6) +
                     " − " + num(floor * 1e6) + ") / (" + num(full.at(fma) * 1e6) + " − " + num(floor * 1e6) + ") us"});
}

void divergence_grid_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const m::LinearCost cost{number(ex, "fixed_us") * 1e-6, number(ex, "us_per_trip") * 1e-6};
  const double s = number(ex, "trips");
  const double r = number(ex, "reference_trips");
  out.push_back({"slowdown", ratio(m::serialised_slowdown(cost, s, r)),
                 "(F + t·S_cfg) / (F + t·S_ref) = (" + num(cost.at(s) * 1e6) + ") / (" + num(cost.at(r) * 1e6) + ") us"});
}

void coalescing_bandwidth_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const int size = static_cast<int>(number(ex, "elem_bytes"));
  const int stride = static_cast<int>(number(ex, "stride"));
  const int offset = has(ex, "offset") ? static_cast<int>(number(ex, "offset")) : 0;
  const std::string level = has(ex, "level") ? in(ex, "level").value.text : std::string("dram");
  const co::WarpRequest r = co::strided_request(size, stride, offset);
  const std::uint64_t pitch = co::tile_pitch_bytes(r);
  double moved = 0;
  std::string how;
  if (level == "store") {
    moved = co::moved_bytes_per_tile(r, pitch, co::kSectorBytes) + co::partial_sectors(r) * static_cast<double>(co::kSectorBytes);
    how = "sectors written + " + std::to_string(co::partial_sectors(r)) + " partly written sector(s) read back";
  } else if (level == "l2") {
    moved = co::moved_bytes_per_tile(r, pitch, co::kSectorBytes);
    how = "sectors";
  } else {
    const int granule = has(ex, "granule_bytes") ? static_cast<int>(number(ex, "granule_bytes")) : co::kPromotedGranuleBytes;
    moved = co::moved_bytes_per_tile(r, pitch, granule);
    how = std::to_string(granule) + "-byte granules of tiles every " + std::to_string(pitch) + " B";
  }
  const double useful = static_cast<double>(m::kWarpSize) * size;
  const double rate = number(ex, "moved_rate_gbps") * 1e9;
  const double bound = has(ex, "in_flight_gbps") ? number(ex, "in_flight_gbps") * 1e9 : 0.0;
  double bandwidth = co::second_order_useful_bandwidth(rate, bound, useful, moved);
  std::string priced = std::string(bound > 0 ? "min(R(D), in flight)" : "R(D)") + " × useful / moved, D = " +
                       std::to_string(size * stride) + " B";
  // The request-rate ceiling (ISSUE-33-COALESCING-REQUESTS): R_req requests a second, `useful` bytes each.
  if (has(ex, "request_rate_gps") && number(ex, "request_rate_gps") * 1e9 * useful < bandwidth) {
    bandwidth = number(ex, "request_rate_gps") * 1e9 * useful;
    priced = "the request-rate ceiling: " + num(number(ex, "request_rate_gps")) + " G requests/s × " + num(useful) + " useful B";
  }
  out.push_back({"moved_bytes_per_request", ratio(moved), how});
  out.push_back({"useful_per_moved", ratio(useful / moved), "32·" + std::to_string(size) + " / " + num(moved)});
  out.push_back({"useful_bandwidth_gbps", ratio(bandwidth / 1e9), priced});
}

void primitive_throughput_answers(const Example& ex, std::vector<ModelAnswer>& out) {
  const int chains = has(ex, "chains") ? static_cast<int>(number(ex, "chains")) : 4;
  const double l = number(ex, "latency_cycles");
  const double p = number(ex, "pipe_ops_per_cycle");
  const int w = static_cast<int>(number(ex, "warps_per_sm"));
  out.push_back({"ops_per_cycle_per_sm", ratio(warp_primitives::second_order_throughput(w, chains, l, p)),
                 "c·W / T(W), MVA with demand c/P = " + num(chains / p) + " and delay max(L − c/P, 0)"});
  if (has(ex, "warp_cap")) {
    const int cap = static_cast<int>(number(ex, "warp_cap"));
    std::vector<std::pair<int, double>> curve;
    // The suite's sweep: powers of two up to the cap, and the cap (the evaluation's knee rule).
    for (int n = 1; n < cap; n *= 2) curve.emplace_back(n, warp_primitives::second_order_throughput(n, chains, l, p));
    curve.emplace_back(cap, warp_primitives::second_order_throughput(cap, chains, l, p));
    out.push_back({"knee_warps_per_sm", count(model::streaming::knee_of(curve, 0.9)),
                   "first W of 1, 2, 4, …, " + std::to_string(cap) + " (the suite's sweep) reaching 90% of the curve's largest"});
  }
}

std::string at(const Example& ex, int line) {
  // predict's example is its command line: no example name the user never gave.
  if (ex.source == "warpcost predict") return ex.source;
  return ex.source + (line > 0 ? ":" + std::to_string(line) : "") + ": example '" + ex.id + "'";
}

// The example's inputs as key = value, for a refusal of what they combine to (the model's
// message names its symbol, L/W; the user wrote latency= and instructions=). Values as render()
// writes them; a divergence's paths as lanes:cost.
std::string inputs_text(const Example& ex) {
  std::string out;
  for (const auto& [key, in] : ex.inputs) {
    std::string text;
    for (const auto& p : in.value.paths) text += (text.empty() ? "" : ",") + std::to_string(p.lanes) + ":" + num(p.cost);
    out += (out.empty() ? "" : ", ") + key + " = " + (in.value.paths.empty() ? render(in.value) : text);
  }
  return out;
}

}  // namespace

std::vector<ModelAnswer> model_answers(const Example& ex) {
  std::vector<ModelAnswer> out;
  try {
    if (ex.kind == "block_shape") block_answers(block_of(ex), out);
    else if (ex.kind == "thread_map") thread_map_answers(ex, out);
    else if (ex.kind == "grid_tail") grid_tail_answers(ex, out);
    else if (ex.kind == "divergence") divergence_answers(ex, out);
    else if (ex.kind == "latency_hiding") latency_answers(ex, out);
    else if (ex.kind == "scheduler_demand") scheduler_answers(ex, out);
    else if (ex.kind == "coalescing") coalescing_answers(ex, out);
    else if (ex.kind == "warp_primitive") primitive_answers(ex, out);
    else if (ex.kind == "stream_bandwidth") stream_answers(ex, out);
    else if (ex.kind == "stream_greedy_bandwidth") stream_greedy_answers(ex, out);
    else if (ex.kind == "block_stream_bandwidth") block_stream_answers(ex, out);
    else if (ex.kind == "grid_tail_time") tail_time_answers(ex, out);
    else if (ex.kind == "divergence_grid") divergence_grid_answers(ex, out);
    else if (ex.kind == "coalescing_bandwidth") coalescing_bandwidth_answers(ex, out);
    else if (ex.kind == "primitive_throughput") primitive_throughput_answers(ex, out);
    else throw BadInput(at(ex, ex.line) + ", field 'kind': unknown kind '" + ex.kind + "'");
  } catch (const std::invalid_argument& e) {
    // The models' own checks: a value the file's checks let through still gets a named message.
    throw BadInput(at(ex, ex.line) + ": the model rejects its inputs (" + inputs_text(ex) + "): " + e.what());
  }
  // Inputs each in range can still combine past what an answer states (1e15 cycles over 1e-300):
  // such an answer is refused, never printed as inf, nan or a wrapped count.
  for (const auto& a : out) {
    const bool numeric = a.value.type == ValueType::kCount || a.value.type == ValueType::kRatio ||
                         a.value.type == ValueType::kMask;
    if (numeric && !(std::fabs(a.value.number) <= analysis::kLargestExactWhole)) {
      throw BadInput(at(ex, ex.line) + ": the inputs (" + inputs_text(ex) + ") give " + a.field + " = " + num(a.value.number) +
                     ", which no answer can state; allowed: inputs whose answers are finite and at most 2^53 "
                     "(each input in its range, and their ratios too)");
    }
  }
  return out;
}

bool agrees(const Value& stated, const Value& model) {
  switch (model.type) {
    case ValueType::kCoord:
      return stated.type == ValueType::kCoord && stated.coord == model.coord;
    case ValueType::kBool:
      return stated.type == ValueType::kBool && stated.number == model.number;
    case ValueType::kText:
      return stated.text == model.text;
    case ValueType::kCount:
    case ValueType::kMask:
      return (stated.type == ValueType::kRatio || stated.type == ValueType::kMask) && stated.number == model.number;
    case ValueType::kRatio:
      return (stated.type == ValueType::kRatio || stated.type == ValueType::kMask) &&
             std::fabs(stated.number - model.number) <=
                 std::max(kRatioAbsTolerance, kRatioRelTolerance * std::fabs(model.number));
  }
  return false;
}

std::string render(const Value& v) {
  switch (v.type) {
    case ValueType::kCount: return std::to_string(static_cast<long long>(v.number));
    case ValueType::kRatio: return num(v.number);
    case ValueType::kBool: return v.number != 0 ? "true" : "false";
    case ValueType::kMask: {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v.number));
      return buf;
    }
    case ValueType::kCoord: {
      std::string s = "(";
      for (std::size_t i = 0; i < v.coord.size(); ++i) s += (i ? "," : "") + std::to_string(v.coord[i]);
      return s + ")";
    }
    case ValueType::kText: return v.text;
  }
  return "";
}

std::vector<CheckedAnswer> check_examples(const std::vector<Example>& examples) {
  std::vector<CheckedAnswer> out;
  for (const auto& ex : examples) {
    const auto answers = model_answers(ex);
    for (const auto& s : ex.answers) {
      auto it = std::find_if(answers.begin(), answers.end(), [&](const ModelAnswer& a) { return a.field == s.field; });
      if (it == answers.end()) {
        std::string available;
        for (const auto& a : answers) available += (available.empty() ? "" : ", ") + a.field;
        throw BadInput(at(ex, s.line) + ", field 'answer." + s.field +
                       "': the model gives no such answer for these inputs; allowed here: " + available);
      }
      Value stated = s.value;
      if (stated.type == ValueType::kMask && it->value.type != ValueType::kMask && it->value.type != ValueType::kCount) {
        throw BadInput(at(ex, s.line) + ", field 'answer." + s.field + "': a mask string; allowed: a number");
      }
      // An answer of another type than the model's is a malformed file, not a disagreement.
      const bool numeric_stated = stated.type == ValueType::kRatio || stated.type == ValueType::kMask;
      const ValueType want = it->value.type;
      const bool type_ok = want == ValueType::kBool    ? stated.type == ValueType::kBool
                           : want == ValueType::kCoord ? stated.type == ValueType::kCoord
                           : want == ValueType::kText  ? true
                                                       : numeric_stated;
      // A mask stated as a number is a mask too: whole, 0..0xffffffff (a warp's 32 lanes).
      if (want == ValueType::kMask && stated.type == ValueType::kRatio &&
          (stated.number != std::floor(stated.number) || stated.number < 0 || stated.number > 4294967295.0)) {
        throw BadInput(at(ex, s.line) + ", field 'answer." + s.field + "': " + analysis::exact_number(stated.number) +
                       " is not a mask of a warp's 32 lanes; allowed: a whole number 0..0xffffffff, or \"0x0000000f\"");
      }
      if (!type_ok) {
        const char* allowed = want == ValueType::kBool ? "true or false" : want == ValueType::kCoord ? "a list [x, y, z]" : "a number";
        throw BadInput(at(ex, s.line) + ", field 'answer." + s.field + "': " + render(stated) +
                       " is not of the answer's type; allowed: " + allowed);
      }
      out.push_back(CheckedAnswer{ex.id, s.field, stated, *it, agrees(stated, it->value)});
    }
  }
  return out;
}

std::string check_markdown(const std::vector<CheckedAnswer>& checked) {
  std::ostringstream md;
  md << "| example | answer | stated | model | formula | verdict |\n|---|---|---|---|---|---|\n";
  int agree = 0;
  std::string disagree;
  for (const auto& c : checked) {
    // A stated count shows as the model shows it (0x0000000f for a mask given as 15).
    Value shown = c.stated;
    if (shown.type == ValueType::kRatio && (c.model.value.type == ValueType::kMask || c.model.value.type == ValueType::kCount) &&
        shown.number == std::floor(shown.number)) {
      shown.type = c.model.value.type;
    }
    // A stated count that is not whole shows every digit it was given (4.0000001, not 4).
    const bool count_answer = c.model.value.type == ValueType::kMask || c.model.value.type == ValueType::kCount;
    const std::string stated_text =
        shown.type == ValueType::kRatio && count_answer ? analysis::exact_number(shown.number) : render(shown);
    md << "| " << c.example << " | " << c.field << " | " << stated_text << " | " << render(c.model.value) << " | "
       << c.model.formula << " | " << (c.agrees ? "agrees" : "**disagrees**") << " |\n";
    if (c.agrees) {
      ++agree;
    } else {
      disagree += (disagree.empty() ? "" : ", ") + c.example + " " + c.field;
    }
  }
  md << "\n" << agree << " of " << checked.size() << " stated answers agree with the model";
  if (!disagree.empty()) md << "; disagrees: " << disagree;
  md << ". Counts, masks and coordinates must be equal; ratios within max(" << kRatioAbsTolerance << ", "
     << kRatioRelTolerance << "·|model|).\n";
  return md.str();
}

}  // namespace warpcost::examples
