// Where a committed or user run of a GPU measured the point an example asks about: the family's own
// evaluated row (analysis/evaluation.hpp) at the example's parameters, with the run it came from.
#include "check/measured.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/result_schema.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/evaluation_support.hpp"
#include "analysis/coalescing/evaluation.hpp"
#include "core/coalescing/schema.hpp"
#include "core/streaming/model.hpp"
#include "core/streaming/schema.hpp"

namespace warpcost::examples {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string whole(double v) { return std::to_string(static_cast<long long>(v)); }

// "k=v;k=v" holds every pair of `wanted`.
bool params_hold(const std::string& params, const std::vector<std::string>& wanted) {
  const std::string p = ";" + params + ";";
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const std::string& kv) { return p.find(";" + kv + ";") != std::string::npos; });
}

}  // namespace

std::vector<Lookup> lookups_for(const Example& ex) {
  std::vector<Lookup> out;
  const auto& in = ex.inputs;
  auto num = [&](const char* k) { return in.at(k).value.number; };
  if (ex.kind == "block_shape" || ex.kind == "thread_map") {
    std::vector<long long> b = in.at("block").value.coord;
    while (b.size() < 3) b.push_back(1);
    const std::vector<std::string> p = {"x=" + std::to_string(b[0]), "y=" + std::to_string(b[1]), "z=" + std::to_string(b[2])};
    out.push_back({"warps", "partial_warp", "schedule", p, "warps_per_block", ""});
    out.push_back({"tail_mask", "partial_warp", "schedule", p, "tail_mask", ""});
  } else if (ex.kind == "grid_tail") {
    const std::vector<std::string> p = {"block_threads=" + whole(num("block_threads")), "total_threads=" + whole(num("threads"))};
    out.push_back({"last_block_full_warps", "partial_warp", "grid_tail", p, "tail_full_warps", ""});
    out.push_back({"launched_warps", "partial_warp", "grid_tail", p, "smsp__warps_launched.sum", ""});
  } else if (ex.kind == "divergence") {
    const auto& paths = in.at("paths").value.paths;
    const bool equal = std::all_of(paths.begin(), paths.end(), [&](const model::BranchPath& q) { return q.cost == paths[0].cost; });
    const std::string shape = in.count("shape") ? in.at("shape").value.text : (paths.size() == 2 ? "if_else" : "switch");
    const std::string note = "the family's kernel runs equal path bodies of 384 trips";
    if (!equal) return out;  // the families measure equal bodies only
    if (shape == "if_else" && paths.size() == 2 && paths[0].lanes > 0 && paths[0].lanes < 32 && paths[0].lanes + paths[1].lanes == 32) {
      out.push_back({"slowdown", "divergence", "split_low", {"k=" + std::to_string(paths[0].lanes), "warps_per_sm=4"}, "warp_slowdown", note});
    } else if (shape == "switch") {
      const auto populated = std::count_if(paths.begin(), paths.end(), [](const model::BranchPath& q) { return q.lanes > 0; });
      out.push_back({"slowdown", "divergence", "switch", {"paths=" + std::to_string(populated), "warps_per_sm=4"}, "warp_slowdown", note});
    } else if (shape == "nested") {
      out.push_back({"slowdown", "divergence", "nested", {"leaves=" + std::to_string(paths.size()), "warps_per_sm=4"}, "warp_slowdown", note});
    }
  } else if (ex.kind == "latency_hiding") {
    out.push_back({"warps_needed", "streaming", "knee",
                   {"use=independent", "load_bytes=16", "alu_per_load=" + whole(num("instructions"))},
                   "knee_warps_per_sm", "the knee of this GPU's stream with W ALU ops a load, at its own L, not the example's"});
  } else if (ex.kind == "coalescing") {
    const std::string size = "elem_bytes=" + whole(num("elem_bytes"));
    if (in.count("stride")) {
      const std::string offset = "offset=" + (in.count("offset") ? whole(num("offset")) : std::string("0"));
      out.push_back({"sectors_per_request", "coalescing", "load_dram", {size, "stride=" + whole(num("stride")), offset},
                     "sectors_per_request", ""});
    } else if (in.count("block")) {
      const auto& b = in.at("block").value.coord;
      out.push_back({"sectors_per_request", "coalescing", "block_2d", {"x=" + std::to_string(b[0]), "y=" + std::to_string(b[1])},
                     "sectors_per_request", "the family's own image and element size"});
    } else {
      out.push_back({"sectors_per_request", "coalescing", "partial_block", {"block_threads=" + whole(num("block_threads"))},
                     "sectors_per_request", "the family's own element size"});
    }
  }
  return out;
}

