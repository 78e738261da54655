// The coalescing family behind the registry's interface: its verdicts per benchmark and per run and
// its report section (analysis/coalescing/evaluation.hpp). Its counter-pass metrics are held
// against the model inside evaluate_coalescing, so no metric is claimed here and every one also
// gets its plain row.
#include "analysis/coalescing/evaluation.hpp"
#include "analysis/coalescing/family.hpp"
#include "core/coalescing/schema.hpp"

namespace warpcost::analysis::coalescing {
namespace {

class Coalescing final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override {
    return schema::coalescing::descriptor();
  }
  void evaluate_benchmark(const Run& run, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    evaluate_coalescing(run, b, rows);
  }
  void evaluate_run(const Run& run, std::vector<Row>& rows) const override { coalescing_second_order_rows(run, rows); }
  std::string report_section(const EvaluatedRun& run) const override {
    return coalescing_summary_markdown(run);
  }
  std::string render_reason(const Reason& reason) const override { return render(reason); }
};

}  // namespace

std::vector<const Family*> families() {
  static const Coalescing family;
  return {&family};
}

}  // namespace warpcost::analysis::coalescing
