#include "core/run_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/families.hpp"
#include "core/result_schema.hpp"
#include "core/statistics.hpp"
#include "core/text_format.hpp"

namespace warpcost::analysis {
namespace {

using nlohmann::json;

// Fields Google Benchmark writes for every run; every other numeric field is a user counter.
const std::set<std::string> kGoogleBenchmarkFields = {
    "name",        "family_index", "per_family_instance_index", "run_name", "run_type",
    "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
    "time_unit",   "aggregate_name", "aggregate_unit", "error_occurred", "error_message",
    "label",       "skipped",      "skip_message"};

double unit_to_seconds(const std::string& unit, const std::string& file, const std::string& field) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  throw RunFormatError(file, field, "time unit '" + unit + "'; allowed: ns, us, ms, s");
}

// "threads:N" is not among them: Google Benchmark adds it only for ->Threads(), which warpcost
// never uses, and a family may well have a parameter called threads.
bool is_google_benchmark_suffix(const std::string& component) {
  static const char* const kPrefixes[] = {"min_time:", "min_warmup_time:", "repeats:",
                                          "iterations:"};
  if (component == "manual_time" || component == "real_time" || component == "process_time") {
    return true;
  }
  for (const char* prefix : kPrefixes) {
    if (component.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The context keys that hold counts or clocks: a whole number the device reported, at least 1.
// Anything else (a word, NaN, zero, a negative or a fraction) is refused here, naming the key, so no
// evaluator ever divides by it or casts it.
constexpr const char* kPositiveWholeKeys[] = {
    schema::key::kSmCount,          schema::key::kWarpSize,          schema::key::kMaxThreadsPerSm,
    schema::key::kMaxWarpsPerSm,    schema::key::kMaxBlocksPerSm,    schema::key::kMaxThreadsPerBlock,
    schema::key::kL2Bytes,          schema::key::kGlobalMemoryBytes, schema::key::kMemoryClockKhz,
    schema::key::kMemoryBusWidthBits, schema::key::kSmClockMaxKhz,   schema::key::kSmClockMeasuredKhz,
    "sm_clock_max_mhz",             schema::key::kSmClockReferenceMhz};

// The run's identity and state, which the reports order, key and label runs by: the id is the
// <gpu-slug>/<stamp> warpcost-bench files the run under (two parts of letters, digits, '.', '_',
// '-', '+'; neither "." nor ".."), utc a UTC time as it writes it (2026-12-05T17:55:34Z), and
// run_status, where present, "complete" or "partial: <why>". A typo here would otherwise order a
// run wrongly or report a partial run as complete, without a word.
void check_run_metadata(const RunContext& context, const std::string& file) {
  const std::string& id = context.values.at(schema::key::kRunId);
  const auto slash = id.find('/');
  const auto part_ok = [](const std::string& part) {
    return !part.empty() && part != "." && part != ".." &&
           std::all_of(part.begin(), part.end(), [](char c) {
             return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-' || c == '+';
           });
  };
  if (slash == std::string::npos || !part_ok(id.substr(0, slash)) || !part_ok(id.substr(slash + 1))) {
    throw RunFormatError(file, std::string("context.") + schema::key::kRunId,
                         "'" + id + "'; allowed: <gpu>/<stamp>, two names of letters, digits, '.', '_', '-', '+' "
                         "(not . or ..), as warpcost-bench writes (\"nvidia-h200/20261205T175534Z-46d41701\")");
  }
  const std::string& utc = context.values.at(schema::key::kUtc);
  const auto number_at = [&utc](std::size_t at, std::size_t n) -> int {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (utc[i] < '0' || utc[i] > '9') return -1;
      v = v * 10 + (utc[i] - '0');
    }
    return v;
  };
  const bool utc_shape = utc.size() == 20 && utc[4] == '-' && utc[7] == '-' && utc[10] == 'T' && utc[13] == ':' &&
                         utc[16] == ':' && utc[19] == 'Z';
  const int year = utc_shape ? number_at(0, 4) : -1, month = utc_shape ? number_at(5, 2) : -1,
            day = utc_shape ? number_at(8, 2) : -1, hour = utc_shape ? number_at(11, 2) : -1,
            minute = utc_shape ? number_at(14, 2) : -1, second = utc_shape ? number_at(17, 2) : -1;
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  const int days_in_month[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  // A leap second is 23:59:60 UTC; no other minute has a 60th second.
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > days_in_month[month - 1] || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > (hour == 23 && minute == 59 ? 60 : 59)) {
    throw RunFormatError(file, std::string("context.") + schema::key::kUtc,
                         "'" + utc + "'; allowed: a UTC time YYYY-MM-DDTHH:MM:SSZ (\"2026-12-05T17:55:34Z\")");
  }
  const auto status = context.values.find(schema::key::kRunStatus);
  if (status != context.values.end() && status->second != "complete" &&
      (status->second.rfind("partial: ", 0) != 0 || status->second.size() == std::string("partial: ").size())) {
    throw RunFormatError(file, std::string("context.") + schema::key::kRunStatus,
                         "'" + status->second + "'; allowed: \"complete\" or \"partial: <why>\"");
  }
}

void check_context_numbers(const RunContext& context, const std::string& file) {
  for (const char* key : kPositiveWholeKeys) {
    const auto it = context.values.find(key);
    if (it == context.values.end()) continue;
    const std::optional<double> v = parse_whole_double(it->second);
    if (!v || !(*v >= 1.0) || *v >= kLargestExactWhole || std::floor(*v) != *v) {
      throw RunFormatError(file, std::string("context.") + key,
                           "'" + it->second + "'; allowed: a whole number from 1 to 2^53");
    }
  }
  check_run_metadata(context, file);
  const std::string& cc = context.values.at(schema::key::kCc);
  const auto dot = cc.find('.');
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string::npos || !digits(cc.substr(0, dot)) || !digits(cc.substr(dot + 1))) {
    throw RunFormatError(file, std::string("context.") + schema::key::kCc,
                         "'" + cc + "'; allowed: a compute capability major.minor (\"9.0\")");
  }
}

// Every parameter of a benchmark of a registered family is a whole number (Google Benchmark's
// arguments are int64): "4,5", "1e300" or a word is refused here, naming it, before any evaluator
// reads it. (Which parameters a benchmark has changed over the runs; an evaluator missing one
// writes an error row for that point.)
void check_parameter_values(const BenchmarkResult& b, const std::string& file, const std::string& where) {
  if (schema::family_descriptor(b.family) == nullptr) return;  // not warpcost's: --allow-unknown
  for (const auto& [name, value] : b.params) {
    if (!parse_whole_integer(value) || value.find_first_not_of("-0123456789") != std::string::npos) {
      throw RunFormatError(file, where + ".run_name",
                           "'" + b.run_name + "': parameter " + name + " = '" + value +
                               "'; allowed: a whole number (a Google Benchmark int64 argument)");
    }
  }
}

}  // namespace

std::string replace_nonfinite_tokens(const std::string& text) {
  static const char* const kTokens[] = {"-Infinity", "Infinity", "-NaN", "NaN", "-nan",
                                        "nan",       "-inf",     "inf"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (const char* token : kTokens) {
      const std::size_t n = std::char_traits<char>::length(token);
      if (text.compare(i, n, token) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

namespace {
// A message stays one line whatever the file held: control characters are written as escapes.
std::string one_line(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "?";
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

RunFormatError::RunFormatError(const std::string& file, const std::string& field,
                               const std::string& problem)
    : std::runtime_error(one_line(file + ": " + field + ": " + problem)) {}

const std::string& RunContext::text(const std::string& key) const {
  const auto it = values.find(key);
  if (it == values.end()) throw std::out_of_range("context has no '" + key + "'");
  return it->second;
}

double RunContext::number(const std::string& key) const {
  const std::string& s = text(key);
  const std::optional<double> v = parse_whole_double(s);
  if (!v) {
    throw std::out_of_range("context '" + key + "' = '" + s + "' is not a number");
  }
  return *v;
}

std::string BenchmarkResult::params_text() const {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

double BenchmarkResult::param(const std::string& key) const {
  for (const auto& [k, v] : params) {
    if (k == key) return std::stod(v);
  }
  throw std::out_of_range(run_name + " has no parameter '" + key + "'");
}

bool BenchmarkResult::has_param(const std::string& key) const {
  for (const auto& kv : params) {
    if (kv.first == key) return true;
  }
  return false;
}

double BenchmarkResult::median_seconds() const { return median(seconds); }

double BenchmarkResult::counter_median(const std::string& name) const {
  const auto it = counters.find(name);
  if (it == counters.end()) throw std::out_of_range(run_name + " has no counter '" + name + "'");
  return median(it->second);
}

const std::string& Run::run_id() const { return context.text(schema::key::kRunId); }

BenchmarkResult parse_run_name(const std::string& run_name) {
  BenchmarkResult r;
  std::vector<std::string> parts;
  std::stringstream in(run_name);
  std::string part;
  while (std::getline(in, part, '/')) parts.push_back(part);
  std::string kept;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& c = parts[i];
    if (i >= 2 && is_google_benchmark_suffix(c)) continue;
    kept += (kept.empty() ? "" : "/") + c;
    if (i == 0) {
      r.family = c;
    } else if (i == 1 && c.find(':') == std::string::npos) {
      r.benchmark = c;
    } else {
      const auto colon = c.find(':');
      if (colon == std::string::npos) {
        r.params.emplace_back("arg" + std::to_string(r.params.size()), c);
      } else {
        r.params.emplace_back(c.substr(0, colon), c.substr(colon + 1));
      }
    }
  }
  r.run_name = kept;
  return r;
}

Run read_run(const std::filesystem::path& bench_json) {
  const std::string file = bench_json.string();
  std::ifstream in(bench_json, std::ios::binary);
  if (!in) throw RunFormatError(file, "(file)", "cannot be opened");
  std::stringstream buffer;
  buffer << in.rdbuf();
  json doc;
  try {
    doc = json::parse(replace_nonfinite_tokens(buffer.str()));
  } catch (const json::parse_error& e) {
    throw RunFormatError(file, "(document)",
                         "truncated or malformed JSON at byte " + std::to_string(e.byte));
  }
  if (!doc.is_object()) throw RunFormatError(file, "(document)", "not a JSON object");

  Run run;
  run.source = bench_json;
  if (!doc.contains("context") || !doc["context"].is_object()) {
    throw RunFormatError(file, "context", "missing or not an object");
  }
  // The run's identity and state are text: null, a list or an object there would be dropped and
  // the run read as complete (run_status) or refused as missing metadata, neither naming the value.
  for (const char* key : {schema::key::kRunId, schema::key::kUtc, schema::key::kRunStatus}) {
    const auto it = doc["context"].find(key);
    if (it != doc["context"].end() && !it->is_string()) {
      throw RunFormatError(file, std::string("context.") + key, "'" + it->dump() + "'; allowed: text, as warpcost-bench writes");
    }
  }
  for (const auto& [key, value] : doc["context"].items()) {
    if (value.is_string()) {
      run.context.values[key] = value.get<std::string>();
    } else if (value.is_number() || value.is_boolean()) {
      run.context.values[key] = value.dump();
    }
  }
  const auto version = run.context.values.find(schema::kVersionKey);
  if (version == run.context.values.end()) {
    throw RunFormatError(file, std::string("context.") + schema::kVersionKey,
                         "missing: not a warpcost run (run it through warpcost-bench)");
  }
  int version_number = 0;
  for (int v = schema::kOldestReadableVersion; v <= schema::kVersion; ++v) {
    if (version->second == std::to_string(v)) version_number = v;
  }
  if (version_number == 0) {
    throw RunFormatError(file, std::string("context.") + schema::kVersionKey,
                         "schema version " + version->second + "; this analysis reads versions " +
                             std::to_string(schema::kOldestReadableVersion) + " to " +
                             std::to_string(schema::kVersion));
  }
  for (const char* key : schema::kRequiredKeys) {
    if (run.context.values.count(key) == 0) {
      throw RunFormatError(file, std::string("context.") + key, "missing run metadata");
    }
  }
  check_context_numbers(run.context, file);

  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    throw RunFormatError(file, "benchmarks", "missing or not an array");
  }
  std::map<std::string, std::size_t> index_of;
  std::set<std::pair<std::string, long long>> repetitions_seen;
  std::size_t position = 0;
  for (const auto& entry : doc["benchmarks"]) {
    const std::string where = "benchmarks[" + std::to_string(position++) + "]";
    if (!entry.is_object()) throw RunFormatError(file, where, "not an object");
    // Google Benchmark writes "iteration" rows and "aggregate" rows (mean, median, stddev of
    // repetitions, derived from the former): the aggregates are left out, anything else refused.
    if (entry.contains("run_type")) {
      const auto& type = entry["run_type"];
      if (!type.is_string() || (type != "iteration" && type != "aggregate")) {
        throw RunFormatError(file, where + ".run_type", "is " + type.dump() + "; allowed: \"iteration\" or \"aggregate\"");
      }
      if (type == "aggregate") continue;
    }
    if (!entry.contains("run_name") || !entry["run_name"].is_string()) {
      throw RunFormatError(file, where + ".run_name", "missing or not a string");
    }
    BenchmarkResult parsed = parse_run_name(entry["run_name"].get<std::string>());
    if (version_number == 1) schema::rename_schema_1_parameters(parsed.family, parsed.benchmark, parsed.params);
    check_parameter_values(parsed, file, where);
    // One entry a repetition: the same point with the same repetition_index twice (two files
    // pasted into one, a merge run twice) would be pooled as if measured twice.
    if (const auto rep = entry.find("repetition_index"); rep != entry.end()) {
      if (!rep->is_number_integer() || rep->get<long long>() < 0) {
        throw RunFormatError(file, where + ".repetition_index", "'" + rep->dump() + "'; allowed: a whole number of 0 or more");
      }
      if (!repetitions_seen.emplace(parsed.run_name, rep->get<long long>()).second) {
        throw RunFormatError(file, where + ".repetition_index",
                             "'" + parsed.run_name + "' repetition " + rep->dump() +
                                 " appears twice; allowed: each repetition of a point once");
      }
    }
    const bool warpcost_family = schema::family_descriptor(parsed.family) != nullptr;
    const auto [it, inserted] = index_of.emplace(parsed.run_name, run.benchmarks.size());
    if (inserted) run.benchmarks.push_back(std::move(parsed));
    BenchmarkResult& result = run.benchmarks[it->second];

    if (entry.value("error_occurred", false)) {
      result.error = true;
      result.error_message = entry.value("error_message", "");
      continue;
    }
    for (const char* field : {"real_time", "time_unit", "iterations"}) {
      if (!entry.contains(field)) throw RunFormatError(file, where + "." + field, "missing");
    }
    if (!entry["real_time"].is_number()) {
      throw RunFormatError(file, where + ".real_time", "not a number");
    }
    if (!entry["time_unit"].is_string()) {
      throw RunFormatError(file, where + ".time_unit", "not a string");
    }
    const double scale =
        unit_to_seconds(entry["time_unit"].get<std::string>(), file, where + ".time_unit");
    // A run that samples each point (warpcost_sample_seconds, one time per timed launch) gives its
    // samples; Google Benchmark's real_time is then their median. Older runs: one per repetition.
    const auto samples = entry.find("warpcost_sample_seconds");
    if (samples != entry.end() && !samples->is_null()) {
      if (!samples->is_array() || samples->empty()) {
        throw RunFormatError(file, where + ".warpcost_sample_seconds", "not a non-empty array");
      }
      for (const auto& s : *samples) {
        if (!s.is_number() || !(s.get<double>() >= 0.0) || !std::isfinite(s.get<double>())) {
          throw RunFormatError(file, where + ".warpcost_sample_seconds", "holds a value that is not a time");
        }
        result.seconds.push_back(s.get<double>());
      }
    } else {
      const double seconds = entry["real_time"].get<double>() * scale;
      if (!(seconds >= 0.0) || !std::isfinite(seconds)) {
        throw RunFormatError(file, where + ".real_time", "'" + entry["real_time"].dump() + "'; allowed: a time of 0 or more");
      }
      result.seconds.push_back(seconds);
    }
    for (const auto& [key, value] : entry.items()) {
      if (kGoogleBenchmarkFields.count(key) != 0 || key == "warpcost_sample_seconds") continue;
      // Every other field of an iteration is a counter (Google Benchmark 1.7 and 1.8 write no other):
      // one that is not a finite number (a NaN written back as null, text, true) is refused by
      // name, since dropping it would drop its rows without a word.
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        throw RunFormatError(file, where + "." + key, "'" + value.dump() + "'; allowed: a finite number (a counter's value)");
      }
      // Every counter of warpcost's families is a count, a size, a time, a clock, a rate or a
      // mask: a negative one (a clock of -1 Hz) is refused, not judged.
      if (warpcost_family && value.get<double>() < 0.0) {
        throw RunFormatError(file, where + "." + key, "'" + value.dump() + "'; allowed: 0 or more (a count, size, time, clock or rate)");
      }
      result.counters[key].push_back(value.get<double>());
    }
  }
  if (run.benchmarks.empty()) {
    throw RunFormatError(file, "benchmarks", "no iteration results (empty run, or aggregates only)");
  }
  return run;
}

}  // namespace warpcost::analysis
