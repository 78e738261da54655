// The plan, the parsers and the verdicts of `warpcost check FILE --measure` (measure.hpp).
#include "check/measure.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "analysis/coalescing/evaluation.hpp"
#include "core/coalescing/model.hpp"
#include "core/coalescing/schema.hpp"
#include "core/metrics.hpp"
#include "core/point_reports.hpp"
#include "core/result_schema.hpp"
#include "core/partial_warp/schema.hpp"
#include "core/streaming/schema.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/evaluation_support.hpp"
#include "analysis/tidy_csv.hpp"
#include "analysis/warp_primitives/evaluation.hpp"

namespace warpcost::examples {
namespace {

// Trips of the if side (and of every switch case): the family's own default (DivergenceConfig).
constexpr int kReferenceTrips = 384;
// The element sizes whose stride-1 rate is a fully coalesced rate: the coalescing family's reference.
constexpr int kReferenceSizes[] = {4, 8, 16};

const char* const kRecord = "warpcost-record";
const char* const kDiverge = "warpcost-diverge";
const char* const kCoalesce = "warpcost-coalesce";
const char* const kStream = "warpcost-stream";
const char* const kPrimitives = "warpcost-primitives";
// warpcost-stream's largest run-time W: a W without an unrolled kernel runs the run-time one, a loop
// of FFMAs; and warpcost-record --grid's largest N (both core's, which the runners read too).
constexpr int kMostRunTimeAlu = schema::streaming::kMostRunTimeAlu;
constexpr long long kMostGridThreads = schema::partial_warp::kMostGridThreads;

// The examples file's primitive names (examples_file.cpp) against warpcost-primitives' own (its
// `list`); the 32-bit variant of each shuffle, the kind a course example writes.
const char* tool_primitive(const std::string& name) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"shfl_sync", "shfl_idx32"},       {"shfl_up_sync", "shfl_up32"},     {"shfl_down_sync", "shfl_down32"},
      {"shfl_xor_sync", "shfl_xor32"},   {"ballot_sync", "ballot"},         {"any_sync", "any"},
      {"all_sync", "all"},               {"match_any_sync", "match_any"},   {"match_all_sync", "match_all"},
      {"reduce_add_sync", "reduce_add"}, {"reduce_min_sync", "reduce_min"}, {"reduce_max_sync", "reduce_max"},
      {"syncwarp", "syncwarp"},          {"butterfly_reduction", "sum_butterfly"}};
  for (const auto& n : kNames) {
    if (name == n.first) return n.second;
  }
  return nullptr;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
std::string whole(double v) { return std::to_string(static_cast<long long>(v)); }

const Input* get(const Example& ex, const std::string& name) {
  auto it = ex.inputs.find(name);
  return it == ex.inputs.end() ? nullptr : &it->second;
}

std::vector<long long> block3(const Example& ex) {
  std::vector<long long> b = get(ex, "block")->value.coord;
  while (b.size() < 3) b.push_back(1);
  return b;
}

MeasurePlan why(const std::string& reason) { return MeasurePlan{{}, reason}; }

// ---- a report must be of the call that was planned ----------------------------------------------

// The planned call's arguments without --json: what the runner's report must say it ran.
std::vector<std::string> asked_args(const Invocation& call) {
  std::vector<std::string> a = call.args;
  a.erase(std::remove(a.begin(), a.end(), "--json"), a.end());
  return a;
}
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}
std::string call_line(const Invocation& call) { return call.runner + " " + joined(call.args); }
// The value after `flag` in the planned call, or `otherwise`.
std::string planned_value(const Invocation& call, const std::string& flag, const std::string& otherwise) {
  for (std::size_t i = 0; i + 1 < call.args.size(); ++i) {
    if (call.args[i] == flag) return call.args[i + 1];
  }
  return otherwise;
}
[[noreturn]] void another_report(const Example& ex, const Invocation& call, const std::string& what) {
  throw std::runtime_error(ex.id + ": " + call.runner + " reported " + what + ", not the planned `" +
                           call_line({call.runner, asked_args(call)}) + "`");
}

void require_planned(const Example& ex, const Invocation& call, const reports::DivergeReport& d) {
  if (d.args != asked_args(call)) another_report(ex, call, "`" + joined(d.args) + "`");
}

void require_planned(const Example& ex, const Invocation& call, const reports::CoalesceReport& c) {
  const std::string mode = call.args.at(0);
  auto n = [&](const std::string& flag, const std::string& otherwise) { return std::stoll(planned_value(call, flag, otherwise)); };
  std::string bench;
  std::vector<long long> values;
  bool same_image = true;
  if (mode == "stride") {
    bench = coalescing::bench::kLoadDram;
    values = {n("--bytes", "4"), n("--stride", "1"), n("--offset", "0")};
  } else if (mode == "block") {
    bench = coalescing::bench::kBlock2d;
    values = {n("--x", "0"), n("--y", "0")};
    same_image = c.elem_bytes == n("--bytes", "4") && c.image_width == n("--width", "1920") &&
                 c.image_height == n("--height", "1080");
  } else {
    bench = coalescing::bench::kPartialBlock;
    values = {n("--block-threads", "0")};
  }
  if (c.benchmark != bench || c.arg_values != values || !same_image) {
    std::string got = c.benchmark;
    for (std::size_t i = 0; i < c.arg_values.size(); ++i) {
      got += " " + (i < c.arg_names.size() ? c.arg_names[i] : std::string("?")) + "=" + std::to_string(c.arg_values[i]);
    }
    if (c.benchmark == coalescing::bench::kBlock2d) {
      got += " over " + std::to_string(c.image_width) + "x" + std::to_string(c.image_height) + " of " +
             std::to_string(c.elem_bytes) + " B";
    }
    another_report(ex, call, got);
  }
}

void require_planned(const Example& ex, const Invocation& call, const reports::PrimitiveReport& p) {
  if (p.primitive != planned_value(call, "--primitive", "") || std::to_string(p.lanes) != planned_value(call, "--lanes", "32")) {
    another_report(ex, call, p.primitive + " at " + std::to_string(p.lanes) + " lanes");
  }
}

void require_planned(const Example& ex, const Invocation& call, const reports::StreamReadReport& s) {
  const std::string warps = planned_value(call, "--warps-per-sm", "");
  // No --warps-per-sm: the runner holds the device's own cap.
  const bool warps_as_planned = warps.empty() ? s.warps_per_sm == s.max_warps_per_sm : std::to_string(s.warps_per_sm) == warps;
  if (std::to_string(s.alu_per_load) != planned_value(call, "--alu", "0") || !warps_as_planned) {
    another_report(ex, call, "W = " + std::to_string(s.alu_per_load) + " at " + std::to_string(s.warps_per_sm) + " warps/SM");
  }
  const bool counters_asked = std::find(call.args.begin(), call.args.end(), "--counters") != call.args.end();
  if (counters_asked != (s.counters != "not asked")) {
    another_report(ex, call, std::string("a report whose counters were ") + (counters_asked ? "not asked" : "asked"));
  }
}

