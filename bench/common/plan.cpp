#include "bench/common/plan.hpp"

namespace warpcost::plan {
namespace {

std::vector<Planner>& planners() {
  static std::vector<Planner> all;
  return all;
}

}  // namespace

Plan::Handle Plan::benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                             std::function<void(benchmark::State&)> body, benchmark::TimeUnit unit) {
  Handle b = benchmark::RegisterBenchmark(name.c_str(), std::move(body));
  b->ArgNames(arg_names)->Iterations(1)->UseManualTime()->Unit(unit);
  registered_[b] = Registered{name, arg_names, {}};
  return b;
}

void Plan::add(Handle b, const std::vector<std::int64_t>& args, const std::string& why_not) {
  Registered& r = registered_.at(b);
  if (!why_not.empty()) {
    std::string point = r.name;
    for (std::size_t i = 0; i < args.size(); ++i) {
      point += "/" + (i < r.arg_names.size() ? r.arg_names[i] + ":" : std::string()) + std::to_string(args[i]);
    }
    for (const auto& o : omitted_) {
      if (o.point == point) return;
    }
    omitted_.push_back({point, why_not});
    return;
  }
  if (!r.args.insert(args).second) return;
  b->Args(args);
  ++points_;
}

bool add_planner(Planner planner) {
  planners().push_back(std::move(planner));
  return true;
}

void plan_suite(Plan& plan) {
  for (const auto& p : planners()) p(plan);
}

std::string residency_problem(const DeviceFacts& device, int warps) {
  if (warps <= device.max_warps_per_sm) return {};
  return "warps per SM = " + std::to_string(warps) + "; the " + device.label() + " holds at most " +
         std::to_string(device.max_warps_per_sm);
}

std::string memory_problem(const DeviceFacts& device, std::uint64_t bytes, const std::string& what) {
  const auto room = static_cast<std::uint64_t>(device.global_memory_bytes) / 2;
  if (bytes <= room) return {};
  return what + " needs " + std::to_string(bytes) + " bytes; the " + device.label() + " has " +
         std::to_string(device.global_memory_bytes) + " and the plan leaves half of it free";
}

}  // namespace warpcost::plan
