#include "explain/records.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "core/explain_metrics.hpp"

namespace warpcost::explain {

namespace {

using nlohmann::json;

std::array<unsigned, 3> dims(const json& j, const std::string& key) {
  const json& a = j.at(key);
  if (!a.is_array() || a.size() != 3) throw std::runtime_error("'" + key + "' is not three numbers");
  return {a[0].get<unsigned>(), a[1].get<unsigned>(), a[2].get<unsigned>()};
}

double metric_of(const LaunchRecord& r, const char* name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end()) throw std::runtime_error("launch " + std::to_string(r.index) + " of " + r.name +
                                                      " has no " + name);
  return it->second;
}

// A fully profiled launch takes its DRAM bytes from the DRAM pass it names (written before it), and
// keeps the replayed range's as replayed_*.
void take_dram_pass(std::vector<DramPassRecord>& passes, LaunchRecord& r) {
  auto pass = std::find_if(passes.begin(), passes.end(), [&](const DramPassRecord& d) {
    return d.pid == r.pid && d.index == r.dram_pass_index;
  });
  if (pass == passes.end() || pass->used || !pass->has_counters || pass->name != r.name) {
    throw std::runtime_error("launch " + std::to_string(r.index) + " of " + r.name + " names DRAM pass " +
                             std::to_string(r.dram_pass_index) + ", which is not a DRAM pass of the same kernel" +
                             " and process with counters before it, or is named twice");
  }
  if (!r.launch_error.empty() || r.metrics.empty()) {  // the full profile failed: the pass stays unused
    pass->followed_by_error = r.launch_error.empty() ? "no counters" : r.launch_error;
    r.dram_pass_index = -1;
    return;
  }
  pass->used = true;
  r.replayed_dram_read_bytes = metric_of(r, metric::kDramRead);
  r.replayed_dram_write_bytes = metric_of(r, metric::kDramWrite);
  r.metrics[metric::kDramRead] = pass->dram_read_bytes;
  r.metrics[metric::kDramWrite] = pass->dram_write_bytes;
  r.dram_pass_seconds = pass->seconds;
}

}  // namespace

Records parse_records(const std::string& text, int* skipped_lines) {
  Records out;
  int skipped = 0;
  long starts = 0, ends = 0;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("record")) {
      ++skipped;  // a line cut by a crash
      continue;
    }
    try {
      const std::string kind = j.at("record").get<std::string>();
      if (kind == "start") {
        out.started = true;
        out.each_shape = out.each_shape || j.value("each_shape", false);
        ++starts;
      } else if (kind == "end") {
        // One trailer a process: the counts add up over the application's processes.
        ++ends;
        out.launches_seen += j.value("launches_seen", 0L);
        out.launches_matched += j.value("launches_matched", 0L);
      } else if (kind == "device") {
        DeviceRecord d;
        d.name = j.at("name").get<std::string>();
        d.chip = j.at("chip").get<std::string>();
        d.cc_major = j.at("cc_major").get<int>();
        d.cc_minor = j.at("cc_minor").get<int>();
        d.sm_count = j.at("sm_count").get<int>();
        d.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
        d.warp_size = j.at("warp_size").get<int>();
        d.driver_api = j.value("driver_api", 0);
        out.devices.push_back(d);
      } else if (kind == "error") {
        out.errors.push_back({j.at("stage").get<std::string>(), j.at("message").get<std::string>(),
                              j.value("cupti_result", 0), j.value("advice", "")});
      } else if (kind == "launch") {
        LaunchRecord r;
        r.pid = j.value("pid", 0L);
        r.index = j.at("index").get<long>();
        r.name = j.at("name").get<std::string>();
        r.grid = dims(j, "grid");
        r.block = dims(j, "block");
        r.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<unsigned>();
        r.static_shared_bytes = j.at("static_shared_bytes").get<unsigned>();
        r.registers_per_thread = j.at("registers_per_thread").get<int>();
        r.occupancy_blocks_per_sm = j.at("occupancy_blocks_per_sm").get<int>();
        r.launch_error = j.value("launch_error", "");
        r.dram_pass_index = j.value("dram_pass_index", -1L);
        if (j.contains("metrics")) {
          // null: the library's NaN, a ratio over nothing (no instruction issued): 0.
          for (const auto& [k, v] : j.at("metrics").items()) r.metrics[k] = v.is_null() ? 0.0 : v.get<double>();
        }
        if (r.dram_pass_index >= 0) take_dram_pass(out.dram_passes, r);
        out.launches.push_back(std::move(r));
      } else if (kind == "dram_pass") {
        DramPassRecord d;
        d.pid = j.value("pid", 0L);
        d.index = j.at("index").get<long>();
        d.name = j.at("name").get<std::string>();
        d.launch_error = j.value("launch_error", "");
        if (j.contains("metrics") && d.launch_error.empty()) {
          d.has_counters = true;
          const json& m = j.at("metrics");
          const auto value = [&m](const char* name) { return m.at(name).is_null() ? 0.0 : m.at(name).get<double>(); };
          d.dram_read_bytes = value(metric::kDramRead);
          d.dram_write_bytes = value(metric::kDramWrite);
          d.seconds = value(metric::kDuration) * 1e-9;  // ns
        }
        out.dram_passes.push_back(d);
      } else {
        throw std::runtime_error("unknown record kind '" + kind + "'");
      }
    } catch (const std::exception& e) {
      throw std::runtime_error("records line " + std::to_string(number) + ": " + e.what());
    }
  }
  // Ended normally only when every process that started wrote its trailer.
  out.ended = ends > 0 && ends >= starts;
  if (skipped_lines != nullptr) *skipped_lines = skipped;
  return out;
}