MeasurePlan plan_divergence(const Example& ex) {
  const auto& paths = get(ex, "paths")->value.paths;
  const double uniform = get(ex, "uniform_cost")->value.number;
  const std::string shape = get(ex, "shape") ? get(ex, "shape")->value.text : (paths.size() == 2 ? "if_else" : "switch");
  if (shape == "if_else") {
    const int lanes = paths[0].lanes + paths[1].lanes;
    if (lanes != model::kWarpSize) {
      return why("the divergence runner's warps are full: its split puts 32 lanes on the two sides (this example: " +
                 std::to_string(lanes) + ")");
    }
    if (!(paths[0].cost > 0) || paths[0].cost != uniform) {
      return why("the runner's uniform reference runs the if side's body on every lane: uniform_cost must equal the "
                 "first path's cost (" + num(paths[0].cost) + "), not " + num(uniform));
    }
    const double else_trips = kReferenceTrips * paths[1].cost / paths[0].cost;
    if (else_trips != std::floor(else_trips) || else_trips > 1e6) {
      return why("the else body is " + num(paths[1].cost / paths[0].cost) + " if bodies; the runner counts bodies in "
                 "whole trips of " + std::to_string(kReferenceTrips) + " a side (else = " + num(else_trips) + " trips)");
    }
    const Invocation split{kDiverge, {"--split", std::to_string(paths[0].lanes), "--if", std::to_string(kReferenceTrips),
                                      "--else", whole(else_trips)}};
    if (paths[1].lanes == 0) {
      // No lane takes the else: the runner's uniform reference is this very kernel, so the warp is
      // held against the same kernel with an empty else (the empty branch is free: 1x).
      return MeasurePlan{{split, {kDiverge, {"--split", "32", "--if", std::to_string(kReferenceTrips), "--else", "0"}}}, ""};
    }
    if (paths[0].lanes == 0) {
      return why("every lane takes the else: write the populated side first (its cost is the uniform reference)");
    }
    return MeasurePlan{{split}, ""};
  }
  double cost = -1;
  int populated = 0;
  bool unequal = false;
  for (const auto& p : paths) {
    if (p.lanes == 0) continue;
    ++populated;
    if (cost >= 0 && p.cost != cost) unequal = true;
    cost = p.cost;
  }
  if (unequal) {
    if (shape != "switch") {
      return why("the runner's nested if runs equal bodies on every leaf; this example's differ (" + num(paths[0].cost) +
                 " and others)");
    }
    // A switch whose cases differ: warpcost-diverge --cases, case i on the next lanes_i lanes, its
    // trips the cost over the first case's in whole trips of kReferenceTrips.
    int lanes = 0;
    for (const auto& p : paths) lanes += p.lanes;
    if (lanes != model::kWarpSize) {
      return why("the switch runner's warps are full: its cases put 32 lanes on the paths (this example: " +
                 std::to_string(lanes) + ")");
    }
    if (paths.size() > static_cast<std::size_t>(model::kWarpSize)) return why("more than 32 cases");
    if (!(paths[0].cost > 0) || paths[0].lanes == 0 || paths[0].cost != uniform) {
      return why("the runner's uniform reference runs the first case on every lane: the first path must be populated "
                 "and uniform_cost must equal its cost (" + num(paths[0].cost) + "), not " + num(uniform));
    }
    std::string cases;
    for (const auto& p : paths) {
      const double trips = kReferenceTrips * p.cost / paths[0].cost;
      if (trips != std::floor(trips) || trips < 0 || trips > 1e6) {
        return why("a case of cost " + num(p.cost) + " is " + num(p.cost / paths[0].cost) + " first cases; the runner "
                   "counts bodies in whole trips of " + std::to_string(kReferenceTrips) + " (" + num(trips) + " trips)");
      }
      cases += (cases.empty() ? "" : ",") + std::to_string(p.lanes) + ":" + whole(trips);
    }
    return MeasurePlan{{{kDiverge, {"--cases", cases}}}, ""};
  }
  if (populated == 0 || !(cost > 0)) return why("no populated path with a cost > 0 to run");
  if (cost != uniform) {
    return why("the runner's uniform reference is one path's body: uniform_cost must equal the path cost (" + num(cost) + ")");
  }
  if (shape == "nested") {
    return MeasurePlan{{{kDiverge, {"--leaves", std::to_string(paths.size()), "--trips", std::to_string(kReferenceTrips)}}}, ""};
  }
  return MeasurePlan{{{kDiverge, {"--paths", std::to_string(populated), "--trips", std::to_string(kReferenceTrips)}}}, ""};
}

MeasurePlan plan_latency(const Example& ex) {
  const bool scheduler = ex.kind == "scheduler_demand";
  const auto answers = model_answers(ex);
  long long needed = 0;
  for (const auto& a : answers) {
    if (a.field == "warps_needed") needed = static_cast<long long>(std::ceil(a.value.number - 1e-9));
  }
  const double w = get(ex, scheduler ? "instructions_per_warp" : "instructions")->value.number;
  const Input* cap_in = get(ex, "warp_cap");
  // No warp_cap: the GPU's own (warpcost-stream's default residency is the device's warp cap; a
  // GPU with fewer warps a SM than the model needs refuses the first call).
  const long long cap = cap_in == nullptr ? 0 : static_cast<long long>(cap_in->value.number);
  if (cap_in != nullptr && needed > cap) {
    return why("the model needs " + std::to_string(needed) + " warps a SM, over the cap of " + std::to_string(cap) +
               ": no GPU holding " + std::to_string(cap) + " warps a SM can run that many");
  }
  if (needed < 1) return why("the model needs no warp (L = 0): nothing to run");
  if (w != std::floor(w)) return why("W = " + num(w) + " is not a whole number of ALU operations a load");
  if (w > kMostRunTimeAlu) {
    return why("W = " + whole(w) + ": warpcost-stream's run-time kernel takes W up to " + std::to_string(kMostRunTimeAlu));
  }
  // At the model's warps and at the cap, each with one profiled launch (warp instructions an
  // iteration, FFMAs a load), and at 1 warp/SM: the second-order model's T0.
  Invocation at_cap{kStream, {"read", "--alu", whole(w)}};
  if (cap_in != nullptr) at_cap.args.insert(at_cap.args.end(), {"--warps-per-sm", std::to_string(cap)});
  at_cap.args.push_back("--counters");
  return MeasurePlan{{{kStream, {"read", "--alu", whole(w), "--warps-per-sm", std::to_string(needed), "--counters"}},
                      at_cap,
                      {kStream, {"read", "--alu", whole(w), "--warps-per-sm", "1"}}},
                     ""};
}

MeasurePlan plan_coalescing(const Example& ex) {
  MeasurePlan plan;
  const std::string bytes = whole(get(ex, "elem_bytes")->value.number);
  if (get(ex, "stride") != nullptr) {
    plan.calls.push_back({kCoalesce, {"stride", "--bytes", bytes, "--stride", whole(get(ex, "stride")->value.number),
                                      "--offset", get(ex, "offset") ? whole(get(ex, "offset")->value.number) : "0"}});
  } else if (get(ex, "block") != nullptr) {
    // The author's block over the author's image of the author's element size.
    const auto b = block3(ex);
    if (b[2] != 1) return why("warpcost-coalesce block runs (x,y) blocks; this example's block has z = " + whole(static_cast<double>(b[2])));
    const auto& im = get(ex, "image")->value.coord;
    // What the runner would refuse (an image whose frames the 2 GiB buffer cannot hold), said here.
    if (const std::string p = coalescing::image_problem(im[0], im[1], static_cast<long long>(get(ex, "elem_bytes")->value.number));
        !p.empty()) {
      return why("warpcost-coalesce block refuses this image: " + p);
    }
    plan.calls.push_back({kCoalesce, {"block", "--x", std::to_string(b[0]), "--y", std::to_string(b[1]), "--bytes", bytes,
                                      "--width", std::to_string(im[0]), "--height", std::to_string(im[1])}});
  } else {
    if (bytes != "4") {
      return why("warpcost-coalesce partial reads 4-byte elements (the suite's partial_block points); this example's are " +
                 bytes + " B");
    }
    plan.calls.push_back({kCoalesce, {"partial", "--block-threads", whole(get(ex, "block_threads")->value.number)}});
  }
  for (int size : kReferenceSizes) {
    plan.calls.push_back({kCoalesce, {"stride", "--bytes", std::to_string(size), "--stride", "1", "--offset", "0"}});
  }
  return plan;
}