std::vector<fs::path> runs_of_gpu(const fs::path& results, const std::string& gpu) {
  std::vector<fs::path> runs;
  std::error_code ec;
  if (!fs::is_directory(results, ec)) return runs;
  for (const auto& dir : fs::directory_iterator(results, ec)) {
    if (!dir.is_directory() || dir.path().filename() == "archive") continue;
    for (const auto& run : fs::directory_iterator(dir.path(), ec)) {
      if (fs::exists(run.path() / "bench.json")) runs.push_back(run.path());
    }
  }
  std::sort(runs.begin(), runs.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() > b.filename().string();  // stamps first: newest first
  });
  std::vector<fs::path> mine;
  for (const auto& r : runs) {
    if (lower(r.parent_path().filename().string()) == lower(gpu)) mine.push_back(r);
  }
  if (!mine.empty()) return mine;
  for (const auto& r : runs) {  // the device's name, when the folder slug was not given
    try {
      const analysis::Run run = analysis::read_run(r / "bench.json");
      if (lower(run.context.text(schema::key::kGpuName)) == lower(gpu)) mine.push_back(r);
    } catch (const std::exception&) {
    }
  }
  return mine;
}

bool second_order_parameter_run(const fs::path& results, const std::string& gpu, analysis::Run& run,
                                std::string& why_none) {
  const auto runs = runs_of_gpu(results, gpu);
  if (runs.empty()) {
    why_none = "no suite run of '" + gpu + "' under " + results.string() + " gives the second-order parameters";
    return false;
  }
  for (const auto& dir : runs) {
    try {
      analysis::Run candidate = analysis::read_run(dir / "bench.json");
      // A partial run (interrupted, or a device lost) or one on a MIG instance measured another
      // machine than the whole GPU the runners use: an older whole run answers instead.
      const auto status = candidate.context.values.find(schema::key::kRunStatus);
      if (status != candidate.context.values.end() && status->second.rfind("partial", 0) == 0) continue;
      if (!analysis::mig_instance(candidate).empty()) continue;
      std::string text;
      const auto arch = analysis::detail::arch_of(candidate);
      if (!analysis::detail::loaded_latency_locus(candidate, text) ||
          !analysis::detail::saturated_issue_rate(candidate, arch.schedulers_per_sm, text)) {
        continue;
      }
      // The coalescing family's R(D): its 16-byte stride-1 DRAM load prices (a run without it is a filtered one).
      analysis::BenchmarkResult reference;
      reference.family = coalescing::kFamily;
      reference.benchmark = coalescing::bench::kLoadDram;
      reference.params = {{coalescing::param::kElemBytes, "16"}, {coalescing::param::kStride, "1"}, {coalescing::param::kOffset, "0"}};
      if (!analysis::coalescing_second_order_price(candidate, reference)) continue;
      run = std::move(candidate);
      return true;
    } catch (const std::exception&) {
      continue;  // an unreadable run is skipped; an older one may answer
    }
  }
  why_none = "no whole run of '" + gpu + "' under " + results.string() +
             " has the loaded-latency locus, fma_issue's two points and coalescing's 16-byte loads (a run of the whole "
             "default suite has them)";
  return false;
}

