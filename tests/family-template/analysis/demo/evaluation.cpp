// The template family's one check: the value the kernel wrote back is the trip count it was
// given (a fact of the setup: kind check).
#include <string>
#include <vector>

#include "analysis/demo/family.hpp"
#include "analysis/evaluation_support.hpp"
#include "core/demo/schema.hpp"

namespace warpcost::analysis::demo {
namespace {

class Demo final : public Family {
 public:
  const schema::FamilyDescriptor& descriptor() const override { return schema::demo::descriptor(); }
  void evaluate_benchmark(const Run&, const BenchmarkResult& b, std::vector<Row>& rows) const override {
    Row r = detail::base_row(b);
    r.metric = "echoed_trips";
    r.value = b.counter_median(schema::demo::counter::kEchoed);
    r = detail::with_prediction(r, b.param(schema::demo::param::kTrips));
    r.unit = "count";
    r.model = "the kernel writes back the trip count it was given";
    r.kind = kind::kCheck;
    r.verdict = r.value == *r.predicted ? verdict::kPasses : verdict::kFails;
    r.reason = Reason("demo/echoed").number("written", r.value);
    rows.push_back(r);
  }
  // The family's sentences: its evaluator gives reasons as data (analysis/reason.hpp), and the
  // analysis renders each into the row's why through this.
  std::string render_reason(const Reason& reason) const override {
    if (reason.sentence() == "echoed") return "wrote " + fixed(reason.n("written"), 0);
    return Family::render_reason(reason);  // throws: no such sentence
  }
};

}  // namespace

std::vector<const Family*> families() {
  static const Demo demo;
  return {&demo};
}

}  // namespace warpcost::analysis::demo
