#include "explain/report.hpp"

#include <cmath>
#include <sstream>

#include "core/text_format.hpp"

namespace warpcost::explain {

namespace {

std::string dims(const std::array<unsigned, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

std::string kernel_params(const KernelCounters& k) {
  // By shape (--each-shape) two rows may differ in their dynamic shared memory alone.
  return "kernel=" + params_safe(k.name) + ";block=" + dims(k.block) + ";grid=" + dims(k.grid) +
         (k.by_shape ? ";dynamic_shared=" + std::to_string(k.dynamic_shared_bytes) : "");
}

std::string num(double x) {
  return analysis::format_number(x != 0 && (std::abs(x) >= 1e6 || std::abs(x) < 1e-3) ? "%.3g" : "%.4g", x);
}

std::string outcome_text(const AppOutcome& o) {
  if (o.signal != 0) return "killed by signal " + std::to_string(o.signal);
  return "exit code " + std::to_string(o.exit_code);
}

}  // namespace

std::string params_safe(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == ';' || c == '=') c = '_';
  }
  return out;
}

std::vector<analysis::Row> explain_rows(const Session& s) {
  std::vector<analysis::Row> rows;
  for (const KernelCosts& c : s.costs) {
    const KernelCounters& k = *c.kernel;
    const std::string params = kernel_params(k);
    auto row = [&](const std::string& view, const std::string& metric, double value, const std::string& unit) {
      analysis::Row r;
      r.family = "explain";
      r.benchmark = "kernel";
      r.params = params + (view.empty() ? "" : ";view=" + view);
      r.metric = metric;
      r.value = value;
      r.unit = unit;
      r.kind = analysis::kind::kInfo;
      r.verdict = analysis::verdict::kInfo;
      return r;
    };
    rows.push_back(row("", "gpu__time_duration.sum", k.seconds, "s"));
    rows.push_back(row("", "launches", double(k.launches), "1"));
    rows.push_back(row("", "registers_per_thread", k.registers_per_thread, "1"));
    rows.push_back(row("", "shared_bytes_per_block", k.shared_bytes_per_block, "B"));
    rows.push_back(row("", "dram_pass_launches", double(k.dram_pass_launches), "1"));
    if (k.dram_pass_launches > 0) {
      rows.push_back(row("", "replayed_dram_read_bytes", k.replayed_dram_read_bytes, "B"));
      rows.push_back(row("", "replayed_dram_write_bytes", k.replayed_dram_write_bytes, "B"));
    }
    for (const View& v : c.views) {
      for (const Quantity& q : v.quantities) rows.push_back(row(v.name, q.metric, q.value, q.unit));
      if (v.speedup) {
        // An estimate, never judged here: the proof (examples/explain) holds it against a measured fix.
        analysis::Row r = row(v.name, "estimated_speedup", *v.speedup, "1");
        r.model = v.priced_from;
        rows.push_back(r);
      }
    }
  }
  return rows;
}

// Why a DRAM pass was followed by no full profile (the text and the JSON say the same).
std::string unprofiled_reason(const DramPassRecord& d) {
  if (!d.launch_error.empty()) return "its DRAM pass's launch failed (" + d.launch_error + ")";
  if (!d.has_counters) return "its DRAM pass gave no counters";
  if (!d.followed_by_error.empty()) {
    return "the launch after its DRAM pass, to be profiled in full, failed (" + d.followed_by_error + ")";
  }
  return "it had its DRAM pass, but no later launch of the same kernel and shape came to profile in full";
}

