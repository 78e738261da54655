#include "analysis/coalescing/evaluation.hpp"

#include <cmath>
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "core/coalescing/model.hpp"
#include "core/coalescing/schema.hpp"
#include "core/result_schema.hpp"
#include "core/statistics.hpp"
#include "core/text_format.hpp"
#include "analysis/coalescing/family.hpp"
#include "analysis/evaluation_support.hpp"

namespace warpcost::analysis {

namespace co = warpcost::coalescing;
namespace tol = coalescing_tolerance;

namespace {

int iparam(const BenchmarkResult& b, const char* key) { return static_cast<int>(std::lround(b.param(key))); }

double counter_or(const BenchmarkResult& b, const char* name, double fallback) {
  return b.has_counter(name) ? b.counter_median(name) : fallback;
}

std::string tile_params(int elem_bytes, int stride, int offset) {
  return std::string(co::param::kElemBytes) + "=" + std::to_string(elem_bytes) + ";" + co::param::kStride + "=" +
         std::to_string(stride) + ";" + co::param::kOffset + "=" + std::to_string(offset);
}

const BenchmarkResult* find(const Run& run, const std::string& benchmark, const std::string& params) {
  return detail::find_benchmark(run, co::kFamily, benchmark, params);
}

double useful_rate(const BenchmarkResult& b) {
  return b.counter_median(co::work::kUsefulBytes) / b.median_seconds();
}

// The fully coalesced rate of one memory level: the best stride-1, offset-0 rate of the 4, 8 and 16 B
// points (issue 17: predicted bandwidth = the DRAM rate of fully coalesced access x efficiency).
// A throttled candidate is seen while one point is evaluated, and the rows it sets then read
// throttled (evaluate_run); nullptr when no candidate is measured.
const BenchmarkResult* best_reference(const Run& run, const std::string& benchmark) {
  const BenchmarkResult* best = nullptr;
  for (const int size : tol::kReferenceSizes) {
    const BenchmarkResult* c = find(run, benchmark, tile_params(size, 1, 0));
    if (c == nullptr || !c->has_counter(co::work::kUsefulBytes) || c->median_seconds() <= 0) continue;
    if (best == nullptr || useful_rate(*c) > useful_rate(*best)) best = c;
  }
  return best;
}

Row row_of(const BenchmarkResult& b, const char* metric, double value, const char* unit) {
  Row r;
  r.family = b.family;
  r.benchmark = b.benchmark;
  r.params = b.params_text();
  r.metric = metric;
  r.value = value;
  r.unit = unit;
  return r;
}

void predict(Row& r, double predicted) {
  r.predicted = predicted;
  if (predicted != 0.0) r.rel_error = (r.value - predicted) / predicted;
}

std::string example_of(const BenchmarkResult& b) {
  if (b.benchmark == co::bench::kPartialBlock) {
    switch (iparam(b, co::param::kBlockThreads)) {
      case 100: return "Ex 2: 4 warps, the tail warp's 4 lanes read one sector";
      case 16: return "Ex 4: one warp, 16 lanes read half a line (2 sectors)";
      case 48: return "the 48-thread block's second warp reads half a line (2 sectors)";
      default: return {};
    }
  }
  if (b.benchmark == co::bench::kBlock2d) {
    const int x = iparam(b, co::param::kX);
    const int y = iparam(b, co::param::kY);
    if (x == 32 && y == 8) return "Ex 9: (32,8), rows aligned to warps";
    if (x == 30 && y == 30) return "Ex 9: (30,30), warps straddle rows, a 4-lane tail warp";
    if (x == 48 && y == 4) return "Ex 3: (48,4), warps cut across rows";
  }
  return {};
}

}  // namespace

CoalescingModel coalescing_model(const BenchmarkResult& b) {
  CoalescingModel m;
  m.example = example_of(b);
  const double requests = counter_or(b, co::work::kWarpRequests, -1);
  if (b.benchmark == co::bench::kBlock2d) {
    const int x = iparam(b, co::param::kX);
    const int y = iparam(b, co::param::kY);
    const int width = static_cast<int>(counter_or(b, co::work::kImageWidth, co::kImageWidth));
    const int height = static_cast<int>(counter_or(b, co::work::kImageHeight, co::kImageHeight));
    const double frames = counter_or(b, co::work::kFrames, co::kImageFrames);
    const co::RequestTotals t = co::block_2d_totals(x, y, width, height, 4);
    m.sectors_per_request = t.sectors_per_request();
    m.lines_per_request = t.lines_per_request();
    m.useful_per_moved = t.useful_per_moved();
    m.useful_per_moved_64 = double(t.useful_bytes) / double(t.granules64 * co::kPromotedGranuleBytes);
    // Blocks that share a sector share it through the L2: DRAM moves each sector of the frame once.
    const double frame_sectors = static_cast<double>(co::block_2d_frame_sectors(x, y, width, height, 4));
    m.bandwidth_fraction = double(t.useful_bytes) / (frame_sectors * co::kSectorBytes);
    m.bandwidth_fraction_64 = m.bandwidth_fraction;
    m.dram_bytes = frame_sectors * co::kSectorBytes * frames;
    m.dram_bytes_64 = m.dram_bytes;
    m.reference_benchmark = co::bench::kLoadDram;
    return m;
  }
  if (b.benchmark == co::bench::kPartialBlock) {
    const co::RequestTotals t = co::partial_block_totals(iparam(b, co::param::kBlockThreads), 4);
    m.sectors_per_request = t.sectors_per_request();
    m.lines_per_request = t.lines_per_request();
    m.useful_per_moved = t.useful_per_moved();
    m.useful_per_moved_64 = double(t.useful_bytes) / double(t.granules64 * co::kPromotedGranuleBytes);
    if (requests >= 0) {
      m.dram_bytes = requests * t.sectors_per_request() * co::kSectorBytes;
      m.dram_bytes_64 = requests * double(t.granules64) / double(t.requests) * co::kPromotedGranuleBytes;
    }
    return m;  // no reference: small blocks are bound by residency, not by sectors (docs)
  }
  const int size = iparam(b, co::param::kElemBytes);
  co::WarpRequest r;
  if (b.benchmark == co::bench::kLoadPermuted) {
    r = co::permuted_request(size, co::lane_permutation(co::kPermutationSeed));
    m.reference_benchmark = co::bench::kLoadDram;
  } else {
    const int stride = iparam(b, co::param::kStride);
    const int offset = iparam(b, co::param::kOffset);
    r = co::strided_request(size, stride, offset);
    m.reference_benchmark = b.benchmark;
    for (const int ref_size : tol::kReferenceSizes) m.is_reference = m.is_reference || (stride == 1 && offset == 0 && size == ref_size);
  }
  const int sectors = co::sectors(r);
  const int granules = co::distinct_granules(r, co::kPromotedGranuleBytes);
  m.sectors_per_request = sectors;
  m.lines_per_request = co::lines(r);
  m.useful_per_moved = co::useful_per_moved(co::kWarpSize, size, sectors);
  m.useful_per_moved_64 = double(co::kWarpSize * size) / double(granules * co::kPromotedGranuleBytes);
  m.bandwidth_fraction = m.useful_per_moved;
  m.bandwidth_fraction_64 = m.useful_per_moved_64;
  m.store = b.benchmark == co::bench::kStoreDram;
  m.l2_resident = b.benchmark == co::bench::kLoadL2;
  if (requests >= 0) {
    m.dram_bytes = requests * sectors * co::kSectorBytes;
    m.dram_bytes_64 = requests * granules * co::kPromotedGranuleBytes;
    if (m.store) m.readback_bytes = requests * co::partial_sectors(r) * co::kSectorBytes;
  }
  return m;
}

namespace {

// The residency caps as the run's context records them ("?" for one it lacks), as texts of `r`.
void add_residency_caps(const Run& run, Reason& r) {
  const auto& v = run.context.values;
  for (const char* key : {schema::key::kMaxBlocksPerSm, schema::key::kMaxWarpsPerSm, schema::key::kGpuName}) {
    const auto it = v.find(key);
    r.text(key, it == v.end() ? std::string("?") : it->second);
  }
}

}  // namespace

void evaluate_coalescing(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const CoalescingModel m = coalescing_model(b);
  // Each reason carries the worked example the point measures (text "example", "" for none), which
  // starts the sentences that name it.
  // Model rows carry kind model; a throttled point's model rows become throttled in evaluate_run
  // (is_throttled, the shared rule).

  Row eff = row_of(b, co::row::kEfficiency, m.useful_per_moved, "ratio");
  eff.model = "(active lanes x size) / (32 x sectors)";
  eff.verdict = verdict::kInfo;
  eff.reason = Reason("coalescing/efficiency")
                   .text("example", m.example)
                   .number("sectors_per_request", m.sectors_per_request)
                   .number("lines_per_request", m.lines_per_request);
  rows.push_back(eff);

  // Counted sectors per request: loads' or stores' L1TEX metrics, from the counter pass.
  const char* sectors_metric = m.store ? co::metric::kSectorsSt : co::metric::kSectorsLd;
  const char* requests_metric = m.store ? co::metric::kRequestsSt : co::metric::kRequestsLd;
  if (b.has_counter(sectors_metric) && b.has_counter(requests_metric) && b.counter_median(requests_metric) > 0) {
    Row s = row_of(b, co::row::kSectorsPerRequest,
                   b.counter_median(sectors_metric) / b.counter_median(requests_metric), "sectors");
    s.model = "distinct 32-byte sectors the active lanes touch";
    predict(s, m.sectors_per_request);
    // Counts are exact: neither noise nor the clock moves them (sigma 0: no warn).
    detail::judge(s, std::fabs(*s.rel_error), tol::kSectors, 0.0);
    s.reason = Reason("coalescing/sectors_per_request")
                   .text("example", m.example)
                   .text("sectors_metric", sectors_metric)
                   .text("requests_metric", requests_metric)
                   .flag("holds", s.verdict == verdict::kHolds);
    rows.push_back(s);
  }

  // Useful bandwidth against the fully coalesced rate of the same memory level in the same run.
  const double seconds = b.median_seconds();
  if (b.has_counter(co::work::kUsefulBytes) && seconds > 0) {
    Row bw = row_of(b, co::row::kUsefulBandwidth, b.counter_median(co::work::kUsefulBytes) / seconds, "B/s");
    const BenchmarkResult* ref = m.reference_benchmark.empty() ? nullptr : best_reference(run, m.reference_benchmark);
    if (m.reference_benchmark.empty()) {
      bw.verdict = verdict::kInfo;
      bw.reason = Reason("coalescing/bandwidth_residency_bound")
                      .text("example", m.example)
                      .number("block_threads", iparam(b, co::param::kBlockThreads));
      add_residency_caps(run, bw.reason);
    } else if (m.is_reference && ref == &b) {
      // The best candidate is the reference itself: predicted from itself it would prove nothing.
      // The other candidates are judged like every stride-1 point (issue 21).
      bw.verdict = verdict::kInfo;
      bw.model = "a coalesced reference candidate";
      bw.reason = Reason("coalescing/bandwidth_reference").text("reference_benchmark", m.reference_benchmark);
    } else if (ref == nullptr) {
      bw.verdict = verdict::kInfo;
      bw.reason = Reason("coalescing/bandwidth_no_reference").text("reference_benchmark", m.reference_benchmark);
    } else {
      const double ref_rate = useful_rate(*ref);
      bw.model = "best coalesced rate of the level x useful bytes per moved byte";
      predict(bw, co::predicted_bandwidth(ref_rate, m.bandwidth_fraction));
      const double pred64 = ref_rate * m.bandwidth_fraction_64;
      const double ratio = bw.value / *bw.predicted;
      const double sigma = std::hypot(detail::cv_of(b), detail::cv_of(*ref));
      const double miss = std::fabs(*bw.rel_error);
      detail::judge(bw, miss, tol::kBandwidth, sigma);
      const bool stride1 = b.benchmark != co::bench::kLoadPermuted && b.benchmark != co::bench::kBlock2d &&
                           iparam(b, co::param::kStride) == 1 && iparam(b, co::param::kOffset) == 0;
      // Why a failing point misses, in the renderer's order: too few bytes in flight, else the
      // 64-byte promoted-fetch model, else faster or slower than the sector model (by the ratio).
      const bool few_bytes_in_flight = stride1 && ratio < 1;
      const bool promoted_fetch = !m.l2_resident && std::fabs(bw.value - pred64) <= tol::kBandwidth * pred64 &&
                                  m.bandwidth_fraction_64 < m.bandwidth_fraction;
      bw.reason = Reason("coalescing/useful_bandwidth")
                      .text("example", m.example)
                      .number("bandwidth_fraction", m.bandwidth_fraction)
                      .number("reference_rate", ref_rate)
                      .text("reference_params", ref->params_text())
                      .flag("holds", bw.verdict == verdict::kHolds)
                      .flag("warn", bw.verdict == verdict::kWarn)
                      .number("miss", miss)
                      .number("tolerance", tol::kBandwidth)
                      .number("sigma", sigma)
                      .number("ratio", ratio)
                      .flag("few_bytes_in_flight", few_bytes_in_flight)
                      .flag("promoted_fetch", promoted_fetch)
                      .number("bandwidth_fraction_64", m.bandwidth_fraction_64);
      if (few_bytes_in_flight) bw.reason.number("elem_bytes", iparam(b, co::param::kElemBytes));
    }
    rows.push_back(bw);
  }

  // DRAM bytes of the profiled launch against the sectors the model says it moves. Stores: read +
  // write, the partly written sectors read back once (docs/coalescing.md).
  const bool have_dram = m.store ? b.has_counter(co::metric::kDramWrite) && b.has_counter(co::metric::kDramRead)
                                 : b.has_counter(co::metric::kDramRead);
  if (have_dram && m.dram_bytes) {
    const double value = m.store ? b.counter_median(co::metric::kDramWrite) + b.counter_median(co::metric::kDramRead)
                                 : b.counter_median(co::metric::kDramRead);
    Row d = row_of(b, co::row::kDramBytes, value, "B");
    if (m.l2_resident) {
      d.verdict = verdict::kInfo;
      // Not judged (docs/verdicts.md, "Info rows that carry a prediction"): the one profiled launch
      // does not share the timed launches' L2 state.
      d.reason = Reason("coalescing/dram_bytes_not_judged").flag("store", m.store);
    } else {
      d.model = m.store ? "warp requests x (sectors + partly written sectors) x 32 B"
                        : "warp requests x sectors a request x 32 B";
      const double predicted = *m.dram_bytes + (m.store && m.readback_bytes ? *m.readback_bytes : 0.0);
      predict(d, predicted);
      const double ratio = d.value / *d.predicted;
      const bool promoted = !m.store && m.dram_bytes_64 && *m.dram_bytes_64 > *m.dram_bytes &&
                            std::fabs(d.value - *m.dram_bytes_64) <= tol::kDramBytes * *m.dram_bytes_64;
      // A count of one launch, not a timed statistic: sigma 0, no warn.
      detail::judge(d, std::fabs(*d.rel_error), tol::kDramBytes, 0.0);
      d.reason = Reason("coalescing/dram_bytes")
                     .text("example", m.example)
                     .flag("store", m.store)
                     .flag("holds", d.verdict == verdict::kHolds)
                     .number("ratio", ratio)
                     .flag("promoted", promoted);
      if (promoted) d.reason.number("promoted_ratio", *m.dram_bytes_64 / *m.dram_bytes);
    }
    rows.push_back(d);
  }
}

// ---- the second-order model (docs/models.md, "Coalescing") ------------------------------------

namespace {

struct SecondOrderInput {
  double spacing = 0;           // D: bytes between neighbouring lanes' elements (dense: the element size)
  double useful = 0;            // useful bytes a request (or a block's requests)
  double moved = 0;             // bytes the level moves for them
  // How `moved` was counted, which the benchmark says (render_second_order_price): a store's sectors
  // written and partly written sectors read back, a DRAM tile's pitch.
  double written = 0;
  double readback = 0;
  double tile_pitch = 0;
  const char* curve = nullptr;  // the benchmark whose 16-byte points give R(D)
  int warps_per_sm = 0;         // resident warps an SM, for the in-flight bound (0: no bound)
  double bytes_in_flight_per_warp = 0;
  bool fit_point = false;
};

int context_int(const Run& run, const char* key) { return static_cast<int>(std::lround(run.context.number(key))); }

// The DRAM access granule (docs/models.md, "Coalescing"): the DRAM bytes a lane of the 4-byte
// stride-32 load moves, each lane alone in its 128-byte line with one 4-byte element, the lines of
// no two tiles shared (its tile pitch is the request's 4 KiB span): the profiled launch's
// dram__bytes_read.sum over its warp requests × 32 lanes. A count, not a time. nullptr when the
// point or its counters are not in the run.
const BenchmarkResult* granule_point(const Run& run) {
  for (const auto& b : run.benchmarks) {
    if (b.family == co::kFamily && b.benchmark == co::bench::kLoadDram && !b.error && b.has_counter(co::metric::kDramRead) &&
        b.has_counter(co::work::kWarpRequests) && b.counter_median(co::work::kWarpRequests) > 0 &&
        iparam(b, co::param::kElemBytes) == 4 && iparam(b, co::param::kStride) == 32 && iparam(b, co::param::kOffset) == 0) {
      return &b;
    }
  }
  return nullptr;
}

double granule_bytes_of(const BenchmarkResult& b) {
  return b.counter_median(co::metric::kDramRead) / b.counter_median(co::work::kWarpRequests) / co::kWarpSize;
}

// The partial-store request ceiling (ISSUE-33-STORE-PARTIAL): the warp store requests a second that
// write part of their sectors, read off the 1-byte stride-2 store_dram point (two half-written
// sectors a request, the most such requests for its bytes: the declared fit point of this
// parameter, never judged). nullptr when the run lacks it, it failed or it ran throttled.
const BenchmarkResult* store_request_rate_point(const Run& run) {
  const BenchmarkResult* b = detail::find_benchmark(run, co::kFamily, co::bench::kStoreDram,
                                                    schema::coalescing::descriptor().params_text(co::bench::kStoreDram, {1, 2, 0}));
  return b != nullptr && b->median_seconds() > 0 && b->has_counter(co::work::kWarpRequests) ? b : nullptr;
}

// ISSUE-33-STORE-MISALIGNED: a dense (stride-1) store of 4-byte elements whose first byte is off its
// 128-byte line writes two lines partly (its 128 bytes straddle a line boundary); with whole sectors
// (the offset a multiple of 32 bytes) or with a partly written sector at each end. Each class is held
// to the warp requests a second of its own parameter point, the 4-byte store offset by 16 elements
// (64 B) or by 2 (8 B). Other element sizes are not in either class: the points measure 4-byte
// requests (a 1-byte request's 32 bytes may not cross a line at all).
enum class Misaligned { kNone, kWholeSectors, kPartialSectors };
constexpr int kMisalignedWholeSectorsOffset = 16;
constexpr int kMisalignedPartialSectorsOffset = 2;
constexpr int kMisalignedElemBytes = 4;

Misaligned misaligned_store(const BenchmarkResult& b) {
  if (b.benchmark != co::bench::kStoreDram || !b.has_param(co::param::kStride) || !b.has_param(co::param::kOffset) ||
      !b.has_param(co::param::kElemBytes) || iparam(b, co::param::kStride) != 1 ||
      iparam(b, co::param::kElemBytes) != kMisalignedElemBytes) {
    return Misaligned::kNone;
  }
  const long long first = static_cast<long long>(iparam(b, co::param::kOffset)) * kMisalignedElemBytes;
  if (first % co::kLineBytes == 0) return Misaligned::kNone;
  return first % co::kSectorBytes == 0 ? Misaligned::kWholeSectors : Misaligned::kPartialSectors;
}

// The parameter point of a class (nullptr for kNone, or when the run lacks it, it failed or it ran
// throttled).
const BenchmarkResult* misaligned_store_point(const Run& run, Misaligned m) {
  if (m == Misaligned::kNone) return nullptr;
  const int offset = m == Misaligned::kWholeSectors ? kMisalignedWholeSectorsOffset : kMisalignedPartialSectorsOffset;
  const BenchmarkResult* b = detail::find_benchmark(
      run, co::kFamily, co::bench::kStoreDram,
      schema::coalescing::descriptor().params_text(co::bench::kStoreDram, {kMisalignedElemBytes, 1, offset}));
  return b != nullptr && b->median_seconds() > 0 && b->has_counter(co::work::kWarpRequests) ? b : nullptr;
}

// A parameter point's warp requests a second (every request ceiling's rate); 0 without the point.
double request_rate_of(const BenchmarkResult* b) {
  return b == nullptr ? 0.0 : b->counter_median(co::work::kWarpRequests) / b->median_seconds();
}

// The request-rate ceiling (ISSUE-33-COALESCING-REQUESTS): the warp requests a second the L2 level
// serves, read off the 1-byte stride-1 load_l2 point (one sector a request, the most requests for
// its bytes: the declared fit point of this parameter, never judged). nullptr when the run lacks
// it, it failed or it ran throttled (the shared lookup, detail::find_benchmark).
const BenchmarkResult* request_rate_point(const Run& run) {
  const BenchmarkResult* b = detail::find_benchmark(run, co::kFamily, co::bench::kLoadL2,
                                                    schema::coalescing::descriptor().params_text(co::bench::kLoadL2, {1, 1, 0}));
  return b != nullptr && b->median_seconds() > 0 && b->has_counter(co::work::kWarpRequests) ? b : nullptr;
}

// The granule the model prices DRAM loads in: the measured one to the nearest whole number of
// 32-byte sectors (at least one); the promoted-fetch 64 bytes where the run has not measured it.
int model_granule(const Run& run) {
  const BenchmarkResult* g = granule_point(run);
  if (g == nullptr) return co::kPromotedGranuleBytes;
  const double sectors = std::round(granule_bytes_of(*g) / co::kSectorBytes);
  return static_cast<int>(std::max(1.0, sectors)) * co::kSectorBytes;
}

// The R(D) curve of stores that write part of their sectors (ISSUE-33-STORE-PARTIAL): its fit set
// is the 16-byte offset-0 store points with a read-back (stride 2 and up, D >= 32 B); below its
// smallest spacing the curve is flat (SpacingRate::at).
constexpr const char* kStorePartialCurve = "store_dram_partial";
// The fit set of kL2NarrowCurve (ISSUE-33-L2-NARROW): the 4-byte offset-0 load_l2 points (D = 4 to
// 128 B; flat below and beyond, SpacingRate::at); the 16-byte points keep their own curve.
constexpr int kL2NarrowFitElemBytes = 4;

// Moved bytes for the tile benchmarks: DRAM loads in 64-byte granules, the L2 level in sectors,
// stores in sectors written plus the partly written sectors read back.
SecondOrderInput tile_input(const Run& run, const BenchmarkResult& b) {
  SecondOrderInput in;
  const int size = iparam(b, co::param::kElemBytes);
  co::WarpRequest r;
  if (b.benchmark == co::bench::kLoadPermuted) {
    r = co::permuted_request(size, co::lane_permutation(co::kPermutationSeed));
    in.spacing = size;
    in.curve = co::bench::kLoadDram;
  } else {
    const int stride = iparam(b, co::param::kStride);
    const int offset = iparam(b, co::param::kOffset);
    r = co::strided_request(size, stride, offset);
    in.spacing = static_cast<double>(size) * stride;
    in.curve = b.benchmark == co::bench::kLoadL2 ? co::bench::kLoadL2
               : b.benchmark == co::bench::kStoreDram ? co::bench::kStoreDram
                                                       : co::bench::kLoadDram;
    in.fit_point = size == 16 && offset == 0;
  }
  const std::uint64_t pitch = co::tile_pitch_bytes(r);
  in.useful = static_cast<double>(co::kWarpSize) * size;
  if (b.benchmark == co::bench::kStoreDram) {
    in.written = co::moved_bytes_per_tile(r, pitch, co::kSectorBytes);
    in.readback = static_cast<double>(co::partial_sectors(r)) * co::kSectorBytes;
    in.moved = in.written + in.readback;
    // ISSUE-33-STORE-PARTIAL: a request that writes part of a sector moves at the rate of the
    // partly-written 16-byte points (write and read-back interleaved), not at the full-sector one.
    if (in.readback > 0) in.curve = kStorePartialCurve;
    return in;  // a store does not wait for its data: no in-flight bound
  }
  if (b.benchmark == co::bench::kLoadL2) {
    in.moved = co::moved_bytes_per_tile(r, pitch, co::kSectorBytes);
    // ISSUE-33-L2-NARROW: narrower elements move their sectors at the 4-byte points' rate.
    if (l2_narrow_point(b.benchmark, size)) {
      in.curve = kL2NarrowCurve;
      in.fit_point = size == kL2NarrowFitElemBytes && iparam(b, co::param::kOffset) == 0;
    }
    return in;  // no L2 latency locus is measured: no in-flight bound at this level
  }
  in.moved = co::moved_bytes_per_tile(r, pitch, model_granule(run));
  in.tile_pitch = static_cast<double>(pitch);
  const int blocks = std::min(context_int(run, schema::key::kMaxBlocksPerSm),
                              context_int(run, schema::key::kMaxThreadsPerSm) / co::kTileBlockThreads);
  in.warps_per_sm = blocks * (co::kTileBlockThreads / co::kWarpSize);
  in.bytes_in_flight_per_warp = co::kUnroll * in.moved;
  return in;
}

// Resident warps an SM of blocks of `threads`, at most `launched_blocks_per_sm` of them.
int resident_warps(const Run& run, int threads, int launched_blocks_per_sm) {
  const int warps_per_block = (threads + co::kWarpSize - 1) / co::kWarpSize;
  int blocks = std::min(context_int(run, schema::key::kMaxBlocksPerSm), context_int(run, schema::key::kMaxWarpsPerSm) / warps_per_block);
  if (launched_blocks_per_sm > 0) blocks = std::min(blocks, launched_blocks_per_sm);
  return blocks * warps_per_block;
}

std::optional<SecondOrderInput> second_order_input(const Run& run, const BenchmarkResult& b) {
  if (b.benchmark == co::bench::kBlock2d) {
    const int x = iparam(b, co::param::kX);
    const int y = iparam(b, co::param::kY);
    const int width = static_cast<int>(counter_or(b, co::work::kImageWidth, co::kImageWidth));
    const int height = static_cast<int>(counter_or(b, co::work::kImageHeight, co::kImageHeight));
    // The suite's tiles are 4-byte; a worked example's image (check --measure) names its own size.
    const int size = b.has_param(co::param::kElemBytes) ? iparam(b, co::param::kElemBytes) : 4;
    const co::RequestTotals t = co::block_2d_totals(x, y, width, height, size);
    const double frame_bytes = static_cast<double>(co::block_2d_frame_sectors(x, y, width, height, size)) * co::kSectorBytes;
    SecondOrderInput in;
    in.spacing = size;
    in.curve = co::bench::kLoadDram;
    in.useful = static_cast<double>(t.useful_bytes) / static_cast<double>(t.requests);
    // The frame's sectors, each moved once (shared through the L2).
    in.moved = in.useful / (static_cast<double>(t.useful_bytes) / frame_bytes);
    in.warps_per_sm = resident_warps(run, x * y, 0);
    in.bytes_in_flight_per_warp = co::kImageFramesInFlight * in.moved;
    return in;
  }
  if (b.benchmark == co::bench::kPartialBlock) {
    const int threads = iparam(b, co::param::kBlockThreads);
    const co::RequestTotals t = co::partial_block_totals(threads, 4);
    SecondOrderInput in;
    in.spacing = 4;
    in.curve = co::bench::kLoadDram;
    in.useful = static_cast<double>(t.useful_bytes) / static_cast<double>(t.requests);
    // Each warp's request in granules of the model's size (the block's warps read consecutive lines).
    const int granule = model_granule(run);
    long long granules = 0;
    for (int first = 0; first < threads; first += co::kWarpSize) {
      co::WarpRequest w;
      w.elem_bytes = 4;
      for (int i = first; i < std::min(threads, first + co::kWarpSize); ++i) w.addresses.push_back(static_cast<std::uint64_t>(i) * 4);
      granules += co::distinct_granules(w, granule);
    }
    in.moved = static_cast<double>(granules * granule) / static_cast<double>(t.requests);
    in.warps_per_sm = resident_warps(run, threads, co::kPartialBlocksPerSm);
    in.bytes_in_flight_per_warp = co::kUnroll * in.moved;
    return in;
  }
  if (b.benchmark == co::bench::kLoadDram || b.benchmark == co::bench::kLoadL2 || b.benchmark == co::bench::kStoreDram ||
      b.benchmark == co::bench::kLoadPermuted) {
    return tile_input(run, b);
  }
  return std::nullopt;
}

}  // namespace

namespace {

// R(D) of each level: the moved-byte rate of its 16-byte, offset-0 points (the declared fit set),
// (spacing, moved B/s) in the run's order.
struct RateFits {
  std::map<std::string, std::vector<std::pair<double, double>>> fit;
};

bool priced_point(const BenchmarkResult& b) {
  return b.family == co::kFamily && !b.error && !b.seconds.empty() && b.has_counter(co::work::kUsefulBytes) &&
         b.median_seconds() > 0;
}

RateFits rate_fits(const Run& run) {
  RateFits f;
  for (const auto& b : run.benchmarks) {
    if (!priced_point(b)) continue;
    const std::optional<SecondOrderInput> in = second_order_input(run, b);
    if (!in || !(in->moved > 0) || !in->fit_point || is_throttled(run, b)) continue;
    f.fit[in->curve].emplace_back(in->spacing, useful_rate(b) * in->moved / in->useful);
  }
  return f;
}

// A priced point and the values its `numbers` text is made of (render_second_order_price), which
// its second-order row's reason carries.
struct PricedPoint {
  CoalescingSecondOrderPrice price;
  Reason values;
};

// `b` priced from `params` (its fits and its locus): nullopt where params has no fit of its level.
std::optional<PricedPoint> price(const Run& params, const RateFits& fits,
                                 const std::optional<model::streaming::Locus>& locus,
                                 const BenchmarkResult& b, const SecondOrderInput& in) {
  const auto curve = fits.fit.find(in.curve);
  if (curve == fits.fit.end()) return std::nullopt;  // no unthrottled fit point of that level
  const model::ArchParams arch = detail::arch_of(params);
  const int sms = context_int(params, schema::key::kSmCount);
  const double clock = params.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  const co::SpacingRate spacing_rate(curve->second);
  const double r_d = spacing_rate.at(in.spacing);
  double in_flight = 0;
  const bool in_flight_bound = in.warps_per_sm > 0 && locus && sms > 0 && clock > 0;
  if (in_flight_bound) {
    model::streaming::StreamPoint p;
    p.sms = sms;
    p.schedulers_per_sm = arch.schedulers_per_sm;
    p.warps_per_sm = in.warps_per_sm;
    p.bytes_per_warp_iteration = in.bytes_in_flight_per_warp;
    p.instructions_per_iteration = 0;  // Little's law alone: an iteration is the loaded latency
    p.unloaded_iteration_cycles = locus->unloaded_cycles();
    p.clock_hz = clock;
    in_flight = model::streaming::predict_stream(p, *locus, 1.0).bandwidth;
  }
  PricedPoint out;
  out.price.predicted = co::second_order_useful_bandwidth(r_d, in_flight, in.useful, in.moved);
  // The request-rate ceiling: R_req requests a second, in.useful bytes each.
  const BenchmarkResult* req = request_rate_point(params);
  const double request_rate = request_rate_of(req);
  const bool request_bound = request_rate > 0 && request_rate * in.useful < out.price.predicted;
  if (request_bound) out.price.predicted = request_rate * in.useful;
  // The partial-store request ceiling: R_st requests a second for a store that writes part of a sector.
  const bool partial_store = b.benchmark == co::bench::kStoreDram && in.readback > 0;
  const BenchmarkResult* st = partial_store ? store_request_rate_point(params) : nullptr;
  const double store_request_rate = request_rate_of(st);
  const bool store_request_bound = store_request_rate > 0 && store_request_rate * in.useful < out.price.predicted;
  if (store_request_bound) out.price.predicted = store_request_rate * in.useful;
  // ISSUE-33-STORE-MISALIGNED: a dense store off its line, held to its class's request rate.
  const Misaligned misaligned = misaligned_store(b);
  const BenchmarkResult* ms = misaligned_store_point(params, misaligned);
  const double misaligned_rate = request_rate_of(ms);
  const bool misaligned_bound = misaligned_rate > 0 && misaligned_rate * in.useful < out.price.predicted;
  if (misaligned_bound) out.price.predicted = misaligned_rate * in.useful;
  out.price.moved_rate = r_d;
  out.price.in_flight = in_flight;
  out.price.fit_point = in.fit_point;
  // The ceiling that applies to this point (predict and check --measure pass it on): the lower one.
  double ceiling = 0;
  for (const double rate : {request_rate, store_request_rate, misaligned_rate}) {
    if (rate > 0) ceiling = ceiling > 0 ? std::min(ceiling, rate) : rate;
  }
  out.price.request_rate = ceiling;
  out.price.granule = granule_point(params) != nullptr ? model_granule(params) : 0;  // 0: not measured
  // Matched by what the point is (the same benchmark and parameters), not by address: `b` may be a
  // worked example's point priced from another run.
  const auto same = [&b](const BenchmarkResult* p) {
    return p != nullptr && p->benchmark == b.benchmark && p->params_text() == b.params_text();
  };
  out.price.parameter_point = same(request_rate_point(params)) || same(granule_point(params)) ||
                              same(store_request_rate_point(params)) ||
                              same(misaligned_store_point(params, Misaligned::kWholeSectors)) ||
                              same(misaligned_store_point(params, Misaligned::kPartialSectors));
  Reason& v = out.values;
  v.text("benchmark", b.benchmark)
      .number("useful", in.useful)
      .number("moved", in.moved)
      .number("written", in.written)
      .number("readback", in.readback)
      .number("tile_pitch", in.tile_pitch)
      .number("spacing", in.spacing)
      .number("moved_rate", r_d)
      .text("curve", in.curve)
      .number("fit_points", static_cast<double>(curve->second.size()))
      .flag("in_flight_bound", in_flight_bound)
      .number("predicted", out.price.predicted);
  for (std::size_t i = 0; i < curve->second.size(); ++i) {
    v.number("fit_spacing_" + std::to_string(i), curve->second[i].first);
    v.number("fit_moved_rate_" + std::to_string(i), curve->second[i].second);
  }
  if (request_bound) v.flag("request_bound", true).number("request_rate", request_rate);
  if (req == nullptr) v.flag("request_ceiling_missing", true);
  if (store_request_bound) v.flag("store_request_bound", true).number("store_request_rate", store_request_rate);
  if (partial_store && st == nullptr) v.flag("store_request_ceiling_missing", true);
  if (misaligned != Misaligned::kNone) {
    v.number("misaligned_offset", misaligned == Misaligned::kWholeSectors ? kMisalignedWholeSectorsOffset
                                                                         : kMisalignedPartialSectorsOffset);
    if (misaligned_bound) v.flag("misaligned_store_bound", true).number("misaligned_store_rate", misaligned_rate);
    if (ms == nullptr) v.flag("misaligned_store_ceiling_missing", true);
  }
  if (in_flight_bound) {
    v.number("warps_per_sm", in.warps_per_sm)
        .number("bytes_in_flight_per_warp", in.bytes_in_flight_per_warp)
        .number("in_flight", in_flight);
  }
  out.price.numbers = coalescing::render_second_order_price(v);
  return out;
}

}  // namespace

bool l2_narrow_point(const std::string& benchmark, long long elem_bytes) {
  return benchmark == co::bench::kLoadL2 && elem_bytes < 16;
}

std::optional<CoalescingSecondOrderPrice> coalescing_second_order_price(const Run& params, const BenchmarkResult& point) {
  const std::optional<SecondOrderInput> in = second_order_input(params, point);
  if (!in || !(in->moved > 0)) return std::nullopt;
  std::string locus_text;
  const std::optional<PricedPoint> p = price(params, rate_fits(params), detail::loaded_latency_locus(params, locus_text), point, *in);
  if (!p) return std::nullopt;
  return p->price;
}

void coalescing_second_order_rows(const Run& run, std::vector<Row>& rows) {
  // The granule the DRAM loads are priced in, a parameter row of its own (info).
  if (const BenchmarkResult* g = granule_point(run)) {
    Row r = row_of(*g, "dram_granule_bytes", granule_bytes_of(*g), "B");
    r.verdict = verdict::kInfo;
    r.reason = Reason("coalescing/dram_granule")
                   .number("dram_bytes", g->counter_median(co::metric::kDramRead))
                   .number("requests", g->counter_median(co::work::kWarpRequests))
                   .number("model_granule", model_granule(run));
    rows.push_back(r);
  }
  // The request-rate ceiling, a parameter row of its own (info).
  if (const BenchmarkResult* q = request_rate_point(run)) {
    rows.push_back(detail::parameter_row(co::kFamily, "", "request_rate", request_rate_of(q),
                                         "requests/s", "R_req, the warp requests a second every request is capped at",
                                         "load_l2 " + q->params_text() + " (its warp_requests over its median time)"));
  }
  // The partial-store request ceiling, a parameter row of its own (info; ISSUE-33-STORE-PARTIAL).
  if (const BenchmarkResult* q = store_request_rate_point(run)) {
    rows.push_back(detail::parameter_row(co::kFamily, "", "store_partial_request_rate",
                                         request_rate_of(q), "requests/s",
                                         "R_st, the warp store requests a second a store writing part of a sector is capped at",
                                         "store_dram " + q->params_text() + " (its warp_requests over its median time)"));
  }
  // The misaligned-store request rates, parameter rows of their own (info; ISSUE-33-STORE-MISALIGNED).
  for (const Misaligned m : {Misaligned::kWholeSectors, Misaligned::kPartialSectors}) {
    if (const BenchmarkResult* q = misaligned_store_point(run, m)) {
      const bool whole = m == Misaligned::kWholeSectors;
      rows.push_back(detail::parameter_row(
          co::kFamily, "", whole ? "store_misaligned_request_rate" : "store_misaligned_partial_request_rate", request_rate_of(q),
          "requests/s",
          whole ? "R_ml, the warp store requests a second a dense store off its line with whole sectors is capped at"
                : "R_mp, the warp store requests a second a dense store off its line with partly written sectors is capped at",
          "store_dram " + q->params_text() + " (its warp_requests over its median time)"));
    }
  }
  const RateFits fits = rate_fits(run);
  std::string locus_text;
  const std::optional<model::streaming::Locus> locus = detail::loaded_latency_locus(run, locus_text);
  for (const auto& b : run.benchmarks) {
    if (!priced_point(b)) continue;
    const std::optional<SecondOrderInput> in = second_order_input(run, b);
    if (!in || !(in->moved > 0)) continue;
    const std::optional<PricedPoint> p = price(run, fits, locus, b, *in);
    if (!p) continue;  // no unthrottled fit point of that level: no rows
    Row r = row_of(b, "second_order_useful_bandwidth", useful_rate(b), "B/s");
    r.model = std::string(kSecondOrderPrefix) + "moved bytes (granules, read-back) at the moved rate R(D) of that lane spacing, "
              "bounded by bytes in flight";
    predict(r, p->price.predicted);
    r.reason = p->values;
    if (p->price.fit_point) {
      r.verdict = verdict::kInfo;
      r.reason.code = "coalescing/second_order_fit_point";
    } else if (&b == request_rate_point(run)) {
      // It sets the request-rate ceiling (ISSUE-33-COALESCING-REQUESTS): not judged.
      r.verdict = verdict::kInfo;
      r.reason.code = "coalescing/second_order_request_fit_point";
    } else if (&b == store_request_rate_point(run)) {
      // It sets the partial-store request ceiling (ISSUE-33-STORE-PARTIAL): not judged.
      r.verdict = verdict::kInfo;
      r.reason.code = "coalescing/second_order_store_request_fit_point";
    } else if (&b == misaligned_store_point(run, misaligned_store(b))) {
      // It sets its class's misaligned-store request ceiling (ISSUE-33-STORE-MISALIGNED): not judged.
      r.verdict = verdict::kInfo;
      r.reason.code = "coalescing/second_order_misaligned_store_fit_point";
    } else if (&b == granule_point(run)) {
      // Its moved bytes are its own DRAM count (the granule is read off it): not judged
      // (ISSUE-33-GRANULE-POINT).
      r.verdict = verdict::kInfo;
      r.reason.code = "coalescing/second_order_granule_point";
    } else {
      const double miss = std::fabs(*r.rel_error);
      detail::judge(r, miss, kSecondOrderCoalescingTolerance, detail::cv_of(b));
      r.reason.code = "coalescing/second_order_useful_bandwidth";
      r.reason.flag("holds", r.verdict == verdict::kHolds)
          .number("miss", miss)
          .number("tolerance", kSecondOrderCoalescingTolerance)
          .number("sigma", detail::cv_of(b));
    }
    rows.push_back(r);
  }
}

std::string coalescing_summary_markdown(const EvaluatedRun& er) {
  // value[benchmark][params][metric] for the family's derived rows.
  std::map<std::string, std::map<std::string, std::map<std::string, const Row*>>> v;
  for (const Row& r : er.rows) {
    if (r.family == co::kFamily) v[r.benchmark][r.params][r.metric] = &r;
  }
  if (v.empty()) return {};
  const auto cell = [](const Row* r, double scale, int digits) {
    if (r == nullptr) return std::string("—");
    std::string text = fixed(r->value * scale, digits);
    if (r->predicted) text += " (" + fixed(*r->predicted * scale, digits) + ")";
    if (r->verdict == verdict::kFails) text += " ✗";
    return text;
  };
  std::string md;
  for (const char* bench : {co::bench::kLoadDram, co::bench::kLoadL2, co::bench::kStoreDram}) {
    if (v.count(bench) == 0) continue;
    md += "\n**" + std::string(bench) + "**: useful bandwidth TB/s (model), by stride and element size, offset 0\n\n";
    md += "| stride |";
    for (const int size : co::kElementSizes) md += " " + std::to_string(size) + " B |";
    md += "\n|---|---|---|---|---|---|\n";
    for (const int stride : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
      std::string line = "| " + std::to_string(stride) + " |";
      bool any = false;
      for (const int size : co::kElementSizes) {
        const auto& points = v[bench];
        const auto it = points.find(tile_params(size, stride, 0));
        const Row* r = nullptr;
        if (it != points.end() && it->second.count(co::row::kUsefulBandwidth)) r = it->second.at(co::row::kUsefulBandwidth);
        any = any || r != nullptr;
        line += " " + cell(r, 1e-12, 3) + " |";
      }
      if (any) md += line + "\n";
    }
  }
  if (v.count(co::bench::kBlock2d) != 0 || v.count(co::bench::kPartialBlock) != 0) {
    md += "\n**block shapes and partial warps**: sectors per request counted (model), bandwidth TB/s (model)\n\n";
    md += "| benchmark | params | sectors/request | bandwidth |\n|---|---|---|---|\n";
    for (const char* bench : {co::bench::kBlock2d, co::bench::kPartialBlock}) {
      for (const auto& point : v[bench]) {
        const auto& metrics = point.second;
        const auto get = [&metrics](const char* m) { return metrics.count(m) ? metrics.at(m) : nullptr; };
        md += "| " + std::string(bench) + " | " + point.first + " | " + cell(get(co::row::kSectorsPerRequest), 1, 3) +
              " | " + cell(get(co::row::kUsefulBandwidth), 1e-12, 3) + " |\n";
      }
    }
  }
  return "\n✗ marks a model check that fails (the verdict rows below say why).\n" + md;
}

}  // namespace warpcost::analysis
