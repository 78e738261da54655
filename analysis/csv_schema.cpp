#include "analysis/csv_schema.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace warpcost::analysis {
namespace {

// analysis/csv-schema.json as a string literal (cmake/families.cmake generates it).
const char* const kSchemaText =
#include "warpcost/csv_schema.inc"
    ;

constexpr const char* kSchemaFile = "analysis/csv-schema.json";

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + ("'" + v + "'");
  return out;
}

bool whole_text_is_number(const std::string& text, bool integer) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) != 0) return false;
  char* end = nullptr;
  errno = 0;
  if (integer) {
    (void)std::strtoll(text.c_str(), &end, 10);
  } else {
    const double v = std::strtod(text.c_str(), &end);
    if (!std::isfinite(v)) return false;
  }
  return errno == 0 && end != nullptr && *end == '\0';
}

}  // namespace

const CsvField* CsvSchema::field(const std::string& name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> CsvSchema::fixed_columns() const {
  std::vector<std::string> out;
  for (const auto& f : fields) {
    if (f.role == "fixed") out.push_back(f.name);
  }
  return out;
}

CsvSchema parse_csv_schema(const std::string& json_text) {
  CsvSchema s;
  s.text = json_text;
  try {
    const nlohmann::json j = nlohmann::json::parse(json_text);
    for (const auto& f : j.at("fields")) {
      CsvField field;
      field.name = f.at("name").get<std::string>();
      field.type = f.at("type").get<std::string>();
      field.role = f.at("warpcost:role").get<std::string>();
      field.description = f.value("description", "");
      if (field.type != "string" && field.type != "integer" && field.type != "number") {
        throw CsvSchemaError(field.name + ": type '" + field.type + "'; allowed: string, integer, number");
      }
      if (field.role != "fixed" && field.role != "parameter") {
        throw CsvSchemaError(field.name + ": warpcost:role '" + field.role + "'; allowed: fixed, parameter");
      }
      if (f.contains("constraints")) {
        const auto& c = f.at("constraints");
        if (c.contains("enum")) field.allowed = c.at("enum").get<std::vector<std::string>>();
        field.required = c.value("required", false);
      }
      s.fields.push_back(field);
    }
    for (const auto& u : j.at("warpcost:units")) s.units.push_back(u.at("unit").get<std::string>());
    s.cupti_unit_prefix = j.at("warpcost:cuptiUnitPrefix").get<std::string>();
    for (const auto& [kind, verdicts] : j.at("warpcost:verdictsByKind").items()) {
      s.verdicts_by_kind[kind] = verdicts.get<std::vector<std::string>>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw CsvSchemaError(std::string(kSchemaFile) + " is malformed: " + e.what());
  }
  return s;
}

const CsvSchema& csv_schema() {
  static const CsvSchema schema = parse_csv_schema(kSchemaText);
  return schema;
}

void check_csv_cell(const CsvField& field, const std::string& text, const std::string& where) {
  const std::string prefix = where + ": column '" + field.name + "' ";
  if (text.empty()) {
    if (field.required) throw CsvSchemaError(prefix + "is empty; " + kSchemaFile + " requires a value");
    return;
  }
  if (field.type != "string" && !whole_text_is_number(text, field.type == "integer")) {
    throw CsvSchemaError(prefix + "holds '" + text + "'; allowed: " +
                         (field.type == "integer" ? "a whole number" : "a finite number") + " (" +
                         kSchemaFile + ")");
  }
  if (!field.allowed.empty() &&
      std::find(field.allowed.begin(), field.allowed.end(), text) == field.allowed.end()) {
    throw CsvSchemaError(prefix + "holds '" + text + "'; allowed: " + joined(field.allowed) + " (" +
                         kSchemaFile + ")");
  }
}

void check_kind_verdict(const CsvSchema& schema, const std::string& kind, const std::string& verdict,
                        const std::string& where) {
  const auto it = schema.verdicts_by_kind.find(kind);
  if (it == schema.verdicts_by_kind.end()) {
    std::vector<std::string> kinds;
    for (const auto& [k, v] : schema.verdicts_by_kind) kinds.push_back(k);
    throw CsvSchemaError(where + ": kind '" + kind + "'; allowed: " + joined(kinds) + " (" + kSchemaFile + ")");
  }
  if (std::find(it->second.begin(), it->second.end(), verdict) == it->second.end()) {
    throw CsvSchemaError(where + ": verdict '" + verdict + "' for kind '" + kind + "'; allowed: " +
                         joined(it->second) + " (" + kSchemaFile + ")");
  }
}

void check_unit(const CsvSchema& schema, const std::string& unit, const std::string& where) {
  if (std::find(schema.units.begin(), schema.units.end(), unit) != schema.units.end()) return;
  const std::string& p = schema.cupti_unit_prefix;
  if (unit.size() > p.size() && unit.compare(0, p.size(), p) == 0) return;
  throw CsvSchemaError(where + ": unit '" + unit + "'; allowed: " + joined(schema.units) + ", or " + p +
                       "<CUPTI's name> (" + kSchemaFile + ")");
}

}  // namespace warpcost::analysis
