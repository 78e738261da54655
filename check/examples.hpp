// Worked examples a person writes (a TOML file, docs/worked-examples.md): each example's inputs,
// its author's stated answers, and the models' answers for the same inputs (from
// core/models.hpp and core/coalescing/model.hpp, never worked out here).
// Host-only; toml++ stays inside examples_file.cpp.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/models.hpp"

namespace warpcost::examples {

inline constexpr int kExitAgree = 0;
inline constexpr int kExitDisagree = 1;
inline constexpr int kExitMalformed = 2;

// The CUDA programming model's block limits, the same on every compute capability warpcost builds
// for (CUDA C++ Programming Guide, "Compute Capabilities", technical specifications table):
// 1024 threads a block, x and y up to 1024, z up to 64.
inline constexpr long long kMaxThreadsPerBlock = 1024;
inline constexpr long long kMaxBlockDim[3] = {1024, 1024, 64};

// A stated ratio (a slowdown, a fraction, a warp demand) agrees with the model when
// |stated − model| <= max(kRatioAbsTolerance, kRatioRelTolerance·|model|): an answer rounded to two
// decimals (1.33 for 4/3, 0.78 for 25/32) agrees, one off in the second decimal does not. Counts,
// masks, coordinates and yes/no answers agree only when equal. Declared before any file was checked.
inline constexpr double kRatioAbsTolerance = 0.005;
inline constexpr double kRatioRelTolerance = 0.005;

// A malformed file or argument: the message names the example, the field and what is allowed.
class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ValueType { kCount, kRatio, kBool, kMask, kCoord, kText };

struct Value {
  ValueType type = ValueType::kCount;
  double number = 0;                // kCount, kRatio, kBool (0/1), kMask
  std::vector<long long> coord;     // kCoord (x, y, z) or an int list input
  std::vector<model::BranchPath> paths;  // the divergence kind's `paths`
  std::string text;                 // kText
};

// One input of an example; `line` is where the file states it (0 from the command line).
struct Input {
  Value value;
  int line = 0;
};

struct StatedAnswer {
  std::string field;
  Value value;  // a number, a coordinate or a yes/no, as written
  int line = 0;
};

struct Example {
  std::string id;
  std::string title;
  std::string kind;
  int line = 0;
  // A thought experiment beyond the programming model's limits (a 2000-thread block): the model
  // answers it, no GPU can run it, and --measure says so.
  bool beyond_device = false;
  std::map<std::string, Input> inputs;
  std::vector<StatedAnswer> answers;  // in the file's order
  std::string source;                 // file name for messages
};

struct ModelAnswer {
  std::string field;
  Value value;
  std::string formula;  // the formula with the example's inputs in it
};

// The kinds a file can use, each with its inputs and the answers the models give.
struct FieldSpec {
  std::string name;
  std::string allowed;  // what a value may be, for messages and docs
  bool required = false;
};
struct KindSpec {
  std::string name;
  std::string question;
  std::vector<FieldSpec> inputs;
  std::vector<std::string> answers;
};
const std::vector<KindSpec>& kinds();

// Reads and validates a file; throws BadInput (the first problem found) for anything malformed.
std::vector<Example> read_examples_file(const std::string& path);
// The same from TOML text (tests; `source` names it in messages).
std::vector<Example> read_examples_text(const std::string& text, const std::string& source);
// An example from `warpcost predict KIND key=value ...` (no stated answers), validated.
Example example_from_arguments(const std::string& kind, const std::vector<std::string>& key_values);
// The inputs predict was given, read before a GPU is looked for: a known kind, each key one of its
// inputs, each value of its type (the ranges, and the GPU's side a run fills, are checked by
// example_from_arguments once they are filled). Throws BadInput naming the key=value.
void check_predict_arguments(const std::string& kind, const std::vector<std::string>& key_values);
// Every kind's name, comma-separated (predict's usage).
std::string kind_names();

// Every answer the models give for the example's inputs.
std::vector<ModelAnswer> model_answers(const Example& example);

struct CheckedAnswer {
  std::string example;
  std::string field;
  Value stated;
  ModelAnswer model;
  bool agrees = false;
};
// Every stated answer against the model's; throws BadInput when an example states an answer its
// kind does not give for its inputs.
std::vector<CheckedAnswer> check_examples(const std::vector<Example>& examples);
bool agrees(const Value& stated, const Value& model);

std::string render(const Value& v);
// A pasteable markdown table of the checked answers and one line of totals.
std::string check_markdown(const std::vector<CheckedAnswer>& checked);

}  // namespace warpcost::examples
