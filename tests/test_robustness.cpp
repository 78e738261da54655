// Issue 31: the analysis never leaves a user with nothing. Two tests that use only the analysis'
// public entry points (read_run, evaluate_run, tidy_csv, analyze_main), so they build against the
// code before the fix too, where each fails (docs/running.md, "Machine states"):
//  - VerdictPaths: a committed run planted so that every evaluator walks each of its verdict paths
//    (throttled, error, warn, untestable here, fails, missed, passes, ...); every row they write
//    must pass the CSV schema as written (tidy_csv throws on a row it refuses), and every
//    (kind, verdict) pair a family's evaluators can write must come out of some plant. A schema
//    change that makes a real verdict unwritable fails here, not in a user's run.
//  - BadInput: a committed run mutated the ways a disk, a crash, an editor or another tool would,
//    seeded (WARPCOST_PROPERTY_SEED replays one); each case is analysed in a child process with a
//    deadline, and must end analysed (exit 0 or 4, every output written and readable) or refused
//    (exit 1, one message naming the file, nothing written); a mutation that leaves a valid run
//    must be analysed.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/cli.hpp"
#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/tidy_csv.hpp"
#include "analysis/units.hpp"
#include "tests/committed_runs.hpp"
#include "tests/temp_dir.hpp"

namespace warpcost::analysis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::TempDir;

std::string slurp(const fs::path& p) { return test_support::slurp_file(p); }
fs::path newest_committed_run() { return test_support::newest_committed_run(WARPCOST_RESULTS); }

json read_json(const fs::path& p) { return json::parse(replace_nonfinite_tokens(slurp(p))); }

void write_json(const json& j, const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << j.dump();
}

bool is_iteration(const json& b) { return b.is_object() && b.value("run_type", std::string("iteration")) == "iteration"; }

std::string family_of(const json& b) {
  const std::string name = b.value("run_name", std::string());
  return name.substr(0, name.find('/'));
}

// ---- VerdictPaths ------------------------------------------------------------------------------

// One planted copy of the run: `edit` changes its JSON; its rows are evaluated and written as the
// CSV is (tidy_csv refuses a row the schema does not allow: the test fails naming it).
std::set<std::tuple<std::string, std::string, std::string>> written_verdicts(const json& base, const std::string& label,
                                                                               void (*edit)(json&)) {
  TempDir dir("paths");
  json j = base;
  edit(j);
  const fs::path file = dir.path() / label / "bench.json";
  write_json(j, file);
  EvaluatedRun er;
  er.run = read_run(file);
  er.rows = evaluate_run(er.run);
  use_vocabulary_units(er.rows);
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  try {
    (void)tidy_csv({er});
  } catch (const std::exception& e) {
    ADD_FAILURE() << label << ": a row the evaluators wrote is not writable: " << e.what();
  }
  for (const Row& r : er.rows) seen.insert({r.family, r.kind, r.verdict});
  return seen;
}

void no_edit(json&) {}

// Every timed point ran at 1000 MHz: every model row of every family is throttled.
void all_throttled(json& j) {
  for (auto& b : j["benchmarks"]) {
    if (is_iteration(b) && b.contains("warpcost_sm_clock_mhz")) b["warpcost_sm_clock_mhz"] = 1000.0;
  }
}

// Every third point throttled: the cross-point rows see throttled members and references.
void some_throttled(json& j) {
  std::size_t i = 0;
  for (auto& b : j["benchmarks"]) {
    if (is_iteration(b) && b.contains("warpcost_sm_clock_mhz") && i++ % 3 == 0) b["warpcost_sm_clock_mhz"] = 1000.0;
  }
}

// Every fifth point's own check failed (Google Benchmark's error fields): error rows.
void some_errors(json& j) {
  std::size_t i = 0;
  for (auto& b : j["benchmarks"]) {
    if (!is_iteration(b) || i++ % 5 != 0) continue;
    b["error_occurred"] = true;
    b["error_message"] = "planted: the output check failed";
  }
}

