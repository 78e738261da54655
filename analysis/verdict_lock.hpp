// The verdict lock of a run: how many rows of each family, metric, kind and verdict the analysis
// gives it, as a small sorted text (verdict-lock.txt beside each committed run's bench.json; for an
// archived run results/archive/<gpu>/<run>.verdict-lock.txt). A host test recomputes every
// committed lock, so a rule change that moves a verdict shows in the diff of the commit that made
// it (docs/verdict-changes.md is its ledger).
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/evaluation.hpp"

namespace warpcost::analysis {

inline constexpr const char* kVerdictLockFile = "verdict-lock.txt";

// (family, metric, kind, verdict) -> rows.
using VerdictCounts = std::map<std::tuple<std::string, std::string, std::string, std::string>, long long>;

VerdictCounts verdict_counts(const std::vector<Row>& rows);

// The lock's text: two comment lines (the run id, the columns), then one tab-separated line per
// (family, metric, kind, verdict) in byte order, with its count. Nothing else (no date, no
// revision), so the same verdicts give the same bytes.
std::string verdict_lock_text(const std::string& run_id, const std::vector<Row>& rows);

// Parses a lock's text back into counts; throws std::runtime_error naming the line it cannot read.
VerdictCounts parse_verdict_lock(const std::string& text);

// Every key whose count differs, one line each: "family metric kind 'verdict': lock N, now M".
// Empty when the two agree.
std::vector<std::string> verdict_lock_differences(const VerdictCounts& locked, const VerdictCounts& now);

}  // namespace warpcost::analysis
