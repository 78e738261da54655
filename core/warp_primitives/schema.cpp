#include "core/warp_primitives/schema.hpp"

namespace warpcost::schema::warp_primitives {

namespace names = warpcost::warp_primitives;

const FamilyDescriptor& descriptor() {
  namespace bench = names::bench;
  namespace param = names::param;
  namespace work = names::work;
  static const std::vector<const char*> metrics = [] {
    std::vector<const char*> m;
    for (const std::string& name : names::counter_metrics()) m.push_back(name.c_str());
    return m;
  }();
  static const FamilyDescriptor d{
      names::kFamily,
      {{bench::kLatency, {param::kPrimitive, param::kActiveLanes, param::kMask}},
       {bench::kThroughput, {param::kPrimitive, param::kWarpsPerSm, param::kActiveLanes, param::kMask}}},
      {{param::kPrimitive, "id", "the primitive timed (primitives_model.hpp: Primitive)"},
       {param::kActiveLanes, "lanes", "lanes in the primitive's mask; the others skip the chain"},
       {param::kMask, "id", "0 contiguous lanes, 1 scattered lanes, 2 both sides of a divergent branch"},
       {param::kWarpsPerSm, "warps", "resident warps an SM"}},
      {{work::kCyclesPerOp, "cycles"}, {work::kOpsPerCycleSm, "warp-ops/cycle"},
       {work::kSmSpanCycles, "cycles"}, {work::kOpsPerWarp, "count"}, {work::kChainsPerWarp, "count"},
       {work::kWarpsLaunched, "count"}, {work::kBodyInstPerOp, "count"}, {work::kResidentWarpsCap, "warps"},
       {work::kGpuSeconds, "s"}},
      metrics,
      {}};
  return d;
}

}  // namespace warpcost::schema::warp_primitives
