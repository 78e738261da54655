// The summary report: what `./warpcost run` prints and results/report.md holds. Per GPU, its newest
// current run, and per family the count of each verdict with the first miss; the worked examples;
// links to the plots and to each run's own report.md, where the full tables are. It stays short
// (well under 300 lines) however many runs there are.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/tidy_csv.hpp"

namespace warpcost::analysis {

struct SummaryOptions {
  // Links are written relative to this folder (the summary file's own folder).
  std::filesystem::path link_base = ".";
  // Folder of the plots (results/plots); empty: no plot links.
  std::filesystem::path plots;
  // Runs the analysis skipped as unreadable, with the reason each.
  std::vector<std::string> skipped;
  // Rows written as error because the schema refused them or an evaluator failed, each named.
  std::vector<std::string> incomplete;
};

// Most GPUs given a section of their own; the rest are counted in one line.
inline constexpr std::size_t kSummaryMaxGpus = 16;
// Most older or archived runs listed one line each.
inline constexpr std::size_t kSummaryMaxOtherRuns = 24;

std::string summary_report(const std::vector<EvaluatedRun>& runs, const SummaryOptions& options);

}  // namespace warpcost::analysis