MeasurePlan plan_primitive(const Example& ex) {
  const std::string name = get(ex, "primitive")->value.text;
  if (name == "activemask") {
    return why("warpcost-primitives does not time activemask: ptxas hoists __activemask() out of a dependent chain, so "
               "a chain would time the code around it (`warpcost-primitives facts` shows what it returns)");
  }
  const char* tool = tool_primitive(name);
  if (tool == nullptr) return why("no warpcost-primitives primitive for '" + name + "'");
  const long long active = get(ex, "active_lanes") ? static_cast<long long>(get(ex, "active_lanes")->value.number) : model::kWarpSize;
  auto latency = [](const std::string& p, long long lanes) {
    return Invocation{kPrimitives, {"latency", "--primitive", p, "--lanes", std::to_string(lanes)}};
  };
  if (name == "butterfly_reduction") {
    const long long lanes = get(ex, "lanes") ? static_cast<long long>(get(ex, "lanes")->value.number) : model::kWarpSize;
    if (lanes != model::kWarpSize || active != model::kWarpSize) {
      return why("warpcost-primitives' sum_butterfly reduces a whole warp (32 lanes, all active); this example reduces " +
                 std::to_string(lanes) + " lanes with " + std::to_string(active) + " active");
    }
    // The butterfly's latency against 5 x (shuffle + add), each from its own dependent chain.
    return MeasurePlan{{latency("sum_butterfly", 32), latency("shfl_xor32", 32), latency("alu_add", 32)}, ""};
  }
  // The primitive at the example's active lanes (contiguous mask) and at the full warp.
  return MeasurePlan{{latency(tool, active), latency(tool, model::kWarpSize)}, ""};
}

std::string stated_of(const Example& ex, const std::string& field) {
  for (const auto& s : ex.answers) {
    if (s.field == field) return render(s.value);
  }
  return "";
}

MeasuredAnswer base_row(const Example& ex, const ModelAnswer& a) {
  MeasuredAnswer r;
  r.example = ex.id;
  r.kind = ex.kind;
  r.answer = a.field;
  r.stated = stated_of(ex, a.field);
  r.model = render(a.value);
  r.model_value = a.value.type == ValueType::kCoord ? 0 : a.value.number;
  return r;
}

// A count the GPU reports against the programming model's: an instrument check.
MeasuredAnswer check_row(const Example& ex, const ModelAnswer& a, const Value& gpu, bool gates_passed) {
  MeasuredAnswer r = base_row(ex, a);
  r.has_gpu = true;
  r.gpu = gpu.type == ValueType::kCoord ? 0 : gpu.number;
  r.row_kind = analysis::kind::kCheck;
  const bool equal = gpu.type == ValueType::kCoord ? gpu.coord == a.value.coord : std::fabs(gpu.number - a.value.number) < 1e-12;
  r.verdict = equal && gates_passed ? analysis::verdict::kPasses : analysis::verdict::kFails;
  r.note = "recorded " + render(gpu) + (gates_passed ? "" : "; a recorder gate failed");
  return r;
}

Value count_value(double v) { return Value{ValueType::kCount, v, {}, {}, {}}; }

// A grid tail: every count the recorder saw against the model's (instrument checks), then the last
// block's time against a full block's, beside the textbook (warps a scheduler) and the second-order
// model (per-scheduler issue with the FMA latency, from the runner's own fma_issue points), each
// with the partial_warp family's tolerance.
std::vector<MeasuredAnswer> judge_grid_tail(const Example& ex, const std::vector<ModelAnswer>& answers, const GridReport& g) {
  const long long n = static_cast<long long>(get(ex, "threads")->value.number);
  const long long b = static_cast<long long>(get(ex, "block_threads")->value.number);
  if (g.total_threads != n || g.block_threads != b) {
    throw std::runtime_error(ex.id + ": warpcost-record --grid reported N = " + std::to_string(g.total_threads) + ", B = " +
                             std::to_string(g.block_threads) + " for an example of N = " + std::to_string(n) +
                             ", B = " + std::to_string(b));
  }
  if (g.schedulers < 1) throw std::runtime_error(ex.id + ": warpcost-record --grid reported " + std::to_string(g.schedulers) + " schedulers a SM");
  std::vector<MeasuredAnswer> rows;
  for (const auto& a : answers) {
    double gpu = 0;
    if (a.field == "blocks") gpu = static_cast<double>(g.blocks);
    else if (a.field == "last_block_threads") gpu = static_cast<double>(g.last_block_threads);
    else if (a.field == "last_block_full_warps") gpu = static_cast<double>(g.last_block_full_warps);
    else if (a.field == "last_block_partial_lanes") gpu = static_cast<double>(g.last_block_partial_lanes);
    else if (a.field == "launched_warps") gpu = static_cast<double>(g.launched_warps);
    else if (a.field == "working_warps") gpu = static_cast<double>(g.working_warps);
    else if (a.field == "wasted_lanes") gpu = static_cast<double>(model::kWarpSize * g.launched_warps - g.working_threads);
    else continue;
    rows.push_back(check_row(ex, a, count_value(gpu), g.gates_passed));
  }
  // The textbook's warps from the model (N, B), not from the runner's report.
  const model::GridTail m = model::grid_tail(n, b);
  const long long tail_warps = model::warps_per_block(m.last_block_threads);
  const long long full_warps = model::warps_per_block(b);
  const double per_tail = static_cast<double>((tail_warps + g.schedulers - 1) / g.schedulers);
  const double per_full = static_cast<double>((full_warps + g.schedulers - 1) / g.schedulers);
  if (!(g.tail_seconds > 0)) {
    throw std::runtime_error(ex.id + ": warpcost-record --grid timed the tail block at " + num(g.tail_seconds * 1e6) + " us");
  }
  // The same models the runner prints (core/models.hpp), from the example's warps and the runner's times.
  model::TailTimeModels models;
  try {
    const double units[2] = {g.issue_units[0], g.issue_units[1]};
    const double tail_issue[2] = {g.tail_issue_seconds[0], g.tail_issue_seconds[1]};
    const double full_issue[2] = {g.full_issue_seconds[0], g.full_issue_seconds[1]};
    models = model::grid_tail_time_models(tail_warps, full_warps, g.schedulers, g.tail_seconds, g.full_seconds,
                                          g.floor_seconds, units, tail_issue, full_issue, g.fma_per_thread);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(ex.id + ": the grid tail's time models from warpcost-record --grid's report: " + e.what());
  }
  const double measured = models.measured;
  const std::string tail_text = "the last block (" + std::to_string(m.last_block_threads) + " threads, " +
                                std::to_string(tail_warps) + " warp(s)) alone took " + num(100 * measured) +
                                " % of a full block's time (" + std::to_string(full_warps) + " warps; launch floor " +
                                num(g.floor_seconds * 1e6) + " us taken off both)";
  ModelAnswer textbook{"last_block_time", Value{ValueType::kRatio, models.textbook, {}, {}, {}},
                       "ceil(tail warps / N_sched) / ceil(full warps / N_sched)"};
  MeasuredAnswer t = base_row(ex, textbook);
  t.has_gpu = true;
  t.gpu = measured;
  t.unit = "ratio";
  t.row_kind = analysis::kind::kModel;
  t.verdict = std::fabs(measured / t.model_value - 1.0) <= analysis::kTailTimeTolerance ? analysis::verdict::kHolds
                                                                                         : analysis::verdict::kFails;
  t.note = tail_text + ", against the textbook ceil(" + std::to_string(tail_warps) + "/" + std::to_string(g.schedulers) +
           ")/ceil(" + std::to_string(full_warps) + "/" + std::to_string(g.schedulers) + ") = " + num(t.model_value) +
           ", within " + num(analysis::kTailTimeTolerance * 100) + " % (the partial_warp family's rule)";
  rows.push_back(t);
  const model::LinearCost& tail = models.tail;
  const model::LinearCost& full = models.full;
  const double predicted = models.second_order;
  ModelAnswer second{"second_order_last_block_time", Value{ValueType::kRatio, predicted, {}, {}, {}}, ""};
  MeasuredAnswer r = base_row(ex, second);
  r.has_gpu = true;
  r.gpu = measured;
  r.unit = "ratio";
  // Both blocks at the same warps a scheduler: the model's two parameter points are one launch
  // measured twice, its prediction 1 by construction, the textbook's own claim (judged above).
  const bool restates = models.same_warps_per_scheduler;
  r.row_kind = restates ? analysis::kind::kInfo : analysis::kind::kModel;
  if (restates) {
    r.verdict = analysis::verdict::kInfo;
  } else {
    r.verdict = std::fabs(measured / predicted - 1.0) <= analysis::kSecondOrderTailTolerance ? analysis::verdict::kHolds
                                                                                             : analysis::verdict::kFails;
  }
  auto fixed3 = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return std::string(buf);
  };
  r.note = std::string("second-order: ") +
           (restates ? "not judged: both blocks run " + num(per_tail) + " warp(s) a scheduler, so the model's two fma_issue "
                       "points are one launch measured twice and its prediction is 1 by construction, the textbook's claim "
                       "(judged in last_block_time); "
                     : "") +
           "per-scheduler issue F(n) + FMAs c(n) - floor, from the runner's fma_issue at " + num(per_tail) +
           " and " + num(per_full) + " warp(s) a scheduler: " + fixed3(tail.fixed_seconds * 1e6) + " us + " +
           fixed3(tail.seconds_per_unit * 1e9) + " ns an FMA, " + fixed3(full.fixed_seconds * 1e6) + " us + " +
           fixed3(full.seconds_per_unit * 1e9) + " ns; within " + num(analysis::kSecondOrderTailTolerance * 100) +
           " % (the family's second-order rule); " + tail_text;
  rows.push_back(r);
  return rows;
}

}  // namespace

