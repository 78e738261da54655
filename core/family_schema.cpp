#include "core/family_schema.hpp"

#include <stdexcept>

namespace warpcost::schema {
namespace {

const Benchmark& find(const FamilyDescriptor& f, const char* benchmark) {
  for (const auto& b : f.benchmarks) {
    if (std::string(b.name) == benchmark) return b;
  }
  throw std::out_of_range(std::string(f.name) + " has no benchmark '" + benchmark + "'");
}

}  // namespace

std::vector<std::string> FamilyDescriptor::arg_names(const char* benchmark) const {
  const Benchmark& b = find(*this, benchmark);
  std::vector<std::string> names;
  for (const char* p : b.parameters) names.push_back(parameter(p).name);
  return names;
}

std::string FamilyDescriptor::params_text(const char* benchmark,
                                          const std::vector<long long>& values) const {
  const std::vector<std::string> names = arg_names(benchmark);
  if (names.size() != values.size()) {
    throw std::invalid_argument(run_name(benchmark) + " takes " + std::to_string(names.size()) +
                                " parameters, " + std::to_string(values.size()) + " given");
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : ";") + names[i] + "=" + std::to_string(values[i]);
  }
  return text;
}

const Parameter& FamilyDescriptor::parameter(const std::string& parameter_name) const {
  for (const auto& p : parameters) {
    if (parameter_name == p.name) return p;
  }
  throw std::out_of_range(std::string(name) + " has no parameter '" + parameter_name + "'");
}

}  // namespace warpcost::schema
