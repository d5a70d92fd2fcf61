#include "framework/core/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "framework/core/error.hpp"

namespace kinema {

std::vector<std::string> splitKey(const std::string& key) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : key) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  for (const auto& p : parts)
    if (p.empty()) throw InputError("invalid key '" + key + "': empty component");
  return parts;
}

namespace {

std::optional<long long> parseInt(const std::string& s) {
  long long v = 0;
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || b == e) return std::nullopt;
  return v;
}

std::optional<double> parseReal(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::string t = s;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  // YAML spellings of infinity.
  if (t == ".inf" || t == "+.inf" || t == "inf") return INFINITY;
  if (t == "-.inf" || t == "-inf") return -INFINITY;
  if (t == ".nan" || t == "nan") return NAN;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> parseBool(const std::string& s) {
  std::string t = s;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "true" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::string shown(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "nothing";
}

}  // namespace

Config::Config(YAML::Node root, std::string source) : root_(std::move(root)), source_(std::move(source)) {
  if (!root_ || root_.IsNull()) root_ = YAML::Node(YAML::NodeType::Map);
  if (!root_.IsMap())
    throw InputError(source_ + ":1: the scene must be a map of keys (e.g. 'module: poisson'), got " +
                     shown(root_));
}

Config Config::loadFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InputError(path + ": no such scene file");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a directory, not a scene file");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the scene file for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  return fromString(ss.str(), path);
}

Config Config::fromString(const std::string& yaml, const std::string& sourceName) {
  try {
    return Config(YAML::Load(yaml), sourceName);
  } catch (const YAML::Exception& e) {
    throw InputError(str(sourceName, ":", e.mark.line + 1, ":", e.mark.column + 1,
                         ": unreadable YAML: ", e.msg));
  }
}

void Config::setValue(const std::string& key, const std::string& yamlValue,
                      const std::string& origin) {
  YAML::Node value;
  try {
    value = YAML::Load(yamlValue);
  } catch (const YAML::Exception& e) {
    throw InputError(origin + ": unreadable value: " + e.msg);
  }
  setNode(key, value, origin);
}

void Config::setString(const std::string& key, const std::string& value, const std::string& origin) {
  setNode(key, YAML::Node(value), origin);
}

void Config::setNode(const std::string& key, const YAML::Node& value, const std::string& origin) {
  auto parts = splitKey(key);
  YAML::Node cur = root_;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const YAML::Node& ccur = cur;
    // A missing key yields an invalid node that cannot be rebound: look it up again after creating.
    if (!ccur[parts[i]] || !ccur[parts[i]].IsMap()) cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
    YAML::Node child = ccur[parts[i]];
    cur.reset(child);
  }
  cur[parts.back()] = value;
  overrideOrigin_[key] = origin;
  schema_ = nullptr;  // must be validated again
}

void Config::set(const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set " + assignment + ": expected key=value, e.g. --set poisson.n=32");
  setValue(assignment.substr(0, eq), assignment.substr(eq + 1), "--set " + assignment);
}

void Config::expandShorthand(const std::string& key, const std::string& field) {
  YAML::Node n = lookup(key);
  if (n && n.IsScalar()) {
    std::string v = n.Scalar();
    std::string origin = where(key);
    YAML::Node m(YAML::NodeType::Map);
    m[field] = v;
    // Rewrite in place so the original mark is kept for the map's parent.
    auto parts = splitKey(key);
    YAML::Node cur = root_;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      const YAML::Node& ccur = cur;
      cur.reset(ccur[parts[i]]);
    }
    cur[parts.back()] = m;
    overrideOrigin_[key + "." + field] = origin;
  }
}