std::vector<KernelCounters> summarise(const std::vector<LaunchRecord>& launches, bool by_shape) {
  namespace m = metric;
  // (name, grid, block, dynamic shared bytes); grid and shared bytes zero unless by_shape.
  using Key = std::tuple<std::string, std::array<unsigned, 3>, std::array<unsigned, 3>, unsigned>;
  std::map<Key, KernelCounters> by_kernel;
  // Weighted sums, divided at the end.
  std::map<Key, std::array<double, 4>> weighted;  // lanes*inst, pred_on*inst, warps*time, issue*time
  std::map<Key, double> scoreboard_weighted;
  std::map<Key, std::array<double, 3>> pass_bytes;  // DRAM read, written, warps launched: DRAM-pass launches
  // The same by (name, block) alone with their count, for a shape of no DRAM pass of its own.
  std::map<std::pair<std::string, std::array<unsigned, 3>>, std::array<double, 4>> block_pass_bytes;
  for (const LaunchRecord& r : launches) {
    if (!r.launch_error.empty() || r.metrics.empty()) continue;
    const Key key = by_shape ? Key{r.name, r.grid, r.block, r.dynamic_shared_bytes}
                             : Key{r.name, std::array<unsigned, 3>{}, r.block, 0u};
    KernelCounters& k = by_kernel[key];
    if (k.launches == 0) {
      k.name = r.name;
      k.block = r.block;
      k.grid = r.grid;
      k.registers_per_thread = r.registers_per_thread;
      k.shared_bytes_per_block = r.static_shared_bytes + r.dynamic_shared_bytes;
      k.by_shape = by_shape;
      k.dynamic_shared_bytes = r.dynamic_shared_bytes;
      k.occupancy_blocks_per_sm = r.occupancy_blocks_per_sm;
    }
    ++k.launches;
    const double seconds = metric_of(r, m::kDuration) * 1e-9;  // gpu__time_duration is in ns
    const double inst = metric_of(r, m::kInstExecuted);
    k.seconds += seconds;
    k.inst_executed += inst;
    k.thread_inst_executed += metric_of(r, m::kThreadInstExecuted);
    k.divergent_branch_targets += metric_of(r, m::kDivergentTargets);
    k.branch_targets += metric_of(r, m::kBranchTargets);
    k.load_requests += metric_of(r, m::kLoadRequests);
    k.load_sectors += metric_of(r, m::kLoadSectors);
    k.store_requests += metric_of(r, m::kStoreRequests);
    k.store_sectors += metric_of(r, m::kStoreSectors);
    k.load_bytes_asked += metric_of(r, m::kLoadBytesAsked);
    k.store_bytes_asked += metric_of(r, m::kStoreBytesAsked);
    k.dram_read_bytes += metric_of(r, m::kDramRead);
    k.dram_write_bytes += metric_of(r, m::kDramWrite);
    if (r.dram_pass_index >= 0) {
      ++k.dram_pass_launches;
      pass_bytes[key][0] += metric_of(r, m::kDramRead);  // the DRAM pass's (take_dram_pass)
      pass_bytes[key][1] += metric_of(r, m::kDramWrite);
      pass_bytes[key][2] += metric_of(r, m::kWarpsLaunched);
      auto& b = block_pass_bytes[{r.name, r.block}];
      b[0] += metric_of(r, m::kDramRead);
      b[1] += metric_of(r, m::kDramWrite);
      b[2] += metric_of(r, m::kWarpsLaunched);
      b[3] += 1;
      k.replayed_dram_read_bytes += r.replayed_dram_read_bytes;
      k.replayed_dram_write_bytes += r.replayed_dram_write_bytes;
      k.dram_pass_seconds += r.dram_pass_seconds;
    }
    k.warps_launched += metric_of(r, m::kWarpsLaunched);
    auto& w = weighted[key];
    w[0] += metric_of(r, m::kLanesPerInst) * inst;
    w[1] += metric_of(r, m::kLanesPredOnPerInst) * inst;
    w[2] += metric_of(r, m::kWarpsActive) * seconds;
    w[3] += metric_of(r, m::kIssueActivePct) / 100.0 * seconds;
    scoreboard_weighted[key] += metric_of(r, m::kLongScoreboard) * inst;
  }
  std::vector<KernelCounters> out;
  for (auto& [key, k] : by_kernel) {
    const auto& w = weighted[key];
    if (k.inst_executed > 0) {
      k.lanes_per_inst = w[0] / k.inst_executed;
      k.lanes_pred_on_per_inst = w[1] / k.inst_executed;
      k.long_scoreboard_per_issue = scoreboard_weighted[key] / k.inst_executed;
    }
    if (k.seconds > 0) {
      k.warps_active_per_sm = w[2] / k.seconds;
      k.issue_active = w[3] / k.seconds;
    }
    // Where some launches had a DRAM pass, every launch is priced at the passes' bytes a warp
    // launched (launches of one name and block may have other grids): the others were profiled
    // after a replay (inject.cpp: DRAM passes run only before the first full profile of the
    // process), so their replayed counts are left out.
    if (k.dram_pass_launches > 0 && pass_bytes[key][2] > 0) {
      const double scale = k.warps_launched / pass_bytes[key][2];
      k.dram_read_bytes = pass_bytes[key][0] * scale;
      k.dram_write_bytes = pass_bytes[key][1] * scale;
    } else if (by_shape && k.dram_pass_launches == 0) {
      // --each-shape: only the first shape had a DRAM pass (inject.cpp); another shape of the same
      // kernel and block is priced at that pass's bytes a warp, not at its replayed range's.
      const auto b = block_pass_bytes.find({k.name, k.block});
      if (b != block_pass_bytes.end() && b->second[2] > 0) {
        const double scale = k.warps_launched / b->second[2];
        k.dram_read_bytes = b->second[0] * scale;
        k.dram_write_bytes = b->second[1] * scale;
        k.dram_borrowed_passes = static_cast<long>(b->second[3]);
      }
    }
    out.push_back(k);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelCounters& a, const KernelCounters& b) { return a.seconds > b.seconds; });
  return out;
}

}  // namespace warpcost::explain