std::vector<std::string> gpu_parameters_from_run(const std::string& kind, const std::vector<std::string>& user,
                                                 const analysis::Run& run, std::string& how) {
  std::map<std::string, std::string> given;
  for (const auto& kv : user) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) throw BadInput("warpcost predict: '" + kv + "' is not a key=value");
    given[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  std::vector<std::string> out;
  auto add = [&](const std::string& key, double value) {
    if (given.count(key) != 0) return;  // the user's own value stands
    out.push_back(key + "=" + analysis::format_number("%.6g", value));
  };
  const std::string id = run.run_id();
  if (kind == "stream_bandwidth") {
    std::string locus_text;
    std::string rate_source;
    const model::ArchParams arch = analysis::detail::arch_of(run);
    const auto locus = analysis::detail::loaded_latency_locus(run, locus_text);
    const auto rate = analysis::detail::saturated_issue_rate(run, arch.schedulers_per_sm, rate_source);
    if (!locus || !rate) {
      how = "run " + id + " has no loaded-latency locus or fma_issue r_sat: state the GPU's parameters by hand";
      return {};
    }
    add("sms", run.context.number(schema::key::kSmCount));
    add("schedulers", arch.schedulers_per_sm);
    add("clock_mhz", run.context.number(schema::key::kSmClockMeasuredKhz) / 1e3);
    add("issue_rate", *rate);
    add("latency", locus->unloaded_cycles());
    add("loaded_latency", locus->cycles_at(locus->ceiling()));
    add("peak_gbps", locus->ceiling() / 1e9);
    how = "run " + id + ": " + locus_text + " (its two ends: a line between them), r_sat from " + rate_source;
    return out;
  }
  if (kind == "stream_greedy_bandwidth") {
    // ISSUE-33-GREEDY-ISSUE's GPU side, as the analysis reads it: the locus' ends, sigma from the
    // probe's spread at W = 0, 4 warps/SM, and C from the stated W's 1-warp/SM point.
    std::string locus_text;
    const auto locus = analysis::detail::loaded_latency_locus(run, locus_text);
    if (!locus) {
      how = "run " + id + " has no loaded-latency locus: state the GPU's parameters by hand";
      return {};
    }
    const double sms = run.context.number(schema::key::kSmCount);
    const double clock = run.context.number(schema::key::kSmClockMeasuredKhz) * 1e3;
    add("sms", sms);
    add("schedulers", analysis::detail::arch_of(run).schedulers_per_sm);
    add("clock_mhz", clock / 1e6);
    add("latency", locus->unloaded_cycles());
    add("loaded_latency", locus->cycles_at(locus->ceiling()));
    add("peak_gbps", locus->ceiling() / 1e9);
    how = "run " + id + ": " + locus_text + " (its two ends: a line between them)";
    if (run.context.text(schema::key::kCc) != "9.0") {
      how += "; note: the run is cc " + run.context.text(schema::key::kCc) + ", the loops are sm_90's";
    }
    const auto inputs = analysis::detail::greedy_run_inputs(run, *locus);
    if (!inputs) {
      how += "; no sigma or C: the run cannot give them (not cc 9.0 with CUDA 13.0, or no unthrottled spread point)";
      return out;
    }
    add("sigma", inputs->sigma);
    how += "; sigma from streaming/read_independent/load_bytes:16/alu_per_load:0/warps_per_sm:4";
    if (given.count("alu_per_load") != 0) {
      const std::string t0_point = "streaming/read_independent/load_bytes:16/alu_per_load:" + given["alu_per_load"] + "/warps_per_sm:1";
      const auto text = model::streaming::suite_read_independent_program(std::atoi(given["alu_per_load"].c_str()));
      for (const auto& b : run.benchmarks) {
        if (!text || b.run_name != t0_point || b.error || b.seconds.empty() || !b.has_counter(schema::counter::kBytesRead))
          continue;
        const double t0 = sms * 512.0 * clock / (b.counter_median(schema::counter::kBytesRead) / b.median_seconds());
        add("constant_cycles",
            model::streaming::greedy_constant_latency(t0, inputs->memory_latency, model::streaming::parse_loop_program(*text)));
        how += "; C from " + t0_point;
      }
    }
    return out;
  }
  if (kind == "block_stream_bandwidth") {
    std::string locus_text;
    const auto locus = analysis::detail::loaded_latency_locus(run, locus_text);
    if (!locus) {
      how = "run " + id + " has no loaded-latency locus: state the GPU's parameters by hand";
      return {};
    }
    add("sms", run.context.number(schema::key::kSmCount));
    add("clock_mhz", run.context.number(schema::key::kSmClockMeasuredKhz) / 1e3);
    add("latency", locus->unloaded_cycles());
    add("loaded_latency", locus->cycles_at(locus->ceiling()));
    add("peak_gbps", locus->ceiling() / 1e9);
    how = "run " + id + ": " + locus_text + " (its two ends: a line between them)";
    // D and k are the block size's own: the run's block_turnover point and read_one_per_thread's
    // resident blocks at the stated block_threads (unthrottled, error-free points only).
    const auto threads = given.count("block_threads") ? analysis::parse_whole_double(given.at("block_threads")) : std::nullopt;
    if (!threads) {
      how += "; give block_threads=P to read the block turnover and the resident blocks at P";
      return out;
    }
    auto point = [&](const char* benchmark) -> const analysis::BenchmarkResult* {
      for (const auto& b : run.benchmarks) {
        if (b.family == schema::streaming::kFamily && b.benchmark == benchmark && !b.error && !b.seconds.empty() &&
            b.has_param(schema::streaming::param::kBlockThreads) &&
            b.param(schema::streaming::param::kBlockThreads) == *threads && !analysis::is_throttled(run, b)) {
          return &b;
        }
      }
      return nullptr;
    };
    const auto* turnover = point(schema::streaming::benchmark::kBlockTurnover);
    const auto d = turnover != nullptr ? analysis::detail::block_turnover_cycles(run, *turnover) : std::nullopt;
    if (d) {
      add("turnover_cycles", *d);
      how += "; D from streaming/block_turnover block_threads=" + given.at("block_threads");
    } else {
      how += "; the run has no block_turnover point at " + given.at("block_threads") + " threads: state turnover_cycles by hand";
    }
    const auto* read = point(schema::streaming::benchmark::kReadOnePerThread);
    if (read != nullptr && read->has_counter(schema::streaming::counter::kResidentBlocksPerSm)) {
      add("resident_blocks", std::round(read->counter_median(schema::streaming::counter::kResidentBlocksPerSm)));
      how += "; k from read_one_per_thread's resident blocks at that size";
    } else {
      how += "; no read_one_per_thread point at that size: state resident_blocks by hand";
    }
    return out;
  }
  if (kind == "coalescing_bandwidth") {
    auto whole = [&](const std::string& key, long long otherwise) -> long long {
      const auto it = given.find(key);
      if (it == given.end()) return otherwise;
      const auto v = analysis::parse_whole_double(it->second);
      if (!v) throw BadInput("warpcost predict: " + key + " = '" + it->second + "'; allowed: a whole number");
      return static_cast<long long>(*v);
    };
    const std::string level = given.count("level") ? given.at("level") : std::string("dram");
    analysis::BenchmarkResult point;
    point.family = coalescing::kFamily;
    point.benchmark = level == "l2" ? coalescing::bench::kLoadL2 : level == "store" ? coalescing::bench::kStoreDram
                                                                                   : coalescing::bench::kLoadDram;
    point.params = {{coalescing::param::kElemBytes, std::to_string(whole("elem_bytes", 4))},
                    {coalescing::param::kStride, std::to_string(whole("stride", 1))},
                    {coalescing::param::kOffset, std::to_string(whole("offset", 0))}};
    const auto price = analysis::coalescing_second_order_price(run, point);
    if (!price) {
      const bool narrow_l2 = analysis::l2_narrow_point(point.benchmark, whole("elem_bytes", 4));
      how = "run " + id + " has no coalescing " + point.benchmark + (narrow_l2 ? " 4-byte" : " 16-byte") +
            " points to give R(D): state moved_rate_gbps by hand";
      return {};
    }
    add("moved_rate_gbps", price->moved_rate / 1e9);
    if (price->in_flight > 0) add("in_flight_gbps", price->in_flight / 1e9);
    if (price->request_rate > 0) add("request_rate_gps", price->request_rate / 1e9);
    if (level == "dram" && price->granule > 0) add("granule_bytes", price->granule);
    how = "run " + id + ": " + price->numbers;
    return out;
  }
  how = "predict reads no " + kind + " parameters from a run: state them by hand (the run's `second-order:` rows say them)";
  return {};
}