// warpcost-record --grid's JSON: the counts it recorded and the times it measured.
GridReport parse_grid_json(const std::string& text) {
  GridReport g;
  nlohmann::json j;
  try {
    // The object itself: a line the runner wrote to stderr (run_plan reads both) is not part of it.
    const auto open = text.find('{');
    const auto close = text.rfind('}');
    if (open == std::string::npos || close == std::string::npos || close < open) throw std::runtime_error("no JSON object");
    j = nlohmann::json::parse(text.substr(open, close - open + 1));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("warpcost-record --grid printed no JSON object: ") + e.what());
  }
  // Each field by name, so a missing one or one of the wrong type is named in the message.
  auto at = [](const nlohmann::json& o, const std::string& where, const char* key) -> const nlohmann::json& {
    if (!o.is_object() || !o.contains(key)) {
      throw std::runtime_error("warpcost-record --grid's JSON lacks " + where + key);
    }
    return o.at(key);
  };
  auto whole_of = [&](const nlohmann::json& o, const std::string& where, const char* key) {
    const auto& v = at(o, where, key);
    if (!v.is_number_integer()) throw std::runtime_error("warpcost-record --grid's JSON: " + where + key + " is not a whole number");
    return v.get<long long>();
  };
  auto number_of = [&](const nlohmann::json& o, const std::string& where, const char* key) {
    const auto& v = at(o, where, key);
    if (!v.is_number()) throw std::runtime_error("warpcost-record --grid's JSON: " + where + key + " is not a number");
    return v.get<double>();
  };
  auto pair_of = [&](const nlohmann::json& o, const std::string& where, const char* key) {
    const auto& v = at(o, where, key);
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) {
      throw std::runtime_error("warpcost-record --grid's JSON: " + where + key + " is not two numbers");
    }
    return std::array<double, 2>{v[0].get<double>(), v[1].get<double>()};
  };
  if (!at(j, "", "mode").is_string() || j.at("mode").get<std::string>() != "grid") {
    throw std::runtime_error("warpcost-record's JSON is not a grid record (mode is not \"grid\")");
  }
  g.total_threads = whole_of(j, "", "total_threads");
  g.block_threads = whole_of(j, "", "block_threads");
  g.schedulers = static_cast<int>(whole_of(j, "", "schedulers_per_sm"));
  const auto& r = at(j, "", "recorded");
  g.blocks = whole_of(r, "recorded.", "blocks");
  g.launched_warps = whole_of(r, "recorded.", "launched_warps");
  g.working_warps = whole_of(r, "recorded.", "working_warps");
  g.working_threads = whole_of(r, "recorded.", "working_threads");
  g.last_block_threads = whole_of(r, "recorded.", "last_block_threads");
  g.last_block_full_warps = whole_of(r, "recorded.", "last_block_full_warps");
  g.last_block_partial_lanes = whole_of(r, "recorded.", "last_block_partial_lanes");
  if (!at(j, "", "gates_passed").is_boolean()) throw std::runtime_error("warpcost-record --grid's JSON: gates_passed is not true or false");
  g.gates_passed = j.at("gates_passed").get<bool>();
  const auto& t = at(j, "", "timing");
  g.tail_threads = whole_of(t, "timing.", "tail_threads");
  g.tail_warps = whole_of(t, "timing.", "tail_warps");
  g.full_warps = whole_of(t, "timing.", "full_warps");
  g.tail_seconds = number_of(t, "timing.", "tail_seconds");
  g.full_seconds = number_of(t, "timing.", "full_seconds");
  g.floor_seconds = number_of(t, "timing.", "floor_seconds");
  g.fma_per_thread = number_of(t, "timing.", "fma_per_thread");
  g.issue_units = pair_of(t, "timing.", "fma_issue_fma_per_thread");
  g.tail_issue_seconds = pair_of(t, "timing.", "fma_issue_tail_seconds");
  g.full_issue_seconds = pair_of(t, "timing.", "fma_issue_full_seconds");
  return g;
}

