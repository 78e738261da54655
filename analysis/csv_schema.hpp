// The tidy CSV's schema as data: analysis/csv-schema.json (a Frictionless Table Schema with
// warpcost's own properties), compiled into the analysis. Every column's type and allowed values,
// the unit vocabulary and the verdicts each kind allows come from that one file; the CSV writer
// checks every cell against it and refuses to write what it does not allow (docs/csv.md).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpcost::analysis {

struct CsvField {
  std::string name;
  std::string type;  // "string", "integer" or "number" (Frictionless names)
  std::string role;  // "fixed" or "parameter"
  std::string description;
  std::vector<std::string> allowed;  // constraints.enum; empty: any value of the type
  bool required = false;             // constraints.required: never empty
};

struct CsvSchema {
  std::vector<CsvField> fields;
  std::vector<std::string> units;  // warpcost:units, in the documented order
  std::string cupti_unit_prefix;   // "cupti:"
  std::map<std::string, std::vector<std::string>> verdicts_by_kind;
  std::string text;  // the JSON itself

  const CsvField* field(const std::string& name) const;  // nullptr when the schema has none
  std::vector<std::string> fixed_columns() const;       // in order
};

// What the schema does not allow: the message names the column, the value and what is allowed.
class CsvSchemaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parsed once from the JSON compiled in at build time.
const CsvSchema& csv_schema();
// Parses a schema text (the tests feed a changed copy); throws CsvSchemaError when malformed.
CsvSchema parse_csv_schema(const std::string& json_text);

// Throws CsvSchemaError unless `text` is a value `field` allows ("" is a missing value and allowed
// unless the field is required).
void check_csv_cell(const CsvField& field, const std::string& text, const std::string& where);
// Throws CsvSchemaError unless the schema allows `verdict` for `kind`.
void check_kind_verdict(const CsvSchema& schema, const std::string& kind, const std::string& verdict,
                        const std::string& where);
// Throws CsvSchemaError unless `unit` is in the vocabulary or carries the CUPTI prefix.
void check_unit(const CsvSchema& schema, const std::string& unit, const std::string& where);

}  // namespace warpcost::analysis
