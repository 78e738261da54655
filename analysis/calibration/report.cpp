// The calibration family's sentences: each reason its evaluator gives (analysis/reason.hpp) as the
// why of its row.
#include <stdexcept>
#include <string>

#include "analysis/calibration/family.hpp"
#include "core/text_format.hpp"

namespace warpcost::analysis::calibration {

std::string render(const Reason& r) {
  const std::string s = r.sentence();
  if (s == "copy_share_of_peak") {
    return "the copy (bytes read + written) reached " + fixed(100 * r.n("share"), 1) + "% of the theoretical peak" +
           (r.f("impossible") ? ": above the peak by more than 2%, impossible for DRAM, so the bytes, the "
                                "timing or the memory clock is wrong, or the copy ran from L2"
                              : "");
  }
  if (s == "copy_reference") return "device-to-device cudaMemcpy, the reference the streaming family is held against";
  if (s == "launch_overhead") {
    return r.n("launches") == 1 ? "one empty kernel between two events: the launch latency floor"
                                : fixed(r.n("launches"), 0) + " empty kernels back to back: the issue rate";
  }
  throw std::logic_error("calibration renders no reason '" + r.code + "'");
}

}  // namespace warpcost::analysis::calibration
