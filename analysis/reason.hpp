// A row's reason as data (issue 32): the code of the sentence that says why a row reads as it
// does, and the values that sentence is made of. An evaluator fills a Reason and writes no
// sentence; evaluate_run's render pass (render_reason, analysis/evaluation.cpp) turns every row's
// Reason into its `why`, the reason the report and the summary show beside a verdict: the shared
// sentences (time rows, machine states, the MAE targets) in analysis/evaluation.cpp, each family's
// in its analysis/<family>/report.cpp (Family::render_reason).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace warpcost::analysis {

struct Reason {
  // "<family>/<sentence>" for a family's sentence (the family's name, as in the CSV's `family`),
  // "core/<sentence>" for a shared one; "" for a row without a reason (its `why` is empty).
  std::string code;
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;  // names, parameter lists, an error's own message
  std::map<std::string, bool> flags;
  // Notes the shared evaluation puts before the sentence (a machine state the row depends on), in
  // the order they are shown, each a Reason of its own ("core/state_…").
  std::vector<Reason> prefixes;
  // Notes after the sentence and the check's outcome ("; off by more than N%", relative_check): the
  // cause a row gives for its failed check, each a Reason of its own, its sentence with its own
  // leading punctuation.
  std::vector<Reason> after_check;

  Reason() = default;
  explicit Reason(std::string c) : code(std::move(c)) {}
  Reason& number(const std::string& key, double value) { numbers[key] = value; return *this; }
  Reason& text(const std::string& key, std::string value) { texts[key] = std::move(value); return *this; }
  Reason& flag(const std::string& key, bool value) { flags[key] = value; return *this; }

  // The value under `key`; throws std::out_of_range naming the code and the key when it is absent
  // (a renderer asking for what its evaluator did not give).
  double n(const std::string& key) const;
  const std::string& t(const std::string& key) const;
  bool f(const std::string& key) const;
  bool has_number(const std::string& key) const { return numbers.count(key) != 0; }
  bool has_text(const std::string& key) const { return texts.count(key) != 0; }
  bool has_flag(const std::string& key) const { return flags.count(key) != 0; }
  // The sentence's name: the code after its family's "<family>/".
  std::string sentence() const;
};

}  // namespace warpcost::analysis