YAML::Node Config::lookup(const std::string& key) const {
  YAML::Node cur = root_;
  for (const auto& p : splitKey(key)) {
    if (!cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& ccur = cur;
    YAML::Node next = ccur[p];
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    cur.reset(next);
  }
  return cur;
}

std::optional<std::string> Config::rawScalar(const std::string& key) const {
  YAML::Node n = lookup(key);
  if (!n || !n.IsScalar()) return std::nullopt;
  return n.Scalar();
}

std::string Config::locate(const std::string& key, const YAML::Node& node) const {
  // Overrides first: their nodes carry marks of the --set text, not of the file.
  for (const auto& [k, origin] : overrideOrigin_)
    if (k == key || key.rfind(k + ".", 0) == 0) return origin;
  if (node && node.Mark().line >= 0) return source_ + ":" + std::to_string(node.Mark().line + 1);
  return source_;
}

std::string Config::where(const std::string& key) const {
  YAML::Node n = lookup(key);
  if (!n) return source_;  // a default: the scene is where it would be set
  return locate(key, n);
}

namespace {

// What validation collects: every problem found, and the values of the keys that passed.
struct Validation {
  std::vector<std::string> errors;
  std::map<std::string, ParamValue> values;
  void fail(const std::string& at, const std::string& key, const std::string& what) {
    errors.push_back(at + ": " + key + ": " + what);
  }
};

// A real number: not NaN, finite unless the key takes infinity, inside the range.
void checkReal(const ParamSpec& spec, const YAML::Node& v, const std::string& at, Validation& val) {
  const std::string& key = spec.key;
  auto r = parseReal(v.Scalar());
  if (!r) return val.fail(at, key, "expected a real number, got " + shown(v));
  if (std::isnan(*r)) return val.fail(at, key, "is NaN");
  if (std::isinf(*r) && spec.infinity.empty())
    return val.fail(at, key, v.Scalar() + " is infinite; this key takes finite values only (range " +
                                 (spec.range.describe().empty() ? "any finite" : spec.range.describe()) + ")");
  if (!spec.range.contains(*r))
    return val.fail(at, key, v.Scalar() + " is out of range " + spec.range.describe());
  val.values[key] = *r;
}

// One of the declared choices; a near miss gets the closest choice as a suggestion.
void checkChoice(const ParamSpec& spec, const YAML::Node& v, const std::string& at, Validation& val) {
  const std::string& key = spec.key;
  const std::string& s = v.Scalar();
  if (std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end()) {
    std::string best;
    std::size_t bestD = std::string::npos;
    for (const auto& c : spec.choices)
      if (editDistance(s, c) < bestD) bestD = editDistance(s, c), best = c;
    std::string msg = "'" + s + "' is not one of " + spec.rangeString();
    if (bestD <= std::max<std::size_t>(2, s.size() / 3)) msg += "; did you mean '" + best + "'?";
    return val.fail(at, key, msg);
  }
  val.values[key] = s;
}

// A list of finite reals, of the declared size if there is one.
void checkRealList(const ParamSpec& spec, const YAML::Node& v, const std::string& at, Validation& val) {
  const std::string& key = spec.key;
  if (!v.IsSequence()) return val.fail(at, key, "expected a list of reals like [0, 0, -9.81], got " + shown(v));
  std::vector<double> out;
  for (const auto& e : v) {
    auto r = e.IsScalar() ? parseReal(e.Scalar()) : std::nullopt;
    if (!r || std::isnan(*r)) return val.fail(at, key, "list entry " + shown(e) + " is not a real number");
    if (std::isinf(*r)) return val.fail(at, key, "list entry " + shown(e) + " is infinite; entries must be finite");
    out.push_back(*r);
  }
  if (spec.listSize >= 0 && static_cast<int>(out.size()) != spec.listSize)
    return val.fail(at, key, str("expected ", spec.listSize, " values, got ", out.size()));
  val.values[key] = out;
}

// The value v given at `at` for a declared key: stored when it is valid, else a problem reported.
void checkValue(const ParamSpec& spec, const YAML::Node& v, const std::string& at, Validation& val) {
  const std::string& key = spec.key;
  if (spec.type == ParamType::tree) return;
  if (v.IsNull()) return val.fail(at, key, "has no value (expected " + typeName(spec.type) + ")");
  if (spec.type != ParamType::realList && !v.IsScalar())
    return val.fail(at, key, "expected " + typeName(spec.type) + ", got " + shown(v));
  switch (spec.type) {
    case ParamType::boolean: {
      auto b = parseBool(v.Scalar());
      if (!b) return val.fail(at, key, "expected true or false, got " + shown(v));
      val.values[key] = *b;
      break;
    }
    case ParamType::integer: {
      auto i = parseInt(v.Scalar());
      if (!i) return val.fail(at, key, "expected an integer, got " + shown(v));
      if (!spec.range.contains(static_cast<double>(*i)))
        return val.fail(at, key, str(*i, " is out of range ", spec.range.describe()));
      val.values[key] = *i;
      break;
    }
    case ParamType::real:
      return checkReal(spec, v, at, val);
    case ParamType::string:
      val.values[key] = v.Scalar();
      break;
    case ParamType::choice:
      return checkChoice(spec, v, at, val);
    case ParamType::realList:
      return checkRealList(spec, v, at, val);
    case ParamType::tree:
      break;
  }
}

// Every key of the map `node` at `path` against the schema, groups recursively. locate(key, node)
// names where a key was given ("file:line" or the --set).
template <class Locate>
void walkMap(const YAML::Node& node, const std::string& path, const ParamSchema& schema, const Locate& locate,
             Validation& val) {
  // yaml-cpp keeps every pair of a map, a repeated key included; lookups would see only one of
  // them, so a repeated key or section is an error naming both places.
  std::map<std::string, std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) {
      val.errors.push_back(locate(path, it->first) + ": " + (path.empty() ? "<top>" : path) +
                           ": keys must be plain names");
      continue;
    }
    const std::string full = path.empty() ? it->first.Scalar() : path + "." + it->first.Scalar();
    const std::string here = locate(full, it->first);
    if (auto [prev, fresh] = seen.emplace(it->first.Scalar(), here); !fresh) {
      val.fail(here, full, "is given twice (first at " + prev->second + "); give each key once");
      continue;
    }
    // A copy (a shared handle): it->second lives in the iterator's temporary proxy, so a
    // reference to it dangles once this statement ends (ASan: stack use after scope).
    const YAML::Node v = it->second;
    const std::string at = locate(full, it->first);
    if (const ParamSpec* spec = schema.find(full)) {
      checkValue(*spec, v, at, val);
    } else if (schema.enclosingTree(full)) {
      // inside a pass-through tree: the backend reads it as it is
    } else if (schema.isGroup(full)) {
      if (!v.IsMap())
        val.fail(at, full, "is a group of parameters and must be a map, got " + shown(v));
      else
        walkMap(v, full, schema, locate, val);
    } else {
      std::string msg = "unknown key";
      std::string best = schema.closest(full);
      if (!best.empty()) msg += "; did you mean '" + best + "'?";
      msg += " (kinema help lists every key)";
      val.fail(at, full, msg);
    }
  }
}

