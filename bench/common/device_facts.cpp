#include "bench/common/device_facts.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#ifndef WARPCOST_DEVICE_PROFILES
#define WARPCOST_DEVICE_PROFILES "data/device-profiles.csv"
#endif

namespace warpcost {
namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

long long whole_number(const std::string& text, const std::string& where) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < 0) {
    throw ProfileError(where + " = '" + text + "'; allowed: a whole number 0 or above");
  }
  return v;
}

}  // namespace

std::filesystem::path default_device_profiles() { return WARPCOST_DEVICE_PROFILES; }

std::vector<DeviceFacts> read_device_profiles(const std::filesystem::path& csv) {
  std::ifstream in(csv);
  if (!in) throw ProfileError("device profiles " + csv.string() + ": cannot be read");
  static const char* const kColumns[] = {
      "name", "gpu", "cc", "sm_count", "max_warps_per_sm", "max_blocks_per_sm", "max_threads_per_block",
      "registers_per_sm", "registers_per_block", "shared_per_sm", "shared_per_block_optin",
      "shared_reserved_per_block", "l2_bytes", "global_memory_bytes", "memory_bus_width_bits",
      "memory_clock_khz", "sm_clock_max_khz", "schedulers_per_sm", "sector_bytes", "source"};
  std::map<std::string, std::size_t> column;
  std::vector<DeviceFacts> profiles;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = split_commas(line);
    const std::string at = csv.string() + ":" + std::to_string(line_no);
    if (column.empty()) {
      for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      for (const char* c : kColumns) {
        if (column.count(c) == 0) throw ProfileError(at + ": the header has no column '" + std::string(c) + "'");
      }
      continue;
    }
    if (fields.size() != column.size()) {
      throw ProfileError(at + ": " + std::to_string(fields.size()) + " fields; allowed: " +
                         std::to_string(column.size()) + ", one per header column (no commas inside a field)");
    }
    auto text = [&](const char* c) { return fields[column.at(c)]; };
    auto number = [&](const char* c) { return whole_number(text(c), at + ": " + c); };
    DeviceFacts f;
    f.profile = text("name");
    f.gpu = text("gpu");
    if (f.profile.empty() || f.gpu.empty()) throw ProfileError(at + ": name and gpu must not be empty");
    for (const auto& p : profiles) {
      if (p.profile == f.profile) throw ProfileError(at + ": profile '" + f.profile + "' is named twice");
    }
    const std::string cc = text("cc");
    const std::size_t dot = cc.find('.');
    if (dot == std::string::npos) throw ProfileError(at + ": cc = '" + cc + "'; allowed: major.minor, e.g. 9.0");
    f.cc_major = static_cast<int>(whole_number(cc.substr(0, dot), at + ": cc major"));
    f.cc_minor = static_cast<int>(whole_number(cc.substr(dot + 1), at + ": cc minor"));
    f.sm_count = static_cast<int>(number("sm_count"));
    f.max_warps_per_sm = static_cast<int>(number("max_warps_per_sm"));
    f.max_blocks_per_sm = static_cast<int>(number("max_blocks_per_sm"));
    f.max_threads_per_block = static_cast<int>(number("max_threads_per_block"));
    f.registers_per_sm = number("registers_per_sm");
    f.registers_per_block = number("registers_per_block");
    f.shared_per_sm = number("shared_per_sm");
    f.shared_per_block_optin = number("shared_per_block_optin");
    f.shared_reserved_per_block = number("shared_reserved_per_block");
    f.l2_bytes = number("l2_bytes");
    f.global_memory_bytes = number("global_memory_bytes");
    f.memory_bus_width_bits = static_cast<int>(number("memory_bus_width_bits"));
    f.memory_clock_khz = number("memory_clock_khz");
    f.sm_clock_max_khz = number("sm_clock_max_khz");
    f.schedulers_per_sm = static_cast<int>(number("schedulers_per_sm"));
    f.sector_bytes = static_cast<int>(number("sector_bytes"));
    f.source = text("source");
    if (f.source.empty()) throw ProfileError(at + ": profile '" + f.profile + "' cites no source");
    if (const std::string p = device_facts_problem(f); !p.empty()) throw ProfileError(at + ": " + p);
    profiles.push_back(f);
  }
  if (profiles.empty()) throw ProfileError("device profiles " + csv.string() + ": no profile in it");
  return profiles;
}

DeviceFacts find_device_profile(const std::string& name_or_file) {
  if (name_or_file.find('/') != std::string::npos || name_or_file.find(".csv") != std::string::npos) {
    return read_device_profiles(name_or_file).front();
  }
  const std::vector<DeviceFacts> all = read_device_profiles(default_device_profiles());
  std::string names;
  for (const auto& p : all) {
    if (p.profile == name_or_file) return p;
    names += (names.empty() ? "" : ", ") + p.profile;
  }
  throw ProfileError("--device_profile=" + name_or_file + ": no such profile; allowed: " + names +
                     ", or a CSV file of data/device-profiles.csv's form");
}

std::string device_facts_problem(const DeviceFacts& f) {
  auto positive = [](const char* what, long long v) {
    return v > 0 ? std::string() : std::string(what) + " = " + std::to_string(v) + "; allowed: above 0";
  };
  for (const auto& p : {positive("sm_count", f.sm_count), positive("max_warps_per_sm", f.max_warps_per_sm),
                        positive("max_blocks_per_sm", f.max_blocks_per_sm),
                        positive("registers_per_sm", f.registers_per_sm),
                        positive("registers_per_block", f.registers_per_block),
                        positive("shared_per_sm", f.shared_per_sm),
                        positive("shared_per_block_optin", f.shared_per_block_optin),
                        positive("l2_bytes", f.l2_bytes), positive("global_memory_bytes", f.global_memory_bytes),
                        positive("memory_bus_width_bits", f.memory_bus_width_bits),
                        positive("memory_clock_khz", f.memory_clock_khz),
                        positive("sm_clock_max_khz", f.sm_clock_max_khz),
                        positive("schedulers_per_sm", f.schedulers_per_sm), positive("sector_bytes", f.sector_bytes)}) {
    if (!p.empty()) return p;
  }
  if (f.warp_size != 32) return "warp size = " + std::to_string(f.warp_size) + "; allowed: 32";
  if (f.max_threads_per_block < f.warp_size || f.max_threads_per_block % f.warp_size != 0) {
    return "max_threads_per_block = " + std::to_string(f.max_threads_per_block) +
           "; allowed: a positive multiple of the warp size";
  }
  if (f.shared_per_block_optin > f.shared_per_sm) {
    return "shared_per_block_optin = " + std::to_string(f.shared_per_block_optin) +
           "; allowed: at most shared_per_sm (" + std::to_string(f.shared_per_sm) + ")";
  }
  return {};
}

}  // namespace warpcost
