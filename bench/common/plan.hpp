// The suite's plan, made from the device's facts (device_facts.hpp): each family adds a planner
// (add_planner, once at static initialisation); main() makes the facts (the device, or a profile
// with --device_profile) and calls plan_suite, which registers every point the device can run with
// Google Benchmark and keeps, with its reason, every point it cannot ("not on this GPU"). A point
// left out is never an error: the run goes on without it and says so.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/device_facts.hpp"

namespace warpcost::plan {

struct Omission {
  std::string point;  // "divergence/split_low/k:0/if_trips:384/else_trips:384/warps_per_sm:64"
  std::string why;    // "warps per SM = 64; the NVIDIA Tesla T4 holds at most 32"
};

class Plan {
 public:
  using Handle = benchmark::internal::Benchmark*;
  explicit Plan(DeviceFacts facts) : facts_(std::move(facts)) {}
  const DeviceFacts& device() const { return facts_; }

  // Registers one benchmark: its run name, argument names and body; one timed iteration, manual time.
  Handle benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                   std::function<void(benchmark::State&)> body, benchmark::TimeUnit unit);
  // Adds one point unless `why_not` says why the device cannot run it (then it is kept as an
  // omission) or the benchmark already has these arguments (a sweep whose top meets the device's
  // cap: the point is planned once).
  void add(Handle b, const std::vector<std::int64_t>& args, const std::string& why_not = {});

  const std::vector<Omission>& omitted() const { return omitted_; }
  std::size_t points() const { return points_; }

 private:
  struct Registered {
    std::string name;
    std::vector<std::string> arg_names;
    std::set<std::vector<std::int64_t>> args;
  };
  DeviceFacts facts_;
  std::map<Handle, Registered> registered_;
  std::vector<Omission> omitted_;
  std::size_t points_ = 0;
};

using Planner = std::function<void(Plan&)>;
// Called once by each family at static initialisation; returns true (for a namespace-scope bool).
bool add_planner(Planner planner);
// Every family's planner, in the order they were added (the link order, as the registrations were).
void plan_suite(Plan& plan);

// "" when `warps` warps/SM fit the device's cap, else the reason it cannot be run there.
std::string residency_problem(const DeviceFacts& device, int warps);
// "" when `bytes` of device buffers leave half the device's memory free, else the reason.
std::string memory_problem(const DeviceFacts& device, std::uint64_t bytes, const std::string& what);

}  // namespace warpcost::plan