// One InputError listing every problem, if there is any.
void throwIfErrors(const std::vector<std::string>& errors) {
  if (!errors.empty()) {
    std::string msg = errors.size() == 1 ? errors[0]
                                         : str(errors.size(), " problems in the configuration:");
    if (errors.size() > 1)
      for (const auto& e : errors) msg += "\n  " + e;
    throw InputError(msg);
  }
}

}  // namespace

void Config::validate(const ParamSchema& schema) {
  Validation val;
  const auto locateKey = [this](const std::string& key, const YAML::Node& node) { return locate(key, node); };
  walkMap(root_, "", schema, locateKey, val);

  for (const auto& spec : schema.specs()) {
    if (val.values.count(spec.key) || spec.type == ParamType::tree) continue;
    if (spec.required && !lookup(spec.key)) {
      val.errors.push_back(source_ + ": " + spec.key + ": missing required key (" + spec.help + ")");
      continue;
    }
    val.values[spec.key] = spec.defaultValue;
  }

  throwIfErrors(val.errors);
  values_ = std::move(val.values);
  schema_ = &schema;
}

const ParamSpec& Config::specFor(const std::string& key, ParamType expected) const {
  KINEMA_CHECK(schema_, "config read before validation (key '", key, "')");
  const ParamSpec* spec = schema_->find(key);
  KINEMA_CHECK(spec, "parameter '", key, "' is read but was never declared");
  KINEMA_CHECK(spec->type == expected ||
                   (expected == ParamType::string && spec->type == ParamType::choice),
               "parameter '", key, "' is declared as ", typeName(spec->type), " but read as ",
               typeName(expected));
  return *spec;
}

