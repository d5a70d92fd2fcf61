#include "framework/la/backend.hpp"

#include <algorithm>
#include <optional>

#include "framework/core/error.hpp"
#include "framework/core/strings.hpp"
#include "framework/la/distributed_backends.hpp"

namespace kinema::la {

namespace {
std::string joined(const std::vector<std::string>& names) { return joinNames(names, "none"); }
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

std::unique_ptr<Preconditioner> Backend::createPreconditioner(const std::string& name) const {
  const std::vector<std::string> native = nativePreconditioners();
  if (contains(native, name)) return createNativePreconditioner(name);
  if (name == "none") return std::make_unique<IdentityPreconditioner>();
  if (customPreconditioners().has(name)) return customPreconditioners().get(name).make(*this);

  std::vector<std::string> known = native;
  if (!contains(known, "none")) known.insert(known.begin(), "none");
  std::string msg = str("backend '", this->name(), "' has no preconditioner '", name, "'");
  if (name == "amg")
    msg += "; algebraic multigrid comes with the petsc (GAMG, hypre) and trilinos (MueLu) backends";
  std::string best;
  std::size_t bestD = std::string::npos;
  for (const auto& n : known) {
    const std::size_t d = editDistance(name, n);
    if (d < bestD) bestD = d, best = n;
  }
  for (const auto& n : customPreconditioners().names()) {
    const std::size_t d = editDistance(name, n);
    if (d < bestD) bestD = d, best = n;
  }
  if (name != "amg" && !best.empty() && bestD <= std::max<std::size_t>(2, name.size() / 3))
    msg += "; did you mean '" + best + "'?";
  msg += str(" (", this->name(), " provides: ", joined(known),
             "; framework preconditioners: ", customPreconditioners().joinedNames(), ")");
  throw InputError(msg);
}

void Backend::requireUsable(const IndexMap& map) const {
  const int ranks = map.comm().size();
  if (ranks <= 1 || distributed()) return;
  std::vector<std::string> capable;
  for (const auto& [n, e] : backends().entries())
    if (e.distributed) capable.push_back(n);
  std::string msg = str("the ", name(), " backend holds global objects in one process, but this run has ",
                        ranks, " ranks; ");
  if (capable.empty())
    msg += "no distributed backend is registered yet (petsc and trilinos arrive with their backends)";
  else
    msg += "use a distributed backend: " + joined(capable);
  throw InputError(msg);
}

std::string distributedBackendNames() {
  std::vector<std::string> capable;
  for (const auto& [n, e] : backends().entries())
    if (e.distributed) capable.push_back(n);
  return joinNames(capable, "none is registered", " or ");
}

void requireDistributedBackend(const Backend& backend, int ranks, const std::string& who) {
  if (ranks <= 1 || backend.distributed()) return;
  throw InputError(str(who, ": a run on ", ranks, " ranks needs a distributed backend (", distributedBackendNames(),
                       "); the scene uses ", backend.name()));
}

NamedRegistry<BackendEntry>& backends() {
  static NamedRegistry<BackendEntry> registry("backend");
  return registry;
}

const ParamBindings<BackendParams>& backendBindings() {
  static const ParamBindings<BackendParams> b = [] {
    ParamBindings<BackendParams> r;
    r.choiceFrom("name", &BackendParams::name, [] { return backends().names(); },
                 "linear-algebra backend holding vectors, matrices and solvers");
    return r;
  }();
  return b;
}

const std::string& backendGroup() {
  static const std::string group = "backend";
  return group;
}

const std::string& backendNameKey() {
  static const std::string key = backendGroup() + "." + backendBindings().keys().front();
  return key;
}

BackendParams readBackendParams(const Config& config) { return backendBindings().read(config, backendGroup()); }

std::vector<std::string> preconditionerNames() {
  std::vector<std::string> names{"none"};
  for (const auto& [n, e] : backends().entries())
    for (const auto& pc : e.nativePreconditioners)
      if (!contains(names, pc)) names.push_back(pc);
  for (const auto& n : anyOperatorPreconditioners())
    if (!contains(names, n)) names.push_back(n);
  return names;
}

void declareBackendParams(ParamSchema& schema) {
  const std::vector<std::string> names = backends().names();
  KINEMA_CHECK(!names.empty(), "no linear-algebra backend is registered");
  BackendParams defaults;
  if (!backends().has(defaults.name)) defaults.name = names.front();
  backendBindings().declare(schema, backendGroup(), defaults);
  for (const auto& [n, e] : backends().entries())
    if (e.declare) e.declare(schema);
}

BackendPtr createBackend(const Config& config) {
  const std::string name = readBackendParams(config).name;
  const BackendEntry& entry = backends().get(name);
  KINEMA_CHECK(static_cast<bool>(entry.make), "backend '", name, "' has no factory");
  ParamSchema own;
  if (entry.declare) entry.declare(own);
  BackendSettings settings;
  for (const ParamSpec& spec : own.specs()) {
    if (spec.type == ParamType::tree) {
      if (std::optional<std::string> t = config.treeText(spec.key)) settings[spec.key] = *t;
    } else {
      KINEMA_CHECK(spec.type == ParamType::string || spec.type == ParamType::choice, "backend '", name,
                   "': parameter ", spec.key, " is a ", typeName(spec.type), "; a backend takes strings and trees");
      settings[spec.key] = config.getString(spec.key);
    }
  }
  BackendPtr b = entry.make(settings);
  KINEMA_CHECK(b != nullptr, "backend '", name, "' factory returned nothing");
  return b;
}

BackendPtr createBackend(const std::string& name) {
  ParamSchema schema;
  declareBackendParams(schema);
  Config config = Config::fromString("{}", "<backend " + name + ">");
  config.setString(backendNameKey(), name, "<backend " + name + ">");
  config.validate(schema);
  return createBackend(config);
}

}  // namespace kinema::la
