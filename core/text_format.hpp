// Numbers as text for the report, the verdicts' reasons and the comparison: one printf-style
// formatter for the whole analysis.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpcost::analysis {

// printf_format takes exactly one double, e.g. "%.4g" or "%+.2f".
inline std::string format_number(const char* printf_format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, printf_format, value);
  return buffer;
}

// 2^53: every whole number up to it is exact in a double; a count past it cannot be stated exactly.
inline constexpr double kLargestExactWhole = 9007199254740992.0;

// A number as it was given: a whole number in full (1000000000000001, not 1e+15), others to 15
// significant digits (4.0000001, not 4).
inline std::string exact_number(double value) {
  const bool whole = std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e18;
  return format_number(whole ? "%.0f" : "%.15g", value);
}

// `digits` digits after the point.
inline std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// "key=value;key=value" (a row's params, the context's counter_units) as a map; items without '='
// are skipped.
inline std::map<std::string, std::string> parse_key_values(const std::string& text) {
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find(';', start);
    const std::string item = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::size_t eq = item.find('=');
    if (eq != std::string::npos) out[item.substr(0, eq)] = item.substr(eq + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// The whole of `text` as a number (std::stod / std::stoll); nullopt when it is empty, is not a
// number, or has anything after the number. Range checks are the caller's.
template <class Convert>
auto parse_whole(const std::string& text, Convert convert) -> std::optional<decltype(convert(text, nullptr))> {
  std::size_t used = 0;
  try {
    const auto value = convert(text, &used);
    if (used == 0 || used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

inline std::optional<double> parse_whole_double(const std::string& text) {
  return parse_whole(text, [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
}

inline std::optional<long long> parse_whole_integer(const std::string& text) {
  return parse_whole(text, [](const std::string& t, std::size_t* used) { return std::stoll(t, used); });
}

// `line` split at every `separator`, empty fields kept (a trailing separator gives a last empty
// field): the tab-separated tables the tools read (verdict locks, explain's proof cases).
inline std::vector<std::string> split_fields(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t at = line.find(separator); at != std::string::npos; at = line.find(separator, start)) {
    fields.push_back(line.substr(start, at - start));
    start = at + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

// A lane mask as eight hex digits: 0x0000ffff.
inline std::string hex_mask(std::uint32_t mask) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", mask);
  return buffer;
}

// A GPU's name as a folder name: lower-case letters and digits, each run of anything else one '-'
// ("NVIDIA H200" -> "nvidia-h200"). The bench names its run folders so, and tools that write beside
// the runs (warpcost check --measure) use the same rule.
inline std::string gpu_slug(const std::string& name) {
  std::string slug;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      slug += static_cast<char>(std::tolower(u));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-gpu" : slug;
}

}  // namespace warpcost::analysis
