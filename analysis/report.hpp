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

// The worked examples of the reference page, each as the model functions compute it, and, where
// the runs measured one (rows of benchmark "worked_example"), the latest measurement.
std::string worked_examples_markdown(const std::vector<EvaluatedRun>& runs = {});

}  // namespace warpcost::analysis