std::vector<Measured> measured_values(const Example& ex, const fs::path& results, const std::string& gpu,
                                      std::string& why_none) {
  std::vector<Measured> out;
  const auto lookups = lookups_for(ex);
  if (lookups.empty()) {
    why_none = ex.kind == "stream_bandwidth" || ex.kind == "stream_greedy_bandwidth" || ex.kind == "block_stream_bandwidth" || ex.kind == "grid_tail_time" ||
                       ex.kind == "divergence_grid" || ex.kind == "coalescing_bandwidth" ||
                       ex.kind == "primitive_throughput"
                   ? "a second-order model from stated parameters; the newest run's `second-order:` rows of its family "
                     "are what the GPU measured (docs/models.md)"
               : ex.kind == "warp_primitive"
                   ? "predict does not read the warp_primitives family's runs yet; `warpcost check FILE --measure` runs the primitive"
                   : ex.kind == "scheduler_demand"
                         ? "no family measures a scheduler's demand as such (the streaming knee does, at this GPU's own L)"
                         : "no family measures these inputs (divergence: the kernels run equal path bodies only)";
    return out;
  }
  const auto runs = runs_of_gpu(results, gpu);
  if (runs.empty()) {
    why_none = "no run of '" + gpu + "' under " + results.string();
    return out;
  }
  for (const auto& dir : runs) {
    analysis::Run run;
    try {
      run = analysis::read_run(dir / "bench.json");
    } catch (const std::exception& e) {
      continue;  // an unreadable run is skipped; the next one may answer
    }
    const auto rows = analysis::evaluate_run(run);
    for (const auto& l : lookups) {
      for (const auto& r : rows) {
        if (r.family == l.family && r.benchmark == l.benchmark && r.metric == l.metric && params_hold(r.params, l.params)) {
          out.push_back(Measured{l.answer, r.value, r.unit, run.run_id(), r.family + "/" + r.benchmark + "/" + r.params + " " + r.metric,
                                 r.verdict, l.note});
          break;
        }
      }
    }
    if (!out.empty()) return out;
  }
  why_none = "no run of '" + gpu + "' under " + results.string() + " measured this point";
  return out;
}

}  // namespace warpcost::examples