// The points' noise three hundred times larger: misses inside the noise read warn.
void noisy(json& j) {
  for (auto& b : j["benchmarks"]) {
    if (is_iteration(b) && b.contains("warpcost_noise")) b["warpcost_noise"] = b["warpcost_noise"].get<double>() * 300.0;
  }
}

// Misses inside a large uncertainty: every point's noise three hundred times larger, the stream
// 20 % slower (Ex 6's plateau then misses the copy by more than its 10 %), and each warp-primitives
// point repeated with its cycles 50 % higher (a counter's uncertainty comes from its repetitions).
void slow_noisy_repeated(json& j) {
  noisy(j);
  json repeats = json::array();
  for (auto& b : j["benchmarks"]) {
    if (!is_iteration(b)) continue;
    const std::string f = family_of(b);
    if (f == "streaming") {
      b["real_time"] = b["real_time"].get<double>() * 1.2;
      if (b.contains("warpcost_sample_seconds")) {
        for (auto& s : b["warpcost_sample_seconds"]) s = s.get<double>() * 1.2;
      }
    }
    if (f == "warp_primitives" && b.contains("cycles_per_op")) {
      json again = b;
      again["cycles_per_op"] = b["cycles_per_op"].get<double>() * 1.5;
      again["repetition_index"] = b.value("repetition_index", 0) + 1000;  // a further repetition, whatever the run had
      repeats.push_back(again);
    }
  }
  for (auto& r : repeats) j["benchmarks"].push_back(r);
}

// The counter pass read twice the warps it launched: the instrument checks fail.
void counts_doubled(json& j) {
  for (auto& b : j["benchmarks"]) {
    if (is_iteration(b) && b.contains("smsp__warps_launched.sum")) {
      b["smsp__warps_launched.sum"] = b["smsp__warps_launched.sum"].get<double>() * 2.0;
    }
  }
}

// Every other point 30 % slower: models that held now fail; the samples spread: CV targets missed.
void slow_and_spread(json& j) {
  std::size_t i = 0;
  for (auto& b : j["benchmarks"]) {
    if (!is_iteration(b) || i++ % 2 != 0) continue;
    b["real_time"] = b["real_time"].get<double>() * 1.3;
    if (b.contains("warpcost_sample_seconds")) {
      std::size_t k = 0;
      for (auto& s : b["warpcost_sample_seconds"]) s = s.get<double>() * (1.3 + 0.2 * static_cast<double>(k++ % 2));
    }
  }
}

// The memory families ten times faster: rates above the DRAM peak are errors, not holds.
void impossibly_fast(json& j) {
  for (auto& b : j["benchmarks"]) {
    if (!is_iteration(b)) continue;
    const std::string f = family_of(b);
    if (f != "streaming" && f != "calibration" && f != "coalescing") continue;
    b["real_time"] = b["real_time"].get<double>() / 10.0;
    if (b.contains("warpcost_sample_seconds")) {
      for (auto& s : b["warpcost_sample_seconds"]) s = s.get<double>() / 10.0;
    }
  }
}

