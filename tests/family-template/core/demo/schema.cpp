#include "core/demo/schema.hpp"

namespace warpcost::schema::demo {

const FamilyDescriptor& descriptor() {
  static const FamilyDescriptor d{kFamily,
                                  {{benchmark::kEcho, {param::kTrips}}},
                                  {{param::kTrips, "count", "the value the kernel writes back"}},
                                  {{counter::kEchoed, "count"}},
                                  {},
                                  {}};
  return d;
}

}  // namespace warpcost::schema::demo
