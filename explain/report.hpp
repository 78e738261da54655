// `warpcost explain`'s outputs, all views of the same costs: the text report, the tidy CSV rows
// (family "explain", the analysis CSV's columns) and JSON for tools.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/evaluation.hpp"
#include "explain/cost_model.hpp"

namespace warpcost::explain {

// The application's end as the tool saw it.
struct AppOutcome {
  int exit_code = 0;      // when it exited
  int signal = 0;         // when a signal ended it (0 otherwise)
  double wall_seconds = 0;
};

struct Session {
  std::vector<std::string> command;
  AppOutcome outcome;
  Records records;
  int skipped_lines = 0;
  const GpuFigures* figures = nullptr;  // null: no run of this GPU
  std::string figures_note;            // which run, or why there is none
  std::vector<KernelCounters> kernels;  // largest total time first
  std::vector<KernelCosts> costs;       // one per kernel, same order
};

// Kernel names may hold ';' and '=' (templates, operators): replaced so params stay key=value;...
std::string params_safe(const std::string& text);

std::vector<analysis::Row> explain_rows(const Session& s);
std::string render_text(const Session& s);
nlohmann::json to_json(const Session& s);

}  // namespace warpcost::explain
