#include "core/schedule_check.hpp"

#include "core/text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace warpcost::analysis {
namespace {


// At most this many failures of one kind are listed; the count says how many there were.
constexpr std::size_t kMaxListed = 8;

void note(std::vector<std::string>& list, std::size_t& count, const std::string& message) {
  if (count++ < kMaxListed) list.push_back(message);
}

void close_list(std::vector<std::string>& list, std::size_t count, const std::string& what) {
  if (count > kMaxListed) {
    list.push_back("... and " + std::to_string(count - kMaxListed) + " more " + what);
  }
}

// The smallest clock64 any written thread of the block read: the zero of the cycles columns.
long long earliest_clock(const std::vector<ThreadRecord>& slots, long long threads) {
  long long earliest = 0;
  bool any = false;
  for (long long t = 0; t < threads; ++t) {
    const ThreadRecord& r = slots[static_cast<std::size_t>(t)];
    if (r.written && (!any || r.clock < earliest)) {
      earliest = r.clock;
      any = true;
    }
  }
  return earliest;
}

}  // namespace

std::string shape_text(const model::BlockShape& s) {
  return "(" + std::to_string(s.x) + "," + std::to_string(s.y) + "," + std::to_string(s.z) + ")";
}

ScheduleCheck check_schedule(const model::BlockShape& shape, const std::vector<ThreadRecord>& slots,
                             int device_warp_size) {
  ScheduleCheck c;
  c.shape = shape;
  c.threads = model::threads_per_block(shape);
  if (static_cast<long long>(slots.size()) < c.threads) {
    throw std::invalid_argument("recorder slots = " + std::to_string(slots.size()) +
                                "; allowed: at least the block's " + std::to_string(c.threads));
  }
  const std::string block = "block " + shape_text(shape);
  std::size_t gate_count = 0;
  std::size_t model_count = 0;

  for (std::size_t i = static_cast<std::size_t>(c.threads); i < slots.size(); ++i) {
    if (slots[i].written) {
      note(c.gate_failures, gate_count,
           "gate 3: slot " + std::to_string(i) + " outside " + block + " (" +
               std::to_string(c.threads) + " threads) was written");
    }
  }
  std::set<unsigned int> sms;
  for (long long t = 0; t < c.threads; ++t) {
    const ThreadRecord& r = slots[static_cast<std::size_t>(t)];
    const std::string who = "thread " + std::to_string(t) + " of " + block;
    if (!r.written) {
      note(c.gate_failures, gate_count, "gate 3: " + who + " never wrote its slot");
      continue;
    }
    if (r.linear != static_cast<unsigned int>(t)) {
      note(c.gate_failures, gate_count,
           "gate 3: slot " + std::to_string(t) + " of " + block + " holds linear index " +
               std::to_string(r.linear));
    }
    if (r.warp_size != device_warp_size || r.warp_size != model::kWarpSize) {
      note(c.gate_failures, gate_count,
           "gate 1: " + who + ": warpSize " + std::to_string(r.warp_size) +
               ", device attribute " + std::to_string(device_warp_size) + ", compiled " +
               std::to_string(model::kWarpSize));
    }
    if (r.lane_id >= 32 || ((r.active_mask >> r.lane_id) & 1u) == 0) {
      note(c.gate_failures, gate_count,
           "gate 2: " + who + ": lane " + std::to_string(r.lane_id) + " is not in its mask " +
               hex_mask(r.active_mask));
    }
    sms.insert(r.smid);
    if (r.lane_id == 0) ++c.warps_observed;

    const model::ThreadCoord expected = model::thread_coord(shape, t);
    const bool lane_ok = r.lane_id == static_cast<unsigned int>(model::lane_of(t));
    const bool coord_ok = expected == model::ThreadCoord{r.tx, r.ty, r.tz};
    const std::uint32_t expected_mask = model::warp_mask(c.threads, model::warp_of(t));
    const bool mask_ok = r.active_mask == expected_mask;
    if (lane_ok && coord_ok && mask_ok) {
      ++c.threads_mapped_as_model;
    } else {
      note(c.model_mismatches, model_count,
           who + ": lane " + std::to_string(r.lane_id) + " (model " +
               std::to_string(model::lane_of(t)) + "), (" + std::to_string(r.tx) + "," +
               std::to_string(r.ty) + "," + std::to_string(r.tz) + ") (model (" +
               std::to_string(expected.x) + "," + std::to_string(expected.y) + "," +
               std::to_string(expected.z) + ")), mask " + hex_mask(r.active_mask) + " (model " +
               hex_mask(expected_mask) + ")");
    }
  }
  close_list(c.gate_failures, gate_count, "gate failures");
  close_list(c.model_mismatches, model_count, "threads off the model");
  c.distinct_sms = static_cast<long long>(sms.size());
  const ThreadRecord& last = slots[static_cast<std::size_t>(c.threads - 1)];
  c.tail_mask_observed = last.written ? last.active_mask : 0u;

  const long long earliest = earliest_clock(slots, c.threads);
  for (long long w = 0; w < model::warps_per_block(c.threads); ++w) {
    WarpRow row;
    row.warp = w;
    const long long first = w * model::kWarpSize;
    const long long end = std::min(c.threads, first + model::kWarpSize);
    const ThreadRecord& head = slots[static_cast<std::size_t>(first)];
    row.lanes = static_cast<int>(end - first);
    row.mask = head.active_mask;
    row.cycles = head.clock - earliest;
    row.smid = head.smid;
    row.one_mask = row.one_clock = row.one_sm = true;
    for (long long t = first; t < end; ++t) {
      const ThreadRecord& r = slots[static_cast<std::size_t>(t)];
      row.one_mask = row.one_mask && r.written && r.active_mask == head.active_mask;
      row.one_clock = row.one_clock && r.written && r.clock == head.clock;
      row.one_sm = row.one_sm && r.written && r.smid == head.smid;
    }
    c.warps_with_one_clock += row.one_clock ? 1 : 0;
    c.warps_with_one_sm += row.one_sm ? 1 : 0;
    c.warps.push_back(row);
  }
  return c;
}