namespace {

MeasurePlan plan_kind(const Example& ex) {
  if (ex.beyond_device) {
    return why("a thought experiment beyond the CUDA programming model's limits (beyond_device): no GPU runs it");
  }
  if (ex.kind == "block_shape" || ex.kind == "thread_map") {
    const auto b = block3(ex);
    // The JSON report holds every thread, so a thread map needs no --threads.
    return MeasurePlan{{{kRecord, {std::to_string(b[0]), std::to_string(b[1]), std::to_string(b[2])}}}, ""};
  }
  if (ex.kind == "divergence") return plan_divergence(ex);
  if (ex.kind == "latency_hiding" || ex.kind == "scheduler_demand") return plan_latency(ex);
  if (ex.kind == "coalescing") return plan_coalescing(ex);
  if (ex.kind == "grid_tail") {
    const double n = get(ex, "threads")->value.number;
    if (n > static_cast<double>(kMostGridThreads)) {
      return why("N = " + whole(n) + " threads: warpcost-record --grid records at most " +
                 std::to_string(kMostGridThreads) + " (a 4-byte slot a thread)");
    }
    return MeasurePlan{{{kRecord, {"--grid", whole(n), whole(get(ex, "block_threads")->value.number)}}}, ""};
  }
  if (ex.kind == "stream_bandwidth" || ex.kind == "stream_greedy_bandwidth" || ex.kind == "block_stream_bandwidth" || ex.kind == "grid_tail_time" ||
      ex.kind == "divergence_grid" || ex.kind == "coalescing_bandwidth" || ex.kind == "primitive_throughput") {
    return why("a second-order model from stated parameters: the suite's `second-order:` rows of its family are its "
               "measurement (docs/models.md); no single-point runner measures a stated parameter set");
  }
  return plan_primitive(ex);
}

// The stream's FFMAs a load in one profiled launch against W (its kernel's FFMAs are W a load, so
// another count is off by at least one a load): an instrument check of the run-time kernel's count,
// as the SASS check is of its code.
MeasuredAnswer ffma_count_row(const Example& ex, const reports::StreamReadReport& n) {
  const ModelAnswer a{"ffma_per_load", Value{ValueType::kRatio, static_cast<double>(n.alu_per_load), {}, {}, {}}, ""};
  MeasuredAnswer r = base_row(ex, a);
  if (n.counters != "counted") {
    r.row_kind = analysis::kind::kInfo;
    r.verdict = analysis::verdict::kInfo;
    r.note = "not counted: warpcost-stream --counters: " + n.counters;
    return r;
  }
  r.has_gpu = true;
  r.gpu = n.ffma_per_load;
  r.row_kind = analysis::kind::kCheck;
  r.verdict = std::fabs(n.ffma_per_load - n.alu_per_load) < 0.5 ? analysis::verdict::kPasses : analysis::verdict::kFails;
  r.note = "one profiled launch at " + std::to_string(n.warps_per_sm) + " warps/SM: " + num(n.ffma_per_load) +
           " FFMAs a load (" + schema::metric::kThreadFfma + " over the thread loads), W = " +
           std::to_string(n.alu_per_load) + (n.run_time_alu ? " (the run-time kernel)" : " (the unrolled kernel)") +
           "; passes within half an FFMA a load";
  return r;
}

// An info row in the second-order column that says why nothing was judged.
MeasuredAnswer second_order_not_judged(const Example& ex, const std::string& field, const std::string& why) {
  MeasuredAnswer r;
  r.example = ex.id;
  r.kind = ex.kind;
  r.answer = field;
  r.row_kind = analysis::kind::kInfo;
  r.verdict = analysis::verdict::kInfo;
  r.note = "second-order: not judged: " + why;
  return r;
}

// "" when the runner's GPU is the parameter run's (its name and SM count), else why not.
std::string other_gpu(const reports::Gpu& gpu, const analysis::Run& run) {
  const std::string name = run.context.values.count(schema::key::kGpuName) ? run.context.text(schema::key::kGpuName) : "";
  const double sms = run.context.values.count(schema::key::kSmCount) ? run.context.number(schema::key::kSmCount) : 0;
  if (name == gpu.name && static_cast<int>(sms) == gpu.sm_count) return "";
  return "the parameter run " + run.run_id() + " is of " + name + " (" + num(sms) + " SMs), the runner ran on " + gpu.name +
         " (" + std::to_string(gpu.sm_count) + " SMs)";
}

// A second-order row whose inputs could not be priced (a report or run the model refuses): an
// error row of its own, the example's other rows kept.
MeasuredAnswer second_order_error(const Example& ex, const std::string& field, const std::string& what) {
  MeasuredAnswer r = second_order_not_judged(ex, field, "");
  r.verdict = analysis::verdict::kError;
  r.note = "second-order: could not be priced: " + what;
  return r;
}

MeasuredAnswer second_order_latency_row(const Example& ex, const reports::StreamReadReport& n,
                                        const reports::StreamReadReport& cap, const reports::StreamReadReport& one,
                                        double gpu_fraction, const SecondOrderSource& params) {
  const std::string field = "second_order_fraction_of_cap";
  if (params.run == nullptr) return second_order_not_judged(ex, field, params.why_none);
  if (const std::string other = other_gpu(n.gpu, *params.run); !other.empty()) return second_order_not_judged(ex, field, other);
  if (n.counters != "counted" || cap.counters != "counted") {
    return second_order_not_judged(ex, field, "the stream's instructions were not counted (" +
                                                  (n.counters != "counted" ? n.counters : cap.counters) + ")");
  }
  std::string how;
  double predicted = 0;
  try {
    predicted = second_order_fraction_of_cap(n, cap, one, *params.run, how);
  } catch (const std::exception& e) {
    return second_order_error(ex, field, e.what());
  }
  const ModelAnswer a{field, Value{ValueType::kRatio, predicted, {}, {}, {}}, ""};
  MeasuredAnswer r = base_row(ex, a);
  r.has_gpu = true;
  r.gpu = gpu_fraction;
  r.unit = "of the cap's rate";
  r.row_kind = analysis::kind::kModel;
  const double tol = analysis::kSecondOrderStreamTolerance;
  r.verdict = std::fabs(gpu_fraction / predicted - 1.0) <= tol ? analysis::verdict::kHolds : analysis::verdict::kFails;
  r.note = "second-order: " + how + "; within " + num(tol * 100) + " % (the streaming family's second-order rule)";
  return r;
}

// The example's coalescing point and the three stride-1 references as suite points of the family,
// each priced from the parameter run; the prediction is the example's share of the best reference.
MeasuredAnswer second_order_coalescing_row(const Example& ex, const std::vector<reports::CoalesceReport>& reps,
                                           double gpu_fraction, const SecondOrderSource& params) {
  const std::string field = "second_order_useful_fraction";
  if (params.run == nullptr) return second_order_not_judged(ex, field, params.why_none);
  if (const std::string other = other_gpu(reps.at(0).gpu, *params.run); !other.empty()) {
    return second_order_not_judged(ex, field, other);
  }
  auto point_of = [](const reports::CoalesceReport& c) {
    analysis::BenchmarkResult b;
    b.family = coalescing::kFamily;
    b.benchmark = c.benchmark;
    for (std::size_t i = 0; i < c.arg_names.size() && i < c.arg_values.size(); ++i) {
      b.params.emplace_back(c.arg_names[i], std::to_string(c.arg_values[i]));
    }
    if (c.benchmark == coalescing::bench::kBlock2d) {
      b.params.emplace_back(coalescing::param::kElemBytes, std::to_string(c.elem_bytes));
      b.counters[coalescing::work::kImageWidth] = {static_cast<double>(c.image_width)};
      b.counters[coalescing::work::kImageHeight] = {static_cast<double>(c.image_height)};
    }
    return b;
  };
  std::optional<analysis::CoalescingSecondOrderPrice> mine;
  double reference = 0;
  std::string reference_text;
  try {
    mine = analysis::coalescing_second_order_price(*params.run, point_of(reps.at(0)));
    for (std::size_t i = 1; i < reps.size() && mine; ++i) {
      const auto p = analysis::coalescing_second_order_price(*params.run, point_of(reps[i]));
      if (p && p->predicted > reference) {
        reference = p->predicted;
        reference_text = std::to_string(reps[i].elem_bytes) + "-byte stride-1 " + num(p->predicted * 1e-12) + " TB/s";
      }
    }
  } catch (const std::exception& e) {
    return second_order_error(ex, field, e.what());
  }
  if (!mine) {
    return second_order_not_judged(ex, field, "the coalescing model prices no " + reps.at(0).benchmark +
                                                  " point from run " + params.run->run_id() + " (no fit point of its level)");
  }
  // A 16-byte offset-0 load is one of the points R(D) is fitted on: its price is the parameter
  // run's own measurement of the same kernel, no prediction (the suite's rows say the same).
  if (mine->fit_point) {
    return second_order_not_judged(ex, field, "a 16-byte offset-0 load is a point R(D) is fitted on (run " +
                                                  params.run->run_id() + " measured this kernel: " + mine->numbers + ")");
  }
  // The point a parameter is read off (the DRAM granule's 4-byte stride-32 load, the request
  // ceiling's 1-byte stride-1 L2 load): its price uses its own count or rate, no prediction.
  if (mine->parameter_point) {
    return second_order_not_judged(ex, field, "this load is the point a parameter of the model is read off in run " +
                                                  params.run->run_id() + " (the DRAM granule or the request ceiling): " +
                                                  mine->numbers);
  }
  if (!(reference > 0)) {
    return second_order_not_judged(ex, field, "run " + params.run->run_id() + " prices none of the stride-1 references");
  }
  const double predicted = mine->predicted / reference;
  const ModelAnswer a{field, Value{ValueType::kRatio, predicted, {}, {}, {}}, ""};
  MeasuredAnswer r = base_row(ex, a);
  r.has_gpu = true;
  r.gpu = gpu_fraction;
  r.row_kind = analysis::kind::kModel;
  const double tol = analysis::kSecondOrderCoalescingTolerance;
  r.verdict = std::fabs(gpu_fraction / predicted - 1.0) <= tol ? analysis::verdict::kHolds : analysis::verdict::kFails;
  r.note = "second-order: " + mine->numbers + ", over the best predicted reference (" + reference_text +
           "), parameters of run " + params.run->run_id() + "; within " + num(tol * 100) +
           " % (the coalescing family's second-order rule)";
  return r;
}

}  // namespace

// Every runner reports in JSON (core/point_reports.hpp; warpcost-record --grid its own object):
// the judge reads numbers, never a console table.
MeasurePlan plan_measure(const Example& ex) {
  MeasurePlan plan = plan_kind(ex);
  for (auto& call : plan.calls) call.args.push_back("--json");
  return plan;
}