// Where a kernel's DRAM bytes come from: its DRAM passes (unreplayed launches) or the replayed range.
std::string dram_source_text(const KernelCounters& k) {
  std::ostringstream out;
  if (k.dram_borrowed_passes > 0) {
    out << "from " << k.dram_borrowed_passes << " unreplayed launch(es) of this kernel and block at another shape "
        << "(--each-shape: only the first shape gets its DRAM pass), their bytes a warp launched times this shape's "
        << num(k.warps_launched) << " warps: " << num(k.dram_read_bytes) << " read, " << num(k.dram_write_bytes)
        << " written";
  } else if (k.dram_pass_launches == 0) {
    out << "from the replayed range (no DRAM pass for this kernel: --no-dram-pass, it was first chosen after a "
           "replay in its process, or the DRAM counters take more than one pass on this GPU); kernel replay can "
           "count writes the launch did not make";
  } else {
    out << "from " << k.dram_pass_launches << " unreplayed launch(es) (the launch before a profiled one, "
        << "profiled in one pass), " << num(k.dram_read_bytes) << " read, " << num(k.dram_write_bytes) << " written";
    if (k.dram_pass_launches < k.launches) {
      out << " (their bytes a warp launched times the warps of all " << k.launches
          << " launches: the other launches came after a replay)";
    }
    out << "; the replayed range counted " << num(k.replayed_dram_read_bytes) << " read, "
        << num(k.replayed_dram_write_bytes) << " written";
  }
  return out.str();
}

std::string render_text(const Session& s) {
  std::ostringstream out;
  out << "warpcost explain: ";
  for (const auto& a : s.command) out << a << ' ';
  if (!s.command.empty() && s.command.front() == "--from-records") {
    out << "\n  application: not run (its saved records re-priced)";
  } else {
    out << "\n  application: " << outcome_text(s.outcome) << ", " << num(s.outcome.wall_seconds)
        << " s wall time under explain";
  }
  if (s.records.started && !s.records.ended) out << " (it ended before the profiler's trailer: the records written before are kept)";
  out << "\n";
  if (!s.records.devices.empty()) {
    const DeviceRecord& d = s.records.devices.front();
    out << "  device: " << d.name << " (" << d.chip << ", cc " << d.cc_major << "." << d.cc_minor << ", "
        << d.sm_count << " SMs)\n";
  }
  out << "  launches profiled: " << s.records.launches.size();
  if (s.records.ended) {
    out << " of " << s.records.launches_matched << " matching (" << s.records.launches_seen << " launched in all)";
  }
  out << "\n  measured figures: " << s.figures_note << "\n";
  for (const ErrorRecord& e : s.records.errors) {
    out << "  profiler error (" << e.stage << "): " << e.message << "\n";
    if (!e.advice.empty()) out << "    " << e.advice << "\n";
  }
  if (s.skipped_lines > 0) out << "  " << s.skipped_lines << " cut record line(s) skipped\n";
  for (const LaunchRecord& l : s.records.launches) {
    if (l.launch_error.empty()) continue;
    out << "  profiled launch failed: " << l.name << " (process " << l.pid << ", launch " << l.index << "): "
        << l.launch_error << "\n";
  }
  for (const DramPassRecord& d : s.records.dram_passes) {
    if (d.used) continue;
    out << "  not profiled in full: " << d.name << " (process " << d.pid << ", launch " << d.index
        << "): " << unprofiled_reason(d);
    if (d.launch_error.empty() && d.has_counters && d.followed_by_error.empty()) {
      out << (s.records.errors.empty() && s.records.ended ? "" : " (or profiling stopped: see the errors and the ending above)")
          << "; --no-dram-pass profiles the first launch in full";
    }
    out << "\n";
  }

  double total = 0;
  for (const KernelCounters& k : s.kernels) total += k.seconds;
  for (const KernelCosts& c : s.costs) {
    const KernelCounters& k = *c.kernel;
    out << "\n" << k.name << "  block " << dims(k.block) << ", grid " << dims(k.grid) << ", "
        << k.registers_per_thread << " registers, " << k.shared_bytes_per_block << " B shared/block\n"
        << "  " << k.launches << " launch(es), " << num(k.seconds * 1e3) << " ms ("
        << num(total > 0 ? 100 * k.seconds / total : 0) << " % of the profiled time)";
    const std::string largest = c.largest_view();
    if (!largest.empty()) out << "; largest view: " << largest;
    out << "\n  DRAM bytes: " << dram_source_text(k) << "\n";
    for (const View& v : c.views) {
      out << "  " << v.name << ": ";
      if (v.speedup) {
        out << "estimated speedup of removing it " << num(*v.speedup) << "x\n";
      } else {
        out << "not priced (" << v.unpriced_reason << ")\n";
      }
      out << "    ";
      for (std::size_t i = 0; i < v.quantities.size(); ++i) {
        out << (i ? ", " : "") << v.quantities[i].metric << " " << num(v.quantities[i].value);
      }
      out << "\n";
      if (!v.priced_from.empty()) out << "    priced from: " << v.priced_from << "\n";
      if (!v.assumptions.empty()) out << "    assumes: " << v.assumptions << "\n";
    }
  }
  if (s.costs.empty()) out << "\nno kernel launch was profiled\n";
  return out.str();
}

