#include "bench/common/run_annotation.hpp"

#include <algorithm>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/run_reader.hpp"

namespace warpcost {

std::string point_key_of_run_name(const std::string& run_name) {
  const analysis::BenchmarkResult parsed = analysis::parse_run_name(run_name);
  std::string key = parsed.family + "/" + parsed.benchmark;
  for (const auto& [name, value] : parsed.params) key += "/" + value;
  return key;
}

void annotate_run(const std::filesystem::path& bench_json, const RunAnnotation& a) {
  std::ifstream in(bench_json);
  if (!in) throw std::runtime_error(bench_json.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(analysis::replace_nonfinite_tokens(text.str()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(bench_json.string() + ": not JSON (" + e.what() + ")");
  }
  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_array() || !doc.contains("context") ||
      !doc["context"].is_object()) {
    throw std::runtime_error(bench_json.string() + ": no context or benchmarks array");
  }
  for (const auto& [key, value] : a.context) doc["context"][key] = value;

  if (!a.drop_error_messages.empty()) {
    auto& list = doc["benchmarks"];
    nlohmann::json kept = nlohmann::json::array();
    for (auto& entry : list) {
      const std::string message =
          entry.is_object() ? entry.value("error_message", std::string()) : std::string();
      const bool dropped = entry.is_object() && entry.value("error_occurred", false) &&
                           std::find(a.drop_error_messages.begin(), a.drop_error_messages.end(), message) !=
                               a.drop_error_messages.end();
      if (!dropped) kept.push_back(std::move(entry));
    }
    list = std::move(kept);
  }
  std::map<std::string, std::size_t> repetition;
  std::set<std::string> matched;
  for (auto& entry : doc["benchmarks"]) {
    if (!entry.is_object() || entry.value("run_type", "iteration") != "iteration") continue;
    if (!entry.contains("run_name") || !entry["run_name"].is_string()) continue;
    const std::string key = point_key_of_run_name(entry["run_name"].get<std::string>());
    const std::size_t rep = repetition[key]++;
    if (const auto s = a.samples.find(key); s != a.samples.end()) {
      matched.insert(key);
      if (rep < s->second.size()) entry[kSampleSecondsField] = s->second[rep];
    }
    if (const auto c = a.counters.find(key); c != a.counters.end()) {
      matched.insert(key);
      if (!entry.value("error_occurred", false)) {
        for (const auto& [name, value] : c->second) entry[name] = value;
      }
    }
  }
  for (const auto& [key, lists] : a.samples) {
    if (matched.count(key) == 0) {
      throw std::runtime_error(bench_json.string() + ": samples for '" + key + "' match no benchmark entry");
    }
  }
  for (const auto& [key, values] : a.counters) {
    if (matched.count(key) == 0) {
      throw std::runtime_error(bench_json.string() + ": counters for '" + key + "' match no benchmark entry");
    }
  }
  const std::filesystem::path temporary = bench_json.string() + ".tmp";
  {
    std::ofstream out(temporary);
    out << doc.dump(2) << "\n";
    if (!out) throw std::runtime_error(temporary.string() + ": cannot be written");
  }
  std::filesystem::rename(temporary, bench_json);
}

}  // namespace warpcost