double second_order_fraction_of_cap(const reports::StreamReadReport& at_n, const reports::StreamReadReport& at_cap,
                                    const reports::StreamReadReport& at_one, const analysis::Run& params, std::string& how) {
  namespace st = model::streaming;
  std::string locus_text;
  std::string rate_source;
  const model::ArchParams arch = analysis::detail::arch_of(params);
  const std::optional<st::Locus> locus = analysis::detail::loaded_latency_locus(params, locus_text);
  const std::optional<double> rate = analysis::detail::saturated_issue_rate(params, arch.schedulers_per_sm, rate_source);
  const double clock = params.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  if (!locus || !rate || !(clock > 0)) {
    throw std::runtime_error("run " + params.run_id() + " has no loaded-latency locus, r_sat or measured SM clock");
  }
  if (at_one.warps_per_sm != 1 || !(at_one.bytes_per_s() > 0) || !(at_n.instructions_per_iteration > 0) ||
      !(at_cap.instructions_per_iteration > 0)) {
    throw std::runtime_error("the second-order stream model needs a 1-warp/SM rate and counted instructions at N and the cap");
  }
  const double bytes_per_iteration = static_cast<double>(model::kWarpSize) * at_n.load_bytes;  // one load in flight a lane
  const int sms = at_n.gpu.sm_count;
  // T0: an iteration's cycles at one warp a SM, from the stream's own rate there (the suite's rule).
  const double t0 = sms * bytes_per_iteration * clock / at_one.bytes_per_s();
  auto predict = [&](const reports::StreamReadReport& r) {
    st::StreamPoint p;
    p.sms = sms;
    p.schedulers_per_sm = arch.schedulers_per_sm;
    p.warps_per_sm = r.warps_per_sm;
    p.bytes_per_warp_iteration = bytes_per_iteration;
    p.instructions_per_iteration = r.instructions_per_iteration;
    p.unloaded_iteration_cycles = t0;
    p.clock_hz = clock;
    return st::predict_stream(p, *locus, *rate);
  };
  const st::StreamPrediction n = predict(at_n);
  const st::StreamPrediction cap = predict(at_cap);
  how = "predicted " + num(n.bandwidth * 1e-12) + " TB/s at " + std::to_string(at_n.warps_per_sm) + " warps/SM (I = " +
        num(at_n.instructions_per_iteration) + ", a load waits " + num(n.loaded_cycles) + " cycles) over " +
        num(cap.bandwidth * 1e-12) + " TB/s at " + std::to_string(at_cap.warps_per_sm) + " (I = " +
        num(at_cap.instructions_per_iteration) + ", " + num(cap.loaded_cycles) + " cycles), T0 = " + num(t0) +
        " cycles from the 1-warp/SM rate " + num(at_one.bytes_per_s() * 1e-12) + " TB/s; parameters of run " +
        params.run_id() + ": r_sat " + num(*rate) + " (" + rate_source + "), " + locus_text;
  return n.bandwidth / cap.bandwidth;
}

RecordReport parse_record(const std::string& text) {
  const reports::RecordReport j = reports::record_from_json(text);
  RecordReport r;
  r.ok = true;
  r.block = {j.block[0], j.block[1], j.block[2]};
  r.gates_passed = j.gates_passed();
  r.warps = static_cast<long long>(j.warps.size());
  for (const auto& w : j.warps) {
    r.lanes.push_back(w.lanes);
    r.masks.push_back(w.mask);
  }
  for (const auto& t : j.threads) {
    const auto slot = static_cast<std::size_t>(t.slot);
    if (r.thread_xyz.size() <= slot) {
      r.thread_xyz.resize(slot + 1);
      r.thread_lane.resize(slot + 1, -1);
    }
    if (!t.written) continue;
    r.thread_xyz[slot] = {t.x, t.y, t.z};
    r.thread_lane[slot] = static_cast<int>(t.lane);
  }
  return r;
}

