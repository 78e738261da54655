#include "analysis/coalescing/coalescing_eval.hpp"

#include <cmath>
#include <map>
#include <string>

#include "analysis/coalescing/coalescing_model.hpp"
#include "analysis/coalescing/schema.hpp"
#include "analysis/core/statistics.hpp"
#include "analysis/core/text_format.hpp"

namespace warpcost::analysis {

namespace co = warpcost::coalescing;
namespace tol = coalescing_tolerance;

namespace {

// Contract fields (notes/contract.md), absent in older runs.
constexpr const char* kNoiseCounter = "warpcost_noise";
constexpr const char* kClockCounter = "warpcost_sm_clock_mhz";
constexpr const char* kClockMaxKey = "sm_clock_max_mhz";

int iparam(const BenchmarkResult& b, const char* key) { return static_cast<int>(std::lround(b.param(key))); }

double counter_or(const BenchmarkResult& b, const char* name, double fallback) {
  return b.has_counter(name) ? b.counter_median(name) : fallback;
}

std::string tile_params(int elem_bytes, int stride, int offset) {
  return std::string(co::param::kElemBytes) + "=" + std::to_string(elem_bytes) + ";" + co::param::kStride + "=" +
         std::to_string(stride) + ";" + co::param::kOffset + "=" + std::to_string(offset);
}

const BenchmarkResult* find(const Run& run, const std::string& benchmark, const std::string& params) {
  for (const auto& other : run.benchmarks) {
    if (other.family == co::kFamily && other.benchmark == benchmark && other.params_text() == params &&
        !other.error && !other.seconds.empty()) {
      return &other;
    }
  }
  return nullptr;
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

// The point's own noise: the sampler's relative standard deviation where the run has it, else the
// CV of the repetitions' times.
double own_noise(const BenchmarkResult& b) {
  return b.has_counter(kNoiseCounter) ? b.counter_median(kNoiseCounter) : coefficient_of_variation(b.seconds);
}

// "" or why the point is kept out of model verdicts: its SM clock fell under 95 % of the maximum.
std::string throttle_note(const Run& run, const BenchmarkResult& b) {
  const auto it = run.context.values.find(kClockMaxKey);
  if (!b.has_counter(kClockCounter) || it == run.context.values.end()) return {};
  const double max_mhz = run.context.number(kClockMaxKey);
  const double low = b.counter_median(kClockCounter);
  if (max_mhz <= 0 || low >= tol::kThrottleFraction * max_mhz) return {};
  return "throttled: SM clock " + fixed(low, 0) + " MHz < 95% of " + fixed(max_mhz, 0) + " MHz; kept out of the model verdict";
}

// holds within the tolerance; warn when the point is throttled or the miss is within the tolerance
// plus twice the point's own noise; fails otherwise.
void judge(Row& r, double tolerance, double noise, const std::string& throttle, const std::string& why_holds,
           const std::string& why_fails) {
  const double miss = std::fabs(*r.rel_error);
  if (!throttle.empty()) {
    r.verdict = verdict::kWarn;
    r.why = throttle;
  } else if (miss <= tolerance) {
    r.verdict = verdict::kHolds;
    r.why = why_holds;
  } else if (miss <= tolerance + 2.0 * noise) {
    r.verdict = verdict::kWarn;
    r.why = "off by " + fixed(100 * miss, 1) + "%, beyond " + fixed(100 * tolerance, 0) +
            "% but within twice the point's own noise (" + fixed(100 * noise, 2) + "%): too noisy to decide";
  } else {
    r.verdict = verdict::kFails;
    r.why = why_fails;
  }
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
    m.reference_params = tile_params(4, 1, 0);
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
    m.reference_params = tile_params(size, 1, 0);
  } else {
    r = co::strided_request(size, iparam(b, co::param::kStride), iparam(b, co::param::kOffset));
    m.reference_benchmark = b.benchmark;
    m.reference_params = tile_params(size, 1, 0);
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
  }
  return m;
}

void evaluate_coalescing(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) {
  const CoalescingModel m = coalescing_model(b);
  const std::string throttle = throttle_note(run, b);
  const double noise = own_noise(b);
  const std::string example = m.example.empty() ? "" : m.example + "; ";

  Row eff = row_of(b, co::row::kEfficiency, m.useful_per_moved, "ratio");
  eff.model = "(active lanes x size) / (32 x sectors)";
  eff.verdict = verdict::kInfo;
  eff.why = example + fixed(m.sectors_per_request, 3) + " sectors, " + fixed(m.lines_per_request, 3) +
            " lines a request (model)";
  rows.push_back(eff);

  // Counted sectors per request: loads' or stores' L1TEX metrics, from the counter pass.
  const char* sectors_metric = m.store ? co::metric::kSectorsSt : co::metric::kSectorsLd;
  const char* requests_metric = m.store ? co::metric::kRequestsSt : co::metric::kRequestsLd;
  if (b.has_counter(sectors_metric) && b.has_counter(requests_metric) && b.counter_median(requests_metric) > 0) {
    Row s = row_of(b, co::row::kSectorsPerRequest,
                   b.counter_median(sectors_metric) / b.counter_median(requests_metric), "sectors");
    s.model = "distinct 32-byte sectors the active lanes touch";
    predict(s, m.sectors_per_request);
    // Counts are exact: neither noise nor the clock moves them, so no warn.
    const bool holds = std::fabs(*s.rel_error) <= tol::kSectors;
    s.verdict = holds ? verdict::kHolds : verdict::kFails;
    s.why = example + std::string(sectors_metric) + " / " + requests_metric +
            (holds ? "" : "; off by more than 1%: the coalescer merged or split lanes unlike the model");
    rows.push_back(s);
  }

  // Useful bandwidth against the coalesced rate of the same run.
  const double seconds = b.median_seconds();
  if (b.has_counter(co::work::kUsefulBytes) && seconds > 0) {
    Row bw = row_of(b, co::row::kUsefulBandwidth, b.counter_median(co::work::kUsefulBytes) / seconds, "B/s");
    const BenchmarkResult* ref =
        m.reference_params.empty() ? nullptr : find(run, m.reference_benchmark, m.reference_params);
    const bool is_reference = ref == &b;
    if (m.reference_params.empty()) {
      bw.verdict = verdict::kInfo;
      bw.why = example + "blocks of " + std::to_string(iparam(b, co::param::kBlockThreads)) +
               " threads are bound by how many an SM holds (32 blocks, 64 warps on the H200), not by sectors: "
               "no bandwidth model";
    } else if (is_reference) {
      bw.verdict = verdict::kInfo;
      bw.model = "the coalesced reference";
      bw.why = "stride 1, offset 0: the rate every other point of this size is predicted from";
    } else if (ref == nullptr || !ref->has_counter(co::work::kUsefulBytes)) {
      bw.verdict = verdict::kInfo;
      bw.why = "no coalesced reference (" + m.reference_benchmark + " " + m.reference_params + ") in this run";
    } else {
      const double ref_rate = ref->counter_median(co::work::kUsefulBytes) / ref->median_seconds();
      bw.model = "coalesced rate x useful bytes per moved byte";
      predict(bw, co::predicted_bandwidth(ref_rate, m.bandwidth_fraction));
      const double pred64 = ref_rate * m.bandwidth_fraction_64;
      const double ratio = bw.value / *bw.predicted;
      std::string reason;
      if (!m.l2_resident && std::fabs(bw.value - pred64) <= tol::kBandwidth * pred64 &&
          m.bandwidth_fraction_64 < m.bandwidth_fraction) {
        reason = "matches the 64-byte promoted-fetch model (" + fixed(m.bandwidth_fraction_64, 3) +
                 " of the coalesced rate): the L2 fetched two sectors from DRAM for each one asked";
      } else if (ratio > 1) {
        reason = "faster than the sector model: sectors a request did not need still came cheaper than a full "
                 "DRAM sector (L2 hits on shared lines, DRAM burst and prefetch); see the DRAM bytes row";
      } else {
        reason = "slower than the sector model: more requests per useful byte than the memory pipeline "
                 "serves at the coalesced rate (request throughput, not DRAM, bounds the point)";
      }
      judge(bw, tol::kBandwidth, noise, throttle,
            example + fixed(100 * m.bandwidth_fraction, 1) + "% of the coalesced " + fixed(ref_rate * 1e-12, 3) + " TB/s",
            example + "measured " + fixed(ratio, 3) + "x the prediction; " + reason);
    }
    rows.push_back(bw);
  }

  // DRAM bytes of the profiled launch against the sectors the model says it moves.
  const char* dram_metric = m.store ? co::metric::kDramWrite : co::metric::kDramRead;
  if (b.has_counter(dram_metric) && m.dram_bytes) {
    Row d = row_of(b, co::row::kDramBytes, b.counter_median(dram_metric), "B");
    if (m.l2_resident) {
      d.verdict = verdict::kInfo;
      d.why = std::string(dram_metric) + "; L2-resident data: DRAM should move next to nothing";
    } else {
      d.model = "warp requests x sectors a request x 32 B";
      predict(d, *m.dram_bytes);
      const double ratio = d.value / *d.predicted;
      const bool promoted = m.dram_bytes_64 && *m.dram_bytes_64 > *m.dram_bytes &&
                            std::fabs(d.value - *m.dram_bytes_64) <= tol::kDramBytes * *m.dram_bytes_64;
      const std::string reason =
          promoted ? "matches 64-byte granules (" + fixed(*m.dram_bytes_64 / *m.dram_bytes, 2) +
                         "x the sectors): L2 sector promotion"
          : ratio > 1 ? "DRAM moved more than the touched sectors (burst granularity, prefetch"
                        + std::string(m.store ? ", read-modify-write of partial sectors" : "") + ")"
                      : "DRAM moved less than the touched sectors: some came from the L2";
      const bool holds = std::fabs(*d.rel_error) <= tol::kDramBytes;
      d.verdict = holds ? verdict::kHolds : verdict::kFails;
      d.why = example + dram_metric + " of one profiled launch" + (holds ? "" : "; " + fixed(ratio, 3) + "x: " + reason);
    }
    rows.push_back(d);
  }
}

void evaluate_coalescing_run(const Run& run, std::vector<Row>& rows) {
  const std::string aligned = std::string(co::param::kX) + "=32;" + co::param::kY + "=8";
  const std::string square = std::string(co::param::kX) + "=30;" + co::param::kY + "=30";
  const BenchmarkResult* a = find(run, co::bench::kBlock2d, aligned);
  const BenchmarkResult* s = find(run, co::bench::kBlock2d, square);
  if (a == nullptr || s == nullptr) return;
  Row r;
  r.family = co::kFamily;
  r.benchmark = "worked_example";
  r.params = "example=9";
  r.metric = co::row::kEx9Ratio;
  r.value = s->median_seconds() / a->median_seconds();
  r.unit = "ratio";
  const CoalescingModel ma = coalescing_model(*a);
  const CoalescingModel ms = coalescing_model(*s);
  r.model = "per-request efficiency (32,8) / (30,30)";
  r.predicted = ma.useful_per_moved / ms.useful_per_moved;
  r.rel_error = (r.value - *r.predicted) / *r.predicted;
  r.verdict = verdict::kInfo;
  r.why = "Ex 9: (32,8) reads the image " + fixed(r.value, 3) + "x as fast as (30,30); per request the model says " +
          fixed(*r.predicted, 3) + "x, but the sectors a (30,30) warp wastes are its neighbours' and come from the L2, "
          "so DRAM moves each sector once (the launch-wide model: 1.000x); the judged rows are each block's";
  rows.push_back(r);
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
