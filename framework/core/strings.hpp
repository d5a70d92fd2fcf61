#pragma once
// Small string helpers used across the framework and the modules.
#include <string>

namespace kinema {

// "a, b, c": the names of a range joined by `sep`; `none` when the range is empty.
template <class Range>
std::string joinNames(const Range& names, const std::string& none = "", const std::string& sep = ", ") {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : sep) + std::string(n);
  return s.empty() ? none : s;
}

// The same over a projection of each element (e.g. the keys of a map, a field of a struct).
template <class Range, class Proj>
std::string joinNamesBy(const Range& items, Proj proj, const std::string& none = "", const std::string& sep = ", ") {
  std::string s;
  for (const auto& it : items) s += (s.empty() ? "" : sep) + std::string(proj(it));
  return s.empty() ? none : s;
}

}  // namespace kinema