std::vector<MeasuredAnswer> judge_measurement(const Example& ex, const MeasurePlan& plan,
                                              const std::vector<std::string>& outputs, const SecondOrderSource& params) {
  std::vector<MeasuredAnswer> rows;
  if (plan.calls.empty()) {
    MeasuredAnswer r;
    r.example = ex.id;
    r.kind = ex.kind;
    r.row_kind = "info";
    r.verdict = "not measured";
    r.note = plan.why_not;
    return {r};
  }
  if (outputs.size() != plan.calls.size()) throw std::logic_error("one output per planned call");
  const auto answers = model_answers(ex);
  if (ex.kind == "block_shape" || ex.kind == "thread_map") {
    const RecordReport rep = parse_record(outputs[0]);
    if (rep.block != block3(ex)) {
      another_report(ex, plan.calls[0], "a block of (" + std::to_string(rep.block.at(0)) + "," + std::to_string(rep.block.at(1)) +
                                            "," + std::to_string(rep.block.at(2)) + ")");
    }
    if (!rep.ok || rep.lanes.empty()) throw std::runtime_error(ex.id + ": warpcost-record printed no warp table");
    long long threads = 0;
    long long full = 0;
    for (int l : rep.lanes) {
      threads += l;
      full += l == model::kWarpSize ? 1 : 0;
    }
    const long long warps = static_cast<long long>(rep.lanes.size());
    for (const auto& a : answers) {
      Value gpu;
      if (a.field == "threads") gpu = count_value(static_cast<double>(threads));
      else if (a.field == "warps") gpu = count_value(static_cast<double>(warps));
      else if (a.field == "full_warps") gpu = count_value(static_cast<double>(full));
      else if (a.field == "last_warp_id") gpu = count_value(static_cast<double>(warps - 1));
      else if (a.field == "tail_lanes") gpu = count_value(rep.lanes.back());
      else if (a.field == "wasted_lanes") gpu = count_value(static_cast<double>(model::kWarpSize * warps - threads));
      else if (a.field == "tail_mask") gpu = Value{ValueType::kMask, static_cast<double>(rep.masks.back()), {}, {}, {}};
      else if (a.field == "lane_efficiency") gpu = Value{ValueType::kRatio, static_cast<double>(threads) / static_cast<double>(model::kWarpSize * warps), {}, {}, {}};
      else if (ex.kind != "thread_map") continue;
      else {
        // The thread's own recorded coordinate and %laneid, found by its slot (linear index).
        auto slot_of_thread = [&]() -> long long {
          std::vector<long long> t = get(ex, "thread")->value.coord;
          while (t.size() < 3) t.push_back(0);
          for (std::size_t i = 0; i < rep.thread_xyz.size(); ++i) {
            if (rep.thread_xyz[i] == t) return static_cast<long long>(i);
          }
          return -1;
        };
        const long long w = get(ex, "warp") ? static_cast<long long>(get(ex, "warp")->value.number) : -1;
        long long slot = -1;
        if (get(ex, "thread")) slot = slot_of_thread();
        if (get(ex, "linear")) slot = static_cast<long long>(get(ex, "linear")->value.number);
        const bool have_slot = slot >= 0 && slot < static_cast<long long>(rep.thread_lane.size());
        if (a.field == "linear" && have_slot) gpu = count_value(static_cast<double>(slot));
        else if (a.field == "lane" && have_slot) gpu = count_value(rep.thread_lane[static_cast<std::size_t>(slot)]);
        else if (a.field == "warp" && have_slot) gpu = count_value(static_cast<double>(slot / model::kWarpSize));
        else if (a.field == "thread" && have_slot) gpu = Value{ValueType::kCoord, 0, rep.thread_xyz[static_cast<std::size_t>(slot)], {}, {}};
        else if (w >= 0 && w < warps && a.field == "active_lanes") gpu = count_value(rep.lanes[static_cast<std::size_t>(w)]);
        else if (w >= 0 && w < warps && a.field == "warp_mask") gpu = Value{ValueType::kMask, static_cast<double>(rep.masks[static_cast<std::size_t>(w)]), {}, {}, {}};
        else if (w >= 0 && w < warps && (a.field == "first_thread" || a.field == "last_thread")) {
          const long long s = model::kWarpSize * w + (a.field == "first_thread" ? 0 : rep.lanes[static_cast<std::size_t>(w)] - 1);
          if (s >= static_cast<long long>(rep.thread_xyz.size())) continue;
          gpu = Value{ValueType::kCoord, 0, rep.thread_xyz[static_cast<std::size_t>(s)], {}, {}};
        } else {
          continue;
        }
      }
      rows.push_back(check_row(ex, a, gpu, rep.gates_passed));
    }
    return rows;
  }
  if (ex.kind == "grid_tail") return judge_grid_tail(ex, answers, parse_grid_json(outputs[0]));
  if (ex.kind == "divergence") {
    // Two calls: the warp with an unpopulated else against the same kernel with an empty else.
    const reports::DivergeReport d = reports::diverge_from_json(outputs[0]);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      require_planned(ex, plan.calls[i], i == 0 ? d : reports::diverge_from_json(outputs[i]));
    }
    const double gpu = outputs.size() == 2 ? d.warp_cycles / reports::diverge_from_json(outputs[1]).warp_cycles
                                           : d.warp_slowdown();
    if (!(gpu > 0) || !std::isfinite(gpu)) {
      throw std::runtime_error(ex.id + ": warpcost-diverge reported no slowdown (warp cycles " + num(d.warp_cycles) +
                               " against " + num(d.reference_warp_cycles) + ")");
    }
    // The report's arguments are the plan's (require_planned), so the plan says which kernel ran.
    const bool k_way = plan.calls[0].args[0] == "--paths" || plan.calls[0].args[0] == "--cases";
    const double tol = k_way ? analysis::kKWayTolerance : analysis::split_tolerance();
    for (const auto& a : answers) {
      if (a.field != "slowdown") continue;
      MeasuredAnswer r = base_row(ex, a);
      r.has_gpu = true;
      r.gpu = gpu;
      r.row_kind = "model";
      r.verdict = std::fabs(gpu / a.value.number - 1.0) <= tol ? analysis::verdict::kHolds : analysis::verdict::kFails;
      r.note = outputs.size() == 2 ? "warp cycles against the same kernel with an empty else (warpcost-diverge"
                                   : "warp cycles against the uniform reference (warpcost-diverge";
      for (const auto& s : d.args) r.note += " " + s;
      r.note += "), within " + num(tol * 100) + " % (the divergence family's rule)";
      rows.push_back(r);
      // The serialised model from the paths' own cycles: each path run by every lane of the same
      // kernel (the runner's "measured uniformly" model line), judged by the same rule.
      const double second = outputs.size() == 1 && d.paths_measured ? d.model_slowdown : -1.0;
      if (second > 0) {
        const ModelAnswer s{"second_order_slowdown", Value{ValueType::kRatio, second, {}, {}, {}}, ""};
        MeasuredAnswer q = base_row(ex, s);
        q.has_gpu = true;
        q.gpu = gpu;
        q.row_kind = "model";
        q.verdict = std::fabs(gpu / second - 1.0) <= tol ? analysis::verdict::kHolds : analysis::verdict::kFails;
        q.note = "second-order: the populated paths' cycles, each measured with every lane on it, summed over the "
                 "first path's (" + num(second) + "x), against the diverged warp's " + num(gpu) + "x; within " +
                 num(tol * 100) + " % (the divergence family's rule)";
        rows.push_back(q);
      }
    }
    return rows;
  }
  if (ex.kind == "coalescing") {
    std::vector<double> tbps;
    std::vector<reports::CoalesceReport> reps;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      reps.push_back(reports::coalesce_from_json(outputs[i]));
      require_planned(ex, plan.calls[i], reps.back());
      tbps.push_back(reps.back().useful_bytes_per_s() * 1e-12);
    }
    const double mine = tbps[0];
    const double reference = *std::max_element(tbps.begin() + 1, tbps.end());
    if (!(mine > 0) || !(reference > 0) || !std::isfinite(mine) || !std::isfinite(reference)) {
      throw std::runtime_error(ex.id + ": warpcost-coalesce reported no useful bandwidth");
    }
    for (const auto& a : answers) {
      if (a.field != "useful_fraction") continue;
      MeasuredAnswer r = base_row(ex, a);
      r.has_gpu = true;
      r.gpu = mine / reference;
      r.row_kind = "model";
      r.verdict = std::fabs(r.gpu / a.value.number - 1.0) <= analysis::coalescing_tolerance::kBandwidth ? analysis::verdict::kHolds
                                                                                                   : analysis::verdict::kFails;
      r.note = "useful bandwidth " + num(mine) + " TB/s over the fully coalesced " + num(reference) +
               " TB/s (best stride-1 load of 4, 8, 16 B), within " + num(analysis::coalescing_tolerance::kBandwidth * 100) +
               " % (the coalescing family's rule)";
      rows.push_back(r);
      rows.push_back(second_order_coalescing_row(ex, reps, mine / reference, params));
    }
    return rows;
  }
  if (ex.kind == "warp_primitive") {
    std::vector<double> cycles;
    std::vector<reports::PrimitiveReport> reps;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      reps.push_back(reports::primitive_from_json(outputs[i]));
      require_planned(ex, plan.calls[i], reps.back());
      cycles.push_back(reps.back().median);
      if (reps.back().mode != "latency" || !(cycles.back() > 0) || !std::isfinite(cycles.back())) {
        throw std::runtime_error(ex.id + ": warpcost-primitives reported no latency (" + reps.back().primitive + ")");
      }
    }
    const std::string lanes = std::to_string(reps[0].lanes);
    auto all = answers;
    const bool has_cycles = std::any_of(all.begin(), all.end(), [](const ModelAnswer& a) { return a.field == "reduction_cycles"; });
    if (plan.calls.size() == 3 && !has_cycles) {
      // No author's latencies: the reduction's cycles are still judged, the model's value from this GPU's.
      all.push_back({"reduction_cycles", Value{ValueType::kRatio,
                                               model::butterfly_reduction_cycles(cycles[1], cycles[2], model::kWarpSize), {}, {}, {}},
                     "5·(shuffle + add) at this GPU's latencies"});
    }
    for (const auto& a : all) {
      MeasuredAnswer r = base_row(ex, a);
      r.has_gpu = true;
      r.row_kind = analysis::kind::kModel;
      if (plan.calls.size() == 2 && a.field == "cost_vs_full_warp") {
        namespace tol = analysis::warp_primitives_tolerance;
        r.gpu = cycles[0] / cycles[1];
        r.verdict = std::fabs(r.gpu / a.value.number - 1.0) <= tol::kGranularityLatency ? analysis::verdict::kHolds
                                                                                         : analysis::verdict::kFails;
        r.note = reps[0].primitive + " latency " + num(cycles[0]) + " cycles an op at " + lanes + " lanes over " +
                 num(cycles[1]) + " at 32 (warpcost-primitives latency), within " + num(tol::kGranularityLatency * 100) +
                 " % (the warp_primitives family's granularity rule)";
      } else if (plan.calls.size() == 3 && a.field == "reduction_cycles") {
        namespace tol = analysis::warp_primitives_tolerance;
        const int steps = model::butterfly_reduction_steps(model::kWarpSize);
        const double predicted = model::butterfly_reduction_cycles(cycles[1], cycles[2], model::kWarpSize);
        r.gpu = cycles[0];
        r.unit = "cycles";
        r.model_value = predicted;
        r.verdict = std::fabs(cycles[0] / predicted - 1.0) <= tol::kComposition ? analysis::verdict::kHolds
                                                                               : analysis::verdict::kFails;
        r.note = "sum_butterfly latency " + num(cycles[0]) + " cycles against " + std::to_string(steps) +
                 " x (shfl_xor32 " + num(cycles[1]) + " + alu_add " + num(cycles[2]) + ") = " + num(predicted) +
                 " cycles measured on this GPU, within " + num(tol::kComposition * 100) +
                 " % (the warp_primitives family's composition rule)" +
                 (has_cycles ? "; the example's own latencies give " + r.model : "");
      } else {
        continue;
      }
      rows.push_back(r);
    }
    return rows;
  }
  // latency_hiding, scheduler_demand: this GPU's rate at the model's warps against its rate at the cap.
  const reports::StreamReadReport n_rep = reports::stream_read_from_json(outputs[0]);
  const reports::StreamReadReport cap_rep = reports::stream_read_from_json(outputs[1]);
  const reports::StreamReadReport one_rep = reports::stream_read_from_json(outputs[2]);
  require_planned(ex, plan.calls[0], n_rep);
  require_planned(ex, plan.calls[1], cap_rep);
  require_planned(ex, plan.calls[2], one_rep);
  const double at_n = n_rep.bytes_per_s() * 1e-12;
  const double at_cap = cap_rep.bytes_per_s() * 1e-12;
  const double latency = n_rep.loaded_latency_cycles;
  if (!(at_n > 0) || !(at_cap > 0) || !std::isfinite(at_n) || !std::isfinite(at_cap)) {
    throw std::runtime_error(ex.id + ": warpcost-stream reported no bandwidth");
  }
  for (const auto& a : answers) {
    if (a.field != "warps_needed") continue;
    MeasuredAnswer r = base_row(ex, a);
    r.has_gpu = true;
    r.gpu = at_n / at_cap;
    r.unit = "of the cap's rate";
    r.row_kind = analysis::kind::kInfo;
    r.verdict = analysis::verdict::kInfo;
    const bool own_cap = get(ex, "warp_cap") == nullptr;
    const int w = n_rep.alu_per_load;
    const bool run_time = n_rep.run_time_alu;
    const long long held = cap_rep.warps_per_sm;
    r.note = "with " + std::to_string(n_rep.warps_per_sm) + " warps/SM the stream reads " + num(at_n) + " TB/s, " +
             num(100 * r.gpu) + " % of its rate at the cap (" + num(at_cap) + " TB/s" +
             (own_cap ? ", at this GPU's own cap of " + std::to_string(held) + " warps/SM: the example states none" : "") +
             ")" + (run_time ? "; W = " + std::to_string(w) + " has no unrolled kernel: the run-time one, a loop of FFMAs" : "") +
             "; not judged: the example's L (" + num(get(ex, "latency")->value.number) +
             " cycles) is not this GPU's loaded latency (" + num(latency) + " cycles)";
    rows.push_back(r);
    rows.push_back(ffma_count_row(ex, n_rep));
    rows.push_back(second_order_latency_row(ex, n_rep, cap_rep, one_rep, r.gpu, params));
  }
  return rows;
}