bool Config::getBool(const std::string& key) const {
  specFor(key, ParamType::boolean);
  return std::get<bool>(values_.at(key));
}
long long Config::getInt(const std::string& key) const {
  specFor(key, ParamType::integer);
  return std::get<long long>(values_.at(key));
}
double Config::getReal(const std::string& key) const {
  specFor(key, ParamType::real);
  return std::get<double>(values_.at(key));
}
const std::string& Config::getString(const std::string& key) const {
  specFor(key, ParamType::string);
  return std::get<std::string>(values_.at(key));
}
const std::vector<double>& Config::getRealList(const std::string& key) const {
  specFor(key, ParamType::realList);
  return std::get<std::vector<double>>(values_.at(key));
}
YAML::Node Config::tree(const std::string& key) const {
  specFor(key, ParamType::tree);
  return lookup(key);
}
std::optional<std::string> Config::treeText(const std::string& key) const {
  if (YAML::Node t = tree(key)) return yamlText(t);
  return std::nullopt;
}
std::map<std::string, std::string> Config::treeEntries(const std::string& key) const {
  std::map<std::string, std::string> out;
  if (YAML::Node t = tree(key); t && t.IsMap())
    for (const auto& kv : t) out[kv.first.as<std::string>()] = yamlText(kv.second);
  return out;
}
bool Config::isSet(const std::string& key) const { return static_cast<bool>(lookup(key)); }

std::string Config::resolvedYaml() const {
  KINEMA_CHECK(schema_, "resolvedYaml() before validation");
  YAML::Node out(YAML::NodeType::Map);
  auto put = [&](const std::string& key, const YAML::Node& value) {
    auto parts = splitKey(key);
    YAML::Node cur = out;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      const YAML::Node& ccur = cur;
      if (!ccur[parts[i]]) cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      cur.reset(ccur[parts[i]]);
    }
    cur[parts.back()] = value;
  };
  for (const auto& spec : schema_->specs()) {
    if (spec.type == ParamType::tree) {
      YAML::Node t = lookup(spec.key);
      if (t) put(spec.key, YAML::Clone(t));
      continue;
    }
    const ParamValue& v = values_.at(spec.key);
    YAML::Node n;
    if (auto* b = std::get_if<bool>(&v)) n = *b;
    else if (auto* i = std::get_if<long long>(&v)) n = *i;
    else if (auto* d = std::get_if<double>(&v)) n = *d;
    else if (auto* s = std::get_if<std::string>(&v)) n = *s;
    else if (auto* l = std::get_if<std::vector<double>>(&v)) {
      n = YAML::Node(YAML::NodeType::Sequence);
      for (double x : *l) n.push_back(x);
      n.SetStyle(YAML::EmitterStyle::Flow);
    }
    put(spec.key, n);
  }
  YAML::Emitter em;
  em << out;
  return "# Resolved configuration (every parameter with its effective value).\n# Source: " +
         source_ + "\n" + em.c_str() + "\n";
}

namespace {
void emitFaithful(YAML::Emitter& e, const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      e << YAML::BeginMap;
      for (const auto& kv : n) {
        e << YAML::Key;
        emitFaithful(e, kv.first);
        e << YAML::Value;
        emitFaithful(e, kv.second);
      }
      e << YAML::EndMap;
      return;
    case YAML::NodeType::Sequence:
      e << YAML::BeginSeq;
      for (const auto& v : n) emitFaithful(e, v);
      e << YAML::EndSeq;
      return;
    case YAML::NodeType::Scalar:
      if (n.Tag() == "!")
        e << YAML::DoubleQuoted << n.Scalar();
      else if (!n.Tag().empty() && n.Tag() != "?")
        e << YAML::VerbatimTag(n.Tag()) << n.Scalar();
      else
        e << n.Scalar();
      return;
    default:
      e << YAML::Null;
      return;
  }
}
}  // namespace

std::string yamlText(const YAML::Node& node) {
  YAML::Emitter e;
  e << YAML::Flow;
  emitFaithful(e, node);
  return e.c_str();
}

}  // namespace kinema
