// The warp-primitives family's host side: the plan (a pure function of a small device-facts struct,
// so a device profile or a live cudaDeviceProp can feed it), each parameter's validator, the launch
// shape of a point, and the host reference of every chain the kernels' outputs are checked against.
// No CUDA here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/warp_primitives/model.hpp"
#include "core/warp_primitives/schema.hpp"

namespace warpcost::warp_primitives {

// What the plan needs to know about a device.
struct DeviceFacts {
  int cc = 0;                     // 10 x major + minor
  int sm_count = 0;
  int max_warps_per_sm = 0;       // the residency cap the throughput sweep ends at
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
};
// "" or one sentence naming the first fact out of range.
std::string facts_problem(const DeviceFacts& f);

enum class Kind { kLatency, kThroughput };
inline constexpr Kind kKinds[] = {Kind::kLatency, Kind::kThroughput};

struct Point {
  Kind kind = Kind::kLatency;
  int primitive = 0;
  int warps_per_sm = 1;  // throughput only (latency: one warp an SM)
  int active_lanes = 32;
  int mask = 0;          // MaskShape
  bool counted = false;  // the counter pass profiles this point
};

const char* bench_name(Kind kind);
std::vector<std::string> arg_names(Kind kind);
std::vector<long long> args_of(const Point& p);
Point point_from_args(Kind kind, const std::vector<long long>& args);

// Ops a chain runs: latency 2048 (clock reads and loop entry < 0.5 %), throughput 512 a chain.
inline constexpr int kLatencyOps = 2048;
inline constexpr int kThroughputOps = 512;
inline constexpr std::uint32_t kSeed = 12345;
inline constexpr std::uint32_t kDelta = 1;

// The warps/SM the throughput sweep visits: 1, 2, 4, ... below the cap, then the cap itself.
std::vector<int> warps_sweep(const DeviceFacts& f);
// The plan: every point of the family on this device, in registration order. Reductions are left
// out below cc 8.0 (primitives_model.hpp: available()).
std::vector<Point> plan(const DeviceFacts& f);
bool in_plan(const Point& p, const DeviceFacts& f);

// Each parameter's validator: "" or one sentence naming the value and what is allowed.
std::string primitive_problem(long long primitive, int cc);
std::string lanes_problem(long long lanes);
std::string mask_problem(long long mask, long long lanes);
std::string warps_problem(long long warps, const DeviceFacts& f);
std::string point_problem(const Point& p, const DeviceFacts& f);

struct Shape {
  unsigned blocks = 0;
  unsigned threads_per_block = 0;
  int blocks_per_sm = 0;
  int chains = 1;
  std::uint32_t ops = 0;
  std::uint32_t mask_a = 0;
  std::uint32_t mask_b = 0;
};
// The launch of a point: latency one 32-thread block an SM; throughput warps/SM spread over the
// fewest equal blocks an SM that fit the block limit, one wave (every block resident at once).
Shape shape_of(const Point& p, const DeviceFacts& f);

// The host reference of one warp's chains: per lane and chain, the final value (as the kernel
// stores it), or empty where the primitive leaves it undefined (a shuffle from a lane outside the
// mask) or the lane runs no chain. activemask's value is not predicted (empty): the check holds it
// to the side's mask instead (reference_activemask_ok).
std::vector<std::optional<unsigned long long>> reference_warp(int primitive, const Shape& s);
// activemask: whether a final value differs from its start only in lanes of its side's mask.
bool reference_activemask_ok(const Shape& s, int lane, int chain, unsigned long long value);

// Per-SM throughput from block spans: for each SM, (warp-ops its blocks ran) / (last end - first
// start); the median over SMs. `ops_per_block` is the same for every block.
struct SpanRecord {
  long long start;
  long long end;
  unsigned smid;
};
struct SmThroughput {
  double median_ops_per_cycle = 0.0;
  double median_span_cycles = 0.0;
  int sms = 0;
};
SmThroughput per_sm_throughput(const std::vector<SpanRecord>& spans, double ops_per_block);

// Latency from warp clocks: per warp, (last side's end - first side's start) / ops; the median over
// warps that ran. Each warp has two sides' records; a side that did not run has start = end = 0.
struct SideRecord {
  long long start;
  long long end;
};
double median_cycles_per_op(const std::vector<SideRecord>& sides, std::uint32_t ops);

}  // namespace warpcost::warp_primitives