TEST(VerdictPaths, EveryVerdictTheEvaluatorsWriteIsWritableAndEveryPathIsWalked) {
  const fs::path run = newest_committed_run();
  if (run.empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  const json base = read_json(run);
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  const std::pair<const char*, void (*)(json&)> plants[] = {
      {"as-measured", no_edit}, {"all-throttled", all_throttled}, {"some-throttled", some_throttled},
      {"some-errors", some_errors}, {"noisy", noisy}, {"slow-noisy-repeated", slow_noisy_repeated},
      {"counts-doubled", counts_doubled},
      {"slow-and-spread", slow_and_spread},
      {"impossibly-fast", impossibly_fast}};
  for (const auto& [label, edit] : plants) {
    for (const auto& v : written_verdicts(base, label, edit)) seen.insert(v);
  }
  // What each family's evaluators can write (docs/verdicts.md), each walked by one plant above.
  // A pair a family cannot write is absent: partial_warp and divergence judge no untestable knee,
  // streaming and warp_primitives write no instrument check.
  const std::vector<std::string> every_family = {"calibration", "partial_warp", "divergence", "latency",
                                                 "streaming",   "coalescing",   "warp_primitives"};
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> expected;
  for (const auto& f : every_family) {
    expected[f] = {{"info", "info"}, {"info", "error"}, {"target", "met"}, {"target", "missed"}};
  }
  for (const char* f : {"partial_warp", "divergence", "streaming", "coalescing", "warp_primitives"}) {
    for (const char* v : {"holds", "fails", "warn", "throttled"}) expected[f].push_back({"model", v});
    expected[f].push_back({"info", "throttled"});
  }
  expected["streaming"].push_back({"model", "untestable here"});
  expected["streaming"].push_back({"model", "error"});
  expected["streaming"].push_back({"target", "error"});
  expected["partial_warp"].push_back({"check", "passes"});
  expected["partial_warp"].push_back({"check", "fails"});
  for (const auto& [family, pairs] : expected) {
    for (const auto& [kind, verdict] : pairs) {
      EXPECT_TRUE(seen.count({family, kind, verdict}) != 0)
          << family << ": no plant produced a " << kind << " row that reads " << verdict;
    }
  }
}

// ---- BadInput ----------------------------------------------------------------------------------

struct Outcome {
  int exit_code = -1;    // -1: killed by a signal or the deadline
  std::string how;       // "exit N", "signal N", "hung"
  std::string err;
};

// warpcost-analyze on `run_dir` in a child process (a crash or a hang ends only the child).
Outcome analyse_in_child(const fs::path& run_dir, const fs::path& err_file, std::chrono::seconds deadline) {
  const pid_t child = ::fork();
  if (child == 0) {
    std::ostringstream out;
    std::ofstream err(err_file);
    const int rc = analyze_main({"--quiet", run_dir.string()}, out, err);
    err.flush();
    ::_exit(rc);
  }
  Outcome o;
  const auto until = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (std::chrono::steady_clock::now() > until) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      o.how = "hung";
      o.err = slurp(err_file);
      return o;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) {
    o.exit_code = WEXITSTATUS(status);
    o.how = "exit " + std::to_string(o.exit_code);
  } else {
    o.how = "signal " + std::to_string(WTERMSIG(status));
  }
  o.err = slurp(err_file);
  return o;
}

// One mutation: what it did (for the replay message) and whether the run it leaves is still a
// valid run (then it must be analysed, not refused).
struct Mutation {
  std::string what;
  bool still_valid = false;
};

// A random benchmark entry of the run (an iteration).
json& some_benchmark(json& j, std::mt19937_64& rng) {
  auto& list = j["benchmarks"];
  std::uniform_int_distribution<std::size_t> pick(0, list.size() - 1);
  return list[pick(rng)];
}

// A numeric field of an entry: real_time or one of its counters.
std::string some_number_field(const json& b, std::mt19937_64& rng) {
  std::vector<std::string> fields;
  for (const auto& [k, v] : b.items()) {
    if (v.is_number() && k != "iterations" && k != "repetitions" && k != "repetition_index" && k != "threads" &&
        k != "family_index" && k != "per_family_instance_index") {
      fields.push_back(k);
    }
  }
  if (fields.empty()) return "real_time";
  std::uniform_int_distribution<std::size_t> pick(0, fields.size() - 1);
  return fields[pick(rng)];
}

