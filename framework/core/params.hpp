#pragma once
// The parameter schema: every parameter of Kinema is declared once, here, with its type, default,
// allowed range or choices and one line of help. The config is validated against the schema
// before any work; `kinema help <module>` prints it.
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kinema {

// An interval of allowed real (or integer) values; each end may be open, closed or infinite.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool loOpen = false;
  bool hiOpen = false;

  static Range any() { return {}; }
  static Range atLeast(double a) { return {a, std::numeric_limits<double>::infinity(), false, false}; }
  static Range greaterThan(double a) { return {a, std::numeric_limits<double>::infinity(), true, false}; }
  static Range closed(double a, double b) { return {a, b, false, false}; }
  static Range open(double a, double b) { return {a, b, true, true}; }
  static Range leftOpen(double a, double b) { return {a, b, true, false}; }
  static Range positive() { return greaterThan(0.0); }
  static Range nonNegative() { return atLeast(0.0); }

  bool contains(double x) const;
  std::string describe() const;  // e.g. "(0, 1]" or ">= 1"
};

enum class ParamType { boolean, integer, real, string, choice, realList, tree };
std::string typeName(ParamType t);

using ParamValue = std::variant<bool, long long, double, std::string, std::vector<double>>;

struct ParamSpec {
  std::string key;  // dotted path, e.g. "poisson.n"
  ParamType type = ParamType::real;
  ParamValue defaultValue;
  Range range;
  std::vector<std::string> choices;  // for ParamType::choice
  int listSize = -1;                 // for realList: required length, -1 = any
  bool required = false;
  std::string help;
  // What an infinite value means for this key (e.g. "unbreakable"); empty: infinity is refused
  // even where the range is unbounded, so `.inf` or an overflowing 1e999 never reaches a module.
  std::string infinity;

  ParamSpec& infiniteMeans(std::string meaning) {
    infinity = std::move(meaning);
    return *this;
  }

  std::string defaultString() const;
  std::string rangeString() const;  // range or choices, "" if unconstrained
};

class ParamSchema {
 public:
  ParamSpec& addBool(const std::string& key, bool def, const std::string& help);
  ParamSpec& addInt(const std::string& key, long long def, Range range, const std::string& help);
  ParamSpec& addReal(const std::string& key, double def, Range range, const std::string& help);
  ParamSpec& addString(const std::string& key, const std::string& def, const std::string& help);
  ParamSpec& addChoice(const std::string& key, const std::string& def,
                       std::vector<std::string> choices, const std::string& help);
  ParamSpec& addRealList(const std::string& key, std::vector<double> def, int size,
                         const std::string& help);
  // A subtree passed through unchecked (native backend options, Teuchos parameter lists).
  ParamSpec& addTree(const std::string& key, const std::string& help);

  const ParamSpec* find(const std::string& key) const;
  // The pass-through tree that contains `key`, if any.
  const ParamSpec* enclosingTree(const std::string& key) const;
  // True if `key` is a declared group ("poisson" when "poisson.n" is declared).
  bool isGroup(const std::string& key) const;
  const std::vector<ParamSpec>& specs() const { return specs_; }
  // Specs whose key starts with `prefix.` (or all for an empty prefix).
  std::vector<const ParamSpec*> under(const std::string& prefix) const;
  // The closest declared key or group to `key` (for "did you mean"), empty if none is close.
  std::string closest(const std::string& key) const;
  // A human-readable table of the specs under `prefix`.
  std::string describe(const std::string& prefix = "") const;

 private:
  ParamSpec& add(ParamSpec spec);
  std::vector<ParamSpec> specs_;
  std::map<std::string, std::size_t> index_;
};

// Edit distance (for suggestions).
std::size_t editDistance(std::string_view a, std::string_view b);
// The edit distance if it is at most `limit`, else limit + 1 (cheaper: stops early).
std::size_t editDistanceAtMost(std::string_view a, std::string_view b, std::size_t limit);

}  // namespace kinema
