#include "framework/core/params.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "framework/core/error.hpp"

namespace kinema {

namespace {
std::string num(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os << std::setprecision(10) << x;
  return os.str();
}
}  // namespace

bool Range::contains(double x) const {
  if (std::isnan(x)) return false;
  if (loOpen ? !(x > lo) : !(x >= lo)) return false;
  if (hiOpen ? !(x < hi) : !(x <= hi)) return false;
  return true;
}

std::string Range::describe() const {
  bool loInf = std::isinf(lo), hiInf = std::isinf(hi);
  if (loInf && hiInf) return "";
  if (hiInf) return (loOpen ? "> " : ">= ") + num(lo);
  if (loInf) return (hiOpen ? "< " : "<= ") + num(hi);
  // Built by append: g++ 12 gives a false -Wrestrict on the chained operator+ here.
  std::string s(loOpen ? "(" : "[");
  s.append(num(lo)).append(", ").append(num(hi)).append(hiOpen ? ")" : "]");
  return s;
}

std::string typeName(ParamType t) {
  switch (t) {
    case ParamType::boolean: return "bool";
    case ParamType::integer: return "integer";
    case ParamType::real: return "real";
    case ParamType::string: return "string";
    case ParamType::choice: return "choice";
    case ParamType::realList: return "list of reals";
    case ParamType::tree: return "tree";
  }
  return "?";
}

std::string ParamSpec::defaultString() const {
  struct V {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(long long i) const { return std::to_string(i); }
    std::string operator()(double d) const { return num(d); }
    std::string operator()(const std::string& s) const { return s.empty() ? "\"\"" : s; }
    std::string operator()(const std::vector<double>& v) const {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + num(v[i]);
      return s + "]";
    }
  };
  if (type == ParamType::tree) return "{}";
  return std::visit(V{}, defaultValue);
}

std::string ParamSpec::rangeString() const {
  if (type == ParamType::choice) {
    std::string s;
    for (std::size_t i = 0; i < choices.size(); ++i) s += (i ? "|" : "") + choices[i];
    return s;
  }
  if (type == ParamType::real && !infinity.empty()) {
    const std::string r = range.describe();
    return r + (r.empty() ? "" : "; ") + ".inf: " + infinity;
  }
  if (type == ParamType::integer || type == ParamType::real) return range.describe();
  if (type == ParamType::realList && listSize >= 0) return std::to_string(listSize) + " values";
  return "";
}

ParamSpec& ParamSchema::add(ParamSpec spec) {
  KINEMA_CHECK(!spec.key.empty(), "parameter with an empty key");
  KINEMA_CHECK(!index_.count(spec.key), "parameter '", spec.key, "' is declared twice");
  KINEMA_CHECK(!spec.help.empty(), "parameter '", spec.key, "' has no help line");
  if (spec.type == ParamType::integer) {
    KINEMA_CHECK(spec.range.contains(static_cast<double>(std::get<long long>(spec.defaultValue))),
                 "default of '", spec.key, "' is outside its range");
  } else if (spec.type == ParamType::real) {
    KINEMA_CHECK(spec.range.contains(std::get<double>(spec.defaultValue)), "default of '", spec.key,
                 "' is outside its range");
  } else if (spec.type == ParamType::choice) {
    const auto& d = std::get<std::string>(spec.defaultValue);
    KINEMA_CHECK(std::find(spec.choices.begin(), spec.choices.end(), d) != spec.choices.end(),
                 "default of '", spec.key, "' is not one of its choices");
  }
  index_[spec.key] = specs_.size();
  specs_.push_back(std::move(spec));
  return specs_.back();
}

ParamSpec& ParamSchema::addBool(const std::string& key, bool def, const std::string& help) {
  return add({key, ParamType::boolean, def, {}, {}, -1, false, help, {}});
}
ParamSpec& ParamSchema::addInt(const std::string& key, long long def, Range range,
                               const std::string& help) {
  return add({key, ParamType::integer, def, range, {}, -1, false, help, {}});
}
ParamSpec& ParamSchema::addReal(const std::string& key, double def, Range range,
                                const std::string& help) {
  return add({key, ParamType::real, def, range, {}, -1, false, help, {}});
}
ParamSpec& ParamSchema::addString(const std::string& key, const std::string& def,
                                  const std::string& help) {
  return add({key, ParamType::string, def, {}, {}, -1, false, help, {}});
}
ParamSpec& ParamSchema::addChoice(const std::string& key, const std::string& def,
                                  std::vector<std::string> choices, const std::string& help) {
  return add({key, ParamType::choice, def, {}, std::move(choices), -1, false, help, {}});
}
ParamSpec& ParamSchema::addRealList(const std::string& key, std::vector<double> def, int size,
                                    const std::string& help) {
  return add({key, ParamType::realList, std::move(def), {}, {}, size, false, help, {}});
}
ParamSpec& ParamSchema::addTree(const std::string& key, const std::string& help) {
  return add({key, ParamType::tree, std::string{}, {}, {}, -1, false, help, {}});
}

const ParamSpec* ParamSchema::find(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &specs_[it->second];
}

const ParamSpec* ParamSchema::enclosingTree(const std::string& key) const {
  for (const auto& s : specs_)
    if (s.type == ParamType::tree && (key == s.key || key.rfind(s.key + ".", 0) == 0)) return &s;
  return nullptr;
}

bool ParamSchema::isGroup(const std::string& key) const {
  const std::string p = key + ".";
  return std::any_of(specs_.begin(), specs_.end(),
                     [&](const ParamSpec& s) { return s.key.rfind(p, 0) == 0; });
}

std::vector<const ParamSpec*> ParamSchema::under(const std::string& prefix) const {
  std::vector<const ParamSpec*> out;
  for (const auto& s : specs_)
    if (prefix.empty() || s.key == prefix || s.key.rfind(prefix + ".", 0) == 0) out.push_back(&s);
  return out;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  return editDistanceAtMost(a, b, std::max(a.size(), b.size()));
}

std::size_t editDistanceAtMost(std::string_view a, std::string_view b, std::size_t limit) {
  // The length difference is a lower bound of the distance.
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
  // Two rows of the Levenshtein table, kept from call to call (no allocation once grown); a row
  // whose smallest entry exceeds the limit ends the computation, since entries never decrease
  // along a path to the last cell.
  thread_local std::vector<std::size_t> prev, cur;
  prev.resize(b.size() + 1);
  cur.resize(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    std::size_t rowMin = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      rowMin = std::min(rowMin, cur[j]);
    }
    if (rowMin > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], limit + 1);
}

