// What every examples/explain program shares: the --variant flag (the defect, or its fixed twin
// doing the same work), the timing of its one kernel with CUDA events (median of the timed
// launches, after warm-ups), and the line the proof script reads ("kernel_seconds=...").
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.hpp"

namespace warpcost::examples {

// kAligned: a twin that removes only the named defect where the fixed twin removes more (tile_2d).
// kResident: a twin that only raises residency, the same accesses (gather_stride; RESIDENCY-TWIN).
enum class Variant { kDefect, kFixed, kAligned, kResident };

// A `--NAME N` option of a program (an integer in [min, max]).
struct IntOption {
  const char* name;
  int value;
  int min;
  int max;
};

// A `--NAME WORD` option of a program (one of `choices`, the first the default); `value` is the
// index of the chosen word.
struct ChoiceOption {
  const char* name;
  std::vector<const char*> choices;
  int value = 0;

  const char* word() const { return choices[static_cast<std::size_t>(value)]; }
};

// `--variant defect|fixed[|aligned|resident]` (default defect), the program's integer options and its
// word options; a program without a twin accepts only defect. Anything else: one message naming the
// value and what is allowed, exit 2.
inline Variant parse_variant(int argc, char** argv, bool has_fixed_twin, std::vector<IntOption*> options = {},
                             bool has_aligned_twin = false, bool has_resident_twin = false,
                             std::vector<ChoiceOption*> choice_options = {}) {
  Variant v = Variant::kDefect;
  std::string allowed = has_fixed_twin ? std::string("defect, fixed") + (has_aligned_twin ? ", aligned" : "") +
                                             (has_resident_twin ? ", resident" : "")
                                       : "defect (this program has no fixed twin)";
  std::string usage = "--variant " + allowed;
  for (const IntOption* o : options) {
    usage += "; --" + std::string(o->name) + " " + std::to_string(o->min) + ".." + std::to_string(o->max);
  }
  auto words_of = [](const ChoiceOption* o) {
    std::string words;
    for (const char* c : o->choices) words += (words.empty() ? "" : ", ") + std::string(c);
    return words;
  };
  for (const ChoiceOption* o : choice_options) usage += "; --" + std::string(o->name) + " " + words_of(o);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
      const char* value = argv[++i];
      if (std::strcmp(value, "defect") == 0) {
        v = Variant::kDefect;
      } else if (std::strcmp(value, "fixed") == 0 && has_fixed_twin) {
        v = Variant::kFixed;
      } else if (std::strcmp(value, "aligned") == 0 && has_aligned_twin) {
        v = Variant::kAligned;
      } else if (std::strcmp(value, "resident") == 0 && has_resident_twin) {
        v = Variant::kResident;
      } else {
        std::fprintf(stderr, "%s: --variant %s; allowed: %s\n", argv[0], value, allowed.c_str());
        std::exit(2);
      }
      continue;
    }
    IntOption* matched = nullptr;
    for (IntOption* o : options) {
      if (argv[i][0] == '-' && argv[i][1] == '-' && std::strcmp(argv[i] + 2, o->name) == 0) matched = o;
    }
    if (matched != nullptr && i + 1 < argc) {
      const char* value = argv[++i];
      char* end = nullptr;
      const long n = std::strtol(value, &end, 10);
      if (end == value || *end != '\0' || n < matched->min || n > matched->max) {
        std::fprintf(stderr, "%s: --%s %s; allowed: an integer %d..%d\n", argv[0], matched->name, value, matched->min,
                     matched->max);
        std::exit(2);
      }
      matched->value = static_cast<int>(n);
      continue;
    }
    ChoiceOption* chosen = nullptr;
    for (ChoiceOption* o : choice_options) {
      if (argv[i][0] == '-' && argv[i][1] == '-' && std::strcmp(argv[i] + 2, o->name) == 0) chosen = o;
    }
    if (chosen != nullptr && i + 1 < argc) {
      const char* value = argv[++i];
      const auto it = std::find_if(chosen->choices.begin(), chosen->choices.end(),
                                   [&](const char* c) { return std::strcmp(c, value) == 0; });
      if (it == chosen->choices.end()) {
        std::fprintf(stderr, "%s: --%s %s; allowed: %s\n", argv[0], chosen->name, value, words_of(chosen).c_str());
        std::exit(2);
      }
      chosen->value = static_cast<int>(it - chosen->choices.begin());
      continue;
    }
    std::fprintf(stderr, "%s: unknown argument '%s'; allowed: %s\n", argv[0], argv[i], usage.c_str());
    std::exit(2);
  }
  return v;
}

inline const char* name_of(Variant v) {
  return v == Variant::kDefect ? "defect" : v == Variant::kFixed ? "fixed" : v == Variant::kAligned ? "aligned" : "resident";
}

// The median of `timed` event-timed launches after `warmups` untimed ones.
template <class Launch>
double median_kernel_seconds(Launch launch, int warmups = 2, int timed = 15) {
  for (int i = 0; i < warmups; ++i) launch();
  WARPCOST_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start = nullptr, stop = nullptr;
  WARPCOST_CUDA(cudaEventCreate(&start));
  WARPCOST_CUDA(cudaEventCreate(&stop));
  std::vector<double> seconds;
  for (int i = 0; i < timed; ++i) {
    WARPCOST_CUDA(cudaEventRecord(start));
    launch();
    WARPCOST_CUDA(cudaEventRecord(stop));
    WARPCOST_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    WARPCOST_CUDA(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3);
  }
  WARPCOST_CUDA(cudaEventDestroy(start));
  WARPCOST_CUDA(cudaEventDestroy(stop));
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Prints the program's result line; returns the exit code (1 when the output was wrong).
inline int report(const char* program, Variant v, double seconds, long mismatches) {
  std::printf("%s variant=%s kernel_seconds=%.9g check=%s\n", program, name_of(v), seconds,
              mismatches == 0 ? "ok" : "FAILED");
  if (mismatches != 0) std::fprintf(stderr, "%s: %ld outputs differ from the host reference\n", program, mismatches);
  return mismatches == 0 ? 0 : 1;
}

}  // namespace warpcost::examples
