#include "analysis/verdict_lock.hpp"

#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/text_format.hpp"

namespace warpcost::analysis {

VerdictCounts verdict_counts(const std::vector<Row>& rows) {
  VerdictCounts counts;
  for (const Row& r : rows) ++counts[{r.family, r.metric, r.kind, r.verdict}];
  return counts;
}

std::string verdict_lock_text(const std::string& run_id, const std::vector<Row>& rows) {
  std::string text = "# verdict lock of run " + run_id +
                     ": rows per family, metric, kind and verdict (warpcost-analyze; a rule change "
                     "that moves any updates this file and docs/verdict-changes.md)\n"
                     "# family\tmetric\tkind\tverdict\trows\n";
  for (const auto& [key, n] : verdict_counts(rows)) {
    const auto& [family, metric, kind, verdict] = key;
    text += family + "\t" + metric + "\t" + kind + "\t" + verdict + "\t" + std::to_string(n) + "\n";
  }
  return text;
}

VerdictCounts parse_verdict_lock(const std::string& text) {
  VerdictCounts counts;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = split_fields(line, '\t');
    const std::optional<long long> n = fields.size() == 5 ? parse_whole_integer(fields[4]) : std::nullopt;
    if (fields.size() != 5 || !n || *n < 0) {
      throw std::runtime_error("verdict lock line " + std::to_string(number) + " '" + line +
                               "': allowed: family, metric, kind, verdict and a count, tab-separated");
    }
    counts[{fields[0], fields[1], fields[2], fields[3]}] += *n;
  }
  return counts;
}

std::vector<std::string> verdict_lock_differences(const VerdictCounts& locked, const VerdictCounts& now) {
  std::set<VerdictCounts::key_type> keys;
  for (const auto& [k, n] : locked) keys.insert(k);
  for (const auto& [k, n] : now) keys.insert(k);
  std::vector<std::string> lines;
  for (const auto& k : keys) {
    const auto a = locked.find(k);
    const auto b = now.find(k);
    const long long was = a == locked.end() ? 0 : a->second;
    const long long is = b == now.end() ? 0 : b->second;
    if (was == is) continue;
    const auto& [family, metric, kind, verdict] = k;
    lines.push_back(family + " " + metric + " " + kind + " '" + verdict + "': lock " + std::to_string(was) +
                    ", now " + std::to_string(is));
  }
  return lines;
}

}  // namespace warpcost::analysis
