// The latency and streaming families' analysis (analysis/family.hpp): one folder, two run-name
// families, since the streaming knees are read against the latency plateaus.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/family.hpp"

namespace warpcost::analysis::streaming {
std::vector<const Family*> families();
// Both families' sentences (analysis/streaming/report.cpp): the why of each of their reasons.
std::string render(const Reason& reason);
// The key of a latency plateau's i-th footprint in its reason (latency/plateau).
std::string footprint_key(std::size_t i);
// The loaded-latency locus in words: its points, unloaded cycles and ceiling (bytes/s).
std::string locus_description(std::size_t points, double unloaded_cycles, double ceiling);
}  // namespace warpcost::analysis::streaming
