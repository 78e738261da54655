// The warp-primitives family behind the registry's interface: its verdicts per benchmark, per run
// and per counter pass, and its report section (analysis/warp_primitives/evaluation.hpp). The
// instruction count is judged (claimed in `judged`); the other metrics also get their plain rows.
#include "analysis/warp_primitives/family.hpp"
#include "analysis/warp_primitives/evaluation.hpp"
#include "core/warp_primitives/schema.hpp"

namespace warpcost::analysis::warp_primitives {
namespace {

class WarpPrimitives final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override { return schema::warp_primitives::descriptor(); }
  void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    evaluate_warp_primitives(run, b, rows);
  }
  void evaluate_counters(const Run& run, const BenchmarkResult& b, const CounterUnits&, std::vector<Row>& rows,
                         std::set<std::string>& judged) const override {
    const std::size_t before = rows.size();
    evaluate_warp_primitives_counters(run, b, rows);
    if (rows.size() != before) judged.insert(metric::kInstExecuted);
  }
  void evaluate_run(const Run& run, std::vector<Row>& rows) const override { evaluate_warp_primitives_run(run, rows); }
  std::string report_section(const EvaluatedRun& run) const override { return warp_primitives_summary_markdown(run); }
  std::string render_reason(const Reason& reason) const override { return render(reason); }
};

}  // namespace

std::vector<const Family*> families() {
  static const WarpPrimitives family;
  return {&family};
}

}  // namespace warpcost::analysis::warp_primitives
