// Numbers as text for the report, the verdicts' reasons and the comparison: one printf-style
// formatter for the whole analysis.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace warpcost::analysis {

// printf_format takes exactly one double, e.g. "%.4g" or "%+.2f".
inline std::string format_number(const char* printf_format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, printf_format, value);
  return buffer;
}

// `digits` digits after the point.
inline std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// A lane mask as eight hex digits: 0x0000ffff.
inline std::string hex_mask(std::uint32_t mask) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", mask);
  return buffer;
}

}  // namespace warpcost::analysis
