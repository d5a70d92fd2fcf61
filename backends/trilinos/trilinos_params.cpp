// YAML -> Teuchos::ParameterList, and the origin-aware checks of native options.
#include "backends/trilinos/trilinos_params.hpp"

#include <Teuchos_Array.hpp>

#include <regex>
#include <sstream>

#include "backends/trilinos/trilinos_testing.hpp"
#include "framework/core/error.hpp"
#include "framework/core/params.hpp"

namespace kinema::la::trilinos {

namespace {

enum class Kind { integer, real, boolean, string };

Kind kindOf(const YAML::Node& n, long long& i, double& d, bool& b) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return Kind::string;  // quoted: the user asked for a string
  static const std::regex intRe(R"([-+]?[0-9]+)");
  static const std::regex realRe(R"([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, intRe)) {
    try {
      i = std::stoll(s);
      return Kind::integer;
    } catch (const std::exception&) {
      // too large for 64 bits: fall through to a real
    }
  }
  if (std::regex_match(s, realRe)) {
    d = std::stod(s);
    return Kind::real;
  }
  if (s == "true" || s == "True" || s == "TRUE") {
    b = true;
    return Kind::boolean;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    b = false;
    return Kind::boolean;
  }
  return Kind::string;
}

void setScalar(Teuchos::ParameterList& pl, const std::string& name, const YAML::Node& n) {
  long long i = 0;
  double d = 0;
  bool b = false;
  switch (kindOf(n, i, d, b)) {
    case Kind::integer:
      if (i >= std::numeric_limits<int>::min() && i <= std::numeric_limits<int>::max())
        pl.set(name, static_cast<int>(i));
      else
        pl.set(name, i);
      break;
    case Kind::real: pl.set(name, d); break;
    case Kind::boolean: pl.set(name, b); break;
    case Kind::string: pl.set(name, n.Scalar()); break;
  }
}

void setSequence(Teuchos::ParameterList& pl, const std::string& name, const YAML::Node& seq,
                 const std::string& where) {
  bool allInt = true, allNumber = true;
  for (const YAML::Node& e : seq) {
    if (!e.IsScalar())
      throw InputError(str(where, ": '", name, "' is a list of non-scalars, which has no Teuchos "
                                               "parameter form (use a map for a sublist)"));
    long long i = 0;
    double d = 0;
    bool b = false;
    const Kind k = kindOf(e, i, d, b);
    allInt = allInt && k == Kind::integer;
    allNumber = allNumber && (k == Kind::integer || k == Kind::real);
  }
  if (allInt && seq.size() > 0) {
    Teuchos::Array<int> a;
    for (const YAML::Node& e : seq) a.push_back(static_cast<int>(std::stoll(e.Scalar())));
    pl.set(name, a);
  } else if (allNumber && seq.size() > 0) {
    Teuchos::Array<double> a;
    for (const YAML::Node& e : seq) a.push_back(std::stod(e.Scalar()));
    pl.set(name, a);
  } else {
    Teuchos::Array<std::string> a;
    for (const YAML::Node& e : seq) a.push_back(e.Scalar());
    pl.set(name, a);
  }
}

void convertInto(const YAML::Node& map, Teuchos::ParameterList& pl, const std::string& where) {
  for (const auto& kv : map) {
    const std::string name = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    const std::string at = where + "." + name;
    if (v.IsMap()) {
      convertInto(v, pl.sublist(name), at);
    } else if (v.IsSequence()) {
      setSequence(pl, name, v, at);
    } else if (v.IsScalar()) {
      setScalar(pl, name, v);
    } else {
      throw InputError(str(at, ": a parameter needs a value (got an empty one)"));
    }
  }
}

const char* typeOf(const Teuchos::ParameterEntry& e) {
  if (e.isType<int>()) return "int";
  if (e.isType<long long>()) return "long long";
  if (e.isType<double>()) return "double";
  if (e.isType<bool>()) return "bool";
  if (e.isType<std::string>()) return "string";
  if (e.isType<Teuchos::Array<int>>()) return "Array(int)";
  if (e.isType<Teuchos::Array<double>>()) return "Array(double)";
  if (e.isType<Teuchos::Array<std::string>>()) return "Array(string)";
  return "other";
}

void flatten(const Teuchos::ParameterList& pl, const std::string& path, std::vector<std::string>& out) {
  for (auto it = pl.begin(); it != pl.end(); ++it) {
    const std::string& name = pl.name(it);
    const Teuchos::ParameterEntry& e = pl.entry(it);
    const std::string p = path.empty() ? name : path + "/" + name;
    if (e.isList()) {
      flatten(pl.sublist(name), p, out);
      continue;
    }
    std::ostringstream os;
    os << e.getAny(false);
    out.push_back(p + " (" + typeOf(e) + ") = " + os.str());
  }
}

}  // namespace

const char* packageName(Package p) {
  switch (p) {
    case Package::belos: return "belos";
    case Package::ifpack2: return "ifpack2";
    case Package::muelu: return "muelu";
    case Package::amesos2: return "amesos2";
  }
  return "?";
}

