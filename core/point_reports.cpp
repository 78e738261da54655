#include "core/point_reports.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace warpcost::reports {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Gpu, name, sm_count, cc_major, cc_minor)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DivergeReport, gpu, shape, args, warps_per_sm, clock_hz, warp_cycles, grid_seconds,
                                   reference_warp_cycles, reference_grid_seconds, model_slowdown, model_from,
                                   paths_measured)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CoalesceReport, gpu, benchmark, arg_names, arg_values, elem_bytes, image_width,
                                   image_height, median_seconds, model_sectors_per_request, warp_requests, useful_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StreamReadReport, gpu, max_warps_per_sm, dram_peak_bytes_per_s, use, load_bytes,
                                   alu_per_load, run_time_alu, warps_per_sm, blocks_per_sm, warps_per_block,
                                   shared_bytes, median_seconds, bytes_read, loaded_latency_cycles, counters,
                                   instructions_per_iteration, ffma_per_load)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StreamOnePerThreadReport, gpu, dram_peak_bytes_per_s, threads_per_block, blocks,
                                   resident_blocks_per_sm, resident_warps_per_sm, median_seconds, bytes_read, load)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StreamChaseReport, gpu, order, footprint_bytes, nodes, warm_steps, steps, cycles, ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PrimitiveReport, gpu, mode, primitive, lanes, mask_a, mask_b, ops, launches,
                                   warps_per_sm, median)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MaskFactsReport::Warp, warp, activemask, ballot)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MaskFactsReport, gpu, threads, split, full_mask, warps, last_lane, last_shuffle)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecordReport::Warp, warp, lanes, mask, cycles, smid)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecordReport::Thread, slot, written, x, y, z, lane, mask)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RecordReport, gpu, block, warps, threads, gate_failures)

namespace {

// The report's fields, the tool's name and what the report derives (for a reader of the JSON; the
// readers ignore those), keys in alphabetical order.
template <typename Report>
std::string dump(const char* tool, const Report& r, const nlohmann::json& derived) {
  nlohmann::json j = r;
  j["tool"] = tool;
  for (const auto& [key, value] : derived.items()) j[key] = value;
  return j.dump(2) + "\n";
}

// `mode`: the report's own "mode" key must be this (the stream's three reports); nullptr: any.
template <typename Report>
Report read(const char* tool, const std::string& text, const char* mode = nullptr) {
  const auto open = text.find('{');
  const auto close = text.rfind('}');
  try {
    if (open == std::string::npos || close == std::string::npos || close < open) throw std::runtime_error("no JSON object");
    const nlohmann::json j = nlohmann::json::parse(text.substr(open, close - open + 1));
    if (!j.contains("tool") || j.at("tool") != tool) {
      throw std::runtime_error("not " + std::string(tool) + "'s report (tool = " +
                               (j.contains("tool") ? j.at("tool").dump() : std::string("absent")) + ")");
    }
    if (mode != nullptr && (!j.contains("mode") || j.at("mode") != mode)) {
      throw std::runtime_error("not the " + std::string(mode) + " mode's report (mode = " +
                               (j.contains("mode") ? j.at("mode").dump() : std::string("absent")) + ")");
    }
    return j.get<Report>();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(tool) + " --json: " + e.what());
  }
}

}  // namespace

std::string to_json(const DivergeReport& r) {
  return dump("warpcost-diverge", r, {{"warp_slowdown", r.warp_slowdown()}, {"grid_slowdown", r.grid_slowdown()}});
}
std::string to_json(const CoalesceReport& r) {
  return dump("warpcost-coalesce", r, {{"useful_bytes_per_s", r.useful_bytes_per_s()}});
}
std::string to_json(const StreamReadReport& r) {
  return dump("warpcost-stream", r, {{"mode", "read"}, {"bytes_per_s", r.bytes_per_s()}});
}
// The three stream modes are one tool's: each report names its mode, which its reader requires.
std::string to_json(const StreamOnePerThreadReport& r) {
  return dump("warpcost-stream", r, {{"mode", "one-per-thread"}, {"bytes_per_s", r.bytes_per_s()}});
}
std::string to_json(const StreamChaseReport& r) {
  return dump("warpcost-stream", r,
              {{"mode", "chase"}, {"cycles_per_load", r.cycles_per_load()}, {"ns_per_load", r.ns_per_load()}});
}
std::string to_json(const PrimitiveReport& r) { return dump("warpcost-primitives", r, nlohmann::json::object()); }
std::string to_json(const MaskFactsReport& r) { return dump("warpcost-primitives", r, {{"mode", "facts"}}); }
std::string to_json(const RecordReport& r) {
  return dump("warpcost-record", r, {{"gates_passed", r.gates_passed()}});
}

DivergeReport diverge_from_json(const std::string& text) { return read<DivergeReport>("warpcost-diverge", text); }
CoalesceReport coalesce_from_json(const std::string& text) { return read<CoalesceReport>("warpcost-coalesce", text); }
StreamReadReport stream_read_from_json(const std::string& text) {
  return read<StreamReadReport>("warpcost-stream", text, "read");
}
StreamOnePerThreadReport stream_one_per_thread_from_json(const std::string& text) {
  return read<StreamOnePerThreadReport>("warpcost-stream", text, "one-per-thread");
}
StreamChaseReport stream_chase_from_json(const std::string& text) {
  return read<StreamChaseReport>("warpcost-stream", text, "chase");
}
PrimitiveReport primitive_from_json(const std::string& text) {
  const PrimitiveReport r = read<PrimitiveReport>("warpcost-primitives", text);
  if (r.mode != "latency" && r.mode != "throughput") {
    throw std::runtime_error("warpcost-primitives --json: not a latency or throughput report (mode = " + r.mode + ")");
  }
  return r;
}
MaskFactsReport mask_facts_from_json(const std::string& text) {
  return read<MaskFactsReport>("warpcost-primitives", text, "facts");
}
RecordReport record_from_json(const std::string& text) { return read<RecordReport>("warpcost-record", text); }

}  // namespace warpcost::reports
