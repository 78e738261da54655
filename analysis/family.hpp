// The interface every benchmark family implements for the analysis, and the registry that lists
// them. A family is registered by its folder's name in WARPCOST_FAMILIES (the top CMakeLists.txt):
// analysis/<folder>/family.hpp declares warpcost::analysis::<folder>::families(), and
// evaluate_run, the counter rows, the report and the plots (analysis/<folder>/plots.py) find it
// there. docs/adding-a-family.md walks through a new one.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/family_schema.hpp"
#include "analysis/evaluation.hpp"

namespace warpcost::analysis {

struct EvaluatedRun;

// The unit of each counter-pass metric ("metric=unit;..." in the run's context).
using CounterUnits = std::map<std::string, std::string>;

class Family {
 public:
  virtual ~Family() = default;
  // The family's contract with the bench: its name (the run name's first part), benchmarks,
  // parameters, counters and metrics.
  virtual const schema::FamilyDescriptor& descriptor() const = 0;
  // Rows of one error-free benchmark of this family, after the time rows every benchmark gets.
  virtual void evaluate_benchmark(const Run& run, const BenchmarkResult& b,
                                  std::vector<Row>& rows) const;
  // Rows of the counter-pass metrics that test one of this family's models; each metric it
  // judged goes into `judged` (the others become plain rows under their own names).
  virtual void evaluate_counters(const Run& run, const BenchmarkResult& b, const CounterUnits& units,
                                 std::vector<Row>& rows, std::set<std::string>& judged) const;
  // Rows about the whole run once every benchmark has its own (steps, curves, worked examples).
  virtual void evaluate_run(const Run& run, std::vector<Row>& rows) const;
  // A summary section of one run's report (markdown, without its heading); "" for none.
  virtual std::string report_section(const EvaluatedRun& run) const;
  // The sentence of one of this family's reasons (code "<family>/<sentence>", analysis/reason.hpp),
  // without the shared prefixes; throws std::logic_error for a sentence it does not know.
  virtual std::string render_reason(const Reason& reason) const;
};

// Every registered family, in WARPCOST_FAMILIES order (the order rows and sections come in).
const std::vector<const Family*>& families();
// The family a run name's first part names, or nullptr (a benchmark of no family gets time rows).
const Family* family_named(const std::string& name);

}  // namespace warpcost::analysis