Teuchos::ParameterList yamlToParameterList(const YAML::Node& yaml, const std::string& where) {
  Teuchos::ParameterList pl;
  if (!yaml || yaml.IsNull()) return pl;
  if (!yaml.IsMap())
    throw InputError(str(where, ": expected a map of parameters (a Teuchos parameter list written "
                                "as YAML), got ", yaml.IsSequence() ? "a list" : "a scalar"));
  convertInto(yaml, pl, where);
  return pl;
}

std::vector<std::string> describeConvertedParameters(const YAML::Node& yaml, const std::string& where) {
  std::vector<std::string> out;
  flatten(yamlToParameterList(yaml, where), "", out);
  return out;
}

void widenToValidTypes(Teuchos::ParameterList& user, const Teuchos::ParameterList& valid) {
  for (auto it = user.begin(); it != user.end(); ++it) {
    const std::string& name = user.name(it);
    if (!valid.isParameter(name)) continue;
    const Teuchos::ParameterEntry& v = *valid.getEntryPtr(name);
    Teuchos::ParameterEntry& u = user.getEntry(name);
    if (u.isList() && v.isList()) {
      widenToValidTypes(user.sublist(name), valid.sublist(name));
    } else if (u.isType<int>() && v.isType<double>()) {
      u.setValue(static_cast<double>(Teuchos::getValue<int>(u)));
    }
  }
}

Teuchos::ParameterList NativeOptions::merged(Package p) const {
  Teuchos::ParameterList m = backendWide[static_cast<int>(p)];
  m.setParameters(solverOnly[static_cast<int>(p)]);
  return m;
}

std::string NativeOptions::origin(Package p, const std::string& param) const {
  const bool mine = !param.empty() && solverOnly[static_cast<int>(p)].isParameter(param);
  return str(mine ? "native.trilinos." : "backend.trilinos.", packageName(p));
}

NativeOptions readNativeOptions(const YAML::Node& backendTrilinos, const YAML::Node& solverNative) {
  NativeOptions o;
  for (int k = 0; k < 4; ++k) {
    const Package p = static_cast<Package>(k);
    const std::string name = packageName(p);
    if (backendTrilinos && backendTrilinos.IsMap())
      o.backendWide[k] = yamlToParameterList(backendTrilinos[name], "backend.trilinos." + name);
  }
  if (solverNative && !solverNative.IsNull()) {
    if (!solverNative.IsMap())
      throw InputError("native.trilinos: expected a map with belos / ifpack2 / muelu / amesos2 sections");
    for (const auto& kv : solverNative) {
      const std::string section = kv.first.as<std::string>();
      int k = -1;
      for (int j = 0; j < 4; ++j)
        if (section == packageName(static_cast<Package>(j))) k = j;
      if (k < 0)
        throw InputError(str("native.trilinos: unknown section '", section,
                             "' (the sections are belos, ifpack2, muelu, amesos2)"));
      o.solverOnly[k] = yamlToParameterList(kv.second, "native.trilinos." + section);
    }
  }
  return o;
}

void checkNames(const NativeOptions& o, Package p, const Teuchos::ParameterList& user,
                const Teuchos::ParameterList& valid, const std::string& what) {
  for (auto it = user.begin(); it != user.end(); ++it) {
    const std::string& name = user.name(it);
    if (valid.isParameter(name)) {
      if (user.entry(it).isList() && valid.isSublist(name))
        checkNames(o, p, user.sublist(name), valid.sublist(name), what);
      continue;
    }
    std::string best;
    std::size_t bestD = std::string::npos;
    for (auto v = valid.begin(); v != valid.end(); ++v) {
      const std::size_t d = editDistance(name, valid.name(v));
      if (d < bestD) bestD = d, best = valid.name(v);
    }
    std::string msg = str(o.origin(p, name), ": '", name, "' is not a parameter of ", what);
    if (!best.empty() && bestD <= std::max<std::size_t>(3, name.size() / 3)) msg += "; did you mean '" + best + "'?";
    throw InputError(msg);
  }
}

void rethrowAsInputError(const std::exception& e, const NativeOptions& o, Package p, const std::string& what) {
  std::string text = e.what();
  std::string param;
  std::smatch m;
  static const std::regex nameRe(R"(name=\"([^\"]*)\")");
  static const std::regex paramRe(R"(parameter \"([^\"]*)\")");
  if (std::regex_search(text, m, nameRe) || std::regex_search(text, m, paramRe)) param = m[1];
  std::string suggestion;
  static const std::regex meanRe(R"(Did you mean \"([^\"]*)\")");
  if (std::regex_search(text, m, meanRe)) suggestion = m[1];
  const std::size_t cut = text.find("The valid parameters");
  if (cut != std::string::npos) text.resize(cut);
  for (char& c : text)
    if (c == '\n') c = ' ';
  if (text.size() > 600) text = text.substr(0, 600) + " ...";
  std::string msg = o.origin(p, param) + ": " + what + " rejected ";
  msg += param.empty() ? std::string("its parameters") : "the parameter '" + param + "'";
  if (!suggestion.empty()) msg += " (did you mean '" + suggestion + "'?)";
  throw InputError(msg + ": " + text);
}

}  // namespace kinema::la::trilinos