std::string ParamSchema::closest(const std::string& key) const {
  // Candidates: every declared key and every group prefix, in declaration order (a key, then its
  // groups from the outermost); the first at the smallest distance wins. Only a suggestion within
  // a third of the key's last component (at least 2 edits) is accepted, so a candidate is measured
  // only up to min(that limit, best so far - 1): validation of a scene with many unknown keys
  // (another module's section) stays cheap.
  const std::string_view last = std::string_view(key).substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
  const std::size_t limit = std::max<std::size_t>(2, last.size() / 3);
  std::string_view best;
  std::size_t bestD = limit + 1;
  auto consider = [&](std::string_view c) {
    const std::size_t d = editDistanceAtMost(key, c, bestD - 1);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  };
  for (const auto& s : specs_) {
    const std::string_view k = s.key;
    consider(k);
    for (std::size_t p = k.find('.'); p != std::string_view::npos; p = k.find('.', p + 1)) consider(k.substr(0, p));
    if (bestD == 0) break;
  }
  return bestD <= limit ? std::string(best) : std::string{};
}

std::string ParamSchema::describe(const std::string& prefix) const {
  std::ostringstream os;
  for (const auto* s : under(prefix)) {
    os << "  " << s->key << "  (" << typeName(s->type);
    if (s->type != ParamType::tree) os << ", default " << s->defaultString();
    std::string r = s->rangeString();
    if (!r.empty()) os << ", " << (s->type == ParamType::choice ? "one of " : "range ") << r;
    if (s->required) os << ", required";
    os << ")\n      " << s->help << "\n";
  }
  return os.str();
}

}  // namespace kinema