namespace {
// One word for sh -c, whatever it holds: a folder named it's/ was cut at its quote before.
std::string single_quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::vector<std::string> run_plan(const MeasurePlan& plan, const std::string& bench_dir) {
  std::vector<std::string> outputs;
  for (const auto& call : plan.calls) {
    std::string cmd = single_quoted(bench_dir + "/" + call.runner);
    for (const auto& a : call.args) cmd += " " + single_quoted(a);
    cmd += " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) throw std::runtime_error("cannot start " + cmd);
    std::string out;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = pclose(p);
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (rc == 2) {
      // The runner's own message is its first line ("warpcost-stream: warps per SM = 64: ..."); its
      // usage text and whatever it printed before refusing stay out of the one-sentence reason.
      std::string first = out.substr(0, out.find('\n'));
      const std::string prefix = call.runner + ": ";
      if (first.rfind(prefix, 0) == 0) first = first.substr(prefix.size());
      throw RunnerRefused(call.runner + " refuses these parameters: " + first.substr(0, 400));
    }
    // A JSON report whose recorder gate failed exits 1: its rows are judged (the counts read fails).
    const bool json_call = std::find(call.args.begin(), call.args.end(), "--json") != call.args.end();
    const bool failed_gate_report = rc == 1 && json_call && out.find("\"gates_passed\": false") != std::string::npos;
    if (rc != 0 && !failed_gate_report) {
      throw std::runtime_error(cmd + " exited " + std::to_string(rc) + ": " + out.substr(0, 600));
    }
    outputs.push_back(out);
  }
  return outputs;
}

std::string markdown_cell(const std::string& text, std::size_t max_chars) {
  // One line: every run of whitespace (newlines included) becomes one space, a '|' is escaped.
  std::string flat;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (!flat.empty() && flat.back() != ' ') flat += ' ';
    } else {
      flat += c;
    }
  }
  while (!flat.empty() && flat.back() == ' ') flat.pop_back();
  // The first sentence ('. ' or ': ' after it starts a usage text, a list), within max_chars.
  if (flat.size() > max_chars) {
    std::size_t cut = flat.rfind(". ", max_chars);
    if (cut == std::string::npos || cut < max_chars / 4) cut = flat.rfind(' ', max_chars);
    if (cut == std::string::npos) cut = max_chars;
    flat = flat.substr(0, cut) + " (…)";
  }
  std::string out;
  for (const char c : flat) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string plan_markdown(const std::vector<Example>& examples, const std::vector<MeasurePlan>& plans) {
  if (examples.size() != plans.size()) throw std::logic_error("one plan an example");
  std::ostringstream md;
  std::size_t runnable = 0;
  for (const auto& p : plans) runnable += p.calls.empty() ? 0 : 1;
  md << "What `--measure` would run: " << runnable << " of " << examples.size()
     << " examples have a runner (build/<preset>/bench/); the others say why no GPU measures them.\n\n"
     << "| example | kind | runner calls | measured? |\n|---|---|---|---|\n";
  for (std::size_t i = 0; i < examples.size(); ++i) {
    std::string calls;
    for (const auto& c : plans[i].calls) calls += (calls.empty() ? "" : "; ") + call_line(c);
    md << "| " << markdown_cell(examples[i].id, 80) << " | " << examples[i].kind << " | "
       << (calls.empty() ? "—" : "`" + calls + "`") << " | "
       << (plans[i].calls.empty() ? "not measured: " + markdown_cell(plans[i].why_not, 240) : "yes") << " |\n";
  }
  return md.str();
}

std::string measured_markdown(const std::vector<MeasuredAnswer>& rows, const std::string& gpu) {
  std::ostringstream md;
  md << "Worked examples on " << gpu << ": the author's answer, the model's, and what the GPU did.\n\n"
     << "| example | answer | author | model | GPU | kind | verdict | how |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    // The recorder's checks say what they recorded ("recorded 0x000000ff; ..."): that is the GPU's
    // cell, and the recorder the how. Every other row shows its number and its note.
    const std::string recorded = "recorded ";
    const bool recorder_check = r.row_kind == "check" && r.note.rfind(recorded, 0) == 0;
    std::string gpu_text = "—";
    if (r.has_gpu) gpu_text = recorder_check ? r.note.substr(recorded.size()) : num(r.gpu);
    if (recorder_check) gpu_text = gpu_text.substr(0, gpu_text.find(';'));
    md << "| " << r.example << " | " << (r.answer.empty() ? "—" : r.answer) << " | " << (r.stated.empty() ? "—" : r.stated)
       << " | " << (r.model.empty() ? "—" : r.model) << " | " << gpu_text << " | " << r.row_kind << " | " << r.verdict
       << " | " << (recorder_check ? "warpcost-record" : markdown_cell(r.note, 240)) << " |\n";
  }
  return md.str();
}

std::string measured_csv(const std::vector<MeasuredAnswer>& rows, const std::string& run_id, const std::string& utc,
                         const std::string& gpu, const std::string& git_rev) {
  using analysis::csv_field;
  std::ostringstream csv;
  const auto& header = analysis::csv_header();
  for (std::size_t i = 0; i < header.size(); ++i) csv << (i ? "," : "") << header[i];
  csv << ",example\n";
  for (const auto& r : rows) {
    const std::string params = "example=" + r.example;
    const double rel = r.has_gpu && r.model_value != 0 ? r.gpu / r.model_value - 1.0 : 0.0;
    const bool numeric_model = r.has_gpu && r.model != "" && r.model.find('(') == std::string::npos;
    // An info row is not judged: no rel_error (a latency row's value is a share of a rate, its
    // model's value a count of warps).
    const bool judged = r.row_kind != analysis::kind::kInfo;
    csv << schema::kVersion << "," << csv_field(run_id) << "," << csv_field(utc) << "," << csv_field(gpu) << ",,,,,"
        << csv_field(analysis::git_rev_text(git_rev)) << ",examples," << csv_field(r.kind) << "," << csv_field(params) << ","
        << csv_field(r.answer.empty() ? "not_measured" : r.answer) << "," << (r.has_gpu ? analysis::csv_number(r.gpu) : "")
        << "," << csv_field(r.unit) << "," << csv_field(r.note) << ","
        << (numeric_model ? analysis::csv_number(r.model_value) : "") << ","
        << (numeric_model && judged ? analysis::csv_number(rel) : "") << "," << csv_field(r.row_kind) << "," << csv_field(r.verdict)
        << ",current," << csv_field(r.example) << "\n";
  }
  return csv.str();
}

}  // namespace warpcost::examples
