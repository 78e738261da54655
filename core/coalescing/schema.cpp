#include "core/coalescing/schema.hpp"

namespace warpcost::schema::coalescing {

namespace names = warpcost::coalescing;

const FamilyDescriptor& descriptor() {
  namespace bench = names::bench;
  namespace param = names::param;
  namespace work = names::work;
  static const std::vector<const char*> tile = {param::kElemBytes, param::kStride, param::kOffset};
  static const std::vector<const char*> metrics = [] {
    std::vector<const char*> m;
    for (const std::string& name : names::counter_metrics()) m.push_back(name.c_str());
    return m;
  }();
  static const FamilyDescriptor d{
      names::kFamily,
      {{bench::kLoadDram, tile},
       {bench::kLoadL2, tile},
       {bench::kStoreDram, tile},
       {bench::kLoadPermuted, {param::kElemBytes}},
       {bench::kBlock2d, {param::kX, param::kY}},
       {bench::kPartialBlock, {param::kBlockThreads}}},
      {{param::kElemBytes, "bytes", "bytes one lane loads or stores"},
       {param::kStride, "elements", "elements between neighbouring lanes"},
       {param::kOffset, "elements", "elements from a 128-byte line"},
       {param::kX, "threads", "block x dimension"},
       {param::kY, "threads", "block y dimension"},
       {param::kBlockThreads, "threads", "block size P of a 1D block"}},
      {{work::kUsefulBytes, "bytes"}, {work::kWarpRequests, "count"}, {work::kRegionBytes, "bytes"},
       {work::kImageWidth, "elements"}, {work::kImageHeight, "rows"}, {work::kFrames, "count"},
       {work::kGpuSeconds, "s"}},
      metrics,
      {{bench::kPartialBlock, "threads", param::kBlockThreads}}};
  return d;
}

}  // namespace warpcost::schema::coalescing
