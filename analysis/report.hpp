// The markdown report: per run, what each model predicts, what the GPU did and why they differ;
// then the worked examples as the models compute them.
#pragma once

#include <string>
#include <vector>

#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {

// A value with its unit scaled for a person: 4.31 TB/s, 1.98 GHz, 2.41 us.
std::string human_value(double value, const std::string& unit);

std::string markdown_report(const std::vector<EvaluatedRun>& runs);

// The folder-name suffix of a measured reference page (`warpcost check examples/worked-examples.toml
// --measure` writes results/<gpu>/<utc>-examples-worked-examples/).
inline const std::string kPageExamplesSuffix = "-examples-worked-examples";

// The reference page's worked examples: where `warpcost check examples/worked-examples.toml --measure`
// wrote a folder beside these runs, the newest one's table (author, model, GPU, verdict); else how
// to check and measure them. The examples themselves live in examples/worked-examples.toml.
std::string worked_examples_markdown(const std::vector<EvaluatedRun>& runs = {});

}  // namespace warpcost::analysis
