// Reading an examples file (TOML, through toml++) and the command line of `warpcost predict` into
// validated examples. Every problem is one BadInput naming the example, the field and what is allowed.
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/coalescing/model.hpp"
#include "check/examples.hpp"
#include "core/streaming/model.hpp"
#include "core/text_format.hpp"

namespace warpcost::examples {
namespace {

enum class InputType { kInt, kReal, kString, kInts, kPaths };

// One type per input name, whatever the kind (a `block` is always a list of whole numbers).
const std::map<std::string, InputType>& input_types() {
  static const std::map<std::string, InputType> types = {
      {"block", InputType::kInts},          {"thread", InputType::kInts},
      {"linear", InputType::kInt},          {"warp", InputType::kInt},
      {"threads", InputType::kInt},         {"block_threads", InputType::kInt},
      {"paths", InputType::kPaths},         {"uniform_cost", InputType::kReal},
      {"shape", InputType::kString},        {"latency", InputType::kReal},
      {"instructions", InputType::kReal},   {"warp_cap", InputType::kInt},
      {"schedulers", InputType::kInt},      {"issue_interval", InputType::kReal},
      {"instructions_per_warp", InputType::kReal}, {"elem_bytes", InputType::kInt},
      {"stride", InputType::kInt},          {"offset", InputType::kInt},
      {"image", InputType::kInts},          {"primitive", InputType::kString},
      {"active_lanes", InputType::kInt},    {"lanes", InputType::kInt},
      {"shuffle_cycles", InputType::kReal}, {"add_cycles", InputType::kReal},
      // The second-order models' parameters (docs/models.md), stated by hand or read off a run.
      {"sms", InputType::kInt},             {"warps_per_sm", InputType::kInt},
      {"load_bytes", InputType::kInt},      {"loads_in_flight", InputType::kInt},
      {"unloaded_cycles", InputType::kReal}, {"loaded_latency", InputType::kReal},
      {"peak_gbps", InputType::kReal},      {"issue_rate", InputType::kReal},
      {"clock_mhz", InputType::kReal},      {"fixed_us_tail", InputType::kReal},
      {"fixed_us_full", InputType::kReal},  {"cycles_per_fma_tail", InputType::kReal},
      {"cycles_per_fma_full", InputType::kReal}, {"fma_per_thread", InputType::kReal},
      {"floor_us", InputType::kReal},       {"trips", InputType::kReal},
      {"reference_trips", InputType::kReal}, {"fixed_us", InputType::kReal},
      {"us_per_trip", InputType::kReal},
      {"level", InputType::kString},        {"moved_rate_gbps", InputType::kReal},
      {"in_flight_gbps", InputType::kReal}, {"request_rate_gps", InputType::kReal}, {"granule_bytes", InputType::kInt},
      {"chains", InputType::kInt},
      {"latency_cycles", InputType::kReal}, {"pipe_ops_per_cycle", InputType::kReal},
      {"resident_blocks", InputType::kInt}, {"turnover_cycles", InputType::kReal},
      {"alu_per_load", InputType::kInt},    {"sigma", InputType::kReal},
      {"constant_cycles", InputType::kReal},
  };
  return types;
}

// Keys of an example that are not inputs.
const std::set<std::string> kExampleKeys = {"id", "title", "kind", "answer", "note", "beyond_device"};

const std::string kBeyondDeviceHint = "; set beyond_device = true for a thought experiment no GPU can run";
const std::string kBlockAllowed =
    "[x, y, z] whole numbers, x and y 1..1024, z 1..64, x·y·z <= 1024 threads (the CUDA programming "
    "model's limits" + kBeyondDeviceHint + ")";

using analysis::exact_number;
using analysis::kLargestExactWhole;

[[noreturn]] void bad(const Example& ex, int line, const std::string& field, const std::string& problem,
                      const std::string& allowed) {
  std::ostringstream m;
  m << ex.source;
  if (line > 0) m << ":" << line;
  m << ": example '" << (ex.id.empty() ? "?" : ex.id) << "'";
  if (!field.empty()) m << ", field '" << field << "'";
  m << ": " << problem;
  if (!allowed.empty()) m << "; allowed: " << allowed;
  throw BadInput(m.str());
}

const KindSpec* find_kind(const std::string& name) {
  for (const auto& k : kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string kind_list() {
  std::string s;
  for (const auto& k : kinds()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

// ---- toml nodes into values ------------------------------------------------------------------

bool node_number(const toml::node& n, double& out) {
  if (auto i = n.value_exact<std::int64_t>()) {
    out = static_cast<double>(*i);
    return true;
  }
  if (auto d = n.value_exact<double>()) {
    out = *d;
    return true;
  }
  return false;
}

Input input_from_node(const Example& ex, const std::string& name, InputType type, const toml::node& n) {
  Input in;
  in.line = line_of(n);
  const auto& spec_allowed = [&]() -> std::string {
    for (const auto& f : find_kind(ex.kind)->inputs) {
      if (f.name == name) return f.allowed;
    }
    return "";
  }();
  double v = 0;
  switch (type) {
    case InputType::kInt:
      if (auto i = n.value_exact<std::int64_t>()) {
        in.value.type = ValueType::kCount;
        in.value.number = static_cast<double>(*i);
        return in;
      }
      if (auto d = n.value_exact<double>(); d && std::isfinite(*d) && *d == std::floor(*d)) {
        bad(ex, in.line, name, name + " = " + exact_number(*d) + " is out of range (past 2^53)", spec_allowed);
      }
      bad(ex, in.line, name, "not a whole number", spec_allowed);
    case InputType::kReal:
      if (node_number(n, v) && std::isfinite(v)) {
        in.value.type = ValueType::kRatio;
        in.value.number = v;
        return in;
      }
      bad(ex, in.line, name, "not a number", spec_allowed);
    case InputType::kString:
      if (auto s = n.value_exact<std::string>()) {
        in.value.type = ValueType::kText;
        in.value.text = *s;
        return in;
      }
      bad(ex, in.line, name, "not a string", spec_allowed);
    case InputType::kInts: {
      if (auto one = n.value_exact<std::int64_t>()) {  // block = 72 reads as [72]
        in.value.type = ValueType::kCoord;
        in.value.coord.push_back(*one);
        return in;
      }
      const auto* arr = n.as_array();
      if (arr == nullptr || arr->empty() || arr->size() > 3) bad(ex, in.line, name, "not a list of 1 to 3 whole numbers", spec_allowed);
      in.value.type = ValueType::kCoord;
      for (const auto& e : *arr) {
        auto i = e.value_exact<std::int64_t>();
        if (!i) bad(ex, in.line, name, "not a list of 1 to 3 whole numbers", spec_allowed);
        in.value.coord.push_back(*i);
      }
      return in;
    }
    case InputType::kPaths: {
      const auto* arr = n.as_array();
      const std::string allowed = "a list of { lanes = 0..32, cost = number >= 0 }, lanes summing to 1..32";
      if (arr == nullptr || arr->empty()) bad(ex, in.line, name, "not a list of paths", allowed);
      for (const auto& e : *arr) {
        const auto* t = e.as_table();
        if (t == nullptr) bad(ex, in.line, name, "a path is not a { lanes, cost } table", allowed);
        for (const auto& [k, val] : *t) {
          (void)val;
          if (k.str() != "lanes" && k.str() != "cost") {
            bad(ex, in.line, name, "a path has the unknown key '" + std::string(k.str()) + "'", allowed);
          }
        }
        auto lanes = t->get("lanes") ? t->get("lanes")->value_exact<std::int64_t>() : std::nullopt;
        double cost = 0;
        if (!lanes || t->get("cost") == nullptr || !node_number(*t->get("cost"), cost)) {
          bad(ex, in.line, name, "a path needs whole-number lanes and a numeric cost", allowed);
        }
        if (*lanes < 0 || *lanes > model::kWarpSize) {
          bad(ex, in.line, name, "a path of " + std::to_string(*lanes) + " lanes", "0..32 lanes a path, 32 over all paths (one warp)");
        }
        if (!std::isfinite(cost) || cost < 0 || cost > 1e15) {
          bad(ex, in.line, name, "a path cost of " + exact_number(cost), "a cost from 0 to 1e15");
        }
        in.value.paths.push_back(model::BranchPath{static_cast<int>(*lanes), cost});
      }
      return in;
    }
  }
  bad(ex, in.line, name, "unreadable", spec_allowed);
}

// A stated answer as written: a number (a mask may be "0x..."), a list (a coordinate) or a yes/no.
Value stated_from_node(const Example& ex, const std::string& field, const toml::node& n) {
  Value v;
  double d = 0;
  if (auto b = n.value_exact<bool>()) {
    v.type = ValueType::kBool;
    v.number = *b ? 1 : 0;
  } else if (node_number(n, d)) {
    if (!std::isfinite(d) || std::fabs(d) >= kLargestExactWhole) {
      bad(ex, line_of(n), "answer." + field, exact_number(d) + " is not a finite number an answer can state",
          "a number from -2^53 to 2^53, true/false, a list [x, y, z], or a mask as \"0x0000000f\"");
    }
    v.type = ValueType::kRatio;
    v.number = d;
  } else if (auto s = n.value_exact<std::string>()) {
    // A mask: hexadecimal after 0x, or decimal digits; 32 lanes wide at most.
    const std::string& t = *s;
    const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
    const std::string digits = hex ? t.substr(2) : t;
    const bool well_formed = !digits.empty() && digits.size() <= 10 &&
                             std::all_of(digits.begin(), digits.end(), [hex](char c) {
                               return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                                          : std::isdigit(static_cast<unsigned char>(c)) != 0;
                             });
    const unsigned long long m = well_formed ? std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10) : 0;
    if (!well_formed || m > 0xffffffffULL) {
      bad(ex, line_of(n), "answer." + field, "'" + t + "' is not a mask of a warp's 32 lanes",
          "a number, true/false, a list [x, y, z], or a mask as \"0x0000000f\" (at most 0xffffffff)");
    }
    v.type = ValueType::kMask;
    v.number = static_cast<double>(m);
  } else if (const auto* arr = n.as_array()) {
    v.type = ValueType::kCoord;
    if (arr->empty()) {
      bad(ex, line_of(n), "answer." + field, "an empty list is not a coordinate", "a list of 1 to 3 whole numbers [x, y, z]");
    }
    for (const auto& e : *arr) {
      auto i = e.value_exact<std::int64_t>();
      if (!i || arr->size() > 3) {
        bad(ex, line_of(n), "answer." + field, "not a coordinate", "a list of 1 to 3 whole numbers [x, y, z]");
      }
      v.coord.push_back(*i);
    }
    while (v.coord.size() < 3) v.coord.push_back(0);
  } else {
    bad(ex, line_of(n), "answer." + field, "not an answer",
        "a number, true/false, a list [x, y, z], or a mask as \"0x0000000f\"");
  }
  return v;
}

// ---- the checks a kind's inputs must pass ------------------------------------------------------

const Input* get(const Example& ex, const std::string& name) {
  auto it = ex.inputs.find(name);
  return it == ex.inputs.end() ? nullptr : &it->second;
}

void check_block(const Example& ex, const std::string& field, bool two_d) {
  const Input* in = get(ex, field);
  if (in == nullptr) return;
  const auto& c = in->value.coord;
  const std::string allowed = two_d ? "[x, y] whole numbers >= 1, x·y <= 1024 threads" : kBlockAllowed;
  if (two_d && c.size() != 2) bad(ex, in->line, field, "needs exactly [x, y]", allowed);
  double threads = 1;  // x·y·z, as a double: a thought experiment's may be past any integer
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] < 1) {
      bad(ex, in->line, field, std::string("dimension ") + "xyz"[i] + " = " + std::to_string(c[i]) +
          " gives 0 threads", allowed);
    }
    if (!ex.beyond_device && c[i] > kMaxBlockDim[i]) {
      bad(ex, in->line, field, std::string("dimension ") + "xyz"[i] + " = " + std::to_string(c[i]) +
          " is over the device limit of " + std::to_string(kMaxBlockDim[i]), allowed);
    }
    threads *= static_cast<double>(c[i]);
  }
  // Even a thought experiment states a count a number holds: x·y·z past 2^53 wraps every answer.
  if (threads > kLargestExactWhole) {
    bad(ex, in->line, field, "x·y·z = " + exact_number(threads) + " threads is past 2^53, which no answer can state",
        "x·y·z at most 2^53 = 9007199254740992 threads, even beyond the device");
  }
  if (!ex.beyond_device && threads > kMaxThreadsPerBlock) {
    bad(ex, in->line, field, exact_number(threads) + " threads is over the device limit of " +
        std::to_string(kMaxThreadsPerBlock) + " a block", allowed);
  }
}

void check_range(const Example& ex, const std::string& field, double lo, double hi, bool lo_open,
                 const std::string& allowed) {
  const Input* in = get(ex, field);
  if (in == nullptr) return;
  const double v = in->value.number;
  if ((lo_open ? !(v > lo) : !(v >= lo)) || v > hi) {
    std::string problem = field + " = " + exact_number(v) + " is out of range";
    if (v > hi) problem += " (at most " + exact_number(hi) + ")";
    bad(ex, in->line, field, problem, allowed);
  }
}

bool power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

void validate_inputs(const Example& ex) {
  const double kHuge = 1e15;
  if (ex.kind == "block_shape" || ex.kind == "thread_map") {
    check_block(ex, "block", false);
  }
  if (ex.kind == "thread_map") {
    const int given = (get(ex, "thread") ? 1 : 0) + (get(ex, "linear") ? 1 : 0) + (get(ex, "warp") ? 1 : 0);
    if (given != 1) {
      bad(ex, ex.line, "thread", "a thread_map example names exactly one of thread, linear, warp (it names " +
          std::to_string(given) + ")", "thread = [x, y, z], linear = N or warp = W");
    }
    std::vector<long long> b = get(ex, "block")->value.coord;
    while (b.size() < 3) b.push_back(1);
    const long long p = b[0] * b[1] * b[2];
    if (const Input* t = get(ex, "thread")) {
      std::vector<long long> c = t->value.coord;
      while (c.size() < 3) c.push_back(0);
      for (int i = 0; i < 3; ++i) {
        if (c[i] < 0 || c[i] >= b[i]) {
          bad(ex, t->line, "thread", std::string("coordinate ") + "xyz"[i] + " = " + std::to_string(c[i]) +
              " is outside the block", "0 <= t < block in each dimension");
        }
      }
    }
    if (get(ex, "linear")) check_range(ex, "linear", 0, static_cast<double>(p - 1), false, "0.." + std::to_string(p - 1));
    if (get(ex, "warp")) check_range(ex, "warp", 0, static_cast<double>((p - 1) / model::kWarpSize), false,
                                     "0.." + std::to_string((p - 1) / model::kWarpSize) + " (the block's warps)");
  }
  if (ex.kind == "grid_tail") {
    check_range(ex, "threads", 1, kHuge, false, "a whole number >= 1");
    check_range(ex, "block_threads", 1, ex.beyond_device ? kHuge : kMaxThreadsPerBlock, false,
                "1..1024 (the CUDA programming model's limit a block)");
  }
  if (ex.kind == "divergence") {
    const Input* in = get(ex, "paths");
    int total = 0;
    for (const auto& p : in->value.paths) {
      if (p.lanes < 0 || p.lanes > model::kWarpSize) {
        bad(ex, in->line, "paths", "a path of " + std::to_string(p.lanes) + " lanes", "0..32 lanes a path, 32 over all paths (one warp)");
      }
      if (!(p.cost >= 0) || !std::isfinite(p.cost)) bad(ex, in->line, "paths", "a path cost of " + exact_number(p.cost), "a cost from 0 to 1e15");
      total += p.lanes;
    }
    if (total > model::kWarpSize) {
      bad(ex, in->line, "paths", "the split puts " + std::to_string(total) + " lanes on the paths, more than one warp",
          "at most 32 lanes over all paths");
    }
    // A warp that runs the branch has a lane on some path: with none, every path's cost drops out
    // and the slowdown is 0, an answer of no warp.
    if (total == 0) {
      bad(ex, in->line, "paths", "no lane on any path", "at least 1 lane over all paths (the warp that runs the branch)");
    }
    check_range(ex, "uniform_cost", 0, kHuge, true, "a number > 0 (the time of the warp when no lane disagrees)");
    if (const Input* s = get(ex, "shape")) {
      const std::string& v = s->value.text;
      if (v != "if_else" && v != "switch" && v != "nested") bad(ex, s->line, "shape", "'" + v + "'", "if_else, switch, nested");
      if (v == "if_else" && in->value.paths.size() != 2) bad(ex, s->line, "shape", "an if_else needs exactly 2 paths", "2 paths");
      if (v == "nested" && in->value.paths.size() > 4) bad(ex, s->line, "shape", "a nested if has at most 4 leaves", "1..4 paths");
    }
  }
  if (ex.kind == "latency_hiding") {
    check_range(ex, "latency", 0, kHuge, false, "L >= 0 cycles");
    check_range(ex, "instructions", 0, kHuge, true, "W > 0 instructions between loads");
    check_range(ex, "warp_cap", 1, kHuge, false, "a whole number >= 1 (resident warps a SM)");
  }
  if (ex.kind == "scheduler_demand") {
    check_range(ex, "schedulers", 1, 64, false, "1..64 warp schedulers a SM");
    check_range(ex, "latency", 0, kHuge, false, "L >= 0 cycles");
    check_range(ex, "issue_interval", 0, kHuge, true, "T_issue > 0 cycles");
    check_range(ex, "instructions_per_warp", 0, kHuge, true, "I_warp > 0 instructions");
    check_range(ex, "warp_cap", 1, kHuge, false, "a whole number >= 1 (resident warps a SM)");
  }
  if (ex.kind == "coalescing") {
    const Input* e = get(ex, "elem_bytes");
    const double eb = e->value.number;
    if (eb != 1 && eb != 2 && eb != 4 && eb != 8 && eb != 16) bad(ex, e->line, "elem_bytes", "elem_bytes = " + std::to_string(static_cast<long long>(eb)), "1, 2, 4, 8 or 16");
    const int patterns = (get(ex, "stride") ? 1 : 0) + (get(ex, "block") ? 1 : 0) + (get(ex, "block_threads") ? 1 : 0);
    if (patterns != 1) {
      bad(ex, ex.line, "stride", "a coalescing example names exactly one access pattern (it names " + std::to_string(patterns) + ")",
          "stride (with offset), block = [x, y] with image = [width, height], or block_threads");
    }
    check_range(ex, "stride", 1, 1 << 20, false, "a whole number >= 1 (elements between lanes; stride 0 is not a strided access)");
    check_range(ex, "offset", 0, 1 << 20, false, "a whole number >= 0 (elements from the line's start)");
    if (get(ex, "offset") && !get(ex, "stride")) bad(ex, get(ex, "offset")->line, "offset", "offset goes with stride", "offset only with stride");
    check_range(ex, "block_threads", 1, kMaxThreadsPerBlock, false, "1..1024 threads");
    if (get(ex, "block")) {
      check_block(ex, "block", true);
      const Input* im = get(ex, "image");
      if (im == nullptr) bad(ex, get(ex, "block")->line, "image", "a 2D block needs the image it reads", "image = [width, height]");
      const auto& c = im->value.coord;
      if (c.size() != 2 || c[0] < 1 || c[1] < 1 || c[0] > 65536 || c[1] > 65536) {
        bad(ex, im->line, "image", "not a width and a height", "[width, height], 1..65536 each");
      }
      if ((c[0] * c[1] * static_cast<long long>(eb)) % coalescing::kLineBytes != 0) {
        bad(ex, im->line, "image", "width·height·elem_bytes is not a whole number of 128-byte lines",
            "an image whose bytes fill whole 128-byte lines (the model's frames are line-aligned)");
      }
    } else if (get(ex, "image")) {
      bad(ex, get(ex, "image")->line, "image", "image goes with a 2D block", "image only with block = [x, y]");
    }
  }
  if (ex.kind == "stream_bandwidth") {
    check_range(ex, "sms", 1, 1024, false, "1..1024 SMs");
    check_range(ex, "schedulers", 1, 64, false, "1..64 warp schedulers a SM");
    check_range(ex, "warps_per_sm", 1, 1024, false, "1..1024 warps a SM");
    const Input* lb = get(ex, "load_bytes");
    const double b = lb->value.number;
    if (b != 1 && b != 2 && b != 4 && b != 8 && b != 16) bad(ex, lb->line, "load_bytes", "load_bytes = " + std::to_string(static_cast<long long>(b)), "1, 2, 4, 8 or 16");
    check_range(ex, "loads_in_flight", 1, 64, false, "1..64 loads a lane before one is used");
    check_range(ex, "instructions", 0, kHuge, true, "I > 0 warp instructions an iteration");
    check_range(ex, "unloaded_cycles", 0, kHuge, true, "T0 > 0 cycles an iteration at one warp a SM");
    check_range(ex, "latency", 0, kHuge, true, "Λ(0) > 0 cycles a load at low throughput");
    check_range(ex, "loaded_latency", 0, kHuge, true, "Λ(peak) > 0 cycles a load at the peak");
    check_range(ex, "peak_gbps", 0, kHuge, true, "the DRAM ceiling > 0 GB/s");
    check_range(ex, "issue_rate", 0, 64, true, "r_sat > 0 warp instructions a cycle a scheduler");
    check_range(ex, "clock_mhz", 0, 100000, true, "the SM clock > 0 MHz");
    check_range(ex, "warp_cap", 1, 1024, false, "1..1024 resident warps a SM: the knee over 1..cap");
    if (get(ex, "loaded_latency")->value.number < get(ex, "latency")->value.number) {
      bad(ex, get(ex, "loaded_latency")->line, "loaded_latency", "below the unloaded latency", "loaded_latency >= latency (a load never gets faster as DRAM gets busier)");
    }
  }
  if (ex.kind == "stream_greedy_bandwidth") {
    check_range(ex, "sms", 1, 1024, false, "1..1024 SMs");
    check_range(ex, "schedulers", 1, 64, false, "1..64 warp schedulers a SM");
    check_range(ex, "warps_per_sm", 1, 64, false, "1..64 warps a SM (the loops are sm_90's, whose SMs hold 64)");
    const Input* w = get(ex, "alu_per_load");
    const double wv = w->value.number;
    if (wv != std::floor(wv) || wv < 0 || !model::streaming::suite_read_independent_program(static_cast<int>(wv))) {
      bad(ex, w->line, "alu_per_load", "alu_per_load = " + std::to_string(static_cast<long long>(wv)) + " is not a loop the suite knows",
          "0, 1, 2, 4, 8, 16, 32, 64, 128 or 256 (the 16-byte read_independent kernels nvcc 13.0 builds for sm_90)");
    }
    check_range(ex, "latency", 0, kHuge, true, "Λ(0) > 0 cycles a load at low throughput");
    check_range(ex, "loaded_latency", 0, kHuge, true, "Λ(peak) > 0 cycles a load at the peak");
    check_range(ex, "peak_gbps", 0, kHuge, true, "the DRAM ceiling > 0 GB/s");
    check_range(ex, "sigma", 0, kHuge, false, "sigma >= 0 cycles of a load's latency spread");
    check_range(ex, "constant_cycles", 0, kHuge, false, "C >= 0 cycles the loop's constant load takes");
    check_range(ex, "clock_mhz", 0, 100000, true, "the SM clock > 0 MHz");
    check_range(ex, "warp_cap", 1, 64, false, "1..64 resident warps a SM (the loops are sm_90's, whose SMs hold 64)");
    if (get(ex, "loaded_latency")->value.number < get(ex, "latency")->value.number) {
      bad(ex, get(ex, "loaded_latency")->line, "loaded_latency", "below the unloaded latency", "loaded_latency >= latency (a load never gets faster as DRAM gets busier)");
    }
  }
  if (ex.kind == "block_stream_bandwidth") {
    check_range(ex, "sms", 1, 1024, false, "1..1024 SMs");
    const Input* p = get(ex, "block_threads");
    const double threads = p->value.number;
    const bool in_range = threads >= model::kWarpSize && threads <= kMaxThreadsPerBlock;
    if (!in_range || std::fmod(threads, model::kWarpSize) != 0) {
      bad(ex, p->line, "block_threads",
          "block_threads = " + std::to_string(static_cast<long long>(threads)) +
              (in_range ? " is not a whole number of warps" : " is out of range"),
          "a multiple of 32 from 32 to 1024 threads (whole warps, as read_one_per_thread launches)");
    }
    if (const Input* lb = get(ex, "load_bytes")) {
      const double b = lb->value.number;
      if (b != 1 && b != 2 && b != 4 && b != 8 && b != 16) bad(ex, lb->line, "load_bytes", "load_bytes = " + std::to_string(static_cast<long long>(b)), "1, 2, 4, 8 or 16");
    }
    check_range(ex, "resident_blocks", 1, 64, false, "1..64 blocks an SM holds at once");
    check_range(ex, "turnover_cycles", 0, kHuge, true, "D > 0 cycles an SM spends a block without its load");
    check_range(ex, "latency", 0, kHuge, true, "Λ(0) > 0 cycles a load at low throughput");
    check_range(ex, "loaded_latency", 0, kHuge, true, "Λ(peak) > 0 cycles a load at the peak");
    check_range(ex, "peak_gbps", 0, kHuge, true, "the DRAM ceiling > 0 GB/s");
    check_range(ex, "clock_mhz", 0, 100000, true, "the SM clock > 0 MHz");
    if (get(ex, "loaded_latency")->value.number < get(ex, "latency")->value.number) {
      bad(ex, get(ex, "loaded_latency")->line, "loaded_latency", "below the unloaded latency", "loaded_latency >= latency (a load never gets faster as DRAM gets busier)");
    }
  }
  if (ex.kind == "grid_tail_time") {
    for (const char* f : {"fixed_us_tail", "fixed_us_full", "cycles_per_fma_tail", "cycles_per_fma_full", "fma_per_thread", "clock_mhz"}) {
      check_range(ex, f, 0, kHuge, true, "a number > 0");
    }
    check_range(ex, "floor_us", 0, kHuge, false, "a number >= 0 (the launch floor taken off both times)");
  }
  if (ex.kind == "divergence_grid") {
    check_range(ex, "trips", 0, kHuge, false, "S_cfg >= 0 trips a warp over its populated paths");
    check_range(ex, "reference_trips", 0, kHuge, true, "S_ref > 0 trips of the uniform reference");
    check_range(ex, "fixed_us", 0, kHuge, false, "F >= 0 us");
    check_range(ex, "us_per_trip", 0, kHuge, true, "t > 0 us a trip");
  }
  if (ex.kind == "coalescing_bandwidth") {
    const Input* e = get(ex, "elem_bytes");
    const double b = e->value.number;
    if (b != 1 && b != 2 && b != 4 && b != 8 && b != 16) bad(ex, e->line, "elem_bytes", "elem_bytes = " + std::to_string(static_cast<long long>(b)), "1, 2, 4, 8 or 16");
    check_range(ex, "stride", 1, 1 << 20, false, "a whole number >= 1 (elements between lanes)");
    check_range(ex, "offset", 0, 1 << 20, false, "a whole number >= 0 (elements from the line's start)");
    const Input* level = get(ex, "level");
    if (level != nullptr && level->value.text != "dram" && level->value.text != "l2" && level->value.text != "store") {
      bad(ex, level->line, "level", "'" + level->value.text + "'", "dram (loads, 64-byte granules), l2 (loads, sectors), store (sectors + read-back)");
    }
    check_range(ex, "moved_rate_gbps", 0, kHuge, true, "R(D) > 0 GB/s: the level's moved-byte rate at this lane spacing");
    check_range(ex, "in_flight_gbps", 0, kHuge, true, "> 0 GB/s: the bytes-in-flight bound (Little's law)");
    check_range(ex, "request_rate_gps", 0, kHuge, true, "> 0 G warp requests/s: the request-rate ceiling");
    if (const Input* g = get(ex, "granule_bytes")) {
      const double v = g->value.number;
      if (v != 32 && v != 64 && v != 96 && v != 128) {
        bad(ex, g->line, "granule_bytes", "granule_bytes = " + std::to_string(static_cast<long long>(v)), "32, 64, 96 or 128 (whole 32-byte sectors)");
      }
    }
  }
  if (ex.kind == "primitive_throughput") {
    check_range(ex, "warps_per_sm", 1, 1024, false, "1..1024 warps a SM");
    check_range(ex, "chains", 1, 64, false, "1..64 independent chains a warp (default 4)");
    check_range(ex, "latency_cycles", 0, kHuge, true, "L > 0 cycles: one chain's latency an op");
    check_range(ex, "pipe_ops_per_cycle", 0, kHuge, true, "P > 0 warp-ops a cycle an SM at full residency");
    check_range(ex, "warp_cap", 1, 1024, false, "resident warps a SM, >= 1: the knee over 1..cap");
  }
  if (ex.kind == "warp_primitive") {
    const Input* p = get(ex, "primitive");
    static const std::vector<std::string> kPrimitives = {
        "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "ballot_sync", "any_sync", "all_sync",
        "match_any_sync", "match_all_sync", "reduce_add_sync", "reduce_min_sync", "reduce_max_sync",
        "syncwarp", "activemask", "butterfly_reduction"};
    if (std::find(kPrimitives.begin(), kPrimitives.end(), p->value.text) == kPrimitives.end()) {
      bad(ex, p->line, "primitive", "'" + p->value.text + "'", join(kPrimitives));
    }
    check_range(ex, "active_lanes", 1, model::kWarpSize, false, "1..32");
    if (const Input* l = get(ex, "lanes")) {
      if (!power_of_two(static_cast<long long>(l->value.number)) || l->value.number < 2 || l->value.number > 32) {
        bad(ex, l->line, "lanes", "lanes = " + std::to_string(static_cast<long long>(l->value.number)), "a power of two from 2 to 32");
      }
    }
    const bool reduction = p->value.text == "butterfly_reduction";
    for (const char* f : {"lanes", "shuffle_cycles", "add_cycles"}) {
      if (!reduction && get(ex, f)) bad(ex, get(ex, f)->line, f, "only a butterfly_reduction takes it", "primitive = \"butterfly_reduction\"");
    }
    check_range(ex, "shuffle_cycles", 0, kHuge, true, "a latency > 0 cycles");
    check_range(ex, "add_cycles", 0, kHuge, true, "a latency > 0 cycles");
  }
}

// ---- one example from a toml table -------------------------------------------------------------

// The table's inputs into `ex`, each of its kind and read as its type (no range checks).
void read_inputs(Example& ex, const KindSpec& spec, const toml::table& t) {
  std::vector<std::string> input_names;
  for (const auto& f : spec.inputs) input_names.push_back(f.name);
  for (const auto& [key, node] : t) {
    const std::string k(key.str());
    if (kExampleKeys.count(k)) continue;
    if (std::find(input_names.begin(), input_names.end(), k) == input_names.end()) {
      bad(ex, line_of(node), k, "unknown field for kind " + ex.kind,
          join(input_names) + " (and id, title, kind, note, beyond_device, answer)");
    }
    ex.inputs[k] = input_from_node(ex, k, input_types().at(k), node);
  }
}

Example example_from_table(const toml::table& t, const std::string& source, int index) {
  Example ex;
  ex.source = source;
  ex.line = line_of(t);
  ex.id = "#" + std::to_string(index + 1);
  if (const auto* id = t.get("id")) {
    auto s = id->value_exact<std::string>();
    if (!s || s->empty()) bad(ex, line_of(*id), "id", "not a string", "a non-empty string, unique in the file");
    ex.id = *s;
  } else {
    bad(ex, ex.line, "id", "missing", "a non-empty string, unique in the file");
  }
  if (const auto* title = t.get("title")) {
    auto s = title->value_exact<std::string>();
    if (!s) bad(ex, line_of(*title), "title", "not a string", "a string");
    ex.title = *s;
  }
  if (const auto* note = t.get("note"); note && !note->value_exact<std::string>()) {
    bad(ex, line_of(*note), "note", "not a string", "a string");
  }
  const auto* kind = t.get("kind");
  if (kind == nullptr || !kind->value_exact<std::string>()) {
    bad(ex, kind ? line_of(*kind) : ex.line, "kind", "missing or not a string", kind_list());
  }
  ex.kind = *kind->value_exact<std::string>();
  const KindSpec* spec = find_kind(ex.kind);
  if (spec == nullptr) bad(ex, line_of(*kind), "kind", "unknown kind '" + ex.kind + "'", kind_list());
  if (const auto* b = t.get("beyond_device")) {
    auto v = b->value_exact<bool>();
    if (!v) bad(ex, line_of(*b), "beyond_device", "not true or false", "true or false");
    ex.beyond_device = *v;
  }
  read_inputs(ex, *spec, t);
  for (const auto& f : spec->inputs) {
    if (f.required && ex.inputs.count(f.name) == 0) bad(ex, ex.line, f.name, "missing", f.allowed);
  }
  validate_inputs(ex);
  const auto* answer = t.get("answer");
  const toml::table* answers = answer ? answer->as_table() : nullptr;
  if (answer != nullptr && answers == nullptr) {
    bad(ex, line_of(*answer), "answer", "not a table", "answer = { " + join(spec->answers) + " }");
  }
  if (answers == nullptr || answers->empty()) {
    bad(ex, ex.line, "answer", "missing: the example states no answer to check",
        "an [example.answer] table with one or more of " + join(spec->answers));
  }
  for (const auto& [key, node] : *answers) {
    const std::string k(key.str());
    if (std::find(spec->answers.begin(), spec->answers.end(), k) == spec->answers.end()) {
      bad(ex, line_of(node), "answer." + k, "unknown answer for kind " + ex.kind, join(spec->answers));
    }
    ex.answers.push_back(StatedAnswer{k, stated_from_node(ex, k, node), line_of(node)});
  }
  std::stable_sort(ex.answers.begin(), ex.answers.end(),
            [](const StatedAnswer& a, const StatedAnswer& b) { return a.line < b.line; });
  return ex;
}

std::vector<Example> examples_from_root(const toml::table& root, const std::string& source) {
  Example file;
  file.source = source;
  for (const auto& [key, node] : root) {
    const std::string k(key.str());
    if (k != "example" && k != "title") {
      file.id = "(file)";
      bad(file, line_of(node), k, "unknown top-level key", "title, and [[example]] tables");
    }
  }
  const auto* arr = root.get("example") ? root.get("example")->as_array() : nullptr;
  if (arr == nullptr || arr->empty()) {
    file.id = "(file)";
    bad(file, 0, "example", "the file holds no [[example]] tables", "one or more [[example]] tables");
  }
  std::vector<Example> out;
  std::set<std::string> ids;
  int index = 0;
  for (const auto& node : *arr) {
    const auto* t = node.as_table();
    if (t == nullptr) {
      file.id = "#" + std::to_string(index + 1);
      bad(file, line_of(node), "example", "not a table", "[[example]] tables");
    }
    Example ex = example_from_table(*t, source, index++);
    if (!ids.insert(ex.id).second) bad(ex, ex.line, "id", "'" + ex.id + "' is used twice", "ids unique in the file");
    out.push_back(std::move(ex));
  }
  return out;
}

// A number as the command line gives it, written as TOML: decimal digits only (no hex, inf or nan),
// whole numbers as integers, others as floats; nullopt when `v` is not such a number.
std::optional<std::string> toml_number_of_argument(const std::string& v) {
  std::size_t i = (!v.empty() && (v[0] == '+' || v[0] == '-')) ? 1 : 0;
  const std::size_t first_digit = i;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
  const std::size_t int_digits = i - first_digit;
  std::size_t frac_digits = 0;
  bool point = false;
  if (i < v.size() && v[i] == '.') {
    point = true;
    const std::size_t f = ++i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    frac_digits = i - f;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  bool exponent = false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    exponent = true;
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    const std::size_t e = i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    if (i == e) return std::nullopt;
  }
  if (i != v.size()) return std::nullopt;
  const double d = std::strtod(v.c_str(), nullptr);
  if (!std::isfinite(d)) return std::nullopt;
  if (!point && !exponent) {
    // A whole number: TOML's integers are 64-bit and take no leading zeros; one of more than 18
    // digits goes on as a float, which a whole-number key calls out of range.
    std::string digits = v.substr(first_digit);
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
    if (digits.size() <= 18) return (v[0] == '-' ? "-" : "") + digits;
  }
  char buf[64];
  if (d == std::floor(d) && std::fabs(d) < kLargestExactWhole) {
    // A whole number however written (1e3, 4.0): an integer, so a whole-number key takes it.
    std::snprintf(buf, sizeof buf, "%.0f", d);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string out = buf;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

// `predict` values: 20:30,12:30 is a list of paths, 48,4,1 a list, true/false, a number, else text.
// Every number is checked here, so nothing the user types is read as TOML syntax.
std::string toml_value_of_argument(const std::string& key, const std::string& v) {
  const auto refuse = [&](const std::string& problem, const std::string& allowed) {
    throw BadInput("warpcost predict: '" + key + "=" + v + "': " + problem + "; allowed: " + allowed);
  };
  // Items of a list, blanks around each dropped ('48, 4, 1' as the shell passes it when quoted).
  const auto trim = [](std::string t) {
    const auto first = t.find_first_not_of(" \t");
    if (first == std::string::npos) return std::string();
    return t.substr(first, t.find_last_not_of(" \t") - first + 1);
  };
  const auto items = [&v, &trim]() {
    std::vector<std::string> out;
    std::string item;
    std::stringstream ss(v);
    while (std::getline(ss, item, ',')) out.push_back(trim(item));
    if (!v.empty() && v.back() == ',') out.emplace_back();
    return out;
  };
  if (v.find(':') != std::string::npos) {
    std::string out = "[";
    for (const auto& item : items()) {
      const auto colon = item.find(':');
      const auto lanes = colon == std::string::npos ? std::nullopt : toml_number_of_argument(trim(item.substr(0, colon)));
      const auto cost = colon == std::string::npos ? std::nullopt : toml_number_of_argument(trim(item.substr(colon + 1)));
      if (!lanes || !cost) refuse("'" + item + "' is not lanes:cost", "paths as lanes:cost,lanes:cost, each a number");
      out += (out.size() > 1 ? ", " : "") + std::string("{ lanes = ") + *lanes + ", cost = " + *cost + " }";
    }
    return out + "]";
  }
  if (v.find(',') != std::string::npos) {
    std::string out = "[";
    for (const auto& item : items()) {
      const auto n = toml_number_of_argument(item);
      if (!n) refuse("'" + item + "' is not a number", "a list of numbers as 48,4,1");
      out += (out.size() > 1 ? ", " : "") + *n;
    }
    return out + "]";
  }
  if (v == "true" || v == "false") return v;
  if (const auto n = toml_number_of_argument(trim(v))) return *n;
  std::string quoted = "\"";
  for (char c : v) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) refuse("a control character", "text, a number or a list");
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// The TOML text of a predict command line (one example, its answer a placeholder the caller drops).
std::string predict_text(const std::string& kind, const std::vector<std::string>& key_values,
                         std::map<std::string, std::string>& given) {
  const KindSpec* spec = find_kind(kind);
  if (spec == nullptr) throw BadInput("warpcost predict: unknown kind '" + kind + "'; allowed: " + kind_list());
  std::string text = "[[example]]\nid = \"predict\"\nkind = \"" + kind + "\"\n";
  for (const auto& kv : key_values) {
    const auto eq = kv.find('=');
    const std::string key = eq == std::string::npos ? kv : kv.substr(0, eq);
    const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (eq == std::string::npos || !bare || kExampleKeys.count(key) || given.count(key)) {
      throw BadInput("warpcost predict: '" + kv + "' is not a new key=value; allowed: the inputs of kind " +
                     kind + " as key=value (lists as 48,4,1; paths as lanes:cost,lanes:cost)");
    }
    const std::string value = kv.substr(eq + 1);
    given[key] = value;
    text += key + " = " + toml_value_of_argument(key, value) + "\n";
  }
  // predict states no answer: one placeholder keeps the file path's "missing answer" rule intact
  // and is dropped by the caller; it is the first answer of the kind, which every kind gives.
  return text + "answer = { " + spec->answers.front() + " = 0 }\n";
}

// A message of the examples reader about predict's text, as the command line gave it: no line of a
// text the user never saw, and the key=value that was refused.
std::string predict_message(const std::string& message, const std::map<std::string, std::string>& given) {
  std::string m = message;
  const std::string prefix = "warpcost predict:";
  const std::string example = "example 'predict'";
  if (m.rfind(prefix, 0) == 0) {
    const auto at = m.find(example);
    if (at != std::string::npos) {
      m = "warpcost predict: " + m.substr(at + example.size() + (m.compare(at + example.size(), 2, ", ") == 0 ? 2 : 0));
    }
  }
  const auto field = m.find("field '");
  if (field != std::string::npos) {
    const auto close = m.find('\'', field + 7);
    const std::string key = close == std::string::npos ? "" : m.substr(field + 7, close - field - 7);
    const auto it = given.find(key);
    if (it != given.end()) m.replace(field, close + 1 - field, "'" + key + "=" + it->second + "'");
  }
  // predict takes no beyond_device (its command line states a kernel a GPU can run): no hint at it.
  if (const auto at = m.find(kBeyondDeviceHint); at != std::string::npos) m.erase(at, kBeyondDeviceHint.size());
  return m;
}

}  // namespace

const std::vector<KindSpec>& kinds() {
  static const std::vector<KindSpec> specs = {
      {"block_shape", "block shape → warps, wasted lanes, tail mask",
       {{"block", kBlockAllowed, true}},
       {"threads", "warps", "full_warps", "last_warp_id", "tail_lanes", "wasted_lanes", "tail_mask", "lane_efficiency"}},
      {"thread_map", "thread (x,y,z) ↔ (warp, lane) in a 1D/2D/3D block",
       {{"block", kBlockAllowed, true},
        {"thread", "[x, y, z] inside the block", false},
        {"linear", "0..threads−1", false},
        {"warp", "0..warps−1", false}},
       {"threads", "warps", "full_warps", "last_warp_id", "tail_lanes", "wasted_lanes", "tail_mask", "lane_efficiency",
        "linear", "warp", "lane", "thread", "first_thread", "last_thread", "active_lanes", "warp_mask"}},
      {"grid_tail", "N threads in blocks of B → blocks, the last block's threads, full warps and lanes",
       {{"threads", "N >= 1", true}, {"block_threads", "B, 1..1024", true}},
       {"blocks", "last_block_threads", "last_block_full_warps", "last_block_partial_lanes", "launched_warps",
        "working_warps", "wasted_lanes"}},
      {"divergence", "lane split and path costs → time and slowdown (if/else, k-way switch, nested)",
       {{"paths", "a list of { lanes = 0..32, cost = number >= 0 }, lanes summing to 1..32", true},
        {"uniform_cost", "a number > 0: the warp's time when no lane disagrees", true},
        {"shape", "if_else, switch or nested (which divergence kernel --measure runs)", false}},
       {"populated_paths", "time", "slowdown", "lane_efficiency"}},
      {"latency_hiding", "ceil(L/W) warps to hide a latency",
       {{"latency", "L >= 0 cycles", true},
        {"instructions", "W > 0 instructions between loads", true},
        {"warp_cap", "resident warps a SM, >= 1", false}},
       {"warps_needed", "hidden", "deficit"}},
      {"scheduler_demand", "N_sched·L/(T_issue·I_warp) warps against the warp cap",
       {{"schedulers", "N_sched, 1..64", true},
        {"latency", "L >= 0 cycles", true},
        {"issue_interval", "T_issue > 0 cycles", true},
        {"instructions_per_warp", "I_warp > 0", true},
        {"warp_cap", "resident warps a SM, >= 1", true}},
       {"instruction_slots", "warps_needed", "fits", "deficit"}},
      {"coalescing", "element size and a stride, a 2D block or a partial block → sectors a request, useful fraction",
       {{"elem_bytes", "1, 2, 4, 8 or 16", true},
        {"stride", "elements between lanes, >= 1", false},
        {"offset", "elements from a line's start, >= 0 (with stride)", false},
        {"block", "[x, y] (with image)", false},
        {"image", "[width, height] of a row-major image (with block)", false},
        {"block_threads", "P threads of one 1D block reading P consecutive elements", false}},
       {"sectors_per_request", "lines_per_request", "useful_fraction"}},
      {"stream_bandwidth", "second-order: a stream's bandwidth at N warps/SM, Little's law in bytes with a loaded latency",
       {{"sms", "S, 1..1024", true},
        {"schedulers", "warp schedulers a SM, 1..64 (default 4)", false},
        {"warps_per_sm", "N, 1..1024", true},
        {"load_bytes", "B: 1, 2, 4, 8 or 16 bytes a lane a load", true},
        {"loads_in_flight", "U: loads a lane issues before using one, 1..64 (default 1)", false},
        {"instructions", "I > 0 warp instructions an iteration (counted, e.g. by ncu)", true},
        {"unloaded_cycles", "T0 > 0 cycles an iteration at one warp a SM", true},
        {"latency", "Λ(0) > 0 cycles a load at low throughput (the loaded-latency locus' lowest-throughput point, a run's loaded_latency_unloaded_cycles row)", true},
        {"loaded_latency", "Λ(peak) >= latency: cycles a load at the DRAM ceiling", true},
        {"peak_gbps", "the DRAM ceiling > 0 GB/s", true},
        {"issue_rate", "r_sat > 0 warp instructions a cycle a scheduler", true},
        {"clock_mhz", "the SM clock > 0 MHz", true},
        {"warp_cap", "resident warps a SM, 1..1024: the knee over 1..cap", false}},
       {"bandwidth_gbps", "warps_per_scheduler", "iteration_cycles", "loaded_latency_cycles", "knee_warps_per_sm"}},
      {"stream_greedy_bandwidth", "second-order: a 16-byte read_independent stream's bandwidth at N warps/SM, greedy-then-oldest issue over the suite kernel's own loop (ISSUE-33-GREEDY-ISSUE)",
       {{"sms", "S, 1..1024", true},
        {"schedulers", "warp schedulers a SM, 1..64 (default 4)", false},
        {"warps_per_sm", "N, 1..64", true},
        {"alu_per_load", "W: which of the suite's loops (0, 1, 2, 4, 8, 16, 32, 64, 128, 256 FFMAs a load; sm_90, nvcc 13.0)", true},
        {"latency", "Λ(0) > 0 cycles an iteration of the W = 0 stream at one warp a SM (a run's loaded_latency_unloaded_cycles row)", true},
        {"loaded_latency", "Λ(peak) >= latency: the same at the DRAM ceiling", true},
        {"peak_gbps", "the DRAM ceiling > 0 GB/s", true},
        {"sigma", "a load's latency spread >= 0 cycles (a run's greedy_latency_sigma_cycles row; default 0)", false},
        {"constant_cycles", "C >= 0 cycles the loop's constant load takes (a run's greedy_constant_latency_cycles row; default 0)", false},
        {"clock_mhz", "the SM clock > 0 MHz", true},
        {"warp_cap", "resident warps a SM, 1..64: the knee over 1..cap", false}},
       {"bandwidth_gbps", "warps_per_scheduler", "iteration_cycles", "loaded_latency_cycles", "knee_warps_per_sm"}},
      {"block_stream_bandwidth", "second-order: the one-load-a-thread stream's bandwidth, k block slots an SM as a closed queue with a loaded latency",
       {{"sms", "S, 1..1024", true},
        {"block_threads", "P: threads a block, a multiple of 32, 32..1024", true},
        {"load_bytes", "bytes a thread loads once: 1, 2, 4, 8 or 16 (default 16)", false},
        {"resident_blocks", "k: blocks an SM holds at once, 1..64", true},
        {"turnover_cycles", "D > 0 cycles an SM spends a block of the same grid without its load (block_turnover_cycles)", true},
        {"latency", "Λ(0) > 0 cycles a load at low throughput (the loaded-latency locus' lowest-throughput point, a run's loaded_latency_unloaded_cycles row)", true},
        {"loaded_latency", "Λ(peak) >= latency: cycles a load at the DRAM ceiling", true},
        {"peak_gbps", "the DRAM ceiling > 0 GB/s", true},
        {"clock_mhz", "the SM clock > 0 MHz", true}},
       {"bandwidth_gbps", "block_cycles", "loaded_latency_cycles", "at_ceiling"}},
      {"grid_tail_time", "second-order: a grid tail's relative time from each launch's fixed cost and cycles an FMA",
       {{"fixed_us_tail", "F(n_tail) > 0 us", true},
        {"fixed_us_full", "F(n_full) > 0 us", true},
        {"cycles_per_fma_tail", "c(n_tail) > 0 cycles an FMA a thread at the tail block's warps a scheduler", true},
        {"cycles_per_fma_full", "c(n_full) > 0 cycles an FMA a thread at a full block's warps a scheduler", true},
        {"fma_per_thread", "FMAs a thread > 0", true},
        {"clock_mhz", "the SM clock > 0 MHz", true},
        {"floor_us", "the launch floor >= 0 us taken off both (default 0)", false}},
       {"relative_time"}},
      {"divergence_grid", "second-order: a grid's slowdown from its fixed cost and its cost a trip",
       {{"trips", "S_cfg >= 0 trips a warp over its populated paths", true},
        {"reference_trips", "S_ref > 0 trips of the uniform reference", true},
        {"fixed_us", "F >= 0 us: launch, prologue, stores", true},
        {"us_per_trip", "t > 0 us a trip at that residency", true}},
       {"slowdown"}},
      {"coalescing_bandwidth", "second-order: a strided request's useful bandwidth from the bytes its level moves at R(D)",
       {{"elem_bytes", "1, 2, 4, 8 or 16", true},
        {"stride", "elements between lanes, >= 1", true},
        {"offset", "elements from a line's start, >= 0 (default 0)", false},
        {"level", "dram (loads, 64-byte granules; default), l2 (loads, sectors) or store (sectors + read-back)", false},
        {"moved_rate_gbps", "R(D) > 0 GB/s: the level's moved-byte rate at lane spacing D = elem_bytes·stride", true},
        {"in_flight_gbps", "> 0 GB/s: the bytes-in-flight bound of the launch (Little's law; optional)", false},
        {"request_rate_gps", "> 0 G warp requests/s: the request-rate ceiling (a run's request_rate row; for a store that writes part of a sector, its store_partial_request_rate row; optional)", false},
        {"granule_bytes", "DRAM loads' granule: 32, 64, 96 or 128 bytes (a run's dram_granule_bytes row; default 64)", false}},
       {"moved_bytes_per_request", "useful_per_moved", "useful_bandwidth_gbps"}},
      {"primitive_throughput", "second-order: a warp primitive's throughput at W warps/SM, a closed queue at the SM's pipe",
       {{"warps_per_sm", "W, 1..1024", true},
        {"chains", "c: independent chains a warp, 1..64 (default 4)", false},
        {"latency_cycles", "L > 0 cycles an op of one chain (its latency benchmark)", true},
        {"pipe_ops_per_cycle", "P > 0 warp-ops a cycle an SM at full residency", true},
        {"warp_cap", "resident warps a SM, >= 1: the knee over 1, 2, 4, ..., cap (the suite's sweep)", false}},
       {"ops_per_cycle_per_sm", "knee_warps_per_sm"}},
      {"warp_primitive", "cost of a warp primitive by active lanes, or of a warp reduction",
       {{"primitive", "shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync, ballot_sync, any_sync, all_sync, "
                      "match_any_sync, match_all_sync, reduce_add_sync, reduce_min_sync, reduce_max_sync, syncwarp, "
                      "activemask, butterfly_reduction", true},
        {"active_lanes", "1..32 (default 32)", false},
        {"lanes", "a power of two 2..32 reduced over (butterfly_reduction; default 32)", false},
        {"shuffle_cycles", "a shuffle's latency > 0 (butterfly_reduction)", false},
        {"add_cycles", "an add's latency > 0 (butterfly_reduction)", false}},
       {"cost_vs_full_warp", "reduction_steps", "reduction_cycles"}},
  };
  return specs;
}

std::vector<Example> read_examples_text(const std::string& text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream m;
    m << source << ":" << e.source().begin.line << ": not TOML: " << e.description()
      << "; allowed: a TOML file of [[example]] tables (docs/worked-examples.md)";
    throw BadInput(m.str());
  }
  return examples_from_root(root, source);
}

std::vector<Example> read_examples_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw BadInput(path + ": is a folder; allowed: a TOML examples file");
  // A device or a pipe never ends (/dev/zero grew to gigabytes): a file, of a size a text file has.
  constexpr std::uintmax_t kLargestFile = 16u << 20;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw BadInput(path + ": is not a regular file (a device, pipe or socket); allowed: a TOML examples file");
  }
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kLargestFile) {
    throw BadInput(path + ": is " + std::to_string(size) + " bytes; allowed: a TOML examples file of at most 16 MiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput(path + ": cannot be read; allowed: a readable TOML examples file");
  std::ostringstream text;
  text << in.rdbuf();
  return read_examples_text(text.str(), path);
}

Example example_from_arguments(const std::string& kind, const std::vector<std::string>& key_values) {
  std::map<std::string, std::string> given;
  const std::string text = predict_text(kind, key_values, given);
  try {
    auto examples = read_examples_text(text, "warpcost predict");
    Example ex = examples.front();
    ex.answers.clear();
    // No line of predict's own text in later messages (the model's refusals): the user never saw it.
    ex.line = 0;
    for (auto& [name, input] : ex.inputs) input.line = 0;
    return ex;
  } catch (const BadInput& e) {
    throw BadInput(predict_message(e.what(), given));
  }
}

std::string kind_names() { return kind_list(); }

void check_predict_arguments(const std::string& kind, const std::vector<std::string>& key_values) {
  std::map<std::string, std::string> given;
  const std::string text = predict_text(kind, key_values, given);
  try {
    const toml::table root = toml::parse(text, std::string("warpcost predict"));
    const toml::table& t = *root.get("example")->as_array()->front().as_table();
    Example ex;
    ex.source = "warpcost predict";
    ex.id = "predict";
    ex.kind = kind;
    read_inputs(ex, *find_kind(kind), t);
  } catch (const toml::parse_error& e) {
    throw BadInput("warpcost predict: not readable: " + std::string(e.description()) +
                   "; allowed: key=value with numbers, lists as 48,4,1 and paths as lanes:cost,lanes:cost");
  } catch (const BadInput& e) {
    throw BadInput(predict_message(e.what(), given));
  }
}

}  // namespace warpcost::examples
