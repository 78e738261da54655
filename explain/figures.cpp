#include "explain/figures.hpp"

#include <algorithm>
#include <tuple>

#include "analysis/evaluation_support.hpp"
#include "core/result_schema.hpp"
#include "core/text_format.hpp"

namespace warpcost::explain {

namespace {

int int_param(const std::map<std::string, std::string>& p, const std::string& key) {
  const auto it = p.find(key);
  if (it == p.end()) return -1;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    return -1;
  }
}

bool is(const analysis::Row& r, const char* family, const char* benchmark) {
  return r.family == family && r.benchmark == benchmark;
}

}  // namespace

double interpolate(const std::vector<CurvePoint>& curve, double x) {
  if (curve.empty()) return 0;
  if (x <= curve.front().x) return curve.front().y;
  if (x >= curve.back().x) return curve.back().y;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    if (x <= curve[i].x) {
      const CurvePoint& a = curve[i - 1];
      const CurvePoint& b = curve[i];
      if (b.x == a.x) return b.y;
      return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x);
    }
  }
  return curve.back().y;
}

double StreamCurve::plateau() const {
  double best = 0;
  for (const auto& p : rate_by_warps) best = std::max(best, p.y);
  return best;
}

GpuFigures figures_from_rows(const std::vector<analysis::Row>& rows, const std::string& gpu,
                             const std::string& run_id) {
  GpuFigures f;
  f.gpu = gpu;
  f.run_id = run_id;

  int divergence_residency = -1;
  // coalescing: stride -> (useful rate, seconds, dram bytes)
  std::map<int, std::tuple<double, double, double>> coalescing;
  // streaming: (load bytes, alu, loads in flight) -> curve; and (that, warps) -> inst, dram bytes
  using StreamKey = std::tuple<int, int, int>;
  std::map<StreamKey, StreamCurve> streams;
  std::map<std::pair<StreamKey, int>, std::pair<double, double>> stream_counts;

  for (const analysis::Row& r : rows) {
    const auto p = analysis::parse_key_values(r.params);
    if (is(r, "partial_warp", "staircase") && r.metric == "useful_fraction") {
      const int threads = int_param(p, "block_threads");
      if (threads > 0) f.staircase_useful_fraction[threads] = r.value;
    } else if (is(r, "divergence", "split_low") && r.metric == "grid_slowdown" && r.predicted &&
               int_param(p, "k") == 16 && p.count("if_trips") && p.at("if_trips") == p.at("else_trips") &&
               *r.predicted > 1) {
      const int residency = int_param(p, "warps_per_sm");
      if (residency > divergence_residency) {
        divergence_residency = residency;
        f.divergence_paid_fraction = (r.value - 1) / (*r.predicted - 1);
        f.divergence_point = "divergence/split_low " + r.params;
      }
    } else if (is(r, "coalescing", "load_dram") && int_param(p, "elem_bytes") == 4 && int_param(p, "offset") == 0) {
      auto& c = coalescing[int_param(p, "stride")];
      if (r.metric == "useful_bandwidth") std::get<0>(c) = r.value;
      if (r.metric == "gpu__time_duration.median") std::get<1>(c) = r.value;
      if (r.metric == "dram__bytes_read.sum") std::get<2>(c) = r.value;
    } else if (is(r, "streaming", "read_independent") || is(r, "streaming", "read_batched")) {
      // read_batched has no ALU work (its params carry no alu_per_load) and names its loads in flight.
      const bool batched = r.benchmark == "read_batched";
      const int bytes = int_param(p, "load_bytes");
      const int alu = batched ? 0 : int_param(p, "alu_per_load");
      const int in_flight = batched ? int_param(p, "loads_in_flight") : 1;
      const int warps = int_param(p, "warps_per_sm");
      if (bytes <= 0 || alu < 0 || in_flight <= 0 || warps <= 0) continue;
      const StreamKey key{bytes, alu, in_flight};
      StreamCurve& s = streams[key];
      if (r.metric == "dram__bytes_read.sum.per_second") s.rate_by_warps.push_back({double(warps), r.value});
      if (r.metric == "smsp__inst_executed.sum") stream_counts[{key, warps}].first = r.value;
      if (r.metric == "dram__bytes_read.sum") stream_counts[{key, warps}].second = r.value;
    } else if (is(r, "streaming", "knee") && r.metric == "knee_warps_per_sm" && p.count("use") &&
               (p.at("use") == "independent" || p.at("use") == "batched")) {
      const bool batched = p.at("use") == "batched";
      const StreamKey key{int_param(p, "load_bytes"), int_param(p, "alu_per_load"),
                          batched ? int_param(p, "loads_in_flight") : 1};
      if (!batched && p.count("loads_in_flight")) continue;
      streams[key].knee_warps_per_sm = r.value;
    }
  }

  for (const auto& [stride, c] : coalescing) {
    const auto [rate, seconds, dram] = c;
    if (rate > 0 && seconds > 0 && dram > 0) f.coalescing_useful_rate.push_back({rate * seconds / dram, rate});
  }
  std::sort(f.coalescing_useful_rate.begin(), f.coalescing_useful_rate.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });

  for (auto& [key, s] : streams) {
    if (s.rate_by_warps.empty()) continue;
    std::sort(s.rate_by_warps.begin(), s.rate_by_warps.end(),
              [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
    // A warp load reads 32 lanes x load_bytes; the instructions a load took at the last point.
    const auto counts = stream_counts.find({key, int(s.rate_by_warps.back().x)});
    if (counts != stream_counts.end() && counts->second.second > 0) {
      const double warp_loads = counts->second.second / (32.0 * std::get<0>(key));
      s.inst_per_load = counts->second.first / warp_loads;
    }
    s.load_bytes = std::get<0>(key);
    s.alu_per_load = std::get<1>(key);
    s.loads_in_flight = std::get<2>(key);
    f.streams.push_back(s);
  }
  return f;
}

void add_model_parameters(GpuFigures& figures, const analysis::Run& run, const std::vector<analysis::Row>& rows) {
  figures.model.reset();
  ModelParameters p;
  const model::ArchParams arch = analysis::detail::arch_of(run);
  p.sms = static_cast<int>(run.context.number(schema::key::kSmCount));
  p.schedulers_per_sm = arch.schedulers_per_sm;
  p.clock_hz = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
  const auto limit = [&](const char* key) {
    return run.context.values.count(key) ? static_cast<int>(run.context.number(key)) : 0;
  };
  p.max_blocks_per_sm = limit(schema::key::kMaxBlocksPerSm);
  p.max_warps_per_sm = limit(schema::key::kMaxWarpsPerSm);
  std::string locus_text, rate_text;
  const auto locus = analysis::detail::loaded_latency_locus(run, locus_text);
  const auto rate = analysis::detail::saturated_issue_rate(run, arch.schedulers_per_sm, rate_text);
  if (!locus || !rate || !(p.sms > 0) || !(p.clock_hz > 0)) {
    figures.model_source = std::string("the run has no ") +
                           (!locus ? "loaded-latency locus (streaming read_independent 16-byte W = 0 sweep)"
                            : !rate ? "saturated issue rate (partial_warp fma_issue)"
                                    : "SM count or measured clock");
    return;
  }
  p.locus = *locus;
  p.issue_rate = *rate;
  for (const analysis::Row& r : rows) {
    if (!is(r, "streaming", "block_turnover") || r.metric != "block_turnover_cycles" || !(r.value > 0)) continue;
    const int threads = int_param(analysis::parse_key_values(r.params), "block_threads");
    if (threads > 0) p.turnover_by_threads.emplace_back(threads, r.value);
  }
  std::sort(p.turnover_by_threads.begin(), p.turnover_by_threads.end());
  std::string copy_text;
  if (const auto copy = analysis::detail::copy_locus(run, copy_text)) p.copy_locus = *copy;
  figures.model_source = locus_text + "; r_sat " + analysis::fixed(*rate, 4) + " (" + rate_text + "); " +
                         (p.turnover_by_threads.empty()
                              ? std::string("no block_turnover sweep (a run before it): D = 0")
                              : std::to_string(p.turnover_by_threads.size()) + " block_turnover points") +
                         (copy_text.empty() ? std::string("; no copy locus (a run before it): EXPLAIN-5's pricing")
                                            : "; " + copy_text);
  figures.model = std::move(p);
}

std::optional<std::string> newest_run_of(const std::string& gpu,
                                         const std::vector<std::pair<std::string, std::string>>& runs) {
  std::optional<std::string> newest;
  for (const auto& [folder, name] : runs) {
    if (name != gpu) continue;
    if (!newest || folder > *newest) newest = folder;
  }
  return newest;
}

}  // namespace warpcost::explain
