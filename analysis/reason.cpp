#include "analysis/reason.hpp"

#include <stdexcept>

namespace warpcost::analysis {
namespace {
template <class Map>
const typename Map::mapped_type& at(const Map& m, const std::string& code, const char* what, const std::string& key) {
  const auto it = m.find(key);
  if (it == m.end()) throw std::out_of_range("reason '" + code + "' has no " + what + " '" + key + "'");
  return it->second;
}
}  // namespace

double Reason::n(const std::string& key) const { return at(numbers, code, "number", key); }
const std::string& Reason::t(const std::string& key) const { return at(texts, code, "text", key); }
bool Reason::f(const std::string& key) const { return at(flags, code, "flag", key); }

std::string Reason::sentence() const {
  const auto slash = code.find('/');
  return slash == std::string::npos ? code : code.substr(slash + 1);
}

}  // namespace warpcost::analysis