nlohmann::json to_json(const Session& s) {
  using nlohmann::json;
  json j;
  j["schema_version"] = 1;
  j["command"] = s.command;
  j["application"] = {{"exit_code", s.outcome.exit_code},
                      {"signal", s.outcome.signal},
                      {"wall_seconds", s.outcome.wall_seconds},
                      {"ended_normally", s.records.ended}};
  if (!s.records.devices.empty()) {
    const DeviceRecord& d = s.records.devices.front();
    j["device"] = {{"name", d.name}, {"chip", d.chip}, {"sm_count", d.sm_count}};
  }
  j["figures"] = s.figures_note;
  j["errors"] = json::array();
  for (const ErrorRecord& e : s.records.errors) {
    j["errors"].push_back({{"stage", e.stage}, {"message", e.message}, {"cupti_result", e.cupti_result}});
  }
  j["failed_launches"] = json::array();
  for (const LaunchRecord& l : s.records.launches) {
    if (!l.launch_error.empty()) {
      j["failed_launches"].push_back({{"name", l.name}, {"pid", l.pid}, {"index", l.index}, {"error", l.launch_error}});
    }
  }
  j["not_profiled_in_full"] = json::array();  // DRAM passes no full profile followed
  for (const DramPassRecord& d : s.records.dram_passes) {
    if (d.used) continue;
    j["not_profiled_in_full"].push_back(
        {{"name", d.name}, {"pid", d.pid}, {"dram_pass_index", d.index}, {"why", unprofiled_reason(d)}});
  }
  j["kernels"] = json::array();
  for (const KernelCosts& c : s.costs) {
    const KernelCounters& k = *c.kernel;
    json kj = {{"name", k.name},
               {"block", k.block},
               {"grid", k.grid},
               {"launches", k.launches},
               {"seconds", k.seconds},
               {"registers_per_thread", k.registers_per_thread},
               {"shared_bytes_per_block", k.shared_bytes_per_block},
               {"largest_view", c.largest_view()},
               {"dram_source",
                {{"dram_pass_launches", k.dram_pass_launches},
                 {"dram_pass_seconds", k.dram_pass_seconds},
                 {"replayed_dram_read_bytes", k.replayed_dram_read_bytes},
                 {"replayed_dram_write_bytes", k.replayed_dram_write_bytes}}},
               {"views", json::array()}};
    for (const View& v : c.views) {
      json vj = {{"name", v.name}, {"priced_from", v.priced_from}, {"assumptions", v.assumptions}};
      vj["speedup"] = v.speedup ? json(*v.speedup) : json(nullptr);
      if (!v.unpriced_reason.empty()) vj["unpriced_reason"] = v.unpriced_reason;
      for (const Quantity& q : v.quantities) vj["quantities"][q.metric] = q.value;
      kj["views"].push_back(vj);
    }
    j["kernels"].push_back(kj);
  }
  return j;
}

}  // namespace warpcost::explain