// Replaces one run-name component with `text` ("family/benchmark/key:value/...").
std::string replace_name_part(const std::string& name, std::size_t part, const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(name);
  std::string p;
  while (std::getline(in, p, '/')) parts.push_back(p);
  if (parts.empty()) return text;
  parts[part % parts.size()] = text;
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

// Applies mutation number `kind` to the run text (JSON or the file's raw bytes).
Mutation mutate(std::string& text, json& j, int kind, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double absurd[] = {0.0, -1.0, -1e300, 1e300, 1e-300, 4.2e18, -0.0};
  switch (kind) {
    case 0: {  // a number field becomes a word, an object, an array or a bool
      json& b = some_benchmark(j, rng);
      const std::string f = some_number_field(b, rng);
      const json replacements[] = {"fast", json::object(), json::array({1, 2}), true, nullptr};
      b[f] = replacements[rng() % 5];
      return {"benchmark " + b.value("name", std::string("?")) + ": " + f + " is no longer a number", false};
    }
    case 1: {  // a number field becomes zero, negative or absurd
      json& b = some_benchmark(j, rng);
      const std::string f = some_number_field(b, rng);
      const double v = absurd[rng() % 7];
      b[f] = v;
      return {"benchmark " + b.value("name", std::string("?")) + ": " + f + " = " + std::to_string(v), false};
    }
    case 2: {  // NaN and Infinity tokens, as Google Benchmark writes them
      json& b = some_benchmark(j, rng);
      const std::string f = some_number_field(b, rng);
      b[f] = "__NONFINITE__";
      text = j.dump();
      const std::string token = rng() % 2 ? "NaN" : "-Infinity";
      const auto at = text.find("\"__NONFINITE__\"");
      text.replace(at, 15, token);
      return {"benchmark field " + f + " = " + token, false};
    }
    case 3: {  // truncated file
      text = j.dump();
      text.resize(static_cast<std::size_t>(unit(rng) * static_cast<double>(text.size())));
      return {"truncated to " + std::to_string(text.size()) + " bytes", false};
    }
    case 4: {  // not JSON at all
      const char* junk[] = {"", "null", "[]", "{}", "\x7f" "ELF\x02", "{\"context\": 3, \"benchmarks\": []}"};
      text = junk[rng() % 6];
      return {"replaced by non-run text", false};
    }
    case 5: {  // a context key removed or made a word, zero or negative
      auto& c = j["context"];
      std::vector<std::string> keys;
      for (const auto& [k, v] : c.items()) keys.push_back(k);
      const std::string k = keys[rng() % keys.size()];
      const int how = static_cast<int>(rng() % 4);
      if (how == 0) {
        c.erase(k);
      } else {
        const json values[] = {"many", "0", "-5"};
        c[k] = values[how - 1];
      }
      return {"context " + k + (how == 0 ? " removed" : " changed"), false};
    }
    case 6: {  // an unknown parameter, or a parameter whose value is not a number
      json& b = some_benchmark(j, rng);
      const std::string name = b.value("run_name", std::string());
      const std::string edited = rng() % 2 ? name + "/bogus:3" : replace_name_part(name, 2 + rng() % 3, "k:4,5");
      b["run_name"] = edited;
      b["name"] = edited;
      return {"run name " + edited, false};
    }
    case 7: {  // benchmarks repeated: as a further repetition (valid), or the same repetition twice
      auto& list = j["benchmarks"];
      const std::size_t n = list.size();
      const bool further = rng() % 2 == 0;
      for (std::size_t i = 0; i < n; i += 7) {
        json again = list[i];
        if (further && again.contains("repetition_index")) again["repetition_index"] = again["repetition_index"].get<long long>() + 1000;
        list.push_back(again);
      }
      if (further) return {"every seventh benchmark repeated as a further repetition", true};
      return {"every seventh benchmark duplicated, repetition index and all", false};
    }
    case 8: {  // benchmarks shuffled
      auto& list = j["benchmarks"];
      std::vector<json> all(list.begin(), list.end());
      std::shuffle(all.begin(), all.end(), rng);
      list = all;
      return {"benchmarks shuffled", true};
    }
    case 9: {  // benchmarks missing
      auto& list = j["benchmarks"];
      json kept = json::array();
      for (const auto& b : list) {
        if (unit(rng) < 0.5) kept.push_back(b);
      }
      if (kept.empty()) kept.push_back(list[0]);
      list = kept;
      return {"half of the benchmarks removed", true};
    }
    case 10: {  // commas, quotes and newlines in the run's own text fields
      const char* texts[] = {"NVIDIA \"H200\", rev 1\nline two", "a,b,c", "quote \" and, comma", "tab\there|bar"};
      j["context"]["gpu_name"] = texts[rng() % 4];
      j["context"]["driver_version"] = texts[rng() % 4];
      j["context"]["host_name"] = texts[rng() % 4];
      return {"commas, quotes and newlines in gpu_name, driver_version and host_name", true};
    }
    case 11: {  // commas, quotes and newlines in a run name
      json& b = some_benchmark(j, rng);
      const char* texts[] = {"fam,ily", "bench\"mark", "new\nline"};
      const std::string edited = replace_name_part(b.value("run_name", std::string()), rng() % 2, texts[rng() % 3]);
      b["run_name"] = edited;
      b["name"] = edited;
      return {"run name with punctuation: " + edited, false};
    }
    case 12: {  // every point's SM clock under 95 % of the maximum: a throttled GPU, still a valid run
      for (auto& b : j["benchmarks"]) {
        if (is_iteration(b) && b.contains("warpcost_sm_clock_mhz")) b["warpcost_sm_clock_mhz"] = 1200.0 + 600.0 * unit(rng);
      }
      return {"SM clocks of 1200-1800 MHz (throttled points)", true};
    }
    default: {  // counters the analysis does not know, and an error field on a point
      json& b = some_benchmark(j, rng);
      b["a_counter_nobody_knows"] = 42.0;
      json& c = some_benchmark(j, rng);
      c["error_occurred"] = true;
      c["error_message"] = "planted: a failed check, with a comma, and \"quotes\"";
      return {"an unknown counter and a planted error", true};
    }
  }
}

TEST(BadInput, MutatedCommittedRunsAreAnalysedOrRefusedWithOneMessageAndNothingWritten) {
  const fs::path run = newest_committed_run();
  if (run.empty()) GTEST_SKIP() << "no committed run (not a git checkout)";
  const json full = read_json(run);
  const char* seed_text = std::getenv("WARPCOST_PROPERTY_SEED");
  const std::uint64_t first_seed = seed_text != nullptr ? std::strtoull(seed_text, nullptr, 10) : 31;
  const int cases = seed_text != nullptr ? 1 : 56;
  TempDir dir("badinput");
  for (int c = 0; c < cases; ++c) {
    const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(c);
    std::mt19937_64 rng(seed);
    // A sample of the run's points (every family keeps some), so each case takes a fraction of a second.
    json j = full;
    json kept = json::array();
    for (const auto& b : full["benchmarks"]) {
      if (rng() % 6 == 0) kept.push_back(b);
    }
    j["benchmarks"] = kept;
    std::string text;
    const int kind = static_cast<int>(seed % 14);
    const Mutation m = mutate(text, j, kind, rng);
    if (text.empty() && kind != 3 && kind != 4) text = j.dump();
    const fs::path folder = dir.path() / ("case-" + std::to_string(seed));
    fs::create_directories(folder);
    std::ofstream(folder / "bench.json", std::ios::binary) << text;
    const Outcome o = analyse_in_child(folder, dir.path() / ("err-" + std::to_string(seed)), std::chrono::seconds(60));
    const std::string replay = "case seed " + std::to_string(seed) + " (replay: WARPCOST_PROPERTY_SEED=" +
                               std::to_string(seed) + "): " + m.what + "; " + o.how + "; stderr: " + o.err;
    ASSERT_TRUE(o.exit_code == kExitOk || o.exit_code == kExitBadInput || o.exit_code == 4) << replay;
    std::vector<std::string> written;
    for (const auto& e : fs::directory_iterator(folder)) written.push_back(e.path().filename().string());
    if (o.exit_code == kExitBadInput) {
      EXPECT_FALSE(m.still_valid) << "a valid run was refused: " << replay;
      EXPECT_EQ(written, std::vector<std::string>{"bench.json"}) << "a refused run wrote something: " << replay;
      EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one message: " << replay;
      EXPECT_NE(o.err.find((folder / "bench.json").string()), std::string::npos) << "the file is named: " << replay;
      continue;
    }
    // Analysed: the CSV, report and lock exist, and the CSV reads back row by row.
    for (const char* f : {"warpcost.csv", "report.md", "verdict-lock.txt"}) {
      EXPECT_TRUE(fs::exists(folder / f)) << f << " missing: " << replay;
    }
    const std::string csv = slurp(folder / "warpcost.csv");
    EXPECT_FALSE(csv.empty()) << replay;
    EXPECT_EQ(csv.back(), '\n') << replay;
  }
}

}  // namespace
}  // namespace warpcost::analysis