std::string schedule_table(const ScheduleCheck& c) {
  char line[160];
  std::string out;
  std::snprintf(line, sizeof line,
                "%lld threads, block %s, 1 block: %lld warp(s) (model %lld), tail mask 0x%08x "
                "(model 0x%08x)\n",
                c.threads, shape_text(c.shape).c_str(), c.warps_observed,
                model::warps_per_block(c.threads), c.tail_mask_observed,
                model::tail_mask(c.threads));
  out += line;
  out += "  warp  lanes  active mask    cycles  one mask  one clock   SM\n";
  for (const WarpRow& w : c.warps) {
    std::snprintf(line, sizeof line, "  %4lld  %5d   0x%08x  %8lld  %8s  %9s  %3u%s\n", w.warp,
                  w.lanes, w.mask, w.cycles, w.one_mask ? "yes" : "no", w.one_clock ? "yes" : "no",
                  w.smid, w.one_sm ? "" : " (moved)");
    out += line;
  }
  return out;
}

std::string thread_table(const ScheduleCheck& c, const std::vector<ThreadRecord>& slots) {
  const long long earliest = earliest_clock(slots, c.threads);
  char line[160];
  std::string out = "  thread  (x,y,z)             warp  lane  active mask    cycles\n";
  for (long long t = 0; t < c.threads; ++t) {
    const ThreadRecord& r = slots[static_cast<std::size_t>(t)];
    if (!r.written) {
      std::snprintf(line, sizeof line, "  %6lld  (not written)\n", t);
    } else {
      const std::string coord = "(" + std::to_string(r.tx) + "," + std::to_string(r.ty) + "," +
                                std::to_string(r.tz) + ")";
      std::snprintf(line, sizeof line, "  %6lld  %-18s  %4lld  %4u   0x%08x  %8lld\n", t,
                    coord.c_str(), model::warp_of(t), r.lane_id, r.active_mask, r.clock - earliest);
    }
    out += line;
  }
  return out;
}

}  // namespace warpcost::analysis
